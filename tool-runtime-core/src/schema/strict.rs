//! OpenAI strict mode: converting a tool's schema to the subset OpenAI's
//! structured outputs accept, and checking a schema against that subset.
//!
//! With `"strict": true` on a function tool, OpenAI constrains the model's
//! arguments to the tool's schema exactly, but only accepts schemas that
//! follow a few rules:
//!
//! - every object has `additionalProperties: false` and lists *all* its
//!   properties in `required`; an optional value is written as a required
//!   value that may be `null` (`"type": ["string", "null"]`, or `anyOf` with
//!   `{"type": "null"}`);
//! - the root is an object (not `anyOf`);
//! - only these keywords are used: `type`, `properties`, `required`,
//!   `additionalProperties`, `items`, `enum`, `anyOf`, `$ref`, `$defs`,
//!   `description`, `title`, `pattern`, `format` (`date-time`, `time`,
//!   `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`),
//!   `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//!   `multipleOf`, `minItems` and `maxItems`;
//! - a `$ref` stands alone (no `description` or other keyword beside it);
//! - at most 5000 object properties, 1000 enum values and 10 levels of
//!   nested objects.
//!
//! [`strict_input_schema`] makes a tool's input schema follow them:
//!
//! | in the ordinary schema | in the strict schema |
//! | --- | --- |
//! | a parameter that is optional or has a default | required, and `null` is allowed; the runtime reads `null` as "absent", so the default applies |
//! | an optional field of a nested struct that already accepts `null` (`Option<T>`) | required; `null` decodes as `None` |
//! | an optional field of a nested struct that does not accept `null` (`#[serde(default)] x: u32`) | required and not nullable: the model always gives a value, since `null` would not decode |
//! | an object without `additionalProperties: false` but with properties | `additionalProperties: false` |
//! | `oneOf` | `anyOf` (schemars emits `oneOf` for enums, whose branches never overlap) |
//! | `const: v` | `enum: [v]` |
//! | `allOf` with one schema | that schema, merged in |
//! | `$ref` with sibling keywords | the referenced schema inlined with the siblings on top; inside a recursive type, the bare `$ref` (the siblings, usually a description, are dropped) |
//! | `default`, `examples`, `deprecated`, `readOnly`, `writeOnly`, `$comment`, `$schema`, `$id`, unknown keywords | dropped (annotations only) |
//! | `format` values strict mode does not know (schemars' `uint32`, `double`, ...) | dropped (`minimum`/`maximum`, which carry the range, stay) |
//! | `minLength`, `maxLength`, `uniqueItems`, `minProperties`, `maxProperties` | dropped: the model is no longer told the limit; the Rust type or the tool still checks what it checks |
//! | a free-form map (`HashMap<String, T>`, `BTreeMap<String, T>`) | an array of `{"key": ..., "value": ...}` objects |
//! | a value of any type (`serde_json::Value`, `{}`) | a string of JSON text |
//! | `$defs` no longer referenced after inlining | removed |
//!
//! The last two rows change the shape of the arguments a model sends:
//! [`from_strict_arguments`] turns them back, and a registry does so before
//! decoding for every tool it renders strict whose schema
//! [has such parts](arguments_differ).
//!
//! What cannot be expressed is reported, never silently changed, as a
//! [`StrictViolation`] with the JSON pointer of the problem: tuples
//! (`prefixItems`), `allOf` with several
//! schemas, `not`, `if`/`then`/`else`, `patternProperties`,
//! `propertyNames`, `dependentRequired`, `dependentSchemas`,
//! `unevaluatedProperties`/`unevaluatedItems` and `contains`.
//!
//! [`check`] lists every rule a schema breaks as it is, so a hand-written
//! schema can be tested too:
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::strict;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {
//!         "query": {"type": "string"},
//!         "filters": {"type": "object", "properties": {"lang": {"type": "string"}}},
//!         "tags": {"type": "object", "additionalProperties": {"type": "string"}}
//!     },
//!     "required": ["query"],
//!     "additionalProperties": false
//! });
//! let problems: Vec<String> = strict::check(&schema).iter().map(|v| v.to_string()).collect();
//! assert_eq!(problems, [
//!     "/required: must list \"filters\"",
//!     "/required: must list \"tags\"",
//!     "/properties/filters/additionalProperties: must be false",
//!     "/properties/filters/required: must list \"lang\"",
//!     "/properties/tags: free-form map keys cannot be expressed in strict mode",
//! ]);
//!
//! // Conversion fixes them: `tags` becomes a list of key/value objects.
//! let converted = strict::to_strict(&schema).unwrap();
//! assert!(strict::check(&converted).is_empty());
//! assert_eq!(converted["properties"]["tags"]["type"], "array");
//! assert_eq!(converted["properties"]["tags"]["items"]["required"], json!(["key", "value"]));
//!
//! // What it cannot express is reported, with where.
//! let tuple = json!({"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{}, {}]}}});
//! let errors = strict::to_strict(&tuple).unwrap_err();
//! assert_eq!(errors[0].pointer, "/properties/pair/prefixItems");
//! ```

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

use crate::spec::tool_spec::ToolSpec;

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
const ALLOWED: &[&str] = &[
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
const INEXPRESSIBLE: &[(&str, &str)] = &[
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

/// One rule of strict mode a schema breaks, and where.
///
/// Its `Display` text is `pointer: message`, with `(root)` for the empty
/// pointer: `/properties/tags: free-form map keys cannot be expressed in
/// strict mode`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StrictViolation {
    /// The JSON pointer (RFC 6901) of the offending schema or keyword,
    /// within the schema checked; empty for the root.
    pub pointer: String,
    /// What is wrong, and for a fixable problem what strict mode wants.
    pub message: String,
}

impl StrictViolation {
    fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for StrictViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

/// The strict-mode form of a tool's input schema, or everything that keeps
/// it from having one.
///
/// Parameters that are optional or have a default become required and
/// nullable: the runtime reads a `null` argument as an absent one, so the
/// parameter's default (or `None`) applies. See the [module
/// documentation](self) for every other change. The result passes
/// [`check`].
///
/// ```
/// use tool_runtime::{strict, tool};
/// use serde_json::json;
///
/// /// Searches the catalogue.
/// #[tool(strict)]
/// fn search(
///     /// Words to look for
///     query: String,
///     /// Most results to return
///     #[tool(default = 10)]
///     limit: u32,
/// ) -> String {
///     format!("{limit} results for {query}")
/// }
///
/// let schema = strict::strict_input_schema(&SearchTool::SPEC).unwrap();
/// assert_eq!(schema["required"], json!(["query", "limit"]));
/// assert_eq!(schema["properties"]["limit"]["type"], json!(["integer", "null"]));
/// assert!(schema["properties"]["limit"].get("default").is_none());
/// assert!(strict::check(&schema).is_empty());
/// ```
pub fn strict_input_schema(spec: &ToolSpec) -> Result<Value, Vec<StrictViolation>> {
    let order: Vec<&str> = spec.params.iter().map(|param| param.name).collect();
    convert(spec.input_schema(), Some(&order))
}

/// The strict-mode form of any object schema, or everything that keeps it
/// from having one.
///
/// Unlike [`strict_input_schema`], a property that is not required becomes
/// required as it is: nullable only when it already accepts `null`. Use it
/// for schemas whose readers do not treat `null` as absent.
pub fn to_strict(schema: &Value) -> Result<Value, Vec<StrictViolation>> {
    convert(schema, None)
}

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

/// Appends one reference token to a JSON pointer.
pub(crate) fn push_pointer(pointer: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{escaped}")
}

/// The schema `reference` points at within `root`: `#`, `#/$defs/Name`,
/// `#/definitions/Name`, or any other local JSON pointer.
pub(crate) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    // Fragments may be percent-encoded; local pointers made by schemars are
    // not, apart from the odd space.
    let decoded = pointer.replace("%25", "%").replace("%20", " ");
    root.pointer(&decoded)
}

/// Whether `schema` accepts `null`, following local references.
fn accepts_null(schema: &Value, root: &Value) -> bool {
    accepts_null_within(schema, root, 0)
}

fn accepts_null_within(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    let Value::Object(object) = schema else {
        return schema == &Value::Bool(true);
    };
    if let Some(Value::String(reference)) = object.get("$ref") {
        return resolve_ref(root, reference)
            .is_some_and(|target| accepts_null_within(target, root, depth + 1));
    }
    if object.is_empty() {
        return true;
    }
    let type_allows = match object.get("type") {
        Some(Value::String(name)) => name == "null",
        Some(Value::Array(names)) => names.iter().any(|name| name == "null"),
        _ => false,
    };
    let enum_allows = match object.get("enum") {
        Some(Value::Array(values)) => values.contains(&Value::Null),
        _ => false,
    };
    let const_allows = object.get("const") == Some(&Value::Null);
    let union_allows = ["anyOf", "oneOf"].iter().any(|key| match object.get(*key) {
        Some(Value::Array(branches)) => branches
            .iter()
            .any(|branch| accepts_null_within(branch, root, depth + 1)),
        _ => false,
    });
    if union_allows || const_allows {
        return true;
    }
    if object.contains_key("enum") {
        return enum_allows;
    }
    type_allows
}

/// Whether an object schema describes objects: `type` is or includes
/// `object`, or it declares `properties`.
fn is_object_schema(object: &Map<String, Value>) -> bool {
    let typed = match object.get("type") {
        Some(Value::String(name)) => name == "object",
        Some(Value::Array(names)) => names.iter().any(|name| name == "object"),
        _ => false,
    };
    typed || object.contains_key("properties")
}

fn convert(schema: &Value, top_level: Option<&[&str]>) -> Result<Value, Vec<StrictViolation>> {
    let mut converter = Converter {
        root: schema,
        violations: Vec::new(),
        inlining: Vec::new(),
    };
    let mut converted = match schema {
        Value::Object(object) if object.contains_key("anyOf") || object.contains_key("oneOf") => {
            converter.report("", "the root must be an object schema, not a union");
            return Err(converter.violations);
        }
        Value::Object(object) if is_object_schema(object) => {
            converter.object(object, "", top_level)
        }
        _ => {
            converter.report("", "the root must be an object schema");
            return Err(converter.violations);
        }
    };
    prune_definitions(&mut converted);
    let mut violations = converter.violations;
    if violations.is_empty() {
        // Anything conversion let through unfixed (a limit exceeded, say).
        violations = check(&converted);
    }
    if violations.is_empty() {
        Ok(converted)
    } else {
        Err(violations)
    }
}

struct Converter<'a> {
    root: &'a Value,
    violations: Vec<StrictViolation>,
    /// References being inlined, innermost last, to stop at recursion.
    inlining: Vec<String>,
}

impl Converter<'_> {
    fn report(&mut self, pointer: &str, message: impl Into<String>) {
        self.violations.push(StrictViolation::new(pointer, message));
    }

    /// Converts one subschema found at `pointer` (in the original schema).
    fn node(&mut self, schema: &Value, pointer: &str) -> Value {
        match schema {
            Value::Object(object) => self.object(object, pointer, None),
            Value::Bool(true) => json_text(&Map::new()),
            Value::Bool(false) => {
                self.report(
                    pointer,
                    "a schema that accepts nothing cannot be expressed in strict mode",
                );
                Value::Bool(false)
            }
            other => {
                self.report(pointer, format!("a schema must be an object, got {other}"));
                other.clone()
            }
        }
    }

    /// Converts an object schema. `top_level` is the declared parameter
    /// order when this is a tool's argument object, whose optional
    /// properties become nullable.
    fn object(
        &mut self,
        source: &Map<String, Value>,
        pointer: &str,
        top_level: Option<&[&str]>,
    ) -> Value {
        let mut object = source.clone();

        if let Some(all_of) = object.remove("allOf") {
            match all_of {
                Value::Array(mut parts) if parts.len() == 1 && parts[0].is_object() => {
                    if let Some(Value::Object(part)) = parts.pop() {
                        for (key, value) in part {
                            object.entry(key).or_insert(value);
                        }
                    }
                }
                _ => self.report(
                    &push_pointer(pointer, "allOf"),
                    "allOf with several schemas cannot be expressed in strict mode",
                ),
            }
        }

        if let Some(Value::String(reference)) = object.get("$ref").cloned() {
            let has_siblings = object
                .keys()
                .any(|key| key != "$ref" && ALLOWED.contains(&key.as_str()));
            if !has_siblings {
                return Value::Object(Map::from_iter([("$ref".into(), reference.into())]));
            }
            if self.inlining.contains(&reference) {
                // Inside a recursive type: keep the reference alone.
                return Value::Object(Map::from_iter([("$ref".into(), reference.into())]));
            }
            let Some(Value::Object(target)) = resolve_ref(self.root, &reference) else {
                self.report(
                    &push_pointer(pointer, "$ref"),
                    format!("cannot resolve the reference {reference:?}"),
                );
                return Value::Object(object);
            };
            let mut merged = target.clone();
            object.remove("$ref");
            for (key, value) in object {
                merged.insert(key, value);
            }
            self.inlining.push(reference);
            let inlined = self.object(&merged, pointer, top_level);
            self.inlining.pop();
            return inlined;
        }

        if pointer_is_value(pointer) {
            if is_any_value(&object) {
                return json_text(&object);
            }
            if let Some(values) = map_values(&object) {
                return self.key_value_list(&object, values, pointer);
            }
        }

        let mut out = Map::new();
        for (key, value) in &object {
            let at = push_pointer(pointer, key);
            match key.as_str() {
                "properties" | "required" | "additionalProperties" => {}
                "type" => {
                    check_type(value, &at, &mut self.violations);
                    out.insert(key.clone(), value.clone());
                }
                "items" => match value {
                    Value::Array(_) => {
                        self.report(
                            &at,
                            "tuples (items as an array) cannot be expressed in strict mode",
                        );
                    }
                    _ => {
                        let items = self.node(value, &at);
                        out.insert(key.clone(), items);
                    }
                },
                "anyOf" | "oneOf" => {
                    if key == "oneOf" && object.contains_key("anyOf") {
                        self.report(&at, "oneOf beside anyOf cannot be expressed in strict mode");
                        continue;
                    }
                    let Value::Array(branches) = value else {
                        self.report(&at, format!("{key} must be an array of schemas"));
                        continue;
                    };
                    let branches = branches
                        .iter()
                        .enumerate()
                        .map(|(i, branch)| self.node(branch, &push_pointer(&at, &i.to_string())))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(branches));
                }
                "const" => {
                    if !object.contains_key("enum") {
                        out.insert("enum".into(), Value::Array(vec![value.clone()]));
                    }
                }
                "format" => {
                    if value
                        .as_str()
                        .is_some_and(|f| SUPPORTED_FORMATS.contains(&f))
                    {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "$defs" | "definitions" => {
                    if !pointer.is_empty() {
                        self.report(&at, "definitions must be at the root");
                        continue;
                    }
                    let Value::Object(definitions) = value else {
                        self.report(&at, format!("{key} must be an object"));
                        continue;
                    };
                    let mut converted = Map::new();
                    for (name, definition) in definitions {
                        let reference = format!("#/{key}/{name}");
                        self.inlining.push(reference);
                        let def = self.node(definition, &push_pointer(&at, name));
                        self.inlining.pop();
                        converted.insert(name.clone(), def);
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                _ if ALLOWED.contains(&key.as_str()) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {
                    if let Some((_, why)) = INEXPRESSIBLE.iter().find(|(name, _)| name == key) {
                        self.report(&at, *why);
                    }
                    // Anything else is an annotation or a hint strict mode
                    // does not take: dropped.
                }
            }
        }

        if is_object_schema(&object) {
            self.object_members(&object, pointer, top_level, &mut out);
        }
        Value::Object(out)
    }

    /// A free-form map as a list of `{"key", "value"}` objects, the values
    /// converted in turn; nullable when the map was.
    fn key_value_list(
        &mut self,
        object: &Map<String, Value>,
        values: &Value,
        pointer: &str,
    ) -> Value {
        let at = push_pointer(pointer, "additionalProperties");
        let value = self.node(values, &at);
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

    fn object_members(
        &mut self,
        object: &Map<String, Value>,
        pointer: &str,
        top_level: Option<&[&str]>,
        out: &mut Map<String, Value>,
    ) {
        let empty = Map::new();
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) => properties,
            Some(_) => {
                self.report(
                    &push_pointer(pointer, "properties"),
                    "properties must be an object",
                );
                &empty
            }
            None => &empty,
        };
        match object.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None | Some(Value::Bool(true)) if !properties.is_empty() => {}
            Some(Value::Object(schema)) if schema.is_empty() && !properties.is_empty() => {}
            Some(Value::Object(_)) => {
                self.report(
                    pointer,
                    "free-form map keys cannot be expressed in strict mode",
                );
            }
            _ => {
                self.report(
                    pointer,
                    "a free-form object (no declared properties) cannot be expressed in strict mode",
                );
            }
        }
        let required: Vec<String> = match object.get("required") {
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };

        let mut converted = Map::new();
        for (name, schema) in properties {
            let at = push_pointer(&push_pointer(pointer, "properties"), name);
            let mut property = self.node(schema, &at);
            if top_level.is_some() && !required.contains(name) {
                property = make_nullable(property, self.root);
            }
            converted.insert(name.clone(), property);
        }

        // Declared parameter order first (for a tool's arguments), then the
        // properties in the order they are declared.
        let mut order: Vec<String> = Vec::new();
        let mut seen = BTreeSet::new();
        let declared = top_level
            .unwrap_or(&[])
            .iter()
            .map(|name| (*name).to_owned());
        for name in declared.chain(converted.keys().cloned()) {
            if converted.contains_key(&name) && seen.insert(name.clone()) {
                order.push(name);
            }
        }

        if !out.contains_key("type") {
            out.insert("type".into(), "object".into());
        }
        out.insert("properties".into(), Value::Object(converted));
        out.insert(
            "required".into(),
            Value::Array(order.into_iter().map(Value::String).collect()),
        );
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// Whether a converted schema sits below the root: the root is the
/// argument object itself, which stays an object.
fn pointer_is_value(pointer: &str) -> bool {
    !pointer.is_empty()
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
fn is_any_value(object: &Map<String, Value>) -> bool {
    !object
        .keys()
        .any(|key| SHAPE_KEYWORDS.contains(&key.as_str()))
}

/// The schema of a free-form map's values: an object schema that declares
/// no properties and gives `additionalProperties` a schema. A map whose
/// values may be anything gives `{}`.
fn map_values(object: &Map<String, Value>) -> Option<&Value> {
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

/// A value of any type as strict mode can carry it: JSON text in a string.
fn json_text(object: &Map<String, Value>) -> Value {
    let mut out = Map::from_iter([("type".to_owned(), Value::from("string"))]);
    let note = "Write the value as JSON text.";
    let description = match object.get("description").and_then(Value::as_str) {
        Some(text) if !text.is_empty() => format!("{text} ({note})"),
        _ => note.to_owned(),
    };
    out.insert("description".into(), description.into());
    Value::Object(out)
}

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
/// use tool_runtime::strict;
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

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("null"))
}

/// JSON text back to the value it holds; other values as they are.
fn parse_json_text(value: Value) -> Value {
    match &value {
        Value::String(text) => serde_json::from_str(text).unwrap_or(value),
        _ => value,
    }
}

/// Makes a converted schema accept `null` as well.
fn make_nullable(schema: Value, root: &Value) -> Value {
    if accepts_null(&schema, root) {
        return schema;
    }
    let Value::Object(mut object) = schema else {
        return schema;
    };
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        branches.push(null_schema());
        return Value::Object(object);
    }
    let simple_type = !object.contains_key("$ref") && !object.contains_key("enum");
    if simple_type {
        match object.get_mut("type") {
            Some(Value::String(name)) => {
                let name = std::mem::take(name);
                object.insert("type".into(), Value::from(vec![name, "null".into()]));
                return Value::Object(object);
            }
            Some(Value::Array(names)) => {
                names.push("null".into());
                return Value::Object(object);
            }
            _ => {}
        }
    }
    // A reference, an enum or an untyped schema: a union with null, the
    // annotations kept on the outside.
    let mut outer = Map::new();
    for key in ["description", "title"] {
        if let Some(value) = object.remove(key) {
            outer.insert(key.into(), value);
        }
    }
    outer.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(object), null_schema()]),
    );
    Value::Object(outer)
}

fn null_schema() -> Value {
    Value::Object(Map::from_iter([("type".into(), "null".into())]))
}

fn check_type(value: &Value, pointer: &str, violations: &mut Vec<StrictViolation>) {
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

/// Removes `$defs` entries nothing references any more (after inlining),
/// and `$defs` itself when it is left empty.
fn prune_definitions(schema: &mut Value) {
    let Value::Object(root) = schema else { return };
    for key in ["$defs", "definitions"] {
        let Some(Value::Object(definitions)) = root.get(key) else {
            continue;
        };
        let prefix = format!("#/{key}/");
        let mut used = BTreeSet::new();
        let mut pending = Vec::new();
        for (name, value) in root.iter() {
            if name != "$defs" && name != "definitions" {
                collect_refs(value, &mut pending);
            }
        }
        while let Some(reference) = pending.pop() {
            let Some(name) = reference.strip_prefix(&prefix) else {
                continue;
            };
            if used.insert(name.to_owned())
                && let Some(definition) = definitions.get(name)
            {
                collect_refs(definition, &mut pending);
            }
        }
        let kept: Map<String, Value> = definitions
            .iter()
            .filter(|(name, _)| used.contains(name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        if kept.is_empty() {
            root.remove(key);
        } else {
            root.insert(key.into(), Value::Object(kept));
        }
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                match (key.as_str(), child) {
                    ("$ref", Value::String(reference)) => out.push(reference.clone()),
                    ("enum" | "const" | "default" | "examples", _) => {}
                    _ => collect_refs(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, out)),
        _ => {}
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(violations: &[StrictViolation]) -> Vec<String> {
        violations.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn optional_properties_become_required_and_nullable_at_the_top_level() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "format": "uint32", "minimum": 0, "default": 3},
                "unit": {"$ref": "#/$defs/Unit", "description": "The unit"}
            },
            "required": ["city"],
            "additionalProperties": false,
            "$defs": {
                "Unit": {"oneOf": [
                    {"type": "string", "const": "c", "description": "Celsius"},
                    {"type": "string", "const": "f"}
                ]}
            }
        });
        let strict = convert(&schema, Some(&["city", "days", "unit"])).unwrap();
        assert_eq!(
            strict,
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": ["integer", "null"], "minimum": 0},
                    "unit": {
                        "description": "The unit",
                        "anyOf": [
                            {"type": "string", "enum": ["c"], "description": "Celsius"},
                            {"type": "string", "enum": ["f"]},
                            {"type": "null"}
                        ]
                    }
                },
                "required": ["city", "days", "unit"],
                "additionalProperties": false
            })
        );
        assert_eq!(messages(&check(&strict)), Vec::<String>::new());
    }

    #[test]
    fn bare_references_stay_and_unions_gain_a_null_branch() {
        let schema = json!({
            "type": "object",
            "properties": {
                "slot": {"$ref": "#/$defs/Slot"},
                "choice": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "maybe": {"$ref": "#/$defs/Slot"}
            },
            "required": ["slot", "choice"],
            "$defs": {
                "Slot": {"type": "object", "properties": {"at": {"type": "string"}}}
            }
        });
        let strict = convert(&schema, Some(&["slot", "choice", "maybe"])).unwrap();
        assert_eq!(
            strict["properties"]["slot"],
            json!({"$ref": "#/$defs/Slot"})
        );
        assert_eq!(
            strict["properties"]["maybe"],
            json!({"anyOf": [{"$ref": "#/$defs/Slot"}, {"type": "null"}]})
        );
        assert_eq!(
            strict["properties"]["choice"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
        assert_eq!(
            strict["$defs"]["Slot"],
            json!({
                "type": "object",
                "properties": {"at": {"type": "string"}},
                "required": ["at"],
                "additionalProperties": false
            })
        );
        assert!(is_strict(&strict));
    }

    #[test]
    fn nested_optional_fields_are_required_and_only_nullable_when_they_were() {
        let schema = json!({
            "type": "object",
            "properties": {
                "person": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "email": {"type": ["string", "null"]},
                        "age": {"type": "integer", "default": 0}
                    },
                    "required": ["name"],
                    "additionalProperties": false
                }
            },
            "required": ["person"],
            "additionalProperties": false
        });
        let strict = to_strict(&schema).unwrap();
        let person = &strict["properties"]["person"];
        assert_eq!(person["required"], json!(["name", "email", "age"]));
        assert_eq!(
            person["properties"]["email"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(person["properties"]["age"], json!({"type": "integer"}));
    }

    #[test]
    fn recursive_references_with_descriptions_are_inlined_once_then_kept_bare() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tree": {"$ref": "#/$defs/Node", "description": "The tree"}
            },
            "required": ["tree"],
            "additionalProperties": false,
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "label": {"type": "string"},
                        "first": {"$ref": "#/$defs/Node", "description": "First child"},
                        "rest": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                    },
                    "required": ["label", "first", "rest"]
                }
            }
        });
        let strict = to_strict(&schema).unwrap();
        let tree = &strict["properties"]["tree"];
        assert_eq!(tree["description"], json!("The tree"));
        assert_eq!(tree["properties"]["first"], json!({"$ref": "#/$defs/Node"}));
        assert_eq!(
            strict["$defs"]["Node"]["properties"]["first"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert!(is_strict(&strict), "{:?}", check(&strict));
    }

    #[test]
    fn inexpressible_schemas_report_every_problem_with_its_pointer() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "anything": true,
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
                "meta": {"type": "object"},
                "either": {"allOf": [{"type": "string"}, {"minLength": 2}]},
                "ok": {"type": "string", "minLength": 2}
            },
            "required": ["tags"]
        });
        let errors = to_strict(&schema).unwrap_err();
        assert_eq!(
            messages(&errors),
            [
                "/properties/pair/prefixItems: tuples (prefixItems) cannot be expressed in strict mode",
                "/properties/either/allOf: allOf with several schemas cannot be expressed in strict mode",
            ]
        );
    }

    #[test]
    fn maps_become_key_value_lists_and_any_values_json_text() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Tags"},
                "anything": {"description": "Whatever"},
                "meta": {"type": "object"},
                "nested": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}}
            },
            "required": ["tags"]
        });
        let strict = to_strict(&schema).unwrap();
        assert!(is_strict(&strict), "{:?}", check(&strict));
        assert_eq!(
            strict["properties"]["tags"],
            json!({
                "type": "array",
                "description": "Tags",
                "items": {
                    "type": "object",
                    "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                    "required": ["key", "value"],
                    "additionalProperties": false
                }
            })
        );
        assert_eq!(
            strict["properties"]["anything"],
            json!({"type": "string", "description": "Whatever (Write the value as JSON text.)"})
        );
        assert_eq!(
            strict["properties"]["meta"]["items"]["properties"]["value"]["type"],
            "string"
        );
        assert_eq!(
            strict["properties"]["nested"]["items"]["properties"]["value"]["items"]["properties"]["value"],
            json!({"type": "integer"})
        );
        // A fixed point.
        assert_eq!(to_strict(&strict).unwrap(), strict);
        assert!(arguments_differ(&schema));
        assert!(!arguments_differ(
            &json!({"type": "object", "properties": {"a": {"type": "string"}}})
        ));

        let sent = json!({
            "tags": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}],
            "anything": "[1, {\"x\": null}]",
            "meta": [{"key": "k", "value": "\"text\""}],
            "nested": [{"key": "n", "value": [{"key": "m", "value": 3}]}]
        });
        assert_eq!(
            from_strict_arguments(&schema, sent),
            json!({
                "tags": {"a": "1", "b": "2"},
                "anything": [1, {"x": null}],
                "meta": {"k": "text"},
                "nested": {"n": {"m": 3}}
            })
        );
        // What is not in strict form is left for the decoder.
        let odd = json!({"tags": [1, 2], "anything": "not json"});
        assert_eq!(from_strict_arguments(&schema, odd.clone()), odd);
    }

    #[test]
    fn checker_points_at_each_broken_rule() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "uint8", "default": 1},
                "b": {"$ref": "#/$defs/B", "description": "B"},
                "c": {"oneOf": [{"const": 1}, {"const": 2}]},
                "d/e": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": true}
            },
            "required": ["a", "b", "c"],
            "additionalProperties": false,
            "$defs": {"B": {"type": "string"}}
        });
        assert_eq!(
            messages(&check(&schema)),
            [
                "/required: must list \"d/e\"",
                "/properties/a/format: format \"uint8\" is not supported in strict mode",
                "/properties/a/default: default is not supported in strict mode",
                "/properties/b: $ref cannot have sibling keywords in strict mode (found description)",
                "/properties/c/oneOf: oneOf is not supported in strict mode; use anyOf",
                "/properties/c/oneOf/0/const: const is not supported in strict mode; use an enum with one value",
                "/properties/c/oneOf/1/const: const is not supported in strict mode; use an enum with one value",
                "/properties/d~1e/additionalProperties: must be false",
                "/properties/d~1e/required: must list \"x\"",
            ]
        );
    }

    #[test]
    fn checker_reports_roots_that_are_not_objects_and_limits() {
        assert_eq!(
            messages(&check(&json!({"anyOf": [{"type": "object"}]}))),
            [
                "(root): the root must be an object schema, not a union",
                "/anyOf/0: a free-form object (no declared properties) cannot be expressed in strict mode",
            ]
        );
        let mut deep = json!({"type": "string"});
        for _ in 0..11 {
            deep = json!({
                "type": "object",
                "properties": {"next": deep},
                "required": ["next"],
                "additionalProperties": false
            });
        }
        let violations = check(&deep);
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert_eq!(violations[0].pointer, "/properties/next".repeat(10));
    }

    #[test]
    fn unused_definitions_are_pruned_after_inlining() {
        let schema = json!({
            "type": "object",
            "properties": {"unit": {"$ref": "#/$defs/Unit", "description": "d"}},
            "required": ["unit"],
            "$defs": {"Unit": {"type": "string", "enum": ["a", "b"]}}
        });
        let strict = to_strict(&schema).unwrap();
        assert_eq!(
            strict,
            json!({
                "type": "object",
                "properties": {"unit": {"type": "string", "enum": ["a", "b"], "description": "d"}},
                "required": ["unit"],
                "additionalProperties": false
            })
        );
    }
}
