//! Google Gemini: `generateContent` function calling.
//!
//! A tool definition is a function declaration `{"name", "description",
//! "parameters"}`; a request's `tools` array takes
//! `{"functionDeclarations": [...]}` entries. `parameters` is not JSON
//! Schema but the OpenAPI 3.0 subset Gemini's `Schema` object accepts, so
//! [`schema`] rewrites the tool's input schema:
//!
//! | JSON Schema | Gemini schema |
//! | --- | --- |
//! | `$ref` to `$defs` | the definition inlined, siblings such as `description` on top |
//! | a recursive type | inlined [`RECURSION_LIMIT`] levels deep, then `{"type": "object"}` (or the definition's own type) with a description saying deeper levels are not described |
//! | `"type": ["T", "null"]`, `anyOf`/`oneOf` with `{"type": "null"}` | `"type": "T"`, `"nullable": true` |
//! | `oneOf` | `anyOf` |
//! | `const: v` | `enum: [v]` |
//! | a union of one-value string enums (a Rust enum of unit variants) | one `{"type": "string", "enum": [...]}`; the variants' doc comments are listed in the description |
//! | `enum` values that are not strings | their JSON text (Gemini's `enum` holds strings) |
//! | `allOf` | its schemas merged |
//! | `prefixItems` (tuples) | `items` with `anyOf` the element schemas, `minItems` = `maxItems` = the length |
//! | an object without properties (a map) | `{"type": "object"}` without `properties` (Gemini rejects an empty `properties`) |
//! | `format` | kept for `float`/`double` numbers, `int32`/`int64` integers and `date-time`/`enum` strings; dropped otherwise |
//! | `$schema`, `$defs`, `additionalProperties`, `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, `uniqueItems`, `examples`, `const`, and any other keyword | dropped |
//!
//! Kept as they are: `type`, `description`, `title`, `nullable`, `enum`,
//! `properties`, `required`, `items`, `anyOf`, `minItems`, `maxItems`,
//! `minimum`, `maximum`, `minLength`, `maxLength`, `pattern`,
//! `minProperties`, `maxProperties`, `example`, `default` and
//! `propertyOrdering`. A tool's top-level `parameters` also get
//! `propertyOrdering`, unless its schema gives one: the order the
//! parameters of a `#[tool]` are declared in, and the order of the
//! schema's `properties` for a tool made at run time (a `DynamicTool`, an
//! MCP or OpenAPI import). A tool without parameters gets no `parameters`
//! at all (Gemini rejects an object with empty `properties`).
//!
//! Gemini's function calls may carry no id. A call without one gets a
//! generated id, `gemini-call-N` for the N-th call of the response
//! (counting from 0), which is stable for a given response; its
//! `functionResponse` then carries no id, and Gemini matches it by name
//! and position. An id Gemini gave is sent back.

use serde_json::{Map, Value, json};

use super::{At, Provider, ProviderError};
use crate::schema::strict::resolve_ref;
use crate::spec::content::{Content, ResourceContents};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// How many levels deep a recursive type is described before it is cut off.
pub const RECURSION_LIMIT: usize = 3;

/// The prefix of the ids given to calls that came without one.
pub const GENERATED_ID_PREFIX: &str = "gemini-call-";

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

/// A function declaration: `{"name", "description", "parameters"}`.
pub fn function_declaration(spec: &ToolSpec) -> Value {
    let mut declaration = Map::new();
    declaration.insert("name".into(), spec.name.as_ref().into());
    declaration.insert("description".into(), spec.description.as_ref().into());
    let mut parameters = schema(spec.input_schema());
    if let Value::Object(object) = &mut parameters
        && let Some(Value::Object(properties)) = object.get("properties")
    {
        if !object.contains_key("propertyOrdering") {
            let ordering = property_ordering(spec, properties);
            object.insert("propertyOrdering".into(), ordering);
        }
        declaration.insert("parameters".into(), parameters);
    }
    Value::Object(declaration)
}

/// The order of a tool's top-level `properties`: its parameters' order
/// (a `#[tool]`'s declaration order), then any property no parameter
/// names in the schema's own order. A tool made at run time lists no
/// parameters, so its schema's order is the whole of it.
fn property_ordering(spec: &ToolSpec, properties: &Map<String, Value>) -> Value {
    let declared = spec
        .params
        .iter()
        .map(|param| param.name)
        .filter(|name| properties.contains_key(*name));
    let others = properties
        .keys()
        .map(String::as_str)
        .filter(|name| spec.param(name).is_none());
    Value::Array(declared.chain(others).map(Value::from).collect())
}

/// A JSON Schema rewritten as the schema subset Gemini accepts (see the
/// [module documentation](self)).
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
            let target = resolve_ref(self.root, &reference)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let depth = self.stack.iter().filter(|seen| **seen == reference).count();
            if depth >= RECURSION_LIMIT {
                return cut_off(&object, &target);
            }
            let mut merged = target;
            for (key, value) in object {
                merged.insert(key, value);
            }
            self.stack.push(reference);
            let inlined = self.object(&merged);
            self.stack.pop();
            return inlined;
        }

        let mut out = Map::new();
        let mut nullable = object.get("nullable") == Some(&Value::Bool(true));
        let mut variant_docs = Vec::new();

        let mut branches = Vec::new();
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(list)) = object.get(key) {
                branches.extend(list.iter());
            }
        }
        if !branches.is_empty() {
            let mut converted = Vec::new();
            for branch in branches {
                if is_null_schema(branch) {
                    nullable = true;
                } else {
                    converted.push(self.node(branch));
                }
            }
            if let Some((values, docs)) = string_enum_union(&converted) {
                out.insert("type".into(), "string".into());
                out.insert("enum".into(), Value::Array(values));
                variant_docs = docs;
            } else if converted.len() == 1 {
                if let Some(Value::Object(only)) = converted.pop() {
                    if only.get("nullable") == Some(&Value::Bool(true)) {
                        nullable = true;
                    }
                    out = only;
                }
            } else if !converted.is_empty() {
                out.insert("anyOf".into(), Value::Array(converted));
            }
        }

        let mut types: Vec<String> = match object.get("type") {
            Some(Value::String(name)) => vec![name.clone()],
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        if types.iter().any(|name| name == "null") && types.len() > 1 {
            nullable = true;
            types.retain(|name| name != "null");
        }
        match types.len() {
            0 => {}
            1 => {
                out.insert("type".into(), types.remove(0).into());
            }
            _ if !out.contains_key("anyOf") => {
                let alternatives = types
                    .into_iter()
                    .map(|name| json!({"type": name}))
                    .collect();
                out.insert("anyOf".into(), Value::Array(alternatives));
            }
            _ => {}
        }

        let mut values: Option<Vec<Value>> = match (object.get("enum"), object.get("const")) {
            (Some(Value::Array(values)), _) => Some(values.clone()),
            (None, Some(value)) => Some(vec![value.clone()]),
            _ => None,
        };
        if let Some(values) = values.take() {
            if values.contains(&Value::Null) {
                nullable = true;
            }
            let kept: Vec<&Value> = values.iter().filter(|value| !value.is_null()).collect();
            if !out.contains_key("type")
                && let Some(name) = kept.first().and_then(|first| json_type(first))
                && kept.iter().all(|value| json_type(value) == Some(name))
            {
                out.insert("type".into(), name.into());
            }
            let strings = kept
                .into_iter()
                .map(|value| match value {
                    Value::String(text) => Value::String(text.clone()),
                    other => Value::String(other.to_string()),
                })
                .collect();
            out.insert("enum".into(), Value::Array(strings));
        }

        if let Some(Value::Object(properties)) = object.get("properties") {
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

        if let Some(Value::String(format)) = object.get("format") {
            let kept = match out.get("type").and_then(Value::as_str) {
                Some("number") => matches!(format.as_str(), "float" | "double"),
                Some("integer") => matches!(format.as_str(), "int32" | "int64"),
                Some("string") => matches!(format.as_str(), "date-time" | "enum"),
                _ => false,
            };
            if kept {
                out.insert("format".into(), format.clone().into());
            }
        }

        for key in KEPT {
            if let Some(value) = object.get(*key) {
                out.insert((*key).into(), value.clone());
            }
        }
        if !variant_docs.is_empty() {
            let mut description = out
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if !description.is_empty() {
                description.push_str("\n\n");
            }
            description.push_str(&variant_docs.join("\n"));
            out.insert("description".into(), description.into());
        }
        if nullable {
            out.insert("nullable".into(), true.into());
        }
        Value::Object(out)
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

/// The function calls of a `generateContent` response.
///
/// Accepts the whole response (the calls of its first candidate: further
/// candidates are alternatives, not more calls), one content (`{"role",
/// "parts": [...]}`) or its `parts` array. Parts with a `functionCall`
/// (`{"name", "args", "id"?}`) become tool uses; a missing `args` is `{}`;
/// a missing `id` is generated as `gemini-call-N`, N counting this
/// response's calls from 0.
pub fn parse_function_calls(body: &Value) -> Result<Vec<ToolUse>, ProviderError> {
    let root = At::root(Provider::Gemini, body);
    let parts = match body {
        Value::Array(_) => root,
        Value::Object(object) if object.contains_key("candidates") => {
            let candidates = root.field("candidates")?.array()?;
            let Some(first) = candidates.into_iter().next() else {
                return Ok(Vec::new());
            };
            // A candidate stopped for safety or length may have no content.
            let Some(content) = first.get("content") else {
                return Ok(Vec::new());
            };
            match content.get("parts") {
                Some(parts) => parts,
                None => return Ok(Vec::new()),
            }
        }
        _ => root.field("parts")?,
    };
    let mut uses = Vec::new();
    for part in parts.array()? {
        part.object()?;
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        let name = call.field("name")?.name()?;
        let input = match call.get("args") {
            Some(args) => args.arguments_object()?,
            None => Value::Object(Map::new()),
        };
        let id = match call.get("id") {
            Some(id) => id.name()?.to_owned(),
            None => format!("{GENERATED_ID_PREFIX}{}", uses.len()),
        };
        uses.push(ToolUse::new(id, name, input));
    }
    Ok(uses)
}

/// A `functionResponse` part: `{"functionResponse": {"name", "response",
/// "parts"?, "id"?}}`.
///
/// The name is the call's. `response` is `{"output": value}` on success
/// (text as a JSON string, JSON as it is, several blocks as an array) and
/// `{"error": "text"}` on error, the keys Gemini documents. Images and
/// embedded PDFs go in `parts` as `inlineData` (Gemini's multimodal function
/// responses) and are left out of `output`; audio and other resources are
/// in `output` as their [stand-ins](Content::stand_in). The id is sent back
/// only when Gemini gave one (see the [module documentation](self)).
pub fn function_response(call: &ToolUse, result: &ToolResult) -> Value {
    let mut parts = Vec::new();
    let response = if result.is_error() {
        json!({"error": result.text_content()})
    } else if result.has_media() {
        let mut values = Vec::new();
        for part in &result.content {
            match inline_data(part) {
                Some(data) => parts.push(json!({"inlineData": data})),
                None => values.push(match part {
                    Content::Text(text) => Value::String(text.clone()),
                    Content::Json(value) => value.clone(),
                    other => Value::String(other.stand_in()),
                }),
            }
        }
        let output = match values.len() {
            0 => Value::Null,
            1 => values.pop().unwrap_or(Value::Null),
            _ => Value::Array(values),
        };
        json!({"output": output})
    } else {
        json!({"output": super::result_value(result)})
    };
    let mut inner = Map::new();
    if !call.id.is_empty() && !call.id.starts_with(GENERATED_ID_PREFIX) {
        inner.insert("id".into(), call.id.clone().into());
    }
    inner.insert("name".into(), call.name.clone().into());
    inner.insert("response".into(), response);
    if !parts.is_empty() {
        inner.insert("parts".into(), Value::Array(parts));
    }
    json!({"functionResponse": inner})
}

/// An image or a PDF as `{"mimeType", "data"}`; `None` for other blocks.
fn inline_data(part: &Content) -> Option<Value> {
    match part {
        Content::Image(image) => {
            Some(json!({"mimeType": image.mime_type(), "data": image.base64()}))
        }
        Content::Resource(resource) => match (&resource.contents, resource.mime_type.as_deref()) {
            (ResourceContents::Blob(data), Some(mime @ "application/pdf")) => {
                Some(json!({"mimeType": mime, "data": data}))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contains_key(value: &Value, key: &str) -> bool {
        match value {
            Value::Object(object) => {
                object.contains_key(key) || object.values().any(|v| contains_key(v, key))
            }
            Value::Array(items) => items.iter().any(|v| contains_key(v, key)),
            _ => false,
        }
    }

    #[test]
    fn references_are_inlined_with_their_siblings_on_top() {
        let input = json!({
            "type": "object",
            "properties": {
                "slot": {"$ref": "#/$defs/Slot", "description": "When"},
                "slots": {"type": "array", "items": {"$ref": "#/$defs/Slot"}}
            },
            "required": ["slot"],
            "additionalProperties": false,
            "$defs": {"Slot": {
                "type": "object",
                "description": "A time slot.",
                "properties": {"minutes": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535}},
                "required": ["minutes"],
                "additionalProperties": false
            }}
        });
        let slot = json!({
            "type": "object",
            "description": "A time slot.",
            "properties": {"minutes": {"type": "integer", "minimum": 0, "maximum": 65535}},
            "required": ["minutes"]
        });
        let mut described = slot.clone();
        described["description"] = json!("When");
        assert_eq!(
            schema(&input),
            json!({
                "type": "object",
                "properties": {
                    "slot": described,
                    "slots": {"type": "array", "items": slot}
                },
                "required": ["slot"]
            })
        );
    }

    #[test]
    fn recursive_types_stop_at_the_limit_and_say_so() {
        let input = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {
                "type": "object",
                "description": "A tree node.",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                }
            }}
        });
        let out = schema(&input);
        assert!(!contains_key(&out, "$ref") && !contains_key(&out, "$defs"));
        let mut node = &out["properties"]["root"];
        for _ in 0..RECURSION_LIMIT {
            assert_eq!(node["description"], "A tree node.");
            assert_eq!(node["properties"]["label"], json!({"type": "string"}));
            node = &node["properties"]["children"]["items"];
        }
        assert_eq!(
            node,
            &json!({
                "type": "object",
                "description": "A tree node. (a recursive value; its deeper levels are not described)"
            })
        );
    }

    #[test]
    fn mutually_recursive_types_terminate() {
        let input = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
            }
        });
        let out = schema(&input);
        assert!(!contains_key(&out, "$ref"));
        let mut depth = 0;
        let mut node = &out["properties"]["a"];
        while let Some(next) = node["properties"]["b"]["properties"].get("a") {
            node = next;
            depth += 1;
        }
        assert_eq!(depth, RECURSION_LIMIT);
    }

    #[test]
    fn nullable_unions_constants_and_maps() {
        let input = json!({
            "type": "object",
            "properties": {
                "maybe": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}], "description": "Maybe"},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer", "format": "int64"}]},
                "fixed": {"const": 7},
                "level": {"enum": [1, 2, null]},
                "map": {"type": "object", "additionalProperties": {"type": "string"}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number", "format": "double"}]},
                "when": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "format": "uuid"}
            },
            "$defs": {"S": {"type": "string", "minLength": 1}}
        });
        let out = schema(&input);
        let properties = &out["properties"];
        assert_eq!(
            properties["maybe"],
            json!({"type": "string", "minLength": 1, "nullable": true, "description": "Maybe"})
        );
        assert_eq!(
            properties["either"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer", "format": "int64"}]})
        );
        assert_eq!(
            properties["fixed"],
            json!({"type": "integer", "enum": ["7"]})
        );
        assert_eq!(
            properties["level"],
            json!({"type": "integer", "enum": ["1", "2"], "nullable": true})
        );
        assert_eq!(properties["map"], json!({"type": "object"}));
        assert_eq!(
            properties["pair"],
            json!({
                "type": "array",
                "items": {"anyOf": [{"type": "string"}, {"type": "number", "format": "double"}]},
                "minItems": 2,
                "maxItems": 2
            })
        );
        assert_eq!(
            properties["when"],
            json!({"type": "string", "format": "date-time"})
        );
        assert_eq!(properties["id"], json!({"type": "string"}));
    }

    #[test]
    fn documented_enum_variants_become_one_enum() {
        let input = json!({
            "description": "How urgent.",
            "oneOf": [
                {"type": "string", "const": "low", "description": "Can wait."},
                {"type": "string", "const": "high", "description": "Now."}
            ]
        });
        assert_eq!(
            schema(&input),
            json!({
                "type": "string",
                "enum": ["low", "high"],
                "description": "How urgent.\n\n- low: Can wait.\n- high: Now."
            })
        );
    }
}
