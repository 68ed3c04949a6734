//! `#[tool(ui = "ui://...")]` links a tool to an MCP app's view, for every
//! server of the program (`AppLinks::global()`), with who may call it.

use tool_mcp::apps::{AppLinks, Visibility};
use tool_mcp::server::McpServer;
use tool_runtime::{Registry, tool};

/// Shows the counter.
#[tool(ui = "ui://counter/view", version = "1.0.0")]
fn counter_show() -> i64 {
    0
}

/// Adds one to the counter, for the view's button.
#[tool(ui = "ui://counter/view", visibility = "app")]
fn counter_add() -> i64 {
    1
}

/// Resets the counter; the view shows the result but may not call it.
#[tool(ui = "ui://counter/view", visibility = "model", register = false)]
fn counter_reset() -> i64 {
    0
}

/// A tool of a toolset may have a view too.
struct Board;

#[tool_runtime::toolset]
impl Board {
    /// Shows the board.
    #[tool(ui = "ui://board/view")]
    fn board_show(&self) -> &'static str {
        "board"
    }
}

fn main() {
    let links = AppLinks::global();
    assert_eq!(
        links.get("counter_show").unwrap().resource_uri,
        "ui://counter/view"
    );
    assert_eq!(
        links.get("counter_add").unwrap().visibility,
        Visibility::App
    );
    assert_eq!(
        links.get("counter_reset").unwrap().visibility,
        Visibility::Model
    );
    assert_eq!(
        links.get("board_show").unwrap().resource_uri,
        "ui://board/view"
    );

    let registry = Registry::builder()
        .tool(CounterShowTool)
        .tool(CounterAddTool)
        .build()
        .unwrap();
    let tools = McpServer::new(registry).tools();
    assert_eq!(tools[0]["name"], "counter_add");
    assert_eq!(
        tools[0]["_meta"],
        serde_json::json!({"ui": {"resourceUri": "ui://counter/view", "visibility": ["app"]}})
    );
    assert_eq!(tools[1]["_meta"]["ui"]["resourceUri"], "ui://counter/view");
    assert_eq!(tools[1]["_meta"]["io.github.tool-runtime/version"], "1.0.0");
}
