//! The `serve` command: the tools over MCP, on stdio or (feature `http`)
//! streamable HTTP, with tool-mcp's server. With a registry file's MCP
//! servers (feature `mcp-client`), their tools are served too, and follow
//! the servers' lists. The linked `#[resource]`s and `#[prompt]`s are
//! served with the registry file's `resources`, `prompts` and `skills`.
//!
//! Over HTTP, a loopback address is served to anyone who reaches it; any
//! other address only with an authorization server (feature `auth`: the
//! `--auth-*` flags or a registry file's `auth` section), whose access
//! tokens every request must then carry, or with `--allow-anonymous`.

use std::process::ExitCode;

#[cfg(feature = "http")]
use std::net::SocketAddr;

use tool_mcp::server::McpServer;
use tool_runtime::registry::LiveRegistry;

use crate::Tools;
use crate::command::ServeArgs;
#[cfg(feature = "http")]
use crate::usage_error;

/// Serves `tools` over MCP as the server named `program`: on stdio, or on
/// the loopback address of `--http`.
pub(crate) async fn serve(mut tools: Tools, program: &str, args: ServeArgs) -> ExitCode {
    if let Some(limit) = args.result_limit {
        match tools.registry.with_result_limit(limit) {
            Ok(limited) => tools.registry = limited,
            Err(error) => {
                eprintln!("error: --result-limit: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
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
    if let Some(variable) = &args.request_state_key_env {
        match request_state_key(variable) {
            Ok(key) => server = server.with_request_state_key(key),
            Err(message) => return crate::usage_error(message),
        }
    }
    // A proxy serves its servers' resources and prompts too: collections
    // they join as they answer, even when the program has none of its own.
    #[cfg(feature = "mcp-client")]
    let proxied = !tools.remotes.is_empty();
    #[cfg(not(feature = "mcp-client"))]
    let proxied = false;
    match crate::sections::collections(&tools.content, proxied) {
        Ok(collections) => {
            #[cfg(feature = "mcp-client")]
            if let (Some(resources), Some(prompts)) = &collections {
                following
                    .content
                    .serve_into(resources.clone(), prompts.clone());
            }
            server = crate::sections::serve_collections(server, collections);
            server = crate::sections::serve_app_links(server, &tools.content);
        }
        Err(message) => return crate::usage_error(message),
    }
    if let Some(tasks) = args.max_tasks_per_caller {
        server = server.with_max_tasks_per_session(tasks as usize);
    }
    if let Some(store) = &args.tasks {
        match crate::task::open(store, true).await {
            Ok(tasks) => server = server.with_tasks(tasks),
            Err(code) => return code,
        }
    }
    let code = serve_on(server, args, &tools, program).await;
    #[cfg(feature = "mcp-client")]
    following.stop().await;
    drop(tools);
    code
}

/// The key of `--request-state-key-env VARIABLE`: the variable's value,
/// which must be set and not empty.
fn request_state_key(variable: &str) -> Result<String, String> {
    match std::env::var(variable) {
        Ok(key) if !key.is_empty() => Ok(key),
        Ok(_) => Err(format!(
            "--request-state-key-env: the environment variable {variable} is empty"
        )),
        Err(std::env::VarError::NotPresent) => Err(format!(
            "--request-state-key-env: the environment variable {variable} is not set"
        )),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!(
            "--request-state-key-env: the environment variable {variable} is not UTF-8 text"
        )),
    }
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

async fn serve_on(server: McpServer, args: ServeArgs, tools: &Tools, program: &str) -> ExitCode {
    #[cfg(feature = "http")]
    if let Some(address) = args.http {
        let access = match access(&args, tools, address) {
            Ok(access) => access,
            Err(message) => return usage_error(message),
        };
        return serve_http(server, address, &args, access, program).await;
    }
    let _ = (args, tools, program);
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
    if let Some(sessions) = args.max_sessions_per_caller {
        options = options.max_sessions_per_caller(sessions as usize);
    }
    if let Some(calls) = args.max_calls_per_caller {
        options = options.max_calls_per_caller(calls as usize);
    }
    options
}

/// Who `serve --http` serves.
#[cfg(feature = "http")]
enum Access {
    /// Anyone who reaches the address.
    Anonymous,
    /// Requests with an access token of the authorization server.
    #[cfg(feature = "auth")]
    Protected(Box<crate::auth::Settings>),
}

/// Who is served on `address`, as the flags and the registry file say; an
/// address other than loopback is refused without an authorization
/// server or `--allow-anonymous`.
#[cfg(feature = "http")]
fn access(args: &ServeArgs, tools: &Tools, address: SocketAddr) -> Result<Access, String> {
    #[cfg(feature = "auth")]
    if let Some(settings) = crate::auth::settings(&args.auth, tools.auth.as_ref())? {
        if args.allow_anonymous {
            return Err(
                "--allow-anonymous: the registry file's `auth` section asks for access tokens; \
                 serve anonymously with a file without it"
                    .to_owned(),
            );
        }
        if !address.ip().is_loopback() && !settings.has_resource() {
            return Err(format!(
                "--http {address} is not a loopback address: give --auth-resource URL (or \
                 `resource` in the registry file's `auth` section), this server's URL as \
                 clients reach it, the audience its access tokens must name"
            ));
        }
        return Ok(Access::Protected(Box::new(settings)));
    }
    let _ = tools;
    if address.ip().is_loopback() || args.allow_anonymous {
        return Ok(Access::Anonymous);
    }
    #[cfg(feature = "auth")]
    let how = "give an authorization server whose access tokens every request must carry \
               (--auth-issuer URL --auth-resource URL, or a registry file's `auth` section), \
               or --allow-anonymous";
    #[cfg(not(feature = "auth"))]
    let how = "this program is built without tool-cli's `auth` feature, so give \
               --allow-anonymous";
    Err(format!(
        "--http {address} is not a loopback address, and anyone who reaches it could call the \
         tools: {how} to serve it without authorization (say, behind a proxy that \
         authenticates)"
    ))
}

/// Serves `server` over streamable HTTP on `address`, with the settings
/// of `args`, to those `access` lets in, until the process ends.
#[cfg(feature = "http")]
async fn serve_http(
    server: McpServer,
    address: SocketAddr,
    args: &ServeArgs,
    access: Access,
    program: &str,
) -> ExitCode {
    let options = http_options(args);
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(error) => return usage_error(format!("cannot listen on {address}: {error}")),
    };
    let bound = listener.local_addr().unwrap_or(address);
    let (options, note) = match access {
        Access::Anonymous if bound.ip().is_loopback() => (options, None),
        Access::Anonymous => (
            options,
            Some(format!(
                "warning: serving {bound} without authorization (--allow-anonymous): anyone \
                 who reaches it can call the tools"
            )),
        ),
        #[cfg(feature = "auth")]
        Access::Protected(settings) => match settings.resource_server(bound, program) {
            Ok((resource_server, host)) => {
                let note = format!(
                    "asking every request for an access token of {}, issued for {}",
                    resource_server.issuer(),
                    resource_server.resource()
                );
                // The resource URL's host is where clients reach the server.
                let hosts = args.allow_hosts.iter().cloned().chain(host);
                let options = options
                    .allowed_hosts(hosts)
                    .resource_server(resource_server);
                (options, Some(note))
            }
            Err(message) => return usage_error(message),
        },
    };
    let _ = program;
    let mode = if options.is_stateless() {
        "stateless "
    } else {
        ""
    };
    eprintln!(
        "serving MCP over {mode}streamable HTTP at http://{bound}{}",
        tool_mcp::server::MCP_PATH
    );
    if let Some(note) = note {
        eprintln!("{note}");
    }
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
