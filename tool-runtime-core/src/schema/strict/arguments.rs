//! Arguments back from their strict form: key/value lists to maps, JSON
//! text to the value it holds.

use serde_json::{Map, Value};

use super::nullable::is_null_schema;
use super::references::resolve_ref;
use super::shape::{is_any_value, map_values};

/// Whether arguments in the strict form of `schema` differ in shape from
/// arguments in its ordinary form: it has a free-form map (sent as a list of
/// `{"key", "value"}` objects) or a value of any type (sent as JSON text),
/// so they need [`from_strict_arguments`] before they decode.
pub fn arguments_differ(schema: &Value) -> bool {
    let mut stack = vec![(schema, true)];
    while let Some((node, root)) = stack.pop() {
        let object = match node {
            Value::Object(object) => object,
            Value::Bool(true) => return true,
            _ => continue,
        };
        if !root && (is_any_value(object) || map_values(object).is_some()) {
            return true;
        }
        for (key, child) in object {
            match (key.as_str(), child) {
                ("enum" | "const" | "default" | "examples" | "required", _) => {}
                ("properties" | "$defs" | "definitions", Value::Object(map)) => {
                    stack.extend(map.values().map(|value| (value, false)));
                }
                ("anyOf" | "oneOf" | "allOf", Value::Array(items)) => {
                    stack.extend(items.iter().map(|value| (value, false)));
                }
                ("items" | "additionalProperties", Value::Object(_)) => {
                    stack.push((child, false));
                }
                _ => {}
            }
        }
    }
    false
}

/// Arguments in the strict form of `schema` turned back into its ordinary
/// form: a list of `{"key", "value"}` objects where `schema` has a
/// free-form map becomes that map, and JSON text where it accepts any value
/// becomes the value the text holds (text that is not JSON stays a
/// string). Everything else is left as it is, for the decoder to judge.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::schema::strict;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "headers": {"type": "object", "additionalProperties": {"type": "string"}},
///         "body": {"description": "Anything"}
///     }
/// });
/// let sent = json!({
///     "headers": [{"key": "Accept", "value": "text/plain"}],
///     "body": "{\"id\": 7}"
/// });
/// assert_eq!(
///     strict::from_strict_arguments(&schema, sent),
///     json!({"headers": {"Accept": "text/plain"}, "body": {"id": 7}})
/// );
/// ```
pub fn from_strict_arguments(schema: &Value, arguments: Value) -> Value {
    Unstrict { root: schema }.value(schema, arguments, 0)
}

struct Unstrict<'a> {
    root: &'a Value,
}

impl Unstrict<'_> {
    /// How deep the walk follows a schema; deeper values are left as they
    /// are (references may recurse).
    const MAX_DEPTH: usize = 64;

    fn value(&self, schema: &Value, value: Value, depth: usize) -> Value {
        if depth > Self::MAX_DEPTH || value.is_null() {
            return value;
        }
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(true) => return parse_json_text(value),
            _ => return value,
        };
        if let Some(Value::String(reference)) = object.get("$ref") {
            return match resolve_ref(self.root, reference) {
                Some(target) => self.value(target, value, depth + 1),
                None => value,
            };
        }
        if is_any_value(object) {
            return parse_json_text(value);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = object.get(key) {
                // Only an optional value (one branch besides `null`) is
                // followed: anything else would be a guess.
                let mut real = branches.iter().filter(|b| !is_null_schema(b));
                return match (real.next(), real.next()) {
                    (Some(branch), None) => self.value(branch, value, depth + 1),
                    _ => value,
                };
            }
        }
        if let Some(values) = map_values(object)
            && let Value::Array(entries) = value
        {
            return self.entries(values, entries, depth);
        }
        match value {
            Value::Object(mut members) => {
                if let Some(Value::Object(properties)) = object.get("properties") {
                    for (name, property) in properties {
                        if let Some(slot) = members.get_mut(name) {
                            *slot = self.value(property, slot.take(), depth + 1);
                        }
                    }
                }
                Value::Object(members)
            }
            Value::Array(items) => match object.get("items") {
                Some(item) if item.is_object() => Value::Array(
                    items
                        .into_iter()
                        .map(|entry| self.value(item, entry, depth + 1))
                        .collect(),
                ),
                _ => Value::Array(items),
            },
            other => other,
        }
    }

    /// A list of `{"key", "value"}` objects as a map; a list in any other
    /// shape is left for the decoder to report.
    fn entries(&self, values: &Value, entries: Vec<Value>, depth: usize) -> Value {
        let well_formed = entries.iter().all(|entry| {
            entry.as_object().is_some_and(|e| {
                e.len() == 2
                    && e.get("key").is_some_and(Value::is_string)
                    && e.contains_key("value")
            })
        });
        if !well_formed {
            return Value::Array(entries);
        }
        let mut map = Map::new();
        for entry in entries {
            if let Value::Object(mut entry) = entry
                && let Some(Value::String(key)) = entry.shift_remove("key")
            {
                let value = entry.shift_remove("value").unwrap_or(Value::Null);
                map.insert(key, self.value(values, value, depth + 1));
            }
        }
        Value::Object(map)
    }
}

/// JSON text back to the value it holds; other values as they are.
fn parse_json_text(value: Value) -> Value {
    match &value {
        Value::String(text) => serde_json::from_str(text).unwrap_or(value),
        _ => value,
    }
}
