//! async-openai: a registry's tools in its request types, the tool calls of
//! its responses run, the results as its messages (feature `async-openai`).
//!
//! Chat Completions:
//!
//! - [`chat_tools`]: the request's `tools`, `Vec<ChatCompletionTools>`;
//! - [`answer_chat`]: for the assistant message of a response, the messages
//!   to append before the next request (the assistant message itself, then
//!   one `tool` message per call), its calls run concurrently;
//! - [`run_chat_calls`]: the `tool` messages alone.
//!
//! The Responses API:
//!
//! - [`response_tools`]: the request's `tools`, `Vec<Tool>`;
//! - [`answer_response`]: for a response, the input items to append (its
//!   `output` items, then one `function_call_output` item per call);
//! - [`run_function_calls`]: the `function_call_output` items alone, for a
//!   request that continues with `previous_response_id`.
//!
//! Neither API has an error flag on a tool result: an error result is sent
//! as its text, which says what went wrong (`invalid arguments for
//! weather: days: ...`, `tool flaky panicked: ...`, `tool slow timed out
//! after 50ms and was stopped`). Tools the registry renders strict come
//! with `"strict": true` and tool-runtime's strict schema, every other tool
//! with its ordinary schema and `"strict": false` (stated, since the
//! Responses API reads a missing `strict` as `true`).
//!
//! Only async-openai's types are compiled by this feature (its
//! `chat-completion-types` and `response-types`); the client is the
//! program's own dependency, with the features it calls with.

use ::async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestAssistantMessage,
    ChatCompletionRequestAssistantMessageAudio, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionResponseMessage, ChatCompletionTool,
    ChatCompletionTools, FunctionObject,
};
use ::async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, FunctionTool, InputItem, Item, ItemReference,
    OutputItem, Response, Tool,
};
use serde_json::Value;
use tool_runtime::providers::Provider;
use tool_runtime::{Registry, ToolContext, ToolResult, ToolUse};

use crate::calls::{self, Call};

/// The registry's tools as a Chat Completions request's `tools`, in name
/// order.
pub fn chat_tools(registry: &Registry) -> Vec<ChatCompletionTools> {
    calls::definitions(registry)
        .into_iter()
        .map(|tool| {
            ChatCompletionTools::Function(ChatCompletionTool {
                function: FunctionObject {
                    name: tool.name,
                    description: Some(tool.description),
                    parameters: Some(tool.parameters),
                    strict: Some(tool.strict),
                },
            })
        })
        .collect()
}

/// The registry's tools as a Responses API request's `tools`, in name
/// order.
pub fn response_tools(registry: &Registry) -> Vec<Tool> {
    calls::definitions(registry)
        .into_iter()
        .map(|tool| {
            Tool::Function(FunctionTool {
                name: tool.name,
                description: Some(tool.description),
                parameters: Some(tool.parameters),
                strict: Some(tool.strict),
                ..FunctionTool::default()
            })
        })
        .collect()
}

/// The messages to append after the assistant message of a chat completion
/// (`response.choices[0].message`): that message, as a request message,
/// then a `tool` message for each of its tool calls, in order. The calls
/// run concurrently under the registry's limits.
///
/// A message without tool calls (the model's answer) gives itself alone.
pub async fn answer_chat(
    registry: &Registry,
    message: &ChatCompletionResponseMessage,
    ctx: &ToolContext,
) -> Vec<ChatCompletionRequestMessage> {
    let assistant = ChatCompletionRequestAssistantMessage {
        content: message
            .content
            .clone()
            .map(ChatCompletionRequestAssistantMessageContent::Text),
        refusal: message.refusal.clone(),
        audio: message
            .audio
            .as_ref()
            .map(|audio| ChatCompletionRequestAssistantMessageAudio {
                id: audio.id.clone(),
            }),
        tool_calls: message.tool_calls.clone(),
        ..ChatCompletionRequestAssistantMessage::default()
    };
    let mut messages = vec![ChatCompletionRequestMessage::Assistant(assistant)];
    let calls = message.tool_calls.as_deref().unwrap_or_default();
    if !calls.is_empty() {
        let answers = run_chat_calls(registry, calls, ctx).await;
        messages.extend(answers.into_iter().map(ChatCompletionRequestMessage::Tool));
    }
    messages
}

/// Runs the tool calls of a chat completion message concurrently, under
/// the registry's limits, and answers each with a `tool` message, in
/// order.
///
/// A call to a custom (free-text) tool is run with its text as the
/// arguments, so the model reads why it failed: the registry's tools take
/// JSON objects.
pub async fn run_chat_calls(
    registry: &Registry,
    calls: &[ChatCompletionMessageToolCalls],
    ctx: &ToolContext,
) -> Vec<ChatCompletionRequestToolMessage> {
    let calls = calls
        .iter()
        .map(|call| match call {
            ChatCompletionMessageToolCalls::Function(call) => {
                Call::from_text(&call.id, &call.function.name, &call.function.arguments)
            }
            ChatCompletionMessageToolCalls::Custom(call) => Call::Run(ToolUse::new(
                &call.id,
                &call.custom_tool.name,
                Value::String(call.custom_tool.input.clone()),
            )),
        })
        .collect();
    calls::run(registry, calls, ctx)
        .await
        .iter()
        .map(|(call, result)| tool_message(registry, call, result))
        .collect()
}

/// A result as a `tool` message: tool-runtime's `openai` rendering, read as
/// async-openai's type.
fn tool_message(
    registry: &Registry,
    call: &ToolUse,
    result: &ToolResult,
) -> ChatCompletionRequestToolMessage {
    let rendered = registry.render_result(Provider::OpenAiChat, call, result);
    match serde_json::from_value(rendered) {
        Ok(ChatCompletionRequestMessage::Tool(message)) => message,
        _ => ChatCompletionRequestToolMessage {
            content: ChatCompletionRequestToolMessageContent::Text(result.text_content()),
            tool_call_id: result.tool_use_id.clone(),
        },
    }
}

/// The input items to append after a Responses API response: its `output`
/// items, as input items, then a `function_call_output` item for each of
/// its function calls, in order. The calls run concurrently under the
/// registry's limits.
///
/// An output item that has no input form is sent as a reference to it by
/// id (`item_reference`), which the API resolves for stored responses. A
/// response that continues with `previous_response_id` needs only the
/// outputs: see [`run_function_calls`].
pub async fn answer_response(
    registry: &Registry,
    response: &Response,
    ctx: &ToolContext,
) -> Vec<InputItem> {
    let mut items: Vec<InputItem> = response.output.iter().filter_map(input_item).collect();
    items.extend(run_function_calls(registry, response, ctx).await);
    items
}

/// Runs the function calls of a Responses API response concurrently,
/// under the registry's limits, and answers each with a
/// `function_call_output` item, in order.
///
/// A result with an image or a PDF is sent as a list of `input_text`,
/// `input_image` and `input_file` items, as tool-runtime's `responses`
/// rendering does; any other as its text.
pub async fn run_function_calls(
    registry: &Registry,
    response: &Response,
    ctx: &ToolContext,
) -> Vec<InputItem> {
    let calls = response
        .output
        .iter()
        .filter_map(|item| match item {
            OutputItem::FunctionCall(call) => {
                Some(Call::from_text(&call.call_id, &call.name, &call.arguments))
            }
            _ => None,
        })
        .collect();
    calls::run(registry, calls, ctx)
        .await
        .iter()
        .map(|(call, result)| {
            InputItem::Item(Item::FunctionCallOutput(output_item(
                registry, call, result,
            )))
        })
        .collect()
}

/// A result as a `function_call_output` item: tool-runtime's `responses`
/// rendering, read as async-openai's type.
fn output_item(
    registry: &Registry,
    call: &ToolUse,
    result: &ToolResult,
) -> FunctionCallOutputItemParam {
    let rendered = registry.render_result(Provider::OpenAiResponses, call, result);
    match serde_json::from_value(rendered) {
        Ok(Item::FunctionCallOutput(item)) => item,
        _ => FunctionCallOutputItemParam {
            call_id: Some(result.tool_use_id.clone()),
            output: FunctionCallOutput::Text(result.text_content()),
            id: None,
            status: None,
            name: None,
            namespace: None,
            caller: None,
        },
    }
}

/// An output item as the input item that repeats it, or a reference to it
/// by id; `None` for an item with neither.
fn input_item(item: &OutputItem) -> Option<InputItem> {
    let value = serde_json::to_value(item).ok()?;
    if let Ok(item) = serde_json::from_value::<Item>(value.clone()) {
        return Some(InputItem::Item(item));
    }
    let id = value.get("id")?.as_str()?.to_owned();
    Some(InputItem::ItemReference(ItemReference { r#type: None, id }))
}
