//! What changed between two versions of a tool set, and whether an agent
//! built against the old one can break: the comparison behind schema
//! lockfiles (`toolbox schema --lock` and `--check`).
//!
//! Both sides are a map from each tool's name to its [`ToolSchemas`]: its
//! description and its input schema as JSON Schema (and, for the record,
//! its output schema). [`compare`] lists every change, each one
//! [`Breaking`](Compatibility::Breaking) or
//! [`Compatible`](Compatibility::Compatible):
//!
//! | change | |
//! | --- | --- |
//! | a tool removed (or renamed) | breaking |
//! | a tool added | compatible |
//! | a description changed (the tool's or a parameter's) | compatible |
//! | a parameter removed | breaking |
//! | a parameter added as required, or made required | breaking |
//! | a parameter added as optional, or made optional | compatible |
//! | a type narrowed (`["string", "null"]` to `"string"`, `number` to `integer`) or changed | breaking |
//! | a type widened | compatible |
//! | an enumeration value removed / added | breaking / compatible |
//! | a bound tightened (`minimum` up, `maxLength` down, a `pattern` added or changed) | breaking |
//! | a bound loosened (`minimum` down or removed, a `pattern` removed) | compatible |
//! | the output schema changed | compatible (callers read the result's text) |
//!
//! Parameters nested in objects (`properties`) and in arrays (`items`) are
//! compared the same way, named by their path (`address.city`,
//! `tags[]`).
//!
//! ```
//! use serde_json::json;
//! use std::collections::BTreeMap;
//! use tool_runtime::schema::compat::{Compatibility, ToolSchemas, compare};
//!
//! let tool = |schema| ToolSchemas {
//!     description: "Search the catalogue.".into(),
//!     input_schema: schema,
//!     output_schema: None,
//! };
//! let old = BTreeMap::from([("search".to_owned(), tool(json!({
//!     "type": "object",
//!     "properties": {"query": {"type": "string"}},
//!     "required": ["query"]
//! })))]);
//! let new = BTreeMap::from([("search".to_owned(), tool(json!({
//!     "type": "object",
//!     "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
//!     "required": ["query", "limit"]
//! })))]);
//! let changes = compare(&old, &new);
//! assert_eq!(changes.len(), 1);
//! assert_eq!(changes[0].compatibility, Compatibility::Breaking);
//! assert_eq!(changes[0].to_string(), "breaking: search: parameter `limit` added as required");
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a lockfile keeps of one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchemas {
    /// The tool's description.
    pub description: String,
    /// Its input schema (JSON Schema, as the spec gives it).
    pub input_schema: Value,
    /// Its output schema, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// Whether a change can break an agent built against the old tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Compatibility {
    /// A call written for the old tools may now fail, or mean something
    /// else.
    Breaking,
    /// Every call written for the old tools still works.
    Compatible,
}

/// One change between two tool sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The tool it concerns.
    pub tool: String,
    /// Whether it can break callers.
    pub compatibility: Compatibility,
    /// What changed, in words (`parameter `limit` added as required`).
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.compatibility {
            Compatibility::Breaking => "breaking",
            Compatibility::Compatible => "compatible",
        };
        write!(f, "{kind}: {}: {}", self.tool, self.what)
    }
}

/// Every change from `old` to `new`, tool by tool in name order.
pub fn compare(
    old: &BTreeMap<String, ToolSchemas>,
    new: &BTreeMap<String, ToolSchemas>,
) -> Vec<Change> {
    let mut changes = Vec::new();
    for (name, before) in old {
        let mut found = Found {
            tool: name,
            changes: &mut changes,
        };
        let Some(after) = new.get(name) else {
            found.breaking("removed (or renamed)".into());
            continue;
        };
        if before.description != after.description {
            found.compatible("description changed".into());
        }
        compare_object(&before.input_schema, &after.input_schema, "", &mut found);
        if before.output_schema != after.output_schema {
            found.compatible("output schema changed".into());
        }
    }
    for name in new.keys().filter(|name| !old.contains_key(*name)) {
        changes.push(Change {
            tool: name.clone(),
            compatibility: Compatibility::Compatible,
            what: "added".into(),
        });
    }
    changes
}

/// Where one tool's changes go.
struct Found<'a> {
    tool: &'a str,
    changes: &'a mut Vec<Change>,
}

impl Found<'_> {
    fn push(&mut self, compatibility: Compatibility, what: String) {
        self.changes.push(Change {
            tool: self.tool.to_owned(),
            compatibility,
            what,
        });
    }

    fn breaking(&mut self, what: String) {
        self.push(Compatibility::Breaking, what);
    }

    fn compatible(&mut self, what: String) {
        self.push(Compatibility::Compatible, what);
    }
}

/// The properties of an object schema, and which are required.
fn properties(schema: &Value) -> (Option<&Map<String, Value>>, Vec<&str>) {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    (properties, required)
}

/// A parameter's name for messages: its path below the input.
fn path_of(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

/// The properties of two object schemas, compared name by name.
fn compare_object(before: &Value, after: &Value, prefix: &str, found: &mut Found<'_>) {
    let (old, old_required) = properties(before);
    let (new, new_required) = properties(after);
    let empty = Map::new();
    let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    for (name, old_schema) in old {
        let path = path_of(prefix, name);
        let was_required = old_required.contains(&name.as_str());
        let Some(new_schema) = new.get(name) else {
            found.breaking(format!("parameter `{path}` removed"));
            continue;
        };
        match (was_required, new_required.contains(&name.as_str())) {
            (false, true) => found.breaking(format!("parameter `{path}` made required")),
            (true, false) => found.compatible(format!("parameter `{path}` made optional")),
            _ => {}
        }
        compare_schema(old_schema, new_schema, &path, found);
    }
    for name in new.keys().filter(|name| !old.contains_key(*name)) {
        let path = path_of(prefix, name);
        if new_required.contains(&name.as_str()) {
            found.breaking(format!("parameter `{path}` added as required"));
        } else {
            found.compatible(format!("parameter `{path}` added as optional"));
        }
    }
    // A schema that stops or starts refusing unknown properties.
    let closed = |schema: &Value| schema.get("additionalProperties") == Some(&Value::Bool(false));
    match (closed(before), closed(after)) {
        (false, true) => found.breaking(format!(
            "{} no longer accepts unknown properties",
            what(prefix)
        )),
        (true, false) => {
            found.compatible(format!("{} now accepts unknown properties", what(prefix)))
        }
        _ => {}
    }
}

/// How messages name the schema at `path`.
fn what(path: &str) -> String {
    if path.is_empty() {
        "the input".to_owned()
    } else {
        format!("parameter `{path}`")
    }
}

/// The JSON types a schema allows: its `type` (a name or a list), with
/// `integer` inside `number`; `None` when it does not say (any type).
fn types(schema: &Value) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => Some(names.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// Whether every value of type `inner` is a value of type `outer`.
fn type_within(inner: &str, outer: &str) -> bool {
    inner == outer || (inner == "integer" && outer == "number")
}

/// One parameter's schema, before and after.
fn compare_schema(before: &Value, after: &Value, path: &str, found: &mut Found<'_>) {
    let subject = what(path);
    if before.get("description") != after.get("description") {
        found.compatible(format!("{subject}: description changed"));
    }
    // Types: narrowed when the new allows less, widened when it allows more.
    match (types(before), types(after)) {
        (Some(old), Some(new)) if old != new => {
            let covered = |from: &[&str], by: &[&str]| {
                from.iter()
                    .all(|inner| by.iter().any(|outer| type_within(inner, outer)))
            };
            let (old_list, new_list) = (old.join(" or "), new.join(" or "));
            if covered(&old, &new) {
                found.compatible(format!(
                    "{subject}: type widened from {old_list} to {new_list}"
                ));
            } else if covered(&new, &old) {
                found.breaking(format!(
                    "{subject}: type narrowed from {old_list} to {new_list}"
                ));
            } else {
                found.breaking(format!(
                    "{subject}: type changed from {old_list} to {new_list}"
                ));
            }
        }
        (None, Some(new)) => found.breaking(format!(
            "{subject}: type narrowed from any to {}",
            new.join(" or ")
        )),
        (Some(old), None) => found.compatible(format!(
            "{subject}: type widened from {} to any",
            old.join(" or ")
        )),
        _ => {}
    }
    compare_enum(before, after, &subject, found);
    compare_bounds(before, after, &subject, found);
    if before.get("properties").is_some() || after.get("properties").is_some() {
        compare_object(before, after, path, found);
    }
    if let (Some(old_items), Some(new_items)) = (before.get("items"), after.get("items")) {
        compare_schema(old_items, new_items, &format!("{path}[]"), found);
    }
}

/// The values of an `enum` (or a `const`), compared.
fn compare_enum(before: &Value, after: &Value, subject: &str, found: &mut Found<'_>) {
    let values = |schema: &Value| -> Option<Vec<Value>> {
        match (schema.get("enum"), schema.get("const")) {
            (Some(Value::Array(values)), _) => Some(values.clone()),
            (None, Some(value)) => Some(vec![value.clone()]),
            _ => None,
        }
    };
    match (values(before), values(after)) {
        (Some(old), Some(new)) => {
            for value in old.iter().filter(|value| !new.contains(value)) {
                found.breaking(format!("{subject}: value {value} no longer allowed"));
            }
            for value in new.iter().filter(|value| !old.contains(value)) {
                found.compatible(format!("{subject}: value {value} now allowed"));
            }
        }
        (None, Some(_)) => found.breaking(format!("{subject}: now limited to a set of values")),
        (Some(_), None) => {
            found.compatible(format!("{subject}: no longer limited to a set of values"))
        }
        (None, None) => {}
    }
}

/// Lower bounds (a larger value tightens) and upper bounds (a smaller
/// value tightens), and `pattern`.
fn compare_bounds(before: &Value, after: &Value, subject: &str, found: &mut Found<'_>) {
    const LOWER: [&str; 5] = [
        "minimum",
        "exclusiveMinimum",
        "minLength",
        "minItems",
        "minProperties",
    ];
    const UPPER: [&str; 5] = [
        "maximum",
        "exclusiveMaximum",
        "maxLength",
        "maxItems",
        "maxProperties",
    ];
    let bound = |schema: &Value, key: &str| schema.get(key).and_then(Value::as_f64);
    for (keys, lower) in [(&LOWER, true), (&UPPER, false)] {
        for key in keys {
            let (old, new) = (bound(before, key), bound(after, key));
            let tightened = match (old, new) {
                (Some(old), Some(new)) if old != new => (new > old) == lower,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                _ => continue,
            };
            let show = |bound: Option<f64>| bound.map_or("none".to_owned(), |b| b.to_string());
            let change = format!("`{key}` {} to {}", show(old), show(new));
            if tightened {
                found.breaking(format!("{subject}: {change} (tightened)"));
            } else {
                found.compatible(format!("{subject}: {change} (loosened)"));
            }
        }
    }
    match (before.get("pattern"), after.get("pattern")) {
        (old, new) if old == new => {}
        (_, Some(new)) => found.breaking(format!("{subject}: `pattern` now {new}")),
        (Some(_), None) => found.compatible(format!("{subject}: `pattern` removed")),
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(schema: Value) -> BTreeMap<String, ToolSchemas> {
        BTreeMap::from([(
            "t".to_owned(),
            ToolSchemas {
                description: "A tool.".into(),
                input_schema: schema,
                output_schema: None,
            },
        )])
    }

    fn changes(old: Value, new: Value) -> Vec<String> {
        compare(&one(old), &one(new))
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn same_tools_have_no_changes() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert!(changes(schema.clone(), schema).is_empty());
    }

    #[test]
    fn tools_and_parameters_added_and_removed() {
        let old = json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"]});
        let new = json!({"type": "object", "properties": {
            "a": {"type": "string"}, "c": {"type": "string"}, "d": {"type": "integer"}},
            "required": ["a", "d"]});
        assert_eq!(
            changes(old, new),
            [
                "breaking: t: parameter `b` removed",
                "compatible: t: parameter `c` added as optional",
                "breaking: t: parameter `d` added as required",
            ]
        );
        let mut old = one(json!({}));
        old.insert("gone".into(), old["t"].clone());
        let mut new = one(json!({}));
        new.insert("fresh".into(), new["t"].clone());
        let listed: Vec<String> = compare(&old, &new)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            listed,
            [
                "breaking: gone: removed (or renamed)",
                "compatible: fresh: added"
            ]
        );
    }

    #[test]
    fn types_narrowed_widened_and_changed() {
        let with = |ty: Value| json!({"type": "object", "properties": {"x": {"type": ty}}});
        assert_eq!(
            changes(with(json!(["string", "null"])), with(json!("string"))),
            ["breaking: t: parameter `x`: type narrowed from string or null to string"]
        );
        assert_eq!(
            changes(with(json!("integer")), with(json!("number"))),
            ["compatible: t: parameter `x`: type widened from integer to number"]
        );
        assert_eq!(
            changes(with(json!("number")), with(json!("integer"))),
            ["breaking: t: parameter `x`: type narrowed from number to integer"]
        );
        assert_eq!(
            changes(with(json!("string")), with(json!("boolean"))),
            ["breaking: t: parameter `x`: type changed from string to boolean"]
        );
    }

    #[test]
    fn enumerations_bounds_and_patterns() {
        let with = |x: Value| json!({"type": "object", "properties": {"x": x}});
        assert_eq!(
            changes(
                with(json!({"enum": ["a", "b"]})),
                with(json!({"enum": ["b", "c"]}))
            ),
            [
                "breaking: t: parameter `x`: value \"a\" no longer allowed",
                "compatible: t: parameter `x`: value \"c\" now allowed",
            ]
        );
        assert_eq!(
            changes(
                with(json!({"minimum": 1, "maxLength": 10})),
                with(json!({"minimum": 2, "maxLength": 20}))
            ),
            [
                "breaking: t: parameter `x`: `minimum` 1 to 2 (tightened)",
                "compatible: t: parameter `x`: `maxLength` 10 to 20 (loosened)",
            ]
        );
        assert_eq!(
            changes(with(json!({})), with(json!({"pattern": "^a"}))),
            ["breaking: t: parameter `x`: `pattern` now \"^a\""]
        );
        assert_eq!(
            changes(with(json!({"maximum": 5})), with(json!({}))),
            ["compatible: t: parameter `x`: `maximum` 5 to none (loosened)"]
        );
    }

    #[test]
    fn nested_parameters_and_requirement_changes() {
        let old = json!({"type": "object", "properties": {
            "address": {"type": "object", "properties": {"city": {"type": "string"}}},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}}
        }, "required": ["address"]});
        let new = json!({"type": "object", "properties": {
            "address": {"type": "object", "properties": {"city": {"type": "string"}},
                "required": ["city"]},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}}
        }, "required": ["tags"]});
        assert_eq!(
            changes(old, new),
            [
                "compatible: t: parameter `address` made optional",
                "breaking: t: parameter `address.city` made required",
                "breaking: t: parameter `tags` made required",
                "breaking: t: parameter `tags[]`: `maxLength` 5 to 3 (tightened)",
            ]
        );
    }
}
