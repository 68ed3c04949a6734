//! A whole agent loop with genai's client and a tool-runtime registry,
//! against a stand-in for OpenAI's Chat Completions on 127.0.0.1 that
//! replays the documented response shapes (genai picks its OpenAI adapter
//! for a `gpt-4.1` model): the model calls `weather` twice (once with
//! arguments the tool refuses), the registry answers both, and the model's
//! final answer comes back.
//!
//! ```sh
//! cargo run -p tool-adapters --features genai --example genai_chat
//! ```

mod standin;

use genai::Client;
use genai::adapter::AdapterKind;
use genai::chat::{ChatMessage, ChatRequest};
use genai::resolver::{AuthData, Endpoint, ProviderConfig};
use standin::weather::{self, WeatherTool};
use tool_runtime::{Registry, ToolContext};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().tool(WeatherTool).build()?;
    let ctx = ToolContext::new();
    let stand_in = weather::chat_stand_in()?;

    let endpoint = Endpoint::from_owned(format!("{}/v1/", stand_in.url()));
    let client = Client::builder()
        .append_provider_config(
            AdapterKind::OpenAI,
            ProviderConfig::from_endpoint(endpoint).with_auth(AuthData::from_single("stand-in")),
        )
        .build()?;
    let mut request = ChatRequest::new(vec![ChatMessage::user(
        "What's the weather in Paris and Oslo?",
    )])
    .with_tools(tool_adapters::genai::tools(&registry));
    loop {
        let response = client.exec_chat("gpt-4.1", request.clone(), None).await?;
        if response.tool_calls().is_empty() {
            println!("model: {}", response.first_text().unwrap_or_default());
            break;
        }
        for call in response.tool_calls() {
            println!(
                "call {}: {}({})",
                call.call_id, call.fn_name, call.fn_arguments
            );
        }
        for message in tool_adapters::genai::answer(&registry, response, &ctx).await {
            request = request.append_message(message);
        }
    }
    stand_in.finish()?;
    Ok(())
}
