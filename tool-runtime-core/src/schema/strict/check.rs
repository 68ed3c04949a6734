//! Checking a schema against strict mode as it is: every broken rule, with
//! its JSON pointer.

use serde_json::{Map, Value};

use super::rules::{
    ALLOWED, INEXPRESSIBLE, MAX_DEPTH, MAX_ENUM_VALUES, MAX_PROPERTIES, SUPPORTED_FORMATS,
    check_type,
};
use super::shape::is_object_schema;
use super::violation::{StrictViolation, push_pointer};

/// Whether `schema` follows every rule of strict mode as it is.
pub fn is_strict(schema: &Value) -> bool {
    check(schema).is_empty()
}

/// Every rule of strict mode `schema` breaks as it is, each with the JSON
/// pointer of the problem, in document order (keywords of a schema before
/// its subschemas).
///
/// References are not followed: the schemas under `$defs` are checked where
/// they are.
pub fn check(schema: &Value) -> Vec<StrictViolation> {
    let mut checker = Checker::default();
    match schema {
        Value::Object(object) => {
            if object.contains_key("anyOf") || object.contains_key("oneOf") {
                checker.report("", "the root must be an object schema, not a union");
            } else if !is_object_schema(object) {
                checker.report("", "the root must be an object schema");
            }
        }
        _ => checker.report("", "the root must be an object schema"),
    }
    checker.node(schema, "", 0, true);
    if checker.properties > MAX_PROPERTIES {
        checker.report(
            "",
            format!(
                "{} object properties in all; strict mode allows at most {MAX_PROPERTIES}",
                checker.properties
            ),
        );
    }
    if checker.enum_values > MAX_ENUM_VALUES {
        checker.report(
            "",
            format!(
                "{} enum values in all; strict mode allows at most {MAX_ENUM_VALUES}",
                checker.enum_values
            ),
        );
    }
    checker.violations
}

#[derive(Default)]
struct Checker {
    violations: Vec<StrictViolation>,
    properties: usize,
    enum_values: usize,
}

impl Checker {
    fn report(&mut self, pointer: &str, message: impl Into<String>) {
        self.violations.push(StrictViolation::new(pointer, message));
    }

    fn node(&mut self, schema: &Value, pointer: &str, depth: usize, root: bool) {
        let object = match schema {
            Value::Object(object) if !object.is_empty() => object,
            Value::Object(_) | Value::Bool(true) => {
                self.report(
                    pointer,
                    "a value of any type cannot be expressed in strict mode",
                );
                return;
            }
            Value::Bool(false) => {
                self.report(
                    pointer,
                    "a schema that accepts nothing cannot be expressed in strict mode",
                );
                return;
            }
            other => {
                self.report(pointer, format!("a schema must be an object, got {other}"));
                return;
            }
        };

        for (key, value) in object {
            let at = push_pointer(pointer, key);
            match key.as_str() {
                "oneOf" => self.report(&at, "oneOf is not supported in strict mode; use anyOf"),
                "const" => self.report(
                    &at,
                    "const is not supported in strict mode; use an enum with one value",
                ),
                "format" => {
                    if !value
                        .as_str()
                        .is_some_and(|f| SUPPORTED_FORMATS.contains(&f))
                    {
                        self.report(
                            &at,
                            format!("format {value} is not supported in strict mode"),
                        );
                    }
                }
                "type" => check_type(value, &at, &mut self.violations),
                "$defs" | "definitions" if !root => {
                    self.report(&at, "definitions must be at the root");
                }
                "enum" => {
                    if let Value::Array(values) = value {
                        self.enum_values += values.len();
                    }
                }
                _ if ALLOWED.contains(&key.as_str()) => {}
                _ => {
                    let message = INEXPRESSIBLE
                        .iter()
                        .find(|(name, _)| name == key)
                        .map(|(_, why)| (*why).to_owned())
                        .unwrap_or_else(|| format!("{key} is not supported in strict mode"));
                    self.report(&at, message);
                }
            }
        }

        if object.contains_key("$ref") {
            let siblings: Vec<&str> = object
                .keys()
                .map(String::as_str)
                .filter(|key| *key != "$ref")
                .collect();
            if !siblings.is_empty() && !root {
                self.report(
                    pointer,
                    format!(
                        "$ref cannot have sibling keywords in strict mode (found {})",
                        siblings.join(", ")
                    ),
                );
            }
        }

        let mut depth = depth;
        if is_object_schema(object) {
            depth += 1;
            if depth == MAX_DEPTH + 1 {
                self.report(
                    pointer,
                    format!("objects nest more than {MAX_DEPTH} levels deep here; strict mode allows at most {MAX_DEPTH}"),
                );
            }
            self.object_members(object, pointer, depth);
        }

        if let Some(items) = object.get("items") {
            let at = push_pointer(pointer, "items");
            match items {
                Value::Array(_) => {
                    self.report(
                        &at,
                        "tuples (items as an array) cannot be expressed in strict mode",
                    );
                }
                _ => self.node(items, &at, depth, false),
            }
        }
        for key in ["anyOf", "oneOf"] {
            let Some(branches) = object.get(key) else {
                continue;
            };
            let at = push_pointer(pointer, key);
            match branches {
                Value::Array(branches) => {
                    for (i, branch) in branches.iter().enumerate() {
                        self.node(branch, &push_pointer(&at, &i.to_string()), depth, false);
                    }
                }
                _ => self.report(&at, format!("{key} must be an array of schemas")),
            }
        }
        if root {
            for key in ["$defs", "definitions"] {
                if let Some(Value::Object(definitions)) = object.get(key) {
                    let at = push_pointer(pointer, key);
                    for (name, definition) in definitions {
                        self.node(definition, &push_pointer(&at, name), 0, false);
                    }
                }
            }
        }
    }

    fn object_members(&mut self, object: &Map<String, Value>, pointer: &str, depth: usize) {
        let empty = Map::new();
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) => properties,
            _ => &empty,
        };
        match object.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(Value::Object(schema)) if !schema.is_empty() => {
                self.report(
                    pointer,
                    "free-form map keys cannot be expressed in strict mode",
                );
            }
            _ if properties.is_empty() => self.report(
                pointer,
                "a free-form object (no declared properties) cannot be expressed in strict mode",
            ),
            _ => self.report(
                &push_pointer(pointer, "additionalProperties"),
                "must be false",
            ),
        }
        let required: Vec<&str> = match object.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for name in properties.keys() {
            if !required.contains(&name.as_str()) {
                self.report(
                    &push_pointer(pointer, "required"),
                    format!("must list {name:?}"),
                );
            }
        }
        self.properties += properties.len();
        for (name, schema) in properties {
            let at = push_pointer(&push_pointer(pointer, "properties"), name);
            self.node(schema, &at, depth, false);
        }
    }
}
