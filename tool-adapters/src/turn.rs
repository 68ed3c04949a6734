//! One turn of an agent loop over the provider formats tool-runtime
//! renders: a model response in, its tool calls run, the messages to append
//! out.

use serde_json::{Map, Value, json};
use tool_runtime::providers::{self, Provider, ProviderError};
use tool_runtime::{Registry, ToolContext, ToolResult, ToolUse};

use crate::calls::{self, Call};

/// What one model response asked for and what to send back: see [`answer`].
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The tool calls in the response, in order.
    pub calls: Vec<ToolUse>,
    /// Their results, in the same order.
    pub results: Vec<ToolResult>,
    /// What to append to the conversation, in order: the model's own turn
    /// as the provider takes it back, then the results in the provider's
    /// shape. See [`answer`] for each provider's.
    pub messages: Vec<Value>,
}

impl Turn {
    /// Whether the response called no tool: the model has answered, and the
    /// loop ends (after appending [`messages`](Self::messages), which then
    /// hold the model's turn alone).
    pub fn is_final(&self) -> bool {
        self.calls.is_empty()
    }
}

/// One turn of an agent loop: reads the tool calls in `response`, runs them
/// all concurrently under the registry's limits (its concurrency limit,
/// time limits and policies, as [`Registry::invoke_all`] does), and returns
/// the messages to append to the conversation before the next request.
///
/// `response` is what [`providers::parse_tool_calls`] accepts for
/// `provider`: the whole response body, or the part of it that holds the
/// calls. [`Turn::messages`] holds, in order:
///
/// | provider | the model's turn | then the results |
/// | --- | --- | --- |
/// | `openai`, `openai-strict` | the assistant message (`choices[0].message`, its `null` members left out) | one `tool` message per call |
/// | `responses` | every item of `output` | one `function_call_output` item per call |
/// | `anthropic` | `{"role": "assistant", "content": [...]}` | one `user` message of `tool_result` blocks |
/// | `bedrock` | `output.message` | one `user` message of `toolResult` blocks |
/// | `gemini` | `candidates[0].content` (role `model`) | one `user` content of `functionResponse` parts |
/// | `mcp` | (none: requests are not a conversation) | one JSON-RPC response per `tools/call` request |
///
/// A response without calls gives the model's turn alone, and
/// [`Turn::is_final`] is true.
///
/// A call whose arguments are not JSON (OpenAI sends them as text, which a
/// model may cut short) is answered with an error result for that call
/// alone, `invalid arguments for NAME: the arguments are not valid JSON:
/// ...`, and the other calls run. Any other departure from the provider's
/// documented shape (a call without an id or a name, say) is the
/// [`ProviderError`] of [`providers::parse_tool_calls`], and so is every
/// [`Provider::Xml`] response, since tool calls written as text are not
/// parsed.
pub async fn answer(
    registry: &Registry,
    provider: Provider,
    response: &Value,
    ctx: &ToolContext,
) -> Result<Turn, ProviderError> {
    if provider == Provider::Mcp {
        return answer_mcp(registry, response, ctx).await;
    }
    let parsed = parse(provider, response)?;
    let outcomes = calls::run(registry, parsed, ctx).await;
    let mut messages = model_turn(provider, response);
    if !outcomes.is_empty() {
        let rendered = registry.render_results(
            provider,
            outcomes.iter().map(|(call, result)| (call, result)),
        );
        match rendered {
            Value::Array(items) => messages.extend(items),
            message => messages.push(message),
        }
    }
    let (calls, results) = outcomes.into_iter().unzip();
    Ok(Turn {
        calls,
        results,
        messages,
    })
}

/// MCP: each `tools/call` request answered with its own JSON-RPC response.
async fn answer_mcp(
    registry: &Registry,
    requests: &Value,
    ctx: &ToolContext,
) -> Result<Turn, ProviderError> {
    let requests = providers::mcp::parse_requests(requests)?;
    let ids: Vec<Value> = requests
        .iter()
        .map(|call| call.request_id.clone())
        .collect();
    let parsed = requests
        .into_iter()
        .map(|call| Call::Run(call.tool_use))
        .collect();
    let outcomes = calls::run(registry, parsed, ctx).await;
    let messages = outcomes
        .iter()
        .zip(&ids)
        .map(|((call, result), id)| {
            let result = registry.render_result(Provider::Mcp, call, result);
            providers::mcp::response(id, result)
        })
        .collect();
    let (calls, results) = outcomes.into_iter().unzip();
    Ok(Turn {
        calls,
        results,
        messages,
    })
}

/// The key of the object that stands in for arguments that could not be
/// read, while the rest of the response is parsed; its value indexes the
/// texts set aside. No model writes a key starting with a NUL.
const SET_ASIDE: &str = "\u{0}tool-adapters: arguments set aside";

/// Upper bound on the calls with unreadable arguments in one response.
const MAX_SET_ASIDE: usize = 1024;

/// The calls of `response`, read by tool-runtime's parser.
///
/// For the providers whose arguments are text (OpenAI's), a call whose text
/// is not a JSON object would fail the whole response: its text is set
/// aside (replaced by an object the parser accepts), the response parsed
/// again, and the call then answered from the text alone (see
/// [`Call::from_text`]).
fn parse(provider: Provider, response: &Value) -> Result<Vec<Call>, ProviderError> {
    let text_arguments = matches!(
        provider,
        Provider::OpenAiChat | Provider::OpenAiStrict | Provider::OpenAiResponses
    );
    let mut patched: Option<Value> = None;
    let mut set_aside: Vec<String> = Vec::new();
    loop {
        let error =
            match providers::parse_tool_calls(provider, patched.as_ref().unwrap_or(response)) {
                Ok(uses) => {
                    return Ok(uses
                        .into_iter()
                        .map(|tool_use| restore(tool_use, &set_aside))
                        .collect());
                }
                Err(error) => error,
            };
        if !text_arguments
            || !error.pointer.ends_with("/arguments")
            || set_aside.len() >= MAX_SET_ASIDE
        {
            return Err(error);
        }
        let body = patched.get_or_insert_with(|| response.clone());
        let Some(Value::String(text)) = body.pointer_mut(&error.pointer) else {
            return Err(error);
        };
        let stand_in = json!({ SET_ASIDE: set_aside.len() }).to_string();
        set_aside.push(std::mem::replace(text, stand_in));
    }
}

/// A parsed call, or the call whose arguments were set aside, read from
/// its text.
fn restore(tool_use: ToolUse, set_aside: &[String]) -> Call {
    let index = tool_use
        .input
        .as_object()
        .filter(|object| object.len() == 1)
        .and_then(|object| object.get(SET_ASIDE))
        .and_then(Value::as_u64)
        .and_then(|index| usize::try_from(index).ok());
    match index.and_then(|index| set_aside.get(index)) {
        Some(text) => Call::from_text(tool_use.id, tool_use.name, text),
        None => Call::Run(tool_use),
    }
}

/// The model's own turn, as the provider takes it back in the next request.
fn model_turn(provider: Provider, response: &Value) -> Vec<Value> {
    let first = |key: &str| response.get(key).and_then(|items| items.get(0));
    let has = |key: &str| response.get(key).is_some();
    let turn = match provider {
        Provider::OpenAiChat | Provider::OpenAiStrict => match response {
            Value::Array(calls) => {
                Some(json!({"role": "assistant", "content": null, "tool_calls": calls}))
            }
            _ if has("choices") => first("choices")
                .and_then(|choice| choice.get("message"))
                .map(without_nulls),
            _ => Some(without_nulls(response)),
        },
        Provider::OpenAiResponses => {
            let output = match response {
                Value::Array(items) => Some(items),
                _ => response.get("output").and_then(Value::as_array),
            };
            return output.cloned().unwrap_or_default();
        }
        Provider::Anthropic => match response {
            Value::Array(content) => Some(json!({"role": "assistant", "content": content})),
            _ => response.get("content").map(|content| {
                let role = response
                    .get("role")
                    .cloned()
                    .unwrap_or_else(|| "assistant".into());
                json!({"role": role, "content": content})
            }),
        },
        Provider::Bedrock => match response {
            Value::Array(content) => Some(json!({"role": "assistant", "content": content})),
            _ if has("output") => response.pointer("/output/message").cloned(),
            _ => Some(response.clone()),
        },
        Provider::Gemini => match response {
            Value::Array(parts) => Some(json!({"role": "model", "parts": parts})),
            _ if has("candidates") => first("candidates")
                .and_then(|candidate| candidate.get("content"))
                .cloned(),
            _ => Some(response.clone()),
        },
        _ => None,
    };
    turn.into_iter().collect()
}

/// An OpenAI chat message without its `null` members (`refusal`, `audio`,
/// `function_call`...), which a request need not repeat.
fn without_nulls(message: &Value) -> Value {
    match message {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}
