//! The order in which a server wrote the fields of a requested schema. serde_json's objects
//! sort their keys (its `preserve_order` would bring in indexmap for every map in Marvin), so
//! the order is read once more from the message's own text, only for messages that ask for
//! input, and kept beside the schema's `properties` as [`KEY`].

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

/// Where the written order of `properties` is kept, in a `requestedSchema` object.
pub const KEY: &str = "x-marvin-order";

/// The keys of every object in the order written, each with its value's own keys; lists by
/// position; nothing of anything else.
enum Tree {
    Object(Vec<(String, Tree)>),
    List(Vec<Tree>),
    Leaf,
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            keys.push((key, map.next_value::<Tree>()?));
        }
        Ok(Tree::Object(keys))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Tree>()? {
            items.push(item);
        }
        Ok(Tree::List(items))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Tree, E> {
        Ok(Tree::Leaf)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Tree, E> {
        Ok(Tree::Leaf)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Tree, E> {
        Ok(Tree::Leaf)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Tree, E> {
        Ok(Tree::Leaf)
    }

    fn visit_str<E>(self, _: &str) -> Result<Tree, E> {
        Ok(Tree::Leaf)
    }

    fn visit_unit<E>(self) -> Result<Tree, E> {
        Ok(Tree::Leaf)
    }

    fn visit_none<E>(self) -> Result<Tree, E> {
        Ok(Tree::Leaf)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, inner: D) -> Result<Tree, D::Error> {
        IgnoredAny::deserialize(inner).map(|_| Tree::Leaf)
    }
}

/// Marks every `requestedSchema` in `value` (parsed from `text`) with the order its
/// properties were written in; a schema already marked keeps its mark.
pub fn mark(value: &mut Value, text: &str) {
    if !text.contains("\"requestedSchema\"") {
        return;
    }
    if let Ok(tree) = serde_json::from_str::<Tree>(text) {
        walk(value, &tree);
    }
}

fn walk(value: &mut Value, tree: &Tree) {
    match (value, tree) {
        (Value::Object(object), Tree::Object(keys)) => {
            for (key, below) in keys {
                let Some(inner) = object.get_mut(key) else {
                    continue;
                };
                if key == "requestedSchema" {
                    keep_order(inner, below);
                }
                walk(inner, below);
            }
        }
        (Value::Array(items), Tree::List(trees)) => {
            for (item, below) in items.iter_mut().zip(trees) {
                walk(item, below);
            }
        }
        _ => {}
    }
}

fn keep_order(schema: &mut Value, tree: &Tree) {
    let Tree::Object(keys) = tree else { return };
    let Some((_, Tree::Object(properties))) = keys.iter().find(|(key, _)| key == "properties")
    else {
        return;
    };
    let Value::Object(schema) = schema else {
        return;
    };
    if !schema.contains_key(KEY) {
        let names: Vec<&str> = properties.iter().map(|(name, _)| name.as_str()).collect();
        schema.insert(KEY.into(), json!(names));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_written_order_is_kept_at_any_depth() {
        let text = r#"{"id": 0, "params": {"requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}, "check": {"type": "boolean", "default": null}, "age": {"enum": [1, 2.5]}}}},
            "inputRequests": [{"x": {"requestedSchema": {"properties": {"zeta": {}, "alpha": {}}}}}]}"#;
        let mut value: Value = serde_json::from_str(text).unwrap();
        mark(&mut value, text);
        assert_eq!(
            value["params"]["requestedSchema"][KEY],
            json!(["name", "check", "age"])
        );
        assert_eq!(
            value["inputRequests"][0]["x"]["requestedSchema"][KEY],
            json!(["zeta", "alpha"])
        );
        // Marked once: a message written again (sorted) keeps the first order.
        let again = value.to_string();
        mark(&mut value, &again);
        assert_eq!(
            value["params"]["requestedSchema"][KEY],
            json!(["name", "check", "age"])
        );
    }
}
