//! A tool's requests to the client that called it, in MCP's shape:
//! `sampling/createMessage`, `elicitation/create` and `roots/list`
//! ([`ToolContext::sample`](tool_runtime::ToolContext::sample),
//! [`ToolContext::elicit_with_schema`](tool_runtime::ToolContext::elicit_with_schema),
//! [`ToolContext::roots`](tool_runtime::ToolContext::roots)): their
//! parameters and answers, for both eras and both transports.
//!
//! The revisions with sessions send them as requests of the server's; the
//! 2026-07-28 revision has no requests from server to client, and returns
//! them in an `input_required` result instead ([`mrtr`](super::mrtr)); a
//! task's requests wait in the task ([`tasks`](super::tasks)). Those three
//! differ only in how a request reaches the client ([`Ask`]); [`Client`]
//! is the one [`ClientRequests`] over all of them.

use std::future::Future;

use serde_json::{Map, Value, json};
use tool_runtime::{
    ToolError, context::ClientFuture, context::ClientRequests, context::Elicitation,
    context::ElicitationRequest, context::Role, context::Root, context::SamplingRequest,
    context::SamplingResponse, providers, spec::ToolErrorKind,
};

/// One of a tool's requests to its client, in MCP's shape.
pub(super) struct Request {
    /// The capability the client must have declared: `sampling`,
    /// `elicitation` or `roots`.
    pub(super) capability: &'static str,
    /// The request's method (`sampling/createMessage`, ...).
    pub(super) method: &'static str,
    /// The name the tool gave the request, if any: the key it waits under
    /// where requests are answered by key.
    pub(super) name: Option<String>,
    /// The request's parameters.
    pub(super) params: Value,
}

/// How a request reaches the client and its result comes back: as a
/// request of the server's in a session, waiting in a task, or from the
/// answers a stateless round brought.
pub(super) trait Ask: Send + Sync + 'static {
    /// The client's result for `request`, or the error the tool gets: the
    /// client did not declare the request's capability ([`unavailable`]),
    /// or could not answer ([`failed`]).
    fn ask(&self, request: Request) -> impl Future<Output = Result<Value, ToolError>> + Send;
}

/// A tool's client, however it is asked ([`Ask`]): the parameters of its
/// requests and the reading of their results, made here once.
pub(super) struct Client<A>(pub(super) A);

impl<A: Ask> ClientRequests for Client<A> {
    fn sample(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async move {
            let params = sampling_params(&request);
            let answer = self
                .0
                .ask(Request {
                    capability: "sampling",
                    method: "sampling/createMessage",
                    name: request.name,
                    params,
                })
                .await?;
            Ok(sampling_response(&answer))
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, Elicitation<Value>> {
        Box::pin(async move {
            check_elicitation_schema(&request.requested_schema)?;
            let params = elicitation_params(&request);
            let answer = self
                .0
                .ask(Request {
                    capability: "elicitation",
                    method: "elicitation/create",
                    name: request.name,
                    params,
                })
                .await?;
            Ok(elicitation_answer(answer))
        })
    }

    fn roots(&self) -> ClientFuture<'_, Vec<Root>> {
        Box::pin(async move {
            let answer = self
                .0
                .ask(Request {
                    capability: "roots",
                    method: "roots/list",
                    name: None,
                    params: json!({}),
                })
                .await?;
            roots_answer(&answer)
        })
    }
}

/// The error of a request to a client that did not declare the capability
/// `name`.
pub(super) fn unavailable(name: &str) -> ToolError {
    ToolError::with_kind(
        ToolErrorKind::ClientUnavailable,
        format!("{name} is not available: the MCP client did not declare the `{name}` capability"),
    )
}

/// A request the client answered with an error, or never answered.
pub(super) fn failed(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(format!(
        "the client could not answer the {what} request: {error}"
    ))
}

/// A sampling request's parameters in MCP's shape.
fn sampling_params(request: &SamplingRequest) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| {
            json!({
                "role": role_name(message.role),
                "content": providers::mcp::content_block(&message.content),
            })
        })
        .collect();
    let mut params = Map::new();
    params.insert("messages".into(), Value::Array(messages));
    params.insert("maxTokens".into(), request.max_tokens.into());
    if let Some(prompt) = &request.system_prompt {
        params.insert("systemPrompt".into(), prompt.clone().into());
    }
    if let Some(temperature) = request.temperature {
        params.insert("temperature".into(), temperature.into());
    }
    if !request.stop_sequences.is_empty() {
        params.insert(
            "stopSequences".into(),
            request.stop_sequences.clone().into(),
        );
    }
    if !request.model_hints.is_empty() {
        let hints: Vec<Value> = request
            .model_hints
            .iter()
            .map(|name| json!({"name": name}))
            .collect();
        params.insert("modelPreferences".into(), json!({"hints": hints}));
    }
    Value::Object(params)
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// A `CreateMessageResult` (as JSON) as the runtime's response. Its content
/// is one block or, in newer revisions, a list of them: the first is kept.
fn sampling_response(result: &Value) -> SamplingResponse {
    let block = match &result["content"] {
        Value::Array(blocks) => blocks.first().cloned().unwrap_or(Value::Null),
        other => other.clone(),
    };
    let content = crate::content::from_json(block);
    let mut response = SamplingResponse::new(result["model"].as_str().unwrap_or_default(), content);
    if result["role"] == "user" {
        response.role = Role::User;
    }
    response.stop_reason = result["stopReason"].as_str().map(str::to_owned);
    response
}

/// An error unless `schema` is one MCP's form elicitation accepts: an
/// object schema whose properties are each a schema of their own (strings,
/// numbers, integers, booleans or enumerations; the client checks the
/// rest).
fn check_elicitation_schema(schema: &Value) -> Result<(), ToolError> {
    let fits = schema.get("type").and_then(Value::as_str) == Some("object")
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| properties.values().all(Value::is_object));
    if fits {
        return Ok(());
    }
    Err(ToolError::new(
        "the requested schema is not one MCP elicitation accepts (an object whose properties \
         are strings, numbers, integers, booleans or enumerations)",
    ))
}

/// An elicitation request's parameters in MCP's shape (a form).
fn elicitation_params(request: &ElicitationRequest) -> Value {
    json!({
        "mode": "form",
        "message": request.message,
        "requestedSchema": request.requested_schema,
    })
}

/// A `ListRootsResult` (as JSON) as the runtime's roots.
fn roots_answer(result: &Value) -> Result<Vec<Root>, ToolError> {
    let Some(roots) = result.get("roots").and_then(Value::as_array) else {
        return Err(ToolError::new(
            "the client's answer to roots/list has no `roots` list",
        ));
    };
    roots
        .iter()
        .map(|root| {
            let uri = root.get("uri").and_then(Value::as_str).ok_or_else(|| {
                ToolError::new("a root in the client's answer to roots/list has no `uri`")
            })?;
            let root_of = Root::new(uri);
            Ok(match root.get("name").and_then(Value::as_str) {
                Some(name) => root_of.named(name),
                None => root_of,
            })
        })
        .collect()
}

/// An `ElicitResult` (as JSON) as the runtime's answer.
fn elicitation_answer(mut result: Value) -> Elicitation<Value> {
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => Elicitation::Accepted(match result.get_mut("content") {
            Some(content) if !content.is_null() => content.take(),
            _ => Value::Object(Map::new()),
        }),
        Some("decline") => Elicitation::Declined,
        _ => Elicitation::Cancelled,
    }
}
