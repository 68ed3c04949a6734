//! The one pass every schema goes through before it is rendered.
//!
//! Tool schemas come from `schemars` (for `#[tool]` functions) or from
//! hand-written JSON. Both may hold things that are valid JSON Schema yet
//! trip real clients: boolean sub-schemas (`"body": true` for a
//! `serde_json::Value`), which the official TypeScript MCP SDK refuses,
//! and `format` values that only schemars knows (`uint32`, `double`), which
//! validators warn about and providers ignore. [`normalize`] rewrites a
//! schema so every client accepts it, without changing what it accepts:
//!
//! | in the schema | after [`normalize`] |
//! | --- | --- |
//! | `true` as a schema (any value) | `{}`, which keeps a description added beside it |
//! | `false` as a schema (no value) | `{"not": {}}` |
//! | `additionalProperties: true` | removed (the same meaning) |
//! | `additionalProperties: false` | kept: every provider documents it, and OpenAI strict mode requires it |
//! | `format` outside [`STANDARD_FORMATS`] | removed; an integer format's range becomes `minimum`/`maximum` |
//!
//! Properties keep the order they are declared in (struct fields in field
//! order): models fill arguments in the order a schema lists them.
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::schema;
//!
//! let mut input = json!({
//!     "type": "object",
//!     "properties": {
//!         "count": {"type": "integer", "format": "uint8", "minimum": 0},
//!         "body": true
//!     }
//! });
//! schema::normalize(&mut input);
//! assert_eq!(input["properties"]["count"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
//! assert_eq!(input["properties"]["body"], json!({}));
//! // Declaration order, not alphabetical order.
//! let names: Vec<&String> = input["properties"].as_object().unwrap().keys().collect();
//! assert_eq!(names, ["count", "body"]);
//! ```

use serde_json::{Map, Value};

pub mod compat;
mod lint;
// Public as `tool_runtime::schema::strict`, where its documentation is.
#[doc(hidden)]
pub mod strict;
pub(crate) mod typed;

pub use lint::{SchemaProblem, unsatisfiable};

/// The `format` values [`normalize`] keeps: those JSON Schema 2020-12
/// defines. Others (schemars' `uint32`, `int64`, `double`, `float`, ...)
/// are removed.
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
];

/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords that may be `false` and stay so (see the module's table).
const CLOSED: &[&str] = &["additionalProperties", "unevaluatedProperties"];

/// Rewrites `schema` in place so every client accepts it; see the
/// [module documentation](self). Running it twice changes nothing more.
pub fn normalize(schema: &mut Value) {
    // An explicit stack: a schema from a file may nest deeper than the
    // call stack would like.
    let mut stack: Vec<&mut Value> = vec![schema];
    while let Some(node) = stack.pop() {
        if let Value::Bool(accepts) = node {
            *node = boolean_schema(*accepts);
        }
        let Value::Object(object) = node else {
            continue;
        };
        tidy_format(object);
        for key in CLOSED {
            if object.get(*key) == Some(&Value::Bool(true)) {
                object.shift_remove(*key);
            }
        }
        for (key, child) in object.iter_mut() {
            let key = key.as_str();
            if CLOSED.contains(&key) {
                if !child.is_boolean() {
                    stack.push(child);
                }
            } else if ONE_SCHEMA.contains(&key) {
                // `items` may be a list of schemas in older drafts.
                match child {
                    Value::Array(items) => stack.extend(items.iter_mut()),
                    _ => stack.push(child),
                }
            } else if SCHEMA_LISTS.contains(&key) {
                if let Value::Array(items) = child {
                    stack.extend(items.iter_mut());
                }
            } else if SCHEMA_MAPS.contains(&key)
                && let Value::Object(map) = child
            {
                stack.extend(map.values_mut());
            }
        }
    }
}

/// The object form of a boolean schema.
pub(crate) fn boolean_schema(accepts: bool) -> Value {
    if accepts {
        Value::Object(Map::new())
    } else {
        Value::Object(Map::from_iter([(
            "not".to_owned(),
            Value::Object(Map::new()),
        )]))
    }
}

/// Removes a non-standard `format`, keeping an integer format's range as
/// `minimum`/`maximum` when the schema does not state them.
fn tidy_format(object: &mut Map<String, Value>) {
    let Some(Value::String(format)) = object.get("format") else {
        return;
    };
    if STANDARD_FORMATS.contains(&format.as_str()) {
        return;
    }
    let range: Option<(i64, Option<i64>)> = match format.as_str() {
        "int8" => Some((i8::MIN.into(), Some(i8::MAX.into()))),
        "int16" => Some((i16::MIN.into(), Some(i16::MAX.into()))),
        "int32" => Some((i32::MIN.into(), Some(i32::MAX.into()))),
        "uint8" => Some((0, Some(u8::MAX.into()))),
        "uint16" => Some((0, Some(u16::MAX.into()))),
        "uint32" => Some((0, Some(u32::MAX.into()))),
        // 64-bit ranges pass what a JSON number can carry exactly; only
        // the sign means anything to a model.
        "uint64" | "uint" | "uint128" | "usize" => Some((0, None)),
        _ => None,
    };
    object.shift_remove("format");
    if let Some((low, high)) = range {
        if !object.contains_key("minimum") && !object.contains_key("exclusiveMinimum") {
            object.insert("minimum".into(), low.into());
        }
        if let Some(high) = high
            && !object.contains_key("maximum")
            && !object.contains_key("exclusiveMaximum")
        {
            object.insert("maximum".into(), high.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn boolean_sub_schemas_become_objects() {
        let mut schema = json!({
            "type": "object",
            "properties": {"any": true, "none": false, "list": {"type": "array", "items": true}},
            "additionalProperties": false,
            "$defs": {"X": {"anyOf": [true, {"type": "null"}], "additionalProperties": true}}
        });
        normalize(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {"any": {}, "none": {"not": {}}, "list": {"type": "array", "items": {}}},
                "additionalProperties": false,
                "$defs": {"X": {"anyOf": [{}, {"type": "null"}]}}
            })
        );
    }

    #[test]
    fn formats_outside_the_standard_are_dropped_with_their_range_kept() {
        let mut schema = json!({"anyOf": [
            {"type": "integer", "format": "uint32", "minimum": 0},
            {"type": "integer", "format": "int16"},
            {"type": "number", "format": "double"},
            {"type": "string", "format": "date-time"},
            {"type": "integer", "format": "uint64", "minimum": 0},
            {"type": "integer", "format": "uint8", "maximum": 9}
        ]});
        normalize(&mut schema);
        assert_eq!(
            schema["anyOf"],
            json!([
                {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                {"type": "integer", "minimum": -32768, "maximum": 32767},
                {"type": "number"},
                {"type": "string", "format": "date-time"},
                {"type": "integer", "minimum": 0},
                {"type": "integer", "maximum": 9, "minimum": 0}
            ])
        );
    }

    #[test]
    fn data_keywords_are_left_alone() {
        let mut schema =
            json!({"default": true, "enum": [true, false], "const": false, "examples": [true]});
        let before = schema.clone();
        normalize(&mut schema);
        assert_eq!(schema, before);
    }

    #[test]
    fn deep_schemas_do_not_overflow() {
        let mut schema = json!({});
        for _ in 0..50_000 {
            schema = Value::Object(Map::from_iter([("items".to_owned(), schema)]));
        }
        normalize(&mut schema);
        // Dropped iteratively too.
        let mut stack = vec![schema];
        while let Some(mut node) = stack.pop() {
            if let Some(child) = node.get_mut("items") {
                stack.push(child.take());
            }
        }
    }
}
