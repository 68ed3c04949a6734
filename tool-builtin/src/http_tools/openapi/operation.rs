//! One operation made into a tool, in steps: the credentials it takes,
//! its parameters, its request body, its URL, its output, and the tool's
//! shape and endpoint.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};
use ureq::http;

use super::super::schema::Schemas;
use super::super::template::{Env, Part, Template};
use super::super::{Body, Endpoint, Guard, QueryParam, ToolShape};
use super::auth::{self, Credential};
use super::document::Reader;
use super::operations::{Operation, sanitize_property};
use super::schemas::{body_schema, describe, input_schema, parameter_schema, response_schema};

/// What every operation of an entry shares.
#[derive(Clone, Copy)]
pub(super) struct Common<'a> {
    /// The base URL, without a trailing `/`.
    pub(super) base: &'a str,
    /// The entry's credentials, by security scheme name.
    pub(super) credentials: &'a BTreeMap<String, Credential>,
    /// The entry's `headers`.
    pub(super) headers: &'a [(String, Template)],
    /// The values of the environment variables the entry names.
    pub(super) env: &'a Env,
    pub(super) guard: &'a Guard,
}

/// What an operation's parameters and body make: the input schema's
/// properties, and how each argument is sent.
#[derive(Default)]
struct Inputs {
    properties: Map<String, Value>,
    required: Vec<Value>,
    /// Where each property comes from, for messages.
    origin_of: HashMap<String, String>,
    /// The property of each path parameter, by the parameter's name.
    path_params: HashMap<String, String>,
    query: Vec<QueryParam>,
    headers: Vec<(String, Template)>,
    body: Body,
}

/// Whether an operation goes on to be a tool after a step: `None` leaves
/// it out (the reason is in the reader's errors or notes).
type Step = Option<()>;

impl<'d> Reader<'d> {
    /// The tool of `operation`, or `None` (with the reason in errors or
    /// notes).
    pub(super) fn operation(
        &mut self,
        operation: &Operation<'d>,
        name: String,
        common: &Common<'_>,
    ) -> Option<(ToolShape, Endpoint)> {
        let doc = self.document.value();
        let op = operation.operation;
        let mut schemas = Schemas::new(doc, self.v30);
        let mut inputs = Inputs::default();
        let applied = auth::applied(op, doc, common.credentials);
        for (parameter, pointer) in self.parameters(operation) {
            self.parameter(
                operation,
                parameter,
                &pointer,
                &applied,
                &mut schemas,
                &mut inputs,
            )?;
        }
        if let Some(request_body) = op.get("requestBody") {
            self.body(operation, request_body, &mut schemas, &mut inputs)?;
        }
        let url = self.url(operation, common.base, &inputs.path_params)?;

        // The answer, when the document describes a JSON 200.
        let mut outputs = Schemas::new(doc, self.v30);
        let success = op.pointer("/responses/200").map(|r| {
            self.follow(r, &format!("{}/responses/200", operation.pointer))
                .0
        });
        let output = response_schema(success, &mut outputs);
        if output.is_some() {
            inputs.headers.push((
                "Accept".into(),
                Template {
                    parts: vec![Part::Text("application/json".into())],
                },
            ));
        }
        send_credentials(&applied, &mut inputs);
        inputs.headers.extend(common.headers.iter().cloned());

        let input = input_schema(inputs.properties, inputs.required, &mut schemas);
        for message in schemas.errors.iter().chain(&outputs.errors) {
            let message = format!("{}: {message}", operation.shown);
            self.error(&operation.pointer, message);
        }
        if !schemas.errors.is_empty() || !outputs.errors.is_empty() {
            return None;
        }

        let (description, title) = description(op, &operation.shown);
        let method = http::Method::from_bytes(operation.method.to_ascii_uppercase().as_bytes())
            .unwrap_or(http::Method::GET);
        let endpoint = Endpoint {
            shown: format!("{} {}{}", method, common.base, operation.path),
            method,
            url,
            query: inputs.query,
            headers: inputs.headers,
            body: inputs.body,
            defaults: Map::new(),
            env: common.env.clone(),
            guard: common.guard.clone(),
            has_output_schema: output.is_some(),
        };
        let shape = ToolShape {
            name,
            description,
            title,
            input_schema: input,
            output_schema: output,
        };
        Some((shape, endpoint))
    }

    /// The operation's parameters, each with its pointer: the path item's,
    /// then the operation's (which win), references followed.
    fn parameters(&mut self, operation: &Operation<'d>) -> Vec<(&'d Value, String)> {
        let mut parameters: Vec<(&'d Value, String)> = Vec::new();
        for (list, list_pointer) in [
            (operation.common, operation.common_pointer.clone()),
            (
                operation.operation.get("parameters"),
                format!("{}/parameters", operation.pointer),
            ),
        ] {
            for (i, parameter) in list
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let (parameter, pointer) = self.follow(parameter, &format!("{list_pointer}/{i}"));
                let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
                parameters.retain(|(existing, _)| key(existing) != key(parameter));
                parameters.push((parameter, pointer));
            }
        }
        parameters
    }

    /// One parameter into `inputs`: a property of the input schema, sent
    /// in the path, the query or a header; or passed over (one OpenAPI
    /// ignores, one a credential gives, a header the tool sets, an
    /// optional cookie).
    fn parameter(
        &mut self,
        operation: &Operation<'d>,
        parameter: &Value,
        pointer: &str,
        applied: &[&Credential],
        schemas: &mut Schemas<'_>,
        inputs: &mut Inputs,
    ) -> Step {
        let shown = &operation.shown;
        let (Some(param_name), Some(inside)) = (
            parameter.get("name").and_then(Value::as_str),
            parameter.get("in").and_then(Value::as_str),
        ) else {
            self.error(
                pointer,
                format!("{shown}: a parameter needs `name` and `in`"),
            );
            return None;
        };
        if inside == "header"
            && ["accept", "content-type", "authorization"]
                .contains(&param_name.to_ascii_lowercase().as_str())
        {
            return Some(()); // OpenAPI says these are ignored.
        }
        if auth::supplies(applied, inside, param_name) {
            return Some(()); // `auth` gives it.
        }
        if inside == "header"
            && crate::http::request_headers([(param_name.to_owned(), "x".to_owned())].into())
                .is_err()
        {
            self.note(
                pointer,
                format!("{shown}: its header parameter \"{param_name}\" is left out: the tool sets that header itself, or it is not a valid header name"),
            );
            return Some(());
        }
        let is_required = inside == "path" || parameter.get("required") == Some(&Value::Bool(true));
        if inside == "cookie" {
            if is_required {
                self.note(pointer, format!("{shown}: left out: its cookie parameter \"{param_name}\" is required, and cookie parameters are not supported"));
                return None;
            }
            self.note(
                pointer,
                format!(
                    "{shown}: its cookie parameter \"{param_name}\" is left out (not supported)"
                ),
            );
            return Some(());
        }
        let property = sanitize_property(param_name);
        if let Some(first) = inputs.origin_of.get(&property) {
            self.error(
                pointer,
                format!("{shown}: the parameter \"{param_name}\" (in {inside}) is named twice: {first} has the name \"{property}\" too; `exclude` the operation"),
            );
            return None;
        }
        inputs.origin_of.insert(
            property.clone(),
            format!("the parameter \"{param_name}\" (in {inside})"),
        );
        let mut schema = parameter_schema(parameter, schemas);
        describe(
            &mut schema,
            parameter.get("description").and_then(Value::as_str),
        );
        inputs.properties.insert(property.clone(), schema);
        if is_required {
            inputs.required.push(json!(property));
        }
        match inside {
            "path" => {
                inputs.path_params.insert(param_name.to_owned(), property);
            }
            "query" => {
                let style = parameter
                    .get("style")
                    .and_then(Value::as_str)
                    .unwrap_or("form");
                let explode = parameter
                    .get("explode")
                    .and_then(Value::as_bool)
                    .unwrap_or(style == "form");
                inputs.query.push(QueryParam {
                    name: param_name.to_owned(),
                    value: Template::param(property),
                    explode,
                });
            }
            "header" => inputs
                .headers
                .push((param_name.to_owned(), Template::param(property))),
            other => {
                self.error(
                    pointer,
                    format!(
                        "{shown}: a parameter `in: {other}` is not path, query, header or cookie"
                    ),
                );
                return None;
            }
        }
        Some(())
    }

    /// The request body into `inputs`: the property `body`, sent as JSON,
    /// a form or text; an optional body of another kind is left out, and
    /// so is the operation with a required one.
    fn body(
        &mut self,
        operation: &Operation<'d>,
        request_body: &'d Value,
        schemas: &mut Schemas<'_>,
        inputs: &mut Inputs,
    ) -> Step {
        let shown = &operation.shown;
        let body_pointer = format!("{}/requestBody", operation.pointer);
        let (request_body, body_pointer) = self.follow(request_body, &body_pointer);
        let body_required = request_body.get("required") == Some(&Value::Bool(true));
        let content = request_body.get("content").and_then(Value::as_object);
        let (mut schema, made) = match body_schema(content, schemas) {
            Ok(made) => made,
            Err(types) => {
                if body_required {
                    self.note(&body_pointer, format!("{shown}: left out: its body is {}, which is not supported (JSON, form and text bodies are)", types.join(" or ")));
                    return None;
                }
                self.note(
                    &body_pointer,
                    format!(
                        "{shown}: its optional body ({}) is left out (not supported)",
                        types.join(" or ")
                    ),
                );
                return Some(());
            }
        };
        if let Some(first) = inputs.origin_of.get("body") {
            self.error(&body_pointer, format!("{shown}: the request body is named \"body\", as {first} is; `exclude` the operation"));
            return None;
        }
        describe(
            &mut schema,
            request_body.get("description").and_then(Value::as_str),
        );
        inputs.properties.insert("body".into(), schema);
        if body_required {
            inputs.required.push(json!("body"));
        }
        inputs.body = made;
        Some(())
    }

    /// The URL: the base, then the path with its parameters.
    fn url(
        &mut self,
        operation: &Operation<'d>,
        base: &str,
        path_params: &HashMap<String, String>,
    ) -> Option<Template> {
        let mut parts = vec![Part::Text(base.to_owned())];
        let mut rest = operation.path.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| c + open) else {
                break;
            };
            parts.push(Part::Text(rest[..open].to_owned()));
            let param = &rest[open + 1..close];
            match path_params.get(param) {
                Some(property) => parts.push(Part::Param(property.clone())),
                None => {
                    self.error(
                        &operation.pointer,
                        format!(
                            "{}: the path's {{{param}}} has no parameter `in: path` of that name",
                            operation.shown
                        ),
                    );
                    return None;
                }
            }
            rest = &rest[close + 1..];
        }
        parts.push(Part::Text(rest.to_owned()));
        parts.retain(|part| !matches!(part, Part::Text(text) if text.is_empty()));
        Some(Template { parts })
    }
}

/// The applied credentials, each in its header or the query.
fn send_credentials(applied: &[&Credential], inputs: &mut Inputs) {
    for credential in applied {
        match credential {
            Credential::Header(name, template) => {
                inputs.headers.push((name.clone(), template.clone()))
            }
            Credential::Query(name, template) => inputs.query.push(QueryParam {
                name: name.clone(),
                value: template.clone(),
                explode: false,
            }),
        }
    }
}

/// The tool's description (the operation's summary and description, or
/// `shown` without either) and title (its summary).
fn description(op: &Value, shown: &str) -> (String, Option<String>) {
    let text = |key: &str| {
        op.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
    };
    let description = match (text("summary"), text("description")) {
        (Some(summary), Some(description)) if summary != description => {
            format!("{summary}\n\n{description}")
        }
        (Some(one), _) | (None, Some(one)) => one.to_owned(),
        (None, None) => shown.to_owned(),
    };
    (description, text("summary").map(str::to_owned))
}
