//! Tools defined at run time: read from a JSON file, each with its own
//! JSON Schema, made into `DynamicTool`s in a loop and served by a registry
//! that changes while it runs.
//!
//! ```sh
//! cargo run -p examples --example dynamic_tools
//! ```

use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::{
    Registry, ToolContext, ToolError, ToolUse, dynamic::DynamicTool, registry::LiveRegistry,
};

/// One tool as the file describes it: the reply is a template whose
/// `{field}`s are filled from the arguments.
#[derive(Deserialize)]
struct ToolFile {
    name: String,
    description: String,
    input_schema: Value,
    reply: String,
}

fn fill(template: &str, args: &Value) -> String {
    let mut reply = template.to_owned();
    if let Some(args) = args.as_object() {
        for (key, value) in args {
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            reply = reply.replace(&format!("{{{key}}}"), &text);
        }
    }
    reply
}

fn load(text: &str) -> Vec<DynamicTool> {
    let described: Vec<ToolFile> = serde_json::from_str(text).expect("a list of tools");
    described
        .into_iter()
        .map(|tool| {
            let reply = tool.reply;
            DynamicTool::builder(tool.name, tool.description, tool.input_schema)
                .handler(move |args: Value, _ctx: &ToolContext| {
                    Ok::<_, ToolError>(fill(&reply, &args))
                })
                .build()
                .expect("a valid tool")
        })
        .collect()
}

#[tokio::main]
async fn main() {
    let tools = load(include_str!("tools.json"));
    let mut builder = Registry::builder();
    for tool in tools {
        builder = builder.tool(tool);
    }
    let live = LiveRegistry::new(builder.build().expect("unique names"));
    let ctx = ToolContext::new();

    for (name, args) in [
        ("greet", json!({"name": "Ada"})),
        ("book_table", json!({"guests": 4, "time": "19:30"})),
        // Every mistake is named before the closure runs.
        (
            "book_table",
            json!({"guests": 40, "time": "7pm", "name": "Ada"}),
        ),
    ] {
        let result = live
            .snapshot()
            .invoke(ToolUse::new("call", name, args), &ctx)
            .await;
        println!("{name}: {}", result.text_content());
    }

    // The registry changes while it serves: a new tool, announced to
    // everyone subscribed (an MCP server sends `list_changed`).
    let mut changes = live.subscribe();
    let farewell = DynamicTool::builder(
        "farewell",
        "Says goodbye.",
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )
    .handler(|args: Value, _ctx: &ToolContext| Ok::<_, ToolError>(fill("Goodbye, {name}.", &args)))
    .build()
    .expect("a valid tool");
    live.insert(farewell).expect("a new name");
    changes.changed().await.expect("the registry is alive");
    let names: Vec<String> = live.snapshot().names().map(str::to_owned).collect();
    println!("tools now: {}", names.join(", "));
    let result = live
        .snapshot()
        .invoke(
            ToolUse::new("call", "farewell", json!({"name": "Ada"})),
            &ctx,
        )
        .await;
    println!("farewell: {}", result.text_content());
}
