//! genai: a registry's tools as genai `Tool`s, its tool calls run, the
//! results as `ToolResponse`s (feature `genai`).
//!
//! - [`tools`]: the `Tool`s for `ChatRequest::with_tools`;
//! - [`answer`]: for a `ChatResponse`, the messages to append before the next
//!   request (the assistant's tool-use message, then one tool message with
//!   every response), its calls run concurrently;
//! - [`run_tool_calls`]: the `ToolResponse`s alone.
//!
//! genai sends a tool's result as text, with no error flag: an error result
//! is sent as its text, which says what went wrong, and a JSON result as
//! compact JSON text. A tool the registry renders strict comes with
//! `strict: true` and tool-runtime's strict schema (optional parameters
//! required but nullable, which the registry reads back as absent), so
//! genai's own strict conversion, which would make them plainly required,
//! finds nothing left to change; every other tool with `strict: false`,
//! stated, since the Responses API reads a missing `strict` as `true`.

use ::genai::chat::{ChatMessage, ChatResponse, Tool, ToolCall, ToolResponse};
use serde_json::Value;
use tool_runtime::{Registry, ToolContext, ToolUse};

use crate::calls::{self, Call};

/// The registry's tools as genai `Tool`s, in name order.
pub fn tools(registry: &Registry) -> Vec<Tool> {
    calls::definitions(registry)
        .into_iter()
        .map(|tool| {
            Tool::new(tool.name)
                .with_description(tool.description)
                .with_schema(tool.parameters)
                .with_strict(tool.strict)
        })
        .collect()
}

/// The messages to append after a chat response: the assistant's message
/// (its tool calls, with whatever reasoning or signatures the provider
/// needs back, as `ChatResponse::into_assistant_message_for_tool_use`
/// keeps them), then one tool message holding a `ToolResponse` for each
/// call, in order. The calls run concurrently under the registry's limits.
///
/// A response without tool calls (the model's answer) gives the
/// assistant's message alone.
pub async fn answer(
    registry: &Registry,
    response: ChatResponse,
    ctx: &ToolContext,
) -> Vec<ChatMessage> {
    let calls: Vec<ToolCall> = response.tool_calls().into_iter().cloned().collect();
    if calls.is_empty() {
        return vec![ChatMessage::assistant(response.content)];
    }
    let assistant = response
        .into_assistant_message_for_tool_use()
        .unwrap_or_else(|| ChatMessage::from(calls.clone()));
    let responses = run_tool_calls(registry, &calls, ctx).await;
    vec![assistant, ChatMessage::from(responses)]
}

/// Runs tool calls concurrently, under the registry's limits, and answers
/// each with a `ToolResponse`, in order.
///
/// The responses name the function they answer (Gemini matches responses by
/// name). Arguments a provider left as a string are read as JSON text.
pub async fn run_tool_calls(
    registry: &Registry,
    calls: &[ToolCall],
    ctx: &ToolContext,
) -> Vec<ToolResponse> {
    let prepared = calls
        .iter()
        .map(|call| match &call.fn_arguments {
            Value::String(text) => Call::from_text(&call.call_id, &call.fn_name, text),
            arguments => Call::Run(ToolUse::new(
                &call.call_id,
                &call.fn_name,
                arguments.clone(),
            )),
        })
        .collect();
    calls::run(registry, prepared, ctx)
        .await
        .into_iter()
        .zip(calls)
        .map(|((_, result), call)| ToolResponse::from_tool_call(call, result.text_content()))
        .collect()
}
