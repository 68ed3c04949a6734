//! An MCP server with an app (MCP Apps, the `io.modelcontextprotocol/ui`
//! extension): a counter whose view, an HTML page the host shows in a
//! sandboxed iframe, calls the server's tools back through the host. The
//! browser test of tests/mcp/apps/ runs it.
//!
//! ```sh
//! cargo run -p examples --example apps_server -- [PORT]
//! ```
//!
//! It listens on 127.0.0.1:PORT (a port the kernel picks when PORT is 0 or
//! left out), prints one line of JSON on stdout when it does,
//! `{"url":"http://127.0.0.1:PORT/mcp"}`, and serves until it is killed.
//!
//! - the view, `ui://counter/view` (`counter.html`), served as a resource
//!   of the media type `text/html;profile=mcp-app` with its CSP in
//!   `_meta.ui`. It speaks the host's protocol with `postMessage` alone
//!   (`ui/initialize`, `ui/notifications/initialized`, `tools/call`), no
//!   SDK;
//! - `counter_show` (model and view): the count, which the host shows in
//!   the view;
//! - `counter_add` (the view only, `visibility = "app"`): what the view's
//!   button calls; the host hides it from the model;
//! - `counter_reset` (the model only, `visibility = "model"`): the view
//!   shows its result, and the host refuses the view's calls of it.

use std::sync::atomic::{AtomicI64, Ordering};

use tool_mcp::apps::{App, Csp};
use tool_mcp::resources::Resources;
use tool_mcp::server::McpServer;
use tool_runtime::{Registry, context::CancellationToken, tool};

/// The view's URI.
const VIEW: &str = "ui://counter/view";

/// The count, shared by every session.
static COUNT: AtomicI64 = AtomicI64::new(0);

/// The count, and what it says to a model.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Count {
    /// The counter's value.
    count: i64,
}

/// Shows the counter: its count, in the counter's view for a host that
/// has apps.
#[tool(read_only, ui = "ui://counter/view")]
fn counter_show() -> Count {
    Count {
        count: COUNT.load(Ordering::SeqCst),
    }
}

/// Adds to the counter; the count after it. Called by the view's button.
#[tool(ui = "ui://counter/view", visibility = "app")]
fn counter_add(
    /// How much to add
    #[tool(default = 1, range(min = -1000, max = 1000))]
    by: i64,
) -> Count {
    Count {
        count: COUNT.fetch_add(by, Ordering::SeqCst) + by,
    }
}

/// Sets the counter back to zero: for the model only, not the view.
#[tool(ui = "ui://counter/view", visibility = "model")]
fn counter_reset() -> Count {
    COUNT.store(0, Ordering::SeqCst);
    Count { count: 0 }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::args().nth(1).unwrap_or_else(|| "0".to_owned());
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port:?}"))?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);

    let view = App::builder(VIEW, include_str!("counter.html"))
        .title("Counter")
        .description("The counter, with a button that adds one")
        // The view reaches nothing beyond itself: no network, no remote
        // scripts; said explicitly here, as a host reads it.
        .csp(Csp::new())
        .prefers_border(true)
        .build()?;
    let resources = Resources::builder().resource(view).build()?;
    let registry = Registry::builder()
        .tool(CounterShowTool)
        .tool(CounterAddTool)
        .tool(CounterResetTool)
        .build()?;

    println!("{}", serde_json::json!({"url": url}));
    // The links of `#[tool(ui = ..)]` (`AppLinks::global()`) are the
    // server's unless `with_app_links` gives others.
    McpServer::new(registry)
        .with_implementation("apps-example", "1.0.0")
        .with_resources(resources)
        .serve_http(listener, CancellationToken::new())
        .await?;
    Ok(())
}
