//! The command line's arguments, as clap parses them.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use tool_runtime::Provider;

/// Lists, describes, calls and serves the tools linked into this program.
#[derive(Debug, Parser)]
#[command(
    about = "Lists, describes, calls and serves the tools linked into this program.",
    after_help = "Exit codes: 0 success, 1 the tool returned an error result (or an MCP server of the registry file could not be reached), 2 a usage or argument error."
)]
pub(crate) struct Cli {
    /// Build the registry from this registry file (YAML or JSON) instead of
    /// offering every linked tool; the tools of the MCP servers it names
    /// (`mcp_servers`), its HTTP tools (`http_tools`) and the operations of
    /// its OpenAPI documents (`openapi`) are offered too.
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) registry: Option<PathBuf>,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
#[allow(
    clippy::large_enum_variant,
    reason = "parsed once a run: boxing `serve`'s many flags would save nothing"
)]
pub(crate) enum Command {
    /// List the tools: name, version, description, parameters.
    List {
        /// Print JSON for programs instead of a table.
        #[arg(long)]
        json: bool,
        /// Also list the tools not offered: other versions of an offered
        /// name, and tools withheld because what they require is missing
        /// (with what is missing).
        #[arg(long)]
        all: bool,
    },
    /// Print tool definitions in a provider's format (every tool without NAME).
    Schema {
        /// The tool (all tools when absent).
        name: Option<String>,
        /// The format: openai, openai-strict, responses, anthropic, bedrock,
        /// gemini, mcp or xml.
        #[arg(long, short, value_name = "FORMAT", default_value = "mcp", value_parser = parse_provider)]
        format: Provider,
        /// Write every tool's definition to a lockfile (JSON), to check
        /// later changes against with --check.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["name", "check"])]
        lock: Option<std::path::PathBuf>,
        /// Compare the tools with a lockfile written by --lock: print each
        /// change, breaking or compatible, and exit with 1 when any is
        /// breaking.
        #[arg(long, value_name = "FILE", conflicts_with = "name")]
        check: Option<std::path::PathBuf>,
        /// Print what each tool's definition costs in tokens (OpenAI's
        /// o200k_base tokenizer) in the chosen format, and the total
        /// (tool-cli's feature `tokens`, on by default).
        #[arg(long, conflicts_with_all = ["name", "lock", "check"])]
        tokens: bool,
        /// With --tokens: exit with 1 when the total passes this many
        /// tokens.
        #[arg(long, value_name = "TOKENS", requires = "tokens")]
        budget: Option<usize>,
    },
    /// Call a tool and print its result as JSON.
    Call(CallArgs),
    /// Show a tool's configuration: schema, defaults, environment variables.
    Config {
        /// The tool.
        name: String,
        /// Print JSON for programs instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Serve the tools over the Model Context Protocol (stdio by default).
    Serve(ServeArgs),
    /// Read or cancel a task in a shared task store (Redis), wherever it
    /// runs.
    #[command(subcommand)]
    Task(TaskCommand),
    /// Sign in to an MCP server that asks for OAuth, sign out, or see
    /// which servers have tokens kept (feature `client-auth`).
    #[cfg(feature = "client-auth")]
    #[command(subcommand)]
    Auth(AuthCommand),
}

/// `auth login|logout|status`: a person's sign-in to MCP servers that ask
/// for OAuth, the tokens kept in the user's configuration directory.
#[cfg(feature = "client-auth")]
#[derive(Debug, Subcommand)]
pub(crate) enum AuthCommand {
    /// Sign in to an MCP server in a browser (the authorization code with
    /// PKCE) and keep the tokens for the client.
    Login(LoginArgs),
    /// Forget the tokens kept for an MCP server.
    Logout {
        /// The server: its URL, or the name of an `mcp_servers` entry of
        /// the registry file (--registry).
        server: String,
    },
    /// Say which MCP servers have tokens kept, and until when (never the
    /// tokens themselves).
    Status {
        /// Only this server: its URL, or the name of an `mcp_servers`
        /// entry of the registry file (--registry).
        server: Option<String>,
    },
}

/// `auth login SERVER`'s arguments.
#[cfg(feature = "client-auth")]
#[derive(Debug, clap::Args)]
pub(crate) struct LoginArgs {
    /// The server: its URL (https://mcp.example.com/mcp), or the name of an
    /// `mcp_servers` entry of the registry file (--registry).
    pub(crate) server: String,
    /// A scope to ask for, in place of those the server names; repeat for
    /// more.
    #[arg(long = "scope", value_name = "SCOPE")]
    pub(crate) scopes: Vec<String>,
    /// A client id registered with the authorization server beforehand (a
    /// public client); without it the client registers itself, if the
    /// authorization server lets it.
    #[arg(long, value_name = "ID")]
    pub(crate) client_id: Option<String>,
    /// The port of the loopback address the browser is sent back to
    /// (http://127.0.0.1:PORT/callback); 0 picks a free one.
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub(crate) redirect_port: u16,
    /// Only print the address to open, without trying to open a browser.
    #[arg(long)]
    pub(crate) no_browser: bool,
    /// How long to wait for the browser to come back, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) timeout: u64,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TaskCommand {
    /// Print the task with this id as JSON: its status, its progress, its
    /// result once it has one.
    Get {
        /// The task's id.
        id: String,
        /// The task store: a Redis URL, redis://HOST:PORT/.
        #[arg(long, value_name = "URL")]
        tasks: String,
    },
    /// Ask the task with this id to stop, wherever it runs.
    Cancel {
        /// The task's id.
        id: String,
        /// The task store: a Redis URL, redis://HOST:PORT/.
        #[arg(long, value_name = "URL")]
        tasks: String,
    },
}

#[derive(Debug, clap::Args)]
pub(crate) struct CallArgs {
    /// The tool.
    pub(crate) name: String,
    /// The arguments: a JSON object, or `-` to read it from stdin.
    #[arg(long, value_name = "JSON", conflicts_with = "args_file")]
    pub(crate) args: Option<String>,
    /// Read the arguments (a JSON object) from this file.
    #[arg(long, value_name = "PATH")]
    pub(crate) args_file: Option<PathBuf>,
    /// Invocation state for the call, a JSON object (what an agent would
    /// pass along: a user id, preferences).
    #[arg(long, value_name = "JSON")]
    pub(crate) state: Option<String>,
    /// No progress bar or trace lines on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP on this address (say 127.0.0.1:8080; port 0
    /// picks a free one) at /mcp, instead of stdio. An address other than
    /// loopback needs an authorization server (--auth-issuer, or a
    /// registry file's `auth` section) or --allow-anonymous.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// With --http: keep no sessions (no Mcp-Session-Id), answering each
    /// request on its own, so that several instances behind a load
    /// balancer can share one client's requests. Nothing reaches the
    /// client between its requests (no tools/list_changed).
    #[cfg(feature = "http")]
    #[arg(long, requires = "http")]
    pub(crate) stateless: bool,
    /// With --http: a web origin (scheme://host[:port]) whose browser
    /// requests are served, besides the loopback ones; repeat for more.
    /// Requests from any other `Origin` are answered 403.
    #[cfg(feature = "http")]
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub(crate) allow_origins: Vec<String>,
    /// With --http: a host name (or host:port) accepted in the `Host`
    /// header, besides the loopback ones, say behind a proxy that keeps
    /// the client's `Host`; repeat for more. Others are answered 403.
    #[cfg(feature = "http")]
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub(crate) allow_hosts: Vec<String>,
    /// With --http: the most connections served at once (default 1024).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_connections: Option<u32>,
    /// With --http: serve a non-loopback address without authorization,
    /// to anyone who reaches it (say, behind a proxy that authenticates).
    /// Without it, an address other than loopback needs an authorization
    /// server (--auth-issuer, or a registry file's `auth` section).
    #[cfg(feature = "http")]
    #[arg(long, requires = "http")]
    pub(crate) allow_anonymous: bool,
    /// With --http: the OAuth 2.1 resource server's settings (feature
    /// `auth`).
    #[cfg(feature = "auth")]
    #[command(flatten)]
    pub(crate) auth: AuthArgs,
    /// Run calls of the tools that may run as tasks as tasks (MCP's tasks
    /// extension, for clients that declare it), kept in STORE: `memory`
    /// (this process) or a Redis URL, redis://HOST:PORT/ (feature
    /// `redis`), which several instances share.
    #[arg(long, value_name = "STORE")]
    pub(crate) tasks: Option<String>,
    /// With --http: the most sessions open at once (default 4096).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_sessions: Option<u32>,
    /// With --http: the most event streams open at once in the whole
    /// server, sessions' standalone streams (GET) and subscriptions
    /// (subscriptions/listen); at most half of --max-connections, so that
    /// requests always find a connection (default 256).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", requires = "http")]
    pub(crate) max_event_streams: Option<u32>,
    /// With --http: the most event streams one session has open at once
    /// (default 4).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_event_streams_per_session: Option<u32>,
    /// With --http: how long an event stream stays open, in seconds; then
    /// the server ends it and the client opens another (default 300).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "SECONDS", requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) event_stream_lifetime: Option<u64>,
    /// With --http: the most sessions one caller (the subject of its access
    /// token) has open at once in this process (default 64). N instances
    /// behind a load balancer give a caller N times as many.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_sessions_per_caller: Option<u32>,
    /// With --http: the most calls one caller (the subject of its access
    /// token) has running at once in this process, over all its requests;
    /// one beyond it is answered 429 (default 64). N instances behind a
    /// load balancer give a caller N times as many.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_calls_per_caller: Option<u32>,
    /// With --tasks: the most tasks one caller (or, without one, one
    /// session) has running at once in this process (default 16). N
    /// instances give a caller N times as many; the tasks it keeps (1,000)
    /// are counted in the store, which instances share.
    #[arg(long, value_name = "N", requires = "tasks", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_tasks_per_caller: Option<u32>,
    /// Cut each tool result the model sees to SIZE (say 64KB, 2MiB, 65536
    /// bytes or 8000 tokens), keeping the full result in this process's
    /// memory for the `read_result` tool, which is then offered; a tool's
    /// own limit wins. No limit by default.
    #[arg(long, value_name = "SIZE", value_parser = parse_result_limit)]
    pub(crate) result_limit: Option<tool_runtime::limits::ResultLimit>,
    /// The environment variable that holds the key the requestState of an
    /// input_required result (MCP revision 2026-07-28) is sealed with; any
    /// text, 32 random bytes or more. Instances behind a load balancer
    /// share it, so that a retry reaching another instance is taken.
    /// Without it each process draws its own at random, and a retry that
    /// reaches another instance is refused.
    #[arg(long, value_name = "VAR")]
    pub(crate) request_state_key_env: Option<String>,
    /// Serve one tool, `code_mode`, in place of the tools: it runs a
    /// Python script in which they are functions (feature `code-mode`;
    /// docs/code-mode.md).
    #[cfg(feature = "code-mode")]
    #[arg(long)]
    pub(crate) code_mode: bool,
    /// With --code-mode or a registry file's code_mode section: run the
    /// scripts in python_exec's sandbox (Linux
    /// namespaces: no network, a private /tmp, no other process in
    /// sight). What a script calls stays in it: python_exec runs its code
    /// in the sandbox too, and every tool that declares it reaches an open
    /// world (open_world: http_request, the HTTP and OpenAPI tools, an MCP
    /// server's tool that says so) is left out of the script, unless the
    /// registry file's code_mode section names it in open_world_tools (it
    /// then runs outside the sandbox, as a direct call does).
    #[cfg(feature = "code-mode")]
    #[arg(long)]
    pub(crate) sandbox: bool,
}

/// `serve --http`'s settings as an OAuth 2.1 resource server: every
/// request must carry an access token of the authorization server, issued
/// for this server. Each overrides its key in a registry file's `auth`
/// section.
#[cfg(feature = "auth")]
#[derive(Debug, Default, clap::Args)]
pub(crate) struct AuthArgs {
    /// With --http: ask every request for an OAuth access token issued by
    /// this authorization server (its issuer identifier, exactly as its
    /// metadata says, such as https://auth.example.com).
    #[arg(
        long,
        value_name = "URL",
        requires = "http",
        conflicts_with = "allow_anonymous"
    )]
    pub(crate) auth_issuer: Option<String>,
    /// With --http and an issuer: this server's canonical URL, as clients
    /// reach it (https://tools.example.com/mcp): the audience its tokens
    /// must name. Its host is accepted in the Host header. Defaults to
    /// http://ADDR/mcp on a loopback address; needed on any other.
    #[arg(long, value_name = "URL", requires = "http")]
    pub(crate) auth_resource: Option<String>,
    /// With --http and an issuer: a scope every request's token must
    /// grant; repeat for more (none by default).
    #[arg(long = "auth-scope", value_name = "SCOPE", requires = "http")]
    pub(crate) auth_scopes: Vec<String>,
    /// With --http and an issuer: introspect opaque tokens (RFC 7662) as
    /// this client of the authorization server, its secret read from the
    /// variable --auth-client-secret-env names. Without it, only JWT access
    /// tokens are taken.
    #[arg(long, value_name = "ID", requires = "http")]
    pub(crate) auth_client_id: Option<String>,
    /// With --auth-client-id: the environment variable that holds the
    /// client's secret (never the secret itself on the command line).
    #[arg(long, value_name = "VAR", requires = "http")]
    pub(crate) auth_client_secret_env: Option<String>,
    /// With --auth-client-id: the introspection endpoint, instead of the
    /// one the authorization server's metadata names.
    #[arg(long, value_name = "URL", requires = "http")]
    pub(crate) auth_introspection_endpoint: Option<String>,
}

/// A `--result-limit`, read as `#[tool(result_limit = "..")]` reads it.
pub(crate) fn parse_result_limit(text: &str) -> Result<tool_runtime::limits::ResultLimit, String> {
    text.parse::<tool_runtime::limits::ResultLimit>()
        .map_err(|error| error.to_string())
}

pub(crate) fn parse_provider(name: &str) -> Result<Provider, String> {
    name.parse::<Provider>().map_err(|error| error.to_string())
}
