//! What an answer must be beyond being given, from a JSON-schema property (an MCP server's
//! requested field): a number within its bounds, a text of some length or format (email,
//! address, date), a number of choices. Checked where the answer is taken (the terminal after
//! each question, the page's submission before it is accepted), and said in words the person
//! can act on.

use serde_json::Value;

use super::answers::ReplyValue;

/// The schema of one field.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule(Value);

impl Rule {
    pub fn new(schema: Value) -> Self {
        Self(schema)
    }

    fn number(&self, name: &str) -> Option<f64> {
        self.0.get(name).and_then(Value::as_f64)
    }

    /// A count (`minLength`, `maxItems`): a whole number, written `2` or `2.0`.
    fn count(&self, name: &str) -> Option<u64> {
        let value = self.0.get(name)?;
        value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n < u64::MAX as f64)
                .map(|n| n as u64)
        })
    }

    fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// What a typed answer must look like, in words (`A whole number from 1 to 100.`).
    pub fn hint(&self) -> Option<String> {
        let noun = match self.kind() {
            "integer" => "A whole number",
            "number" => "A number",
            "string" => match self.0.get("format").and_then(Value::as_str) {
                Some("email") => "An email address",
                Some("uri") => "An address (URI)",
                Some("date") => "A date like 2026-11-24",
                Some("date-time") => "A date and time like 2026-11-24T09:30:00Z",
                _ => return self.length_hint(),
            },
            _ => return None,
        };
        Some(match (self.number("minimum"), self.number("maximum")) {
            (Some(min), Some(max)) => format!("{noun} from {min} to {max}."),
            (Some(min), None) => format!("{noun}, at least {min}."),
            (None, Some(max)) => format!("{noun}, at most {max}."),
            (None, None) => format!("{noun}."),
        })
    }

    fn length_hint(&self) -> Option<String> {
        match (self.count("minLength"), self.count("maxLength")) {
            (Some(min), Some(max)) => Some(format!("{min} to {max} characters.")),
            (Some(min), None) => Some(format!("At least {min} characters.")),
            (None, Some(max)) => Some(format!("At most {max} characters.")),
            (None, None) => None,
        }
    }

    /// Whether `given` (not empty) fits; `Err` says what to change.
    pub fn check(&self, given: &ReplyValue) -> Result<(), String> {
        if self.kind() == "array" {
            let chosen = match given {
                ReplyValue::Many(items) => items.len() as u64,
                ReplyValue::One(_) => 1,
            };
            return match (self.count("minItems"), self.count("maxItems")) {
                (Some(min), _) if chosen < min => Err(format!("Choose at least {min}.")),
                (_, Some(max)) if chosen > max => Err(format!("Choose at most {max}.")),
                _ => Ok(()),
            };
        }
        let text = given.joined();
        let text = text.trim();
        match self.kind() {
            "integer" | "number" => self.check_number(text),
            "string" => self.check_string(text),
            _ => Ok(()),
        }
    }

    fn check_number(&self, text: &str) -> Result<(), String> {
        let hint = self.hint().unwrap_or_default();
        let wrong = || format!("{text:?} is not {}", lower(&hint));
        let number: f64 = text.parse().map_err(|_| wrong())?;
        let whole = self.kind() == "integer";
        if (whole && number.fract() != 0.0)
            || self.number("minimum").is_some_and(|min| number < min)
            || self.number("maximum").is_some_and(|max| number > max)
        {
            return Err(wrong());
        }
        Ok(())
    }

    /// The value to send for a checked number: an integer as one.
    pub fn number_value(&self, text: &str) -> Option<Value> {
        let number: f64 = text.trim().parse().ok()?;
        Some(match self.kind() {
            "integer" => Value::from(number as i64),
            _ => Value::from(number),
        })
    }

    fn check_string(&self, text: &str) -> Result<(), String> {
        let length = text.chars().count() as u64;
        if self.count("minLength").is_some_and(|min| length < min)
            || self.count("maxLength").is_some_and(|max| length > max)
        {
            let hint = self.length_hint().unwrap_or_default();
            return Err(format!("Give {}", lower(&hint)));
        }
        let format = self.0.get("format").and_then(Value::as_str);
        let ok = format.is_none_or(|format| super::format::fits(format, text));
        match ok {
            true => Ok(()),
            false => Err(format!(
                "{text:?} is not {}",
                lower(&self.hint().unwrap_or_default())
            )),
        }
    }
}

/// `A whole number from 1 to 100.` as `a whole number from 1 to 100.`
fn lower(sentence: &str) -> String {
    let mut chars = sentence.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_told_what_to_change() {
        let one =
            |schema: Value, text: &str| Rule::new(schema).check(&ReplyValue::One(text.into()));
        let integer = json!({"type": "integer", "minimum": 1, "maximum": 100});
        let cases: &[(Value, &str, Result<(), &str>)] = &[
            (integer.clone(), "42", Ok(())),
            (
                integer.clone(),
                "1000",
                Err("\"1000\" is not a whole number from 1 to 100."),
            ),
            (
                integer.clone(),
                "4.5",
                Err("\"4.5\" is not a whole number from 1 to 100."),
            ),
            (
                json!({"type": "number"}),
                "lots",
                Err("\"lots\" is not a number."),
            ),
            (json!({"type": "number", "minimum": 0}), "3.14", Ok(())),
            (
                json!({"type": "string", "format": "email"}),
                "nobody",
                Err("\"nobody\" is not an email address."),
            ),
            (
                json!({"type": "string", "format": "email"}),
                "m@example.com",
                Ok(()),
            ),
            (
                json!({"type": "string", "format": "date"}),
                "24.11.2026",
                Err("\"24.11.2026\" is not a date like 2026-11-24."),
            ),
            (
                json!({"type": "string", "format": "uri"}),
                "https://example.com",
                Ok(()),
            ),
            (
                json!({"type": "string", "maxLength": 3}),
                "four",
                Err("Give at most 3 characters."),
            ),
        ];
        for (schema, text, expected) in cases {
            assert_eq!(
                one(schema.clone(), text),
                expected.map_err(str::to_string),
                "{schema} {text}"
            );
        }
        let three = Rule::new(json!({"type": "array", "minItems": 1, "maxItems": 2}));
        let many = |n: usize| ReplyValue::Many(vec!["x".into(); n]);
        assert_eq!(three.check(&many(3)), Err("Choose at most 2.".into()));
        assert_eq!(three.check(&many(2)), Ok(()));
        assert_eq!(
            Rule::new(json!({"type": "integer"})).number_value("42"),
            Some(json!(42))
        );
    }
}
