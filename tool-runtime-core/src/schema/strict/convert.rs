//! Converting a schema to strict mode: one walk that applies every
//! transform of the [module documentation](super)'s table, reporting what
//! cannot be expressed.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::check::check;
use super::free_form::{json_text, key_value_list};
use super::nullable::make_nullable;
use super::references::{prune_definitions, resolve_ref};
use super::rules::{ALLOWED, INEXPRESSIBLE, SUPPORTED_FORMATS, check_type};
use super::shape::{is_any_value, is_object_schema, map_values};
use super::violation::{StrictViolation, push_pointer};

/// The strict form of `schema`; `top_level` is the declared parameter order
/// when `schema` is a tool's argument object, whose optional properties
/// become nullable.
pub(super) fn convert(
    schema: &Value,
    top_level: Option<&[&str]>,
) -> Result<Value, Vec<StrictViolation>> {
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
        self.merge_all_of(&mut object, pointer);

        if let Some(Value::String(reference)) = object.get("$ref").cloned() {
            return self.reference(object, reference, pointer, top_level);
        }

        if pointer_is_value(pointer) {
            if is_any_value(&object) {
                return json_text(&object);
            }
            if let Some(values) = map_values(&object) {
                let value = self.node(values, &push_pointer(pointer, "additionalProperties"));
                return key_value_list(&object, value);
            }
        }

        let mut out = self.keywords(&object, pointer);
        if is_object_schema(&object) {
            self.object_members(&object, pointer, top_level, &mut out);
        }
        Value::Object(out)
    }

    /// `allOf` with one schema merged into `object` (its own keywords
    /// winning); with several, reported.
    fn merge_all_of(&mut self, object: &mut Map<String, Value>, pointer: &str) {
        let Some(all_of) = object.remove("allOf") else {
            return;
        };
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

    /// A schema with a `$ref`: the bare reference when it stands alone or
    /// sits inside a recursive type, else the referenced schema inlined
    /// with the siblings on top.
    fn reference(
        &mut self,
        mut object: Map<String, Value>,
        reference: String,
        pointer: &str,
        top_level: Option<&[&str]>,
    ) -> Value {
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
        inlined
    }

    /// Every keyword of `object` but an object's members, converted: kept,
    /// rewritten (`oneOf`, `const`), converted in turn (`items`, `anyOf`,
    /// `$defs`), reported, or dropped.
    fn keywords(&mut self, object: &Map<String, Value>, pointer: &str) -> Map<String, Value> {
        let mut out = Map::new();
        for (key, value) in object {
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
                    if let Some(branches) = self.union(object, key, value, &at) {
                        out.insert("anyOf".into(), branches);
                    }
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
                    if let Some(definitions) = self.definitions(key, value, pointer, &at) {
                        out.insert(key.clone(), definitions);
                    }
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
        out
    }

    /// The branches of an `anyOf` or `oneOf` (which becomes `anyOf`),
    /// converted; `None` when reported.
    fn union(
        &mut self,
        object: &Map<String, Value>,
        key: &str,
        value: &Value,
        at: &str,
    ) -> Option<Value> {
        if key == "oneOf" && object.contains_key("anyOf") {
            self.report(at, "oneOf beside anyOf cannot be expressed in strict mode");
            return None;
        }
        let Value::Array(branches) = value else {
            self.report(at, format!("{key} must be an array of schemas"));
            return None;
        };
        let branches = branches
            .iter()
            .enumerate()
            .map(|(i, branch)| self.node(branch, &push_pointer(at, &i.to_string())))
            .collect();
        Some(Value::Array(branches))
    }

    /// The root's `$defs` (or `definitions`), each converted as if inside
    /// its own reference; `None` when reported.
    fn definitions(&mut self, key: &str, value: &Value, pointer: &str, at: &str) -> Option<Value> {
        if !pointer.is_empty() {
            self.report(at, "definitions must be at the root");
            return None;
        }
        let Value::Object(definitions) = value else {
            self.report(at, format!("{key} must be an object"));
            return None;
        };
        let mut converted = Map::new();
        for (name, definition) in definitions {
            let reference = format!("#/{key}/{name}");
            self.inlining.push(reference);
            let def = self.node(definition, &push_pointer(at, name));
            self.inlining.pop();
            converted.insert(name.clone(), def);
        }
        Some(Value::Object(converted))
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
