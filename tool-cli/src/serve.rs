//! The `serve` command: the tools over MCP, on stdio or (feature `http`)
//! streamable HTTP on a loopback address, with tool-mcp's server. With a
//! registry file's MCP servers (feature `mcp-client`), their tools are
//! served too, and follow the servers' lists.

use std::process::ExitCode;

use tool_mcp::server::McpServer;
use tool_runtime::registry::LiveRegistry;

use crate::Tools;
use crate::command::ServeArgs;
#[cfg(feature = "http")]
use crate::usage_error;

/// Serves `tools` over MCP as the server named `program`: on stdio, or on
/// the loopback address of `--http`.
pub(crate) async fn serve(tools: Tools, program: &str, args: ServeArgs) -> ExitCode {
    #[cfg(feature = "code-mode")]
    let live = match code_mode(&tools, &args) {
        Ok(live) => live,
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

/// The registry served: the tools, or with `--code-mode` or a registry
/// file's `code_mode` section a `code_mode` tool over them, alone or (as the
/// section's `offer: beside` says) beside them. The section's options apply;
/// `--sandbox` turns the sandbox on. A registry file's MCP servers' tools
/// join the registry served as they answer.
#[cfg(feature = "code-mode")]
fn code_mode(tools: &Tools, args: &ServeArgs) -> Result<LiveRegistry, ExitCode> {
    use tool_builtin::code_mode::CodeModeOffer;
    let fail = |error: String| {
        eprintln!("error: {error}");
        ExitCode::FAILURE
    };
    if args.sandbox && !args.code_mode && tools.code_mode.is_none() {
        return Err(crate::usage_error(
            "--sandbox runs code mode's scripts in a sandbox: give --code-mode too, \
             or a registry file with a code_mode section",
        ));
    }
    let made = crate::sections::code_mode_tool(
        tools.registry.clone(),
        tools.code_mode.as_ref(),
        args.code_mode,
        args.sandbox,
    )
    .map_err(fail)?;
    let Some((tool, offer)) = made else {
        return Ok(LiveRegistry::new(tools.registry.clone()));
    };
    let served = match offer {
        CodeModeOffer::InPlace => crate::registry_builder().tool(tool).build(),
        CodeModeOffer::Beside => {
            // The tools as they are, their policies kept, and code_mode.
            let live = LiveRegistry::new(tools.registry.clone());
            return match live.insert(tool) {
                Ok(()) => Ok(live),
                Err(error) => Err(fail(format!("code mode: {error}"))),
            };
        }
    };
    served
        .map(LiveRegistry::new)
        .map_err(|error| fail(format!("code mode: {error}")))
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
    if let Some(streams) = args.max_event_streams {
        options = options.max_event_streams(streams as usize);
    }
    if let Some(streams) = args.max_event_streams_per_session {
        options = options.max_event_streams_per_session(streams as usize);
    }
    if let Some(seconds) = args.event_stream_lifetime {
        options = options.event_stream_lifetime(std::time::Duration::from_secs(seconds));
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
    let shutdown = tool_runtime::context::CancellationToken::new();
    match server.serve_http_with(listener, options, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: the MCP server stopped: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(all(test, feature = "code-mode"))]
mod tests {
    use std::process::ExitCode;

    use clap::Parser;
    use tool_runtime::Registry;

    use crate::command::{Cli, Command};

    /// The names `serve` offers for the registry file `text` and the
    /// command line `serve ARGS`, over the built-in tools.
    fn served(text: &str, args: &[&str]) -> Result<Vec<String>, ExitCode> {
        static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "tool-cli-code-mode-{}-{n}.yaml",
            std::process::id()
        ));
        std::fs::write(&path, text).unwrap();
        let program = Registry::builder()
            .tools(tool_builtin::ALL)
            .build()
            .unwrap();
        let tools = crate::load(&path, &program);
        let _ = std::fs::remove_file(&path);
        let cli = Cli::try_parse_from(["toolbox", "serve"].iter().chain(args)).unwrap();
        let Command::Serve(args) = cli.command else {
            unreachable!("parsed as serve")
        };
        let live = super::code_mode(&tools?, &args)?;
        let mut names: Vec<String> = live.snapshot().names().map(str::to_owned).collect();
        names.sort_unstable();
        Ok(names)
    }

    #[test]
    fn a_registry_files_code_mode_section_is_served() {
        let plain = "tools: [calculator, current_time]\n";
        assert_eq!(served(plain, &[]).unwrap(), ["calculator", "current_time"]);
        assert_eq!(served(plain, &["--code-mode"]).unwrap(), ["code_mode"]);
        let in_place = format!("{plain}code_mode:\n  max_calls: 7\n");
        assert_eq!(served(&in_place, &[]).unwrap(), ["code_mode"]);
        let beside = format!("{plain}code_mode:\n  offer: beside\n  tools: [calculator]\n");
        assert_eq!(
            served(&beside, &[]).unwrap(),
            ["calculator", "code_mode", "current_time"]
        );
        // A tool the file does not offer is not the script's either.
        let unknown = format!("{plain}code_mode:\n  tools: [python_exec]\n");
        assert_eq!(served(&unknown, &[]), Err(ExitCode::FAILURE));
        // A bad value: the file is refused.
        let bad = format!("{plain}code_mode:\n  max_calls: -1\n");
        assert_eq!(served(&bad, &[]), Err(ExitCode::from(crate::EXIT_USAGE)));
    }
}
