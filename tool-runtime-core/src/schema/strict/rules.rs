//! What strict mode accepts: the keywords, the `format` values, the type
//! names and the limits, and the keywords it cannot express, with why.

use serde_json::Value;

use super::violation::StrictViolation;

/// The `format` values strict mode accepts on strings.
pub const SUPPORTED_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The most object properties a strict schema may declare in all.
pub const MAX_PROPERTIES: usize = 5000;

/// The most `enum` values a strict schema may list in all.
pub const MAX_ENUM_VALUES: usize = 1000;

/// The deepest objects may nest in a strict schema.
pub const MAX_DEPTH: usize = 10;

/// Keywords a strict schema may use.
pub(super) const ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// Keywords whose meaning strict mode cannot express, with why.
pub(super) const INEXPRESSIBLE: &[(&str, &str)] = &[
    (
        "patternProperties",
        "map keys matched by a pattern cannot be expressed in strict mode",
    ),
    (
        "propertyNames",
        "constraints on property names cannot be expressed in strict mode",
    ),
    (
        "unevaluatedProperties",
        "unevaluatedProperties cannot be expressed in strict mode",
    ),
    (
        "unevaluatedItems",
        "unevaluatedItems cannot be expressed in strict mode",
    ),
    (
        "prefixItems",
        "tuples (prefixItems) cannot be expressed in strict mode",
    ),
    ("contains", "contains cannot be expressed in strict mode"),
    (
        "minContains",
        "minContains cannot be expressed in strict mode",
    ),
    (
        "maxContains",
        "maxContains cannot be expressed in strict mode",
    ),
    (
        "dependentRequired",
        "dependentRequired cannot be expressed in strict mode",
    ),
    (
        "dependentSchemas",
        "dependentSchemas cannot be expressed in strict mode",
    ),
    (
        "dependencies",
        "dependencies cannot be expressed in strict mode",
    ),
    ("if", "if/then/else cannot be expressed in strict mode"),
    ("then", "if/then/else cannot be expressed in strict mode"),
    ("else", "if/then/else cannot be expressed in strict mode"),
    ("not", "not cannot be expressed in strict mode"),
    (
        "$dynamicRef",
        "$dynamicRef cannot be expressed in strict mode",
    ),
];

/// Reports each name in a `type` keyword that is not a JSON type.
pub(super) fn check_type(value: &Value, pointer: &str, violations: &mut Vec<StrictViolation>) {
    const TYPES: &[&str] = &[
        "string", "number", "integer", "boolean", "object", "array", "null",
    ];
    let names: Vec<&Value> = match value {
        Value::Array(names) => names.iter().collect(),
        other => vec![other],
    };
    for name in names {
        if !name.as_str().is_some_and(|name| TYPES.contains(&name)) {
            violations.push(StrictViolation::new(
                pointer,
                format!("unknown type {name}"),
            ));
        }
    }
}
