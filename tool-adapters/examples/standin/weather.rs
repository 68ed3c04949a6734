//! The scenario the Chat Completions examples share: a `weather` tool, and
//! a stand-in that replays OpenAI's documented Chat Completions shapes:
//! first two calls of `weather` (the second with arguments the tool
//! refuses), then, once the second request carries both results, the
//! model's final answer.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_runtime::tool;

use super::{StandIn, Step, mentions};

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// Get the weather forecast for a city, one line per day.
#[tool]
pub fn weather(
    /// City name, e.g. "Paris"
    city: String,
    /// How many days ahead, 1 to 14
    #[tool(default = 1, range(min = 1, max = 14))]
    days: u32,
    /// Temperature unit; Celsius when absent
    unit: Option<Unit>,
) -> String {
    let temperature = match unit.unwrap_or(Unit::Celsius) {
        Unit::Celsius => "21°C",
        Unit::Fahrenheit => "70°F",
    };
    let lines: Vec<String> = (1..=days)
        .map(|day| format!("{city}, day {day}: sunny, {temperature}"))
        .collect();
    lines.join("\n")
}

/// A chat completion whose message is `message`, in the shape of the chat
/// completion object (OpenAI API reference, "Create chat completion").
pub fn completion(message: serde_json::Value, finish_reason: &str) -> serde_json::Value {
    json!({
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": 1_741_569_952,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99},
        "service_tier": "default"
    })
}

/// The stand-in of the scenario, started: its first answer calls
/// `weather` for Paris and for Oslo (with 40 days and an unknown unit),
/// its second checks that both results reached the model, the refusal's
/// text included, and answers.
pub fn chat_stand_in() -> std::io::Result<StandIn> {
    // The provider: first two tool calls, then the answer. The second
    // request must carry both tool messages, the refusal's text included.
    let calls = completion(
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_paris", "type": "function",
                 "function": {"name": "weather", "arguments": "{\"city\":\"Paris\",\"days\":2}"}},
                {"id": "call_oslo", "type": "function",
                 "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\",\"days\":40,\"unit\":\"kelvin\"}"}}
            ],
            "refusal": null,
            "annotations": []
        }),
        "tool_calls",
    );
    let answer = completion(
        json!({"role": "assistant", "content": "Paris: sunny, 21°C for two days. I could not get Oslo's forecast: at most 14 days, in Celsius or Fahrenheit.", "refusal": null, "annotations": []}),
        "stop",
    );
    StandIn::start(vec![
        Step::check(
            |request| match request["tools"][0]["function"]["name"].as_str() {
                Some("weather") => Ok(()),
                _ => Err(format!("no weather tool in {}", request["tools"])),
            },
            calls,
        ),
        Step::check(
            |request| {
                let ok = mentions(request, "Paris, day 2: sunny, 21°C")
                    && mentions(request, "invalid arguments for weather: days:");
                ok.then_some(())
                    .ok_or_else(|| format!("the tool results are missing: {}", request["messages"]))
            },
            answer,
        ),
    ])
}
