//! A whole agent loop with rig (rig-agent's `Agent`, rig-core's OpenAI
//! Chat Completions model) and a tool-runtime registry, against a stand-in
//! for OpenAI on 127.0.0.1 that replays the documented response shapes: the
//! registry's tools go to the agent as rig `DynamicTool`s, the model calls
//! `weather` twice (once with arguments the tool refuses), rig runs both
//! calls through the registry, and the model's final answer comes back.
//!
//! ```sh
//! cargo run -p tool-adapters --features rig --example rig_agent
//! ```

mod standin;

use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use standin::weather::{self, WeatherTool};
use tool_runtime::{Registry, ToolContext};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().tool(WeatherTool).build()?;
    let ctx = ToolContext::new();
    let stand_in = weather::chat_stand_in()?;

    let model = OpenAIConfig::new("stand-in")
        .with_base_url(format!("{}/v1", stand_in.url()))
        .client()
        .chat("gpt-4.1");
    let agent = AgentBuilder::new(model)
        .preamble("Answer with the forecast tools.")
        .dynamic_tools(tool_adapters::rig::tools(&registry, &ctx))
        .build();
    let response = agent
        .prompt("What's the weather in Paris and Oslo?")
        .max_turns(3)
        .await?;
    println!("model: {}", response.output());
    stand_in.finish()?;
    Ok(())
}
