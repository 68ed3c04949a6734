//! Gemini's schema subset: a JSON Schema rewritten as the OpenAPI 3.0
//! subset Gemini's `Schema` object accepts (the table in the
//! [provider's documentation](super) lists each rewrite).

use serde_json::{Map, Value, json};

use crate::schema::strict::resolve_ref;

/// How many levels deep a recursive type is described before it is cut off.
pub const RECURSION_LIMIT: usize = 3;

/// Keywords copied as they are.
const KEPT: &[&str] = &[
    "description",
    "title",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "example",
    "default",
    "propertyOrdering",
];

/// A JSON Schema rewritten as the schema subset Gemini accepts (see the
/// [provider's documentation](super)).
///
/// ```
/// use serde_json::json;
/// use tool_runtime::providers::gemini;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "note": {"type": ["string", "null"], "format": "uint8"},
///         "unit": {"$ref": "#/$defs/Unit", "description": "The unit"}
///     },
///     "additionalProperties": false,
///     "$defs": {"Unit": {"oneOf": [{"const": "c", "type": "string"}, {"const": "f", "type": "string"}]}}
/// });
/// assert_eq!(gemini::schema(&schema), json!({
///     "type": "object",
///     "properties": {
///         "note": {"type": "string", "nullable": true},
///         "unit": {"type": "string", "enum": ["c", "f"], "description": "The unit"}
///     }
/// }));
/// ```
pub fn schema(json_schema: &Value) -> Value {
    let mut converter = Converter {
        root: json_schema,
        stack: Vec::new(),
    };
    converter.node(json_schema)
}

struct Converter<'a> {
    root: &'a Value,
    /// References being inlined, innermost last.
    stack: Vec<String>,
}

impl Converter<'_> {
    fn node(&mut self, schema: &Value) -> Value {
        match schema {
            Value::Object(object) => self.object(object),
            // `true`, `false` or something that is not a schema: nothing
            // Gemini can state about it.
            _ => Value::Object(Map::new()),
        }
    }

    /// One schema object rewritten: `allOf` merged and a `$ref` inlined
    /// first, then each group of keywords in turn.
    fn object(&mut self, source: &Map<String, Value>) -> Value {
        let mut object = source.clone();
        if let Some(Value::Array(parts)) = object.remove("allOf") {
            for part in parts {
                if let Value::Object(part) = part {
                    merge_schema(&mut object, part);
                }
            }
        }
        if let Some(Value::String(reference)) = object.remove("$ref") {
            return self.inline(reference, object);
        }

        let mut out = Rewritten {
            schema: Map::new(),
            nullable: object.get("nullable") == Some(&Value::Bool(true)),
            variant_docs: Vec::new(),
        };
        self.branches(&object, &mut out);
        out.types(&object);
        out.values(&object);
        self.properties(&object, &mut out.schema);
        self.items(&object, &mut out.schema);
        out.format(&object);
        out.finish(&object)
    }

    /// The definition `reference` names, with the referring schema's own
    /// keywords (`siblings`) on top; cut off past [`RECURSION_LIMIT`].
    fn inline(&mut self, reference: String, siblings: Map<String, Value>) -> Value {
        let target = resolve_ref(self.root, &reference)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let depth = self.stack.iter().filter(|seen| **seen == reference).count();
        if depth >= RECURSION_LIMIT {
            return cut_off(&siblings, &target);
        }
        let mut merged = target;
        for (key, value) in siblings {
            merged.insert(key, value);
        }
        self.stack.push(reference);
        let inlined = self.object(&merged);
        self.stack.pop();
        inlined
    }

    /// `anyOf` and `oneOf`: a null branch makes the schema nullable; a
    /// union of one-value string enums becomes one string enum; a single
    /// remaining branch stands for the whole; more become `anyOf`.
    fn branches(&mut self, object: &Map<String, Value>, out: &mut Rewritten) {
        let mut branches = Vec::new();
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(list)) = object.get(key) {
                branches.extend(list.iter());
            }
        }
        if branches.is_empty() {
            return;
        }
        let mut converted = Vec::new();
        for branch in branches {
            if is_null_schema(branch) {
                out.nullable = true;
            } else {
                converted.push(self.node(branch));
            }
        }
        if let Some((values, docs)) = string_enum_union(&converted) {
            out.schema.insert("type".into(), "string".into());
            out.schema.insert("enum".into(), Value::Array(values));
            out.variant_docs = docs;
        } else if converted.len() == 1 {
            if let Some(Value::Object(only)) = converted.pop() {
                if only.get("nullable") == Some(&Value::Bool(true)) {
                    out.nullable = true;
                }
                out.schema = only;
            }
        } else if !converted.is_empty() {
            out.schema.insert("anyOf".into(), Value::Array(converted));
        }
    }

    /// `properties`, each rewritten, and the `required` names among them.
    fn properties(&mut self, object: &Map<String, Value>, out: &mut Map<String, Value>) {
        let Some(Value::Object(properties)) = object.get("properties") else {
            return;
        };
        let mut converted = Map::new();
        for (name, property) in properties {
            converted.insert(name.clone(), self.node(property));
        }
        if !converted.is_empty() {
            if let Some(Value::Array(required)) = object.get("required") {
                let required: Vec<Value> = required
                    .iter()
                    .filter(|name| name.as_str().is_some_and(|n| converted.contains_key(n)))
                    .cloned()
                    .collect();
                if !required.is_empty() {
                    out.insert("required".into(), Value::Array(required));
                }
            }
            out.insert("properties".into(), Value::Object(converted));
        }
        out.entry("type").or_insert_with(|| "object".into());
    }

    /// `items`, and a tuple's `prefixItems` as `items` of any of the
    /// element schemas with its length as `minItems` and `maxItems`.
    fn items(&mut self, object: &Map<String, Value>, out: &mut Map<String, Value>) {
        match (object.get("items"), object.get("prefixItems")) {
            (_, Some(Value::Array(elements))) | (Some(Value::Array(elements)), None) => {
                let converted: Vec<Value> = elements.iter().map(|e| self.node(e)).collect();
                let mut distinct: Vec<Value> = Vec::new();
                for element in converted {
                    if !distinct.contains(&element) {
                        distinct.push(element);
                    }
                }
                let items = if distinct.len() == 1 {
                    distinct.remove(0)
                } else {
                    json!({"anyOf": distinct})
                };
                out.insert("items".into(), items);
                out.insert("minItems".into(), elements.len().into());
                out.insert("maxItems".into(), elements.len().into());
                out.entry("type").or_insert_with(|| "array".into());
            }
            (Some(items), None) => {
                let items = self.node(items);
                out.insert("items".into(), items);
            }
            _ => {}
        }
    }
}

/// A schema object being rewritten: the Gemini schema so far, whether it
/// is nullable, and the doc comments of a string enum's variants.
struct Rewritten {
    schema: Map<String, Value>,
    nullable: bool,
    variant_docs: Vec<String>,
}

impl Rewritten {
    /// `type`: a `null` among several types makes the schema nullable;
    /// several others become `anyOf` one type each (unless the branches
    /// already gave an `anyOf`).
    fn types(&mut self, object: &Map<String, Value>) {
        let mut types: Vec<String> = match object.get("type") {
            Some(Value::String(name)) => vec![name.clone()],
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        if types.iter().any(|name| name == "null") && types.len() > 1 {
            self.nullable = true;
            types.retain(|name| name != "null");
        }
        match types.len() {
            0 => {}
            1 => {
                self.schema.insert("type".into(), types.remove(0).into());
            }
            _ if !self.schema.contains_key("anyOf") => {
                let alternatives = types
                    .into_iter()
                    .map(|name| json!({"type": name}))
                    .collect();
                self.schema
                    .insert("anyOf".into(), Value::Array(alternatives));
            }
            _ => {}
        }
    }

    /// `enum` and `const` as an `enum` of strings (a `null` value makes
    /// the schema nullable); the values' JSON type when the schema gives
    /// none and they share one.
    fn values(&mut self, object: &Map<String, Value>) {
        let values = match (object.get("enum"), object.get("const")) {
            (Some(Value::Array(values)), _) => values.clone(),
            (None, Some(value)) => vec![value.clone()],
            _ => return,
        };
        if values.contains(&Value::Null) {
            self.nullable = true;
        }
        let kept: Vec<&Value> = values.iter().filter(|value| !value.is_null()).collect();
        if !self.schema.contains_key("type")
            && let Some(name) = kept.first().and_then(|first| json_type(first))
            && kept.iter().all(|value| json_type(value) == Some(name))
        {
            self.schema.insert("type".into(), name.into());
        }
        let strings = kept
            .into_iter()
            .map(|value| match value {
                Value::String(text) => Value::String(text.clone()),
                other => Value::String(other.to_string()),
            })
            .collect();
        self.schema.insert("enum".into(), Value::Array(strings));
    }

    /// `format`, kept only where Gemini knows it for the schema's type.
    fn format(&mut self, object: &Map<String, Value>) {
        let Some(Value::String(format)) = object.get("format") else {
            return;
        };
        let kept = match self.schema.get("type").and_then(Value::as_str) {
            Some("number") => matches!(format.as_str(), "float" | "double"),
            Some("integer") => matches!(format.as_str(), "int32" | "int64"),
            Some("string") => matches!(format.as_str(), "date-time" | "enum"),
            _ => false,
        };
        if kept {
            self.schema.insert("format".into(), format.clone().into());
        }
    }

    /// The [`KEPT`] keywords copied, the variants' docs added to the
    /// description, and `nullable`.
    fn finish(mut self, object: &Map<String, Value>) -> Value {
        for key in KEPT {
            if let Some(value) = object.get(*key) {
                self.schema.insert((*key).into(), value.clone());
            }
        }
        if !self.variant_docs.is_empty() {
            let mut description = self
                .schema
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if !description.is_empty() {
                description.push_str("\n\n");
            }
            description.push_str(&self.variant_docs.join("\n"));
            self.schema.insert("description".into(), description.into());
        }
        if self.nullable {
            self.schema.insert("nullable".into(), true.into());
        }
        Value::Object(self.schema)
    }
}

/// The schema standing in for a recursive type past [`RECURSION_LIMIT`].
fn cut_off(siblings: &Map<String, Value>, target: &Map<String, Value>) -> Value {
    let kind = match target.get("type") {
        Some(Value::String(name)) if name != "null" => name.clone(),
        _ => "object".to_owned(),
    };
    let description = siblings
        .get("description")
        .or_else(|| target.get("description"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let note = "(a recursive value; its deeper levels are not described)";
    let description = if description.is_empty() {
        note.to_owned()
    } else {
        format!("{description} {note}")
    };
    json!({"type": kind, "description": description})
}

/// Merges the schema `part` (from `allOf`) into `into`: properties and
/// required names are combined, other keywords already present win.
fn merge_schema(into: &mut Map<String, Value>, part: Map<String, Value>) {
    for (key, value) in part {
        match (key.as_str(), into.get_mut(&key), value) {
            ("properties", Some(Value::Object(existing)), Value::Object(more)) => {
                for (name, schema) in more {
                    existing.entry(name).or_insert(schema);
                }
            }
            ("required", Some(Value::Array(existing)), Value::Array(more)) => {
                for name in more {
                    if !existing.contains(&name) {
                        existing.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                into.insert(key, value);
            }
        }
    }
}

fn is_null_schema(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(name)) => name == "null",
        _ => schema.get("const") == Some(&Value::Null),
    }
}

/// When every branch is a one-value string enum (how schemars writes a Rust
/// enum of documented unit variants), the values and the variants' docs.
fn string_enum_union(branches: &[Value]) -> Option<(Vec<Value>, Vec<String>)> {
    if branches.is_empty() {
        return None;
    }
    let mut values = Vec::new();
    let mut docs = Vec::new();
    for branch in branches {
        let object = branch.as_object()?;
        if object.get("type") != Some(&Value::from("string"))
            || object
                .keys()
                .any(|key| !matches!(key.as_str(), "type" | "enum" | "description"))
        {
            return None;
        }
        let Some(Value::Array(options)) = object.get("enum") else {
            return None;
        };
        for option in options {
            let text = option.as_str()?;
            values.push(option.clone());
            if let Some(Value::String(doc)) = object.get("description") {
                docs.push(format!("- {text}: {doc}"));
            }
        }
    }
    Some((values, docs))
}

fn json_type(value: &Value) -> Option<&'static str> {
    match value {
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
        Value::Number(_) => Some("number"),
        _ => None,
    }
}
