//! The chunk nearly every streamed token comes in, read without building a `Value`:
//! `{"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":[{"index":0,
//! "delta":{"content":"…"},"finish_reason":null}]}`. Anything else (another key, a second
//! choice, a key twice, an array where an object is due, a usage, an error) is not this
//! shape: the caller reads it as a `Value`, as every chunk was read before. Building that
//! `Value` (three maps, a string for every key) was most of the time Marvin spent on a token.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// What a chunk of the common shape says: its text (`delta.content`) and finish reason.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Plain {
    pub content: Option<String>,
    pub finish_reason: Option<String>,
}

/// The chunk's content and finish reason when `data` is of the common shape, else `None`.
pub(crate) fn plain(data: &str) -> Option<Plain> {
    let mut reader = serde_json::Deserializer::from_str(data);
    let plain = reader.deserialize_map(Top).ok()?;
    reader.end().ok()?;
    Some(plain)
}

/// Declines the chunk: it is read as a `Value` instead.
fn other<E: de::Error>() -> E {
    E::custom("not the common chunk")
}

struct Top;

impl<'de> Visitor<'de> for Top {
    type Value = Plain;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a chunk object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Plain, A::Error> {
        let mut plain = None;
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "choices" if plain.is_none() => plain = Some(map.next_value_seed(Choices)?),
                "id" | "object" | "created" | "model" | "system_fingerprint" => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => return Err(other()),
            }
        }
        plain.ok_or_else(other)
    }
}

/// `choices`: exactly one choice, of index 0.
struct Choices;

impl<'de> de::DeserializeSeed<'de> for Choices {
    type Value = Plain;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Plain, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Choices {
    type Value = Plain;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("one choice")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Plain, A::Error> {
        let plain = seq.next_element_seed(Choice)?.ok_or_else(other)?;
        match seq.next_element::<IgnoredAny>()? {
            None => Ok(plain),
            Some(_) => Err(other()),
        }
    }
}

/// A choice: `index` 0, a `delta` of text alone, a finish reason (a string or null).
struct Choice;

impl<'de> de::DeserializeSeed<'de> for Choice {
    type Value = Plain;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Plain, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Choice {
    type Value = Plain;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a choice object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Plain, A::Error> {
        let (mut index, mut content, mut reason) = (None, None, None);
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "index" if index.is_none() => index = Some(map.next_value::<i64>()?),
                "delta" if content.is_none() => content = Some(map.next_value_seed(Delta)?),
                "finish_reason" if reason.is_none() => {
                    reason = Some(map.next_value::<Option<String>>()?)
                }
                "logprobs" => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => return Err(other()),
            }
        }
        if index != Some(0) {
            return Err(other());
        }
        Ok(Plain {
            content: content.ok_or_else(other)?,
            finish_reason: reason.flatten(),
        })
    }
}

/// A delta of text alone: `content` (a string or null), and perhaps its `role`.
struct Delta;

impl<'de> de::DeserializeSeed<'de> for Delta {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Delta {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a delta object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
        let (mut content, mut role) = (None, false);
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "content" if content.is_none() => {
                    content = Some(map.next_value::<Option<String>>()?)
                }
                "role" if !role => {
                    role = true;
                    map.next_value::<IgnoredAny>()?;
                }
                _ => return Err(other()),
            }
        }
        Ok(content.flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(content: &str) -> Option<Plain> {
        Some(Plain {
            content: Some(content.into()),
            finish_reason: None,
        })
    }

    #[test]
    fn the_common_chunk_is_read() {
        let chunk = r#"{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":null,"choices":[{"index":0,"delta":{"content":" word1"},"logprobs":null,"finish_reason":null}]}"#;
        assert_eq!(plain(chunk), text(" word1"));
        assert_eq!(
            plain(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"a\"\n"}}]}"#),
            text("a\"\n")
        );
        assert_eq!(
            plain(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
            Some(Plain {
                content: None,
                finish_reason: Some("stop".into())
            })
        );
    }

    #[test]
    fn any_other_shape_is_declined() {
        for chunk in [
            r#"[{"choices":[{"index":0,"delta":{"content":"a"}}]}]"#,
            r#"{"choices":[[0,{"content":"a"},null]]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a"}}],"error":"no"}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a"}}],"x_groq":{}}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{}}]}"#,
            r#"{"choices":[{"index":1,"delta":{"content":"a"}}]}"#,
            r#"{"choices":[{"delta":{"content":"a"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a","tool_calls":[]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a","refusal":"b"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"a"}}]}"#,
            r#"{"choices":[{"index":0,"message":{"content":"a"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":1}]}"#,
            r#"{"choices":[{"index":"0","delta":{"content":"a"}}]}"#,
            r#"{"choices":[]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a"}}]} x"#,
            r#"{"id":"x"}"#,
            "{not json",
        ] {
            assert_eq!(plain(chunk), None, "{chunk}");
        }
    }
}
