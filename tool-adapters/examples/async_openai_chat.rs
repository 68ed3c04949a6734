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
use standin::weather::{self, WeatherTool};
use tool_runtime::{Registry, ToolContext};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().tool(WeatherTool).build()?;
    let ctx = ToolContext::new();
    let stand_in = weather::chat_stand_in()?;

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
