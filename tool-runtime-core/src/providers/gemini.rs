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
use crate::spec::content::{Content, ResourceContents};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

mod schema;

pub use schema::{RECURSION_LIMIT, schema};

/// The prefix of the ids given to calls that came without one.
pub const GENERATED_ID_PREFIX: &str = "gemini-call-";

/// A function declaration: `{"name", "description", "parameters"}`.
pub fn function_declaration(spec: &ToolSpec) -> Value {
    let mut declaration = Map::new();
    declaration.insert("name".into(), spec.name.as_ref().into());
    declaration.insert("description".into(), super::description(spec).into());
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
