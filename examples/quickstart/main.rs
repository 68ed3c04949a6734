//! The quickstart: prints the specs of the example tools, then runs the tool
//! uses in `tool_uses.json` (including a few a model gets wrong) and prints
//! each result.
//!
//! ```sh
//! cargo run -p examples --example quickstart
//! ```

use serde_json::json;
use tool_runtime::{Registry, ToolContext, ToolUse};

// Tools defined in a library are registered only when the program links it.
use examples as _;

const TOOL_USES: &str = include_str!("tool_uses.json");

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();

    let specs: Vec<_> = registry
        .specs()
        .map(|spec| {
            json!({
                "name": spec.name,
                "description": spec.description,
                "input_schema": spec.input_schema(),
                "output_schema": spec.output_schema(),
            })
        })
        .collect();
    println!("== {} tools", specs.len());
    println!("{}", serde_json::to_string_pretty(&specs)?);

    // What an agent would pass along with every call.
    let ctx = ToolContext::new()
        .with_state("customer_id", json!("c-1042"))
        .with_state("preferred_unit", json!("celsius"));

    let tool_uses: Vec<ToolUse> = serde_json::from_str(TOOL_USES)?;
    println!("\n== {} tool uses", tool_uses.len());
    for tool_use in tool_uses {
        println!("\n-> {}", serde_json::to_string(&tool_use)?);
        let result = registry.invoke(tool_use, &ctx).await;
        println!("<- {}", serde_json::to_string_pretty(&result)?);
    }
    Ok(())
}
