//! The JSON Schemas of an operation's tool: each parameter's, the request
//! body's (and how the body is sent), the input object, and the output
//! from a JSON `200` response. The schema conversion itself is
//! [`Schemas`]'.

use serde_json::{Map, Value, json};

use super::super::schema::Schemas;
use super::super::template::JsonTemplate;
use super::super::{Body, output_schema};

/// A parameter's schema: its `schema`, or the schema of its first
/// `content` media type, or a string.
pub(super) fn parameter_schema(parameter: &Value, schemas: &mut Schemas<'_>) -> Value {
    match (
        parameter.get("schema"),
        parameter.get("content").and_then(Value::as_object),
    ) {
        (Some(schema), _) => schemas.convert(schema),
        (None, Some(content)) => content
            .values()
            .next()
            .and_then(|media| media.get("schema"))
            .map(|schema| schemas.convert(schema))
            .unwrap_or_else(|| json!({"type": "string"})),
        (None, None) => json!({"type": "string"}),
    }
}

/// `description` (a parameter's or a body's) on `schema`, unless the
/// schema has one.
pub(super) fn describe(schema: &mut Value, description: Option<&str>) {
    if let (Some(description), Some(object)) = (description, schema.as_object_mut())
        && !object.contains_key("description")
    {
        object.insert("description".into(), json!(description));
    }
}

/// The schema of a request body of `content` and how it is sent, the
/// argument `body` being JSON, a form or text; or the media types of
/// `content` when none of them is supported.
pub(super) fn body_schema<'c>(
    content: Option<&'c Map<String, Value>>,
    schemas: &mut Schemas<'_>,
) -> Result<(Value, Body), Vec<&'c str>> {
    let pick = |wanted: &dyn Fn(&str) -> bool| {
        content
            .into_iter()
            .flatten()
            .find(|(media_type, _)| wanted(&media_type.to_ascii_lowercase()))
    };
    let json_media = pick(&|t| t == "application/json" || t.ends_with("+json") || t == "*/*");
    let form_media = pick(&|t| t == "application/x-www-form-urlencoded");
    let text_media = pick(&|t| t.starts_with("text/") || t == "application/octet-stream");
    if let Some((_, media)) = json_media {
        let schema = media
            .get("schema")
            .map(|s| schemas.convert(s))
            .unwrap_or_else(|| json!({}));
        Ok((schema, Body::Json(JsonTemplate::Param("body".into()))))
    } else if let Some((_, media)) = form_media {
        let schema = media
            .get("schema")
            .map(|s| schemas.convert(s))
            .unwrap_or_else(|| json!({"type": "object"}));
        Ok((schema, Body::Form(JsonTemplate::Param("body".into()))))
    } else if let Some((media_type, _)) = text_media {
        Ok((
            json!({"type": "string"}),
            Body::Text("body".into(), media_type.clone()),
        ))
    } else {
        Err(content
            .into_iter()
            .flatten()
            .map(|(t, _)| t.as_str())
            .collect())
    }
}

/// The input schema: an object of `properties`, `required` as listed, no
/// other properties.
pub(super) fn input_schema(
    properties: Map<String, Value>,
    required: Vec<Value>,
    schemas: &mut Schemas<'_>,
) -> Value {
    let mut input = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        input["required"] = Value::Array(required);
    }
    input["additionalProperties"] = json!(false);
    schemas.finish(&mut input);
    input
}

/// The output schema, when `success` (the operation's `200` response)
/// describes a JSON body.
pub(super) fn response_schema(success: Option<&Value>, outputs: &mut Schemas<'_>) -> Option<Value> {
    let success_schema = success
        .and_then(|response| response.get("content"))
        .and_then(Value::as_object)
        .and_then(|content| {
            content
                .iter()
                .find(|(t, _)| *t == "application/json" || t.ends_with("+json"))
                .and_then(|(_, media)| media.get("schema"))
        })
        .map(|schema| outputs.convert(schema));
    success_schema.map(|body| {
        let mut schema = output_schema(body);
        outputs.finish(&mut schema);
        schema
    })
}
