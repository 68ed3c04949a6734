//! A registry built from a YAML file, with a configured `search` tool.
//!
//! ```sh
//! TOOL_SEARCH_API_KEY=secret cargo run -p examples --example search
//! ```
//!
//! Without the environment variable, the registry refuses to build (the
//! API key is required), and the example then supplies one in code.

use serde_json::json;
use tool_manifest::Manifest;
use tool_runtime::{Registry, ToolContext, ToolUse};

use examples as _;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/search");

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("== a file with mistakes: every one, with its line and column");
    match Manifest::from_path(format!("{DIR}/bad-tools.yaml")).and_then(|m| m.build()) {
        Ok(_) => println!("(unexpectedly built)"),
        Err(error) => println!("{error}"),
    }

    println!("\n== the real file");
    let manifest = Manifest::from_path(format!("{DIR}/tools.yaml"))?;
    let registry = match manifest.build() {
        Ok(registry) => registry,
        Err(error) => {
            println!("{error}");
            println!(
                "(set TOOL_SEARCH_API_KEY to configure it from the environment; using a key from code)"
            );
            manifest.build_with(
                Registry::builder().configure("search", json!({"api_key": "demo-key"})),
            )?
        }
    };
    println!("tools: {:?}", registry.names().collect::<Vec<_>>());
    println!("aliases: {:?}", registry.aliases());
    if let Some(spec) = registry.get("search").map(|t| t.spec())
        && let Some(config) = spec.config
    {
        println!(
            "search's configuration schema: {}",
            serde_json::to_string_pretty(config.schema())?
        );
    }

    let ctx = ToolContext::new();
    for tool_use in [
        ToolUse::new("1", "search", json!({"query": "rust"})),
        ToolUse::new("2", "find_docs", json!({"query": "serde"})),
        ToolUse::new("3", "search", json!({"query": "", "limit": 99})),
        ToolUse::new("4", "weather_forecast", json!({"city": "Paris"})),
    ] {
        println!("\n-> {}", serde_json::to_string(&tool_use)?);
        let result = registry.invoke(tool_use, &ctx).await;
        println!("<- {}", serde_json::to_string(&result)?);
    }
    Ok(())
}
