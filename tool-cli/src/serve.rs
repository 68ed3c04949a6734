//! The `serve` command: the tools over MCP, on stdio or (feature `http`)
//! streamable HTTP on a loopback address, with tool-mcp's server. With a
//! registry file's MCP servers (feature `mcp-client`), their tools are
//! served too, and follow the servers' lists.

use std::process::ExitCode;

use tool_mcp::server::McpServer;
use tool_runtime::LiveRegistry;

use crate::Tools;
use crate::command::ServeArgs;
#[cfg(feature = "http")]
use crate::usage_error;

/// Serves `tools` over MCP as the server named `program`: on stdio, or on
/// the loopback address of `--http`.
pub(crate) async fn serve(tools: Tools, program: &str, args: ServeArgs) -> ExitCode {
    #[cfg(feature = "code-mode")]
    let live = match code_mode(&tools, &args) {
        Ok(registry) => LiveRegistry::new(registry),
        Err(code) => return code,
    };
    #[cfg(not(feature = "code-mode"))]
    let live = LiveRegistry::new(tools.registry.clone());
    // Nothing waits for the MCP servers: their tools join as they answer.
    #[cfg(feature = "mcp-client")]
    let following = crate::proxy::follow(&live, &tools.remotes);
    let mut server = McpServer::new(live).with_implementation(program, env!("CARGO_PKG_VERSION"));
    if let Some(store) = &args.tasks {
        match crate::task::open(store, true).await {
            Ok(tasks) => server = server.with_tasks(tasks),
            Err(code) => return code,
        }
    }
    let code = serve_on(server, args).await;
    #[cfg(feature = "mcp-client")]
    following.stop().await;
    drop(tools);
    code
}

/// The registry served: the tools, or with `--code-mode` the one
/// `code_mode` tool over them (a registry file's MCP servers' tools join it
/// beside `code_mode`, as they answer).
#[cfg(feature = "code-mode")]
fn code_mode(tools: &Tools, args: &ServeArgs) -> Result<tool_runtime::Registry, ExitCode> {
    if !args.code_mode {
        return Ok(tools.registry.clone());
    }
    let built = tool_builtin::code_mode::CodeMode::new(tools.registry.clone())
        .sandbox(args.sandbox)
        .build()
        .map_err(|error| error.to_string())
        .and_then(|tool| {
            tool_runtime::Registry::builder()
                .tool(tool)
                .build()
                .map_err(|error| error.to_string())
        });
    built.map_err(|error| {
        eprintln!("error: code mode: {error}");
        ExitCode::FAILURE
    })
}

async fn serve_on(server: McpServer, args: ServeArgs) -> ExitCode {
    #[cfg(feature = "http")]
    if let Some(address) = args.http {
        return serve_http(server, address, http_options(&args)).await;
    }
    let _ = args;
    match server.serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: the MCP server stopped: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The HTTP server's settings from the command line: each limit not
/// named keeps its default.
#[cfg(feature = "http")]
fn http_options(args: &ServeArgs) -> tool_mcp::server::HttpOptions {
    let mut options = tool_mcp::server::HttpOptions::new()
        .stateless(args.stateless)
        .allowed_origins(args.allow_origins.iter().cloned())
        .allowed_hosts(args.allow_hosts.iter().cloned());
    if let Some(connections) = args.max_connections {
        options = options.max_connections(connections as usize);
    }
    if let Some(sessions) = args.max_sessions {
        options = options.max_sessions(sessions as usize);
    }
    options
}

/// Serves `server` over streamable HTTP on `address`, which must be a
/// loopback address, as `options` say, until the process ends.
#[cfg(feature = "http")]
async fn serve_http(
    server: McpServer,
    address: std::net::SocketAddr,
    options: tool_mcp::server::HttpOptions,
) -> ExitCode {
    if !address.ip().is_loopback() {
        return usage_error(format!(
            "--http {address}: only loopback addresses (127.0.0.1, [::1]) are served; \
             put a proxy with authentication in front to reach the server from elsewhere"
        ));
    }
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(error) => return usage_error(format!("cannot listen on {address}: {error}")),
    };
    let bound = listener.local_addr().unwrap_or(address);
    let mode = if options.is_stateless() {
        "stateless "
    } else {
        ""
    };
    eprintln!(
        "serving MCP over {mode}streamable HTTP at http://{bound}{}",
        tool_mcp::server::MCP_PATH
    );
    let shutdown = tool_runtime::CancellationToken::new();
    match server.serve_http_with(listener, options, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: the MCP server stopped: {error}");
            ExitCode::FAILURE
        }
    }
}
