//! The two transforms that change the shape of arguments: a free-form map
//! becomes a list of `{"key", "value"}` objects, and a value of any type
//! becomes a string of JSON text. [`super::arguments`] turns them back.

use serde_json::{Map, Value};

/// A value of any type as strict mode can carry it: JSON text in a string.
pub(super) fn json_text(object: &Map<String, Value>) -> Value {
    let mut out = Map::from_iter([("type".to_owned(), Value::from("string"))]);
    let note = "Write the value as JSON text.";
    let description = match object.get("description").and_then(Value::as_str) {
        Some(text) if !text.is_empty() => format!("{text} ({note})"),
        _ => note.to_owned(),
    };
    out.insert("description".into(), description.into());
    Value::Object(out)
}

/// A free-form map as a list of `{"key", "value"}` objects, `value` being
/// the map's values already converted; nullable when the map was.
pub(super) fn key_value_list(object: &Map<String, Value>, value: Value) -> Value {
    let mut key = Map::from_iter([("type".to_owned(), Value::from("string"))]);
    if let Some(Value::Object(names)) = object.get("propertyNames")
        && let Some(pattern) = names.get("pattern")
    {
        key.insert("pattern".into(), pattern.clone());
    }
    let entry = Map::from_iter([
        ("type".to_owned(), Value::from("object")),
        (
            "properties".to_owned(),
            Value::Object(Map::from_iter([
                ("key".to_owned(), Value::Object(key)),
                ("value".to_owned(), value),
            ])),
        ),
        ("required".to_owned(), Value::from(vec!["key", "value"])),
        ("additionalProperties".to_owned(), Value::Bool(false)),
    ]);
    let nullable = match object.get("type") {
        Some(Value::Array(names)) => names.iter().any(|name| name == "null"),
        _ => false,
    };
    let mut out = Map::new();
    out.insert(
        "type".into(),
        if nullable {
            Value::from(vec!["array", "null"])
        } else {
            Value::from("array")
        },
    );
    if let Some(description) = object.get("description") {
        out.insert("description".into(), description.clone());
    }
    out.insert("items".into(), Value::Object(entry));
    Value::Object(out)
}
