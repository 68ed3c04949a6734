//! A whole agent loop over plain JSON, with `tool_adapters::answer`: any
//! HTTP client will do (ureq here), any provider tool-runtime renders
//! (Anthropic's Messages API here). The registry renders the request's
//! `tools`, `answer` runs the calls of each response and gives the messages
//! to append, and the loop ends when a response calls no tool. The
//! provider is a stand-in on 127.0.0.1 replaying the documented shapes: two
//! `tool_use` blocks (one with arguments the tool refuses), then the answer.
//!
//! ```sh
//! cargo run -p tool-adapters --example json_loop
//! ```

mod standin;

use serde_json::{Value, json};
use standin::weather::WeatherTool;
use standin::{StandIn, Step, mentions};
use tool_runtime::providers::Provider;
use tool_runtime::{Registry, ToolContext};

/// A Messages API response holding `content`, in the shape of the message
/// object (Anthropic API reference, "Messages").
fn message(content: Value, stop_reason: &str) -> Value {
    json!({
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {"input_tokens": 82, "output_tokens": 17}
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().tool(WeatherTool).build()?;
    let ctx = ToolContext::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;

    let calls = message(
        json!([
            {"type": "text", "text": "Let me look both up."},
            {"type": "tool_use", "id": "toolu_paris", "name": "weather", "input": {"city": "Paris", "days": 2}},
            {"type": "tool_use", "id": "toolu_oslo", "name": "weather", "input": {"city": "Oslo", "days": 40, "unit": "kelvin"}}
        ]),
        "tool_use",
    );
    let answer = message(
        json!([{"type": "text", "text": "Paris: sunny, 21°C for two days. I could not get Oslo's forecast: at most 14 days, in Celsius or Fahrenheit."}]),
        "end_turn",
    );
    let stand_in = StandIn::start(vec![
        Step::check(
            |request| match request["tools"][0]["name"].as_str() {
                Some("weather") => Ok(()),
                _ => Err(format!("no weather tool in {}", request["tools"])),
            },
            calls,
        ),
        Step::check(
            |request| {
                // The tool results, in one user message after the
                // assistant's turn, the refusal flagged as an error.
                let results = &request["messages"][2];
                let ok = results["role"] == "user"
                    && results["content"][1]["is_error"] == true
                    && mentions(results, "invalid arguments for weather: days:");
                ok.then_some(())
                    .ok_or_else(|| format!("the tool results are missing: {}", request["messages"]))
            },
            answer,
        ),
    ])?;

    let url = format!("{}/v1/messages", stand_in.url());
    let mut messages =
        vec![json!({"role": "user", "content": "What's the weather in Paris and Oslo?"})];
    loop {
        let request = json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "tools": registry.render(Provider::Anthropic),
            "messages": messages,
        });
        let body = ureq::post(&url)
            .header("x-api-key", "stand-in")
            .header("anthropic-version", "2023-06-01")
            .header("content-type", "application/json")
            .send(request.to_string())?
            .body_mut()
            .read_to_string()?;
        let response: Value = serde_json::from_str(&body)?;
        let turn = runtime.block_on(tool_adapters::answer(
            &registry,
            Provider::Anthropic,
            &response,
            &ctx,
        ))?;
        for (call, result) in turn.calls.iter().zip(&turn.results) {
            println!("tool {} {}: {}", call.id, call.input, result.text_content());
        }
        messages.extend(turn.messages.iter().cloned());
        if turn.is_final() {
            println!(
                "model: {}",
                response["content"][0]["text"].as_str().unwrap_or_default()
            );
            break;
        }
    }
    stand_in.finish()?;
    Ok(())
}
