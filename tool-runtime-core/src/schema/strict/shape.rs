//! What a schema describes: objects, values of any type, and free-form
//! maps (an object schema whose keys are not declared).

use serde_json::{Map, Value};

/// Whether an object schema describes objects: `type` is or includes
/// `object`, or it declares `properties`.
pub(super) fn is_object_schema(object: &Map<String, Value>) -> bool {
    let typed = match object.get("type") {
        Some(Value::String(name)) => name == "object",
        Some(Value::Array(names)) => names.iter().any(|name| name == "object"),
        _ => false,
    };
    typed || object.contains_key("properties")
}

/// Keywords that say something about a value's type or shape.
const SHAPE_KEYWORDS: &[&str] = &[
    "type",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "properties",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "not",
];

/// Whether an object schema accepts a value of any type (`{}`, perhaps
/// with a description).
pub(super) fn is_any_value(object: &Map<String, Value>) -> bool {
    !object
        .keys()
        .any(|key| SHAPE_KEYWORDS.contains(&key.as_str()))
}

/// The schema of a free-form map's values: an object schema that declares
/// no properties and gives `additionalProperties` a schema. A map whose
/// values may be anything gives `{}`.
pub(super) fn map_values(object: &Map<String, Value>) -> Option<&Value> {
    const EMPTY: &Value = &Value::Bool(true);
    if !is_object_schema(object) || object.contains_key("$ref") {
        return None;
    }
    let declared = match object.get("properties") {
        Some(Value::Object(properties)) => !properties.is_empty(),
        _ => false,
    };
    if declared || object.contains_key("patternProperties") {
        return None;
    }
    match object.get("additionalProperties") {
        Some(Value::Bool(false)) => None,
        None | Some(Value::Bool(true)) => Some(EMPTY),
        Some(values) => Some(values),
    }
}
