//! An MCP server over streamable HTTP that asks for OAuth access tokens
//! (tool-mcp's `auth` feature): the resource server of the authorization
//! tests (tests/mcp/auth/run.sh). It listens on 127.0.0.1 (a port the
//! kernel picks, or PORT), trusts the authorization server ISSUER, takes
//! tokens issued for its own URL, `http://127.0.0.1:PORT/mcp`, and needs
//! SCOPES (space separated, none by default) on every request.
//!
//! ```sh
//! cargo run -p examples --example protected_server -- ISSUER ["SCOPES"]
//! ```
//!
//! `JWKS_CACHE_MS` and `MIN_REFETCH_MS`, when set, are the resource
//! server's JWKS cache lifetime and least time between two fetches of the
//! JWKS (`ResourceServerBuilder::jwks_cache_lifetime` and
//! `min_refetch_interval`, 10 minutes and 30 seconds by default): the key
//! rotation test shortens them so that a withdrawn key is seen gone within
//! a second.
//!
//! When it listens it prints one line of JSON on stdout,
//! `{"url":"http://127.0.0.1:PORT/mcp","issuer":"..."}`, and serves until
//! it is killed. Its tools: `whoami` (the
//! caller the token shows), `add`, and `write_note`, which needs the scope
//! `notes:write` besides SCOPES: a token without it is not offered the
//! tool, and its call is refused `403 insufficient_scope` naming the scope,
//! for the client to step up.

use std::time::Duration;

use tool_mcp::auth::ResourceServer;
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::{Registry, ToolContext, context::CancellationToken, tool};

/// Says who calls: the subject, client and scopes of the access token.
#[tool(read_only)]
fn whoami(ctx: &ToolContext) -> serde_json::Value {
    match ctx.caller() {
        Some(caller) => serde_json::json!({
            "subject": caller.subject,
            "client_id": caller.client_id,
            "scopes": caller.scopes,
        }),
        None => serde_json::json!({"anonymous": true}),
    }
}

/// Adds two numbers.
#[tool(read_only)]
fn add(
    /// The first number
    a: i64,
    /// The second number
    b: i64,
) -> i64 {
    a + b
}

/// Writes a note, for callers granted `notes:write`.
#[tool(scopes("notes:write"))]
fn write_note(
    /// What to write
    text: String,
) -> String {
    format!("noted: {text}")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(issuer) = args.next() else {
        eprintln!("usage: protected_server ISSUER [\"SCOPES\"]");
        std::process::exit(2);
    };
    let scopes: Vec<String> = args
        .next()
        .map(|scopes| scopes.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    let port = std::env::var("PORT").unwrap_or_else(|_| "0".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let mut builder = ResourceServer::builder(&issuer, &url)
        .required_scopes(scopes)
        .resource_name("toolbox protected example")
        .fetch_timeout(Duration::from_secs(5));
    if let Some(lifetime) = milliseconds("JWKS_CACHE_MS")? {
        builder = builder.jwks_cache_lifetime(lifetime);
    }
    if let Some(interval) = milliseconds("MIN_REFETCH_MS")? {
        builder = builder.min_refetch_interval(interval);
    }
    let resource_server = builder.build()?;
    let registry = Registry::builder()
        .tool(WhoamiTool)
        .tool(AddTool)
        .tool(WriteNoteTool)
        .build()?;
    println!("{}", serde_json::json!({"url": url, "issuer": issuer}));
    McpServer::new(registry)
        .with_implementation("protected-example", "1.0.0")
        .serve_http_with(
            listener,
            HttpOptions::new().resource_server(resource_server),
            CancellationToken::new(),
        )
        .await?;
    Ok(())
}

/// The duration in milliseconds the environment variable `name` gives, if
/// it is set.
fn milliseconds(name: &str) -> Result<Option<Duration>, String> {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .map(|ms| Some(Duration::from_millis(ms)))
            .map_err(|_| format!("{name} is a number of milliseconds, not {value:?}")),
        Err(_) => Ok(None),
    }
}
