//! A tool's requests to the client that called it, sent as MCP requests:
//! `sampling/createMessage` and `elicitation/create`
//! ([`ToolContext::sample`](tool_runtime::ToolContext::sample),
//! [`ToolContext::elicit`](tool_runtime::ToolContext::elicit)).
//!
//! rmcp marks its sampling API deprecated: the 2026-07-28 revision of MCP
//! drops requests from server to client. Clients of the revisions before it
//! (every client today) answer them, so the server keeps them, here alone.
#![allow(deprecated)]

use rmcp::model::{
    CreateMessageRequestParams, ElicitRequestParams, ElicitationAction, ElicitationSchema,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Map, Value, json};
use tool_runtime::providers;
use tool_runtime::{
    ClientFuture, ClientRequests, Elicitation, ElicitationRequest, Role, SamplingRequest,
    SamplingResponse, ToolError, ToolErrorKind,
};

/// The client of one session, as the [`ClientRequests`] of its calls.
pub(super) struct PeerClient {
    pub(super) peer: Peer<RoleServer>,
}

impl PeerClient {
    /// An error unless the client declared the capability `name`.
    fn require(
        &self,
        name: &str,
        declared: impl Fn(&rmcp::model::ClientCapabilities) -> bool,
    ) -> Result<(), ToolError> {
        let info = self.peer.peer_info();
        if info
            .as_deref()
            .is_some_and(|info| declared(&info.capabilities))
        {
            return Ok(());
        }
        Err(ToolError::with_kind(
            ToolErrorKind::ClientUnavailable,
            format!(
                "{name} is not available: the MCP client did not declare the `{name}` capability"
            ),
        ))
    }
}

/// A request the client answered with an error, or never answered.
fn failed(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(format!(
        "the client could not answer the {what} request: {error}"
    ))
}

impl ClientRequests for PeerClient {
    fn sample(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async move {
            self.require("sampling", |caps| caps.sampling.is_some())?;
            let params = sampling_params(&request).map_err(|error| {
                ToolError::new(format!("the sampling request is not valid: {error}"))
            })?;
            let result = self
                .peer
                .create_message(params)
                .await
                .map_err(|error| failed("sampling", error))?;
            let result = serde_json::to_value(&result).unwrap_or_default();
            Ok(sampling_response(&result))
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, Elicitation<Value>> {
        Box::pin(async move {
            self.require("elicitation", |caps| caps.elicitation.is_some())?;
            let schema: ElicitationSchema =
                crate::reread(&request.requested_schema).map_err(|error| {
                    ToolError::new(format!(
                        "the requested schema is not one MCP elicitation accepts (an object \
                         whose properties are strings, numbers, integers, booleans or \
                         enumerations): {error}"
                    ))
                })?;
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: request.message,
                requested_schema: schema,
            };
            let result = self
                .peer
                .create_elicitation(params)
                .await
                .map_err(|error| failed("elicitation", error))?;
            Ok(match result.action {
                ElicitationAction::Accept => {
                    Elicitation::Accepted(result.content.unwrap_or(Value::Object(Map::new())))
                }
                ElicitationAction::Decline => Elicitation::Declined,
                _ => Elicitation::Cancelled,
            })
        })
    }
}

/// The request's parameters in MCP's shape, read by rmcp.
fn sampling_params(
    request: &SamplingRequest,
) -> Result<CreateMessageRequestParams, serde_json::Error> {
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
    crate::reread(&Value::Object(params))
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
    let content = crate::content::from_mcp_json(block);
    let mut response = SamplingResponse::new(result["model"].as_str().unwrap_or_default(), content);
    if result["role"] == "user" {
        response.role = Role::User;
    }
    response.stop_reason = result["stopReason"].as_str().map(str::to_owned);
    response
}
