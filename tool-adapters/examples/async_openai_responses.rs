//! A whole agent loop with async-openai's Responses API client and a
//! tool-runtime registry, against a stand-in for OpenAI on 127.0.0.1 that
//! replays the documented response shapes: the model calls `weather` twice
//! (once with arguments the tool refuses), the registry answers both, and
//! the model's final answer comes back. The conversation is kept by the
//! program (the output items go back as input), as with `store: false`.
//!
//! ```sh
//! cargo run -p tool-adapters --features async-openai --example async_openai_responses
//! ```

mod standin;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::responses::{
    CreateResponse, EasyInputMessage, InputItem, InputParam, OutputItem,
};
use serde_json::json;
use standin::weather::WeatherTool;
use standin::{StandIn, Step, mentions};
use tool_runtime::{Registry, ToolContext};

/// A response whose output is `output`, in the shape of the response object
/// (OpenAI API reference, "Create a model response").
fn response(id: &str, output: serde_json::Value) -> serde_json::Value {
    json!({
        "id": id,
        "object": "response",
        "created_at": 1_741_476_542,
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "model": "gpt-4.1-2025-04-14",
        "output": output,
        "parallel_tool_calls": true,
        "store": false,
        "tool_choice": "auto",
        "usage": {
            "input_tokens": 82, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 17, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 99
        }
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().tool(WeatherTool).build()?;
    let ctx = ToolContext::new();

    // The provider: first two function calls, then the answer. The second
    // request must carry both outputs, the refusal's text included.
    let calls = response(
        "resp_standin_1",
        json!([
            {"type": "function_call", "id": "fc_paris", "call_id": "call_paris", "name": "weather",
             "arguments": "{\"city\":\"Paris\",\"days\":2}", "status": "completed"},
            {"type": "function_call", "id": "fc_oslo", "call_id": "call_oslo", "name": "weather",
             "arguments": "{\"city\":\"Oslo\",\"days\":40,\"unit\":\"kelvin\"}", "status": "completed"}
        ]),
    );
    let answer = response(
        "resp_standin_2",
        json!([{
            "type": "message", "id": "msg_answer", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "annotations": [],
                         "text": "Paris: sunny, 21°C for two days. I could not get Oslo's forecast: at most 14 days, in Celsius or Fahrenheit."}]
        }]),
    );
    let stand_in = StandIn::start(vec![
        Step::check(
            |request| match (
                request["tools"][0]["name"].as_str(),
                &request["tools"][0]["strict"],
            ) {
                (Some("weather"), serde_json::Value::Bool(false)) => Ok(()),
                _ => Err(format!(
                    "no non-strict weather tool in {}",
                    request["tools"]
                )),
            },
            calls,
        ),
        Step::check(
            |request| {
                let ok = mentions(request, "Paris, day 2: sunny, 21°C")
                    && mentions(request, "invalid arguments for weather: days:");
                ok.then_some(()).ok_or_else(|| {
                    format!(
                        "the function call outputs are missing: {}",
                        request["input"]
                    )
                })
            },
            answer,
        ),
    ])?;

    let client = Client::with_config(
        OpenAIConfig::new()
            .with_api_base(format!("{}/v1", stand_in.url()))
            .with_api_key("stand-in"),
    );
    let mut input = vec![InputItem::EasyMessage(EasyInputMessage::from(
        "What's the weather in Paris and Oslo?",
    ))];
    let tools = tool_adapters::async_openai::response_tools(&registry);
    loop {
        let request = CreateResponse {
            model: Some("gpt-4.1".into()),
            input: InputParam::Items(input.clone()),
            tools: Some(tools.clone()),
            store: Some(false),
            ..Default::default()
        };
        let response = client.responses().create(request).await?;
        let called = response
            .output
            .iter()
            .any(|item| matches!(item, OutputItem::FunctionCall(_)));
        let items = tool_adapters::async_openai::answer_response(&registry, &response, &ctx).await;
        for item in &items {
            if let InputItem::Item(async_openai::types::responses::Item::FunctionCallOutput(
                output,
            )) = item
            {
                println!(
                    "tool {}: {:?}",
                    output.call_id.as_deref().unwrap_or_default(),
                    output.output
                );
            }
        }
        input.extend(items);
        if !called {
            println!("model: {}", response.output_text().unwrap_or_default());
            break;
        }
    }
    stand_in.finish()?;
    Ok(())
}
