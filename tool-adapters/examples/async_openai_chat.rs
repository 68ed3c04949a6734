//! A whole agent loop with async-openai's Chat Completions client and a
//! tool-runtime registry, against a stand-in for OpenAI on 127.0.0.1 that
//! replays the documented response shapes: the model calls `weather` twice
//! (once with arguments the tool refuses), the registry answers both, and
//! the model's final answer comes back.
//!
//! ```sh
//! cargo run -p tool-adapters --features async-openai --example async_openai_chat
//! ```

mod standin;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use standin::{StandIn, Step, mentions};
use tool_runtime::{Registry, ToolContext, tool};

/// A temperature unit.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// Get the weather forecast for a city, one line per day.
#[tool]
fn weather(
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
fn completion(message: serde_json::Value, finish_reason: &str) -> serde_json::Value {
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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().tool(WeatherTool).build()?;
    let ctx = ToolContext::new();

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
    let stand_in = StandIn::start(vec![
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
    ])?;

    let client = Client::with_config(
        OpenAIConfig::new()
            .with_api_base(format!("{}/v1", stand_in.url()))
            .with_api_key("stand-in"),
    );
    let mut messages = vec![ChatCompletionRequestMessage::User(
        ChatCompletionRequestUserMessage::from("What's the weather in Paris and Oslo?"),
    )];
    let tools = tool_adapters::async_openai::chat_tools(&registry);
    loop {
        let request = CreateChatCompletionRequest {
            model: "gpt-4.1".into(),
            messages: messages.clone(),
            tools: Some(tools.clone()),
            ..Default::default()
        };
        let response = client.chat().create(request).await?;
        let message = &response.choices[0].message;
        let turn = tool_adapters::async_openai::answer_chat(&registry, message, &ctx).await;
        let done = message.tool_calls.as_ref().is_none_or(Vec::is_empty);
        for message in &turn {
            if let ChatCompletionRequestMessage::Tool(tool) = message {
                println!("tool {}: {:?}", tool.tool_call_id, tool.content);
            }
        }
        messages.extend(turn);
        if done {
            println!("model: {}", message.content.as_deref().unwrap_or_default());
            break;
        }
    }
    stand_in.finish()?;
    Ok(())
}
