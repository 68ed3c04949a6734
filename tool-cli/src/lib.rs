//! A ready command line for any program that links `tool-runtime` tools:
//! list them, print their definitions for a provider, call one, show its
//! configuration, and serve them over MCP (with `tool-mcp`).
//!
//! A whole program is one line of `main`:
//!
//! ```no_run
//! // Link the crates whose tools to offer.
//! // use my_tools as _;
//!
//! fn main() -> std::process::ExitCode {
//!     tool_cli::run()
//! }
//! ```
//!
//! ```text
//! toolbox list [--json]
//! toolbox schema [NAME] [--format openai|openai-strict|responses|anthropic|bedrock|gemini|mcp|xml]
//! toolbox call NAME [--args JSON | --args - | --args-file PATH] [--state JSON]
//! toolbox config NAME [--json]
//! toolbox serve [--http ADDR:PORT [--stateless] [--auth-issuer URL ... | --allow-anonymous]]
//! toolbox auth login SERVER [--scope SCOPE]... [--client-id ID] [--redirect-port PORT] [--no-browser]
//! toolbox auth logout SERVER
//! toolbox auth status [SERVER]
//! toolbox --registry tools.yaml COMMAND ...
//! ```
//!
//! [`run`] offers every `#[tool]` linked into the program
//! ([`Registry::global`]); [`run_with`] a registry built in code (state,
//! policies, configuration, a subset of tools, `tool-builtin`'s tools);
//! [`run_async`] runs inside a Tokio runtime the program already has, with
//! arguments of its own:
//!
//! ```
//! use std::process::ExitCode;
//! use tool_runtime::{Registry, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(
//!     /// The first number
//!     a: i64,
//!     /// The second number
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! let registry = Registry::builder().tool(AddTool).build()?;
//! let runtime = tokio::runtime::Runtime::new()?;
//!
//! // `calc call add --args '{"a": 2, "b": 3}'` prints the result as JSON.
//! let args = ["calc", "call", "add", "--args", r#"{"a": 2, "b": 3}"#];
//! let code = runtime.block_on(tool_cli::run_async(registry.clone(), args));
//! assert_eq!(code, ExitCode::SUCCESS);
//!
//! // A mistyped name is a usage error, with a suggestion on stderr.
//! let code = runtime.block_on(tool_cli::run_async(registry, ["calc", "call", "ad"]));
//! assert_eq!(code, ExitCode::from(tool_cli::EXIT_USAGE));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What a program serves
//!
//! Exactly the tools its code names, whatever cargo features the build
//! unifies: the `#[tool]`s of the crates it links (see `list`'s `SOURCE`
//! column; narrow them by crate with `Linked::crates`), the
//! tools handed to [`run_with`], and those a registry file (`--registry`)
//! defines. A registry file's `tools` entries choose among the program's
//! own tools, never add others. `tool-builtin`'s tools are never
//! registered globally: a program offers them by name, for instance
//!
//! ```no_run
//! use std::process::ExitCode;
//! use tool_runtime::{registry::Linked, Registry};
//!
//! fn main() -> ExitCode {
//!     // Every linked #[tool], plus the built-in tools.
//!     let registry = Registry::builder()
//!         .linked(Linked::all())
//!         .tools(tool_builtin::ALL)
//!         .leave_out_unconfigured(true); // as `run()` does: `list` says why
//!     match registry.build() {
//!         Ok(registry) => tool_cli::run_with(registry),
//!         Err(error) => {
//!             eprintln!("error: {error}");
//!             ExitCode::from(tool_cli::EXIT_USAGE)
//!         }
//!     }
//! }
//! ```
//!
//! Exit codes: `0` success; `1` ([`EXIT_TOOL_ERROR`]) the tool ran and
//! returned an error result (or `serve` stopped on an error, or an MCP
//! server of the registry file could not be reached); `2`
//! ([`EXIT_USAGE`]) a usage or argument error (an unknown subcommand or
//! tool, arguments that are not a JSON object or that the tool rejects, a
//! bad registry file). Results and listings go to stdout, messages,
//! progress and trace lines to stderr. The guide is `docs/cli.md`.
//!
//! # MCP servers: an aggregating proxy
//!
//! A registry file (`--registry FILE`) may name MCP servers in its
//! `mcp_servers` section. Every command then offers their tools beside the
//! linked tools the file names, and `serve` is one MCP server for both:
//!
//! - `list` shows where each tool comes from (`SOURCE`, and `source` in
//!   `--json`): the module path of a linked tool, `local` for one made in
//!   code, `mcp:SERVER` for a server's.
//! - `call NAME` of a remote tool checks its arguments against the
//!   server's input schema and calls it through `tool-mcp`'s client; the
//!   server's progress is shown like a local tool's. A local tool's call
//!   starts no server.
//! - `serve` (stdio or `--http`) serves a live registry that follows each
//!   server's tool list: when it changes, the proxy's clients get
//!   `notifications/tools/list_changed`. It waits for no server: it
//!   answers its clients at once, and a server's tools join when it has
//!   answered. Its prompts join the same way, under the entry's `prefix`,
//!   and its resources and resource templates at their own URIs (the first
//!   server in the file wins a URI two offer); reads, prompts and
//!   completions go to the server that offers them. Subscriptions to one
//!   resource are not passed on.
//! - What a server sends is bounded by its entry's limits
//!   (`connect_timeout_ms`, `max_tools`, `max_list_bytes`,
//!   `max_schema_bytes`, `max_schema_depth`, `max_result_bytes`,
//!   `max_resources`, `max_resource_templates`, `max_prompts`; see
//!   `docs/cli.md`): a call over one fails at once naming it, and a tool
//!   left out (a schema over the limits, a name that becomes another's) is
//!   a warning. What a server says is shown with control characters
//!   escaped.
//! - Mistakes in `mcp_servers` (an unknown key, both `command` and `url`,
//!   a value of the wrong type) are reported with the rest of the file's,
//!   each at its line and column (exit code 2). A server's tool named like
//!   another tool is an error too (for `serve`, on stderr: that server is
//!   not served): give the server a `prefix`.
//! - A server that cannot be reached at startup fails `list`, `schema`,
//!   `config` and the `call` of a remote tool with an error naming it
//!   (exit code 1). `serve` warns instead, serves the other tools, and
//!   keeps trying that server in the background (1 s doubling to 30 s).
//!
//! # Features
//!
//! - `http` (default): `serve --http ADDR`, MCP over streamable HTTP
//!   (`tool-mcp`'s feature of the same name): on a loopback address to
//!   anyone who reaches it; on any other address only with an
//!   authorization server (`auth`) or `--allow-anonymous`. Without it
//!   `serve` speaks stdio only.
//! - `auth` (default): `serve --http` as an OAuth 2.1 resource server
//!   (`tool-mcp`'s feature of the same name): every request needs an access
//!   token of the authorization server `--auth-issuer` names (with
//!   `--auth-resource`, `--auth-scope`, and introspection with
//!   `--auth-client-id`), or a registry file's `auth` section does; the
//!   flags override the file's keys. Without it a registry file with the
//!   section is refused.
//! - `client-auth` (default): `auth login|logout|status`, a person's
//!   sign-in to an MCP server that asks for OAuth (the authorization code
//!   with PKCE, the browser sent back to a loopback address), the tokens
//!   kept in files only the user can read (`tool-mcp`'s `client-auth`).
//! - `mcp-client` (default): the MCP servers of a registry file, with
//!   `tool-mcp`'s client (`tool-mcp`'s `client` feature). Without it a
//!   registry file that names MCP servers is refused.
//! - `http-tools` (default): the `http_tools` and `openapi` sections of a
//!   registry file, tools that are HTTP requests, with `tool-builtin`'s
//!   `http_tools` module (`docs/http-tools.md`); `list` shows them as
//!   `http:HOST` and `openapi:NAME` followed by the origin its requests go
//!   to (`origin` in `--json`), OpenAPI notes (an operation with no
//!   `operationId`) go to stderr as warnings. It offers no built-in tool.
//!   Without it a registry file with those sections is
//!   refused.
//! - `tokens` (default): `schema --tokens [--budget N]`, what each tool's
//!   definition costs in OpenAI's `o200k_base` tokens (`tool-tokens`); the
//!   registries the command line builds from a registry file count their
//!   result limits in tokens with it too
//!   (`tool_tokens::O200kBase`). Without it `--tokens` is refused and
//!   those limits are estimated from bytes (a text's bytes / 4).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use tool_manifest::{Manifest, ManifestError};
use tool_runtime::__private::names;
use tool_runtime::{Registry, ToolSpec, registry::RegistryProblem};

use crate::command::{Cli, Command};

#[cfg(feature = "auth")]
mod auth;
mod call;
mod command;
mod inspect;
#[cfg(feature = "client-auth")]
mod login;
mod output;
#[cfg(feature = "mcp-client")]
mod proxy;
mod sections;
mod serve;
mod task;

pub use sections::{registry_file_schema, registry_sections};

/// The exit code of a tool that ran and returned an error result.
pub const EXIT_TOOL_ERROR: u8 = 1;
/// The exit code of a usage or argument error.
pub const EXIT_USAGE: u8 = 2;

/// Runs the command line over every tool linked into this program
/// ([`Registry::global`]) with this process's arguments, on a Tokio runtime
/// of its own, and returns the exit code.
///
/// Call it from a plain `fn main() -> ExitCode`, not from inside a Tokio
/// runtime (use [`run_async`] there).
pub fn run() -> ExitCode {
    match Registry::try_global() {
        Ok(registry) => block_on(run_async(registry.clone(), std::env::args_os())),
        Err(error) => {
            eprintln!("error: the linked tools do not form a registry: {error}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Runs the command line over `registry` with this process's arguments, on a
/// Tokio runtime of its own, and returns the exit code. `--registry FILE`
/// replaces `registry` with the file's tools, chosen among `registry`'s
/// own and the linked `#[tool]`s.
pub fn run_with(registry: Registry) -> ExitCode {
    block_on(run_async(registry, std::env::args_os()))
}

/// Runs `future` on a new multi-threaded Tokio runtime.
fn block_on(future: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the Tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(future)
}

/// Runs the command line over `registry` with the arguments `args` (the
/// first is the program's name, as in [`std::env::args_os`]) inside the
/// caller's Tokio runtime, and returns the exit code.
pub async fn run_async<I, T>(registry: Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let left_out = registry.left_out().to_vec();
    run_inner(registry, left_out, args).await
}

/// The command line over `registry`; `excluded` says which tools the
/// registry left out for their configuration, and why
/// ([`Registry::left_out`]).
async fn run_inner<I, T>(registry: Registry, excluded: Vec<RegistryProblem>, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let program = args
        .first()
        .map(Path::new)
        .and_then(Path::file_stem)
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tools".to_owned());
    let command = Cli::command()
        .name(program.clone())
        .bin_name(program.clone());
    let cli = match command
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version are not errors; clap knows which is which.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(EXIT_USAGE));
        }
    };
    // A task is read from its store: no tools are needed.
    let command = match cli.command {
        Command::Task(task) => return task::task(task).await,
        // A sign-in reaches one server, by its URL or its entry.
        #[cfg(feature = "client-auth")]
        Command::Auth(auth) => return login::auth(auth, cli.registry.as_deref(), &program).await,
        command => command,
    };
    let mut tools = match &cli.registry {
        Some(path) => match load(path, &registry) {
            Ok(tools) => tools,
            Err(code) => return code,
        },
        None => Tools::new(registry, excluded),
    };
    match command {
        Command::Serve(serve_args) => {
            tools.note_excluded();
            serve::serve(tools, &program, serve_args).await
        }
        command => {
            // A call of a local tool needs no MCP server.
            let local = matches!(&command, Command::Call(args) if tools.registry.resolve(&args.name).is_some());
            if !local && let Err(code) = tools.reach().await {
                return code;
            }
            let code = match command {
                Command::List { json, all } => inspect::list(&tools, json, all),
                Command::Schema {
                    format,
                    tokens: true,
                    budget,
                    ..
                } => inspect::tokens(&tools, format, budget),
                Command::Schema {
                    format,
                    lock: Some(path),
                    ..
                } => inspect::lock(&tools, format, &path),
                Command::Schema {
                    format,
                    check: Some(path),
                    ..
                } => inspect::check(&tools, format, &path),
                Command::Schema { name, format, .. } => {
                    inspect::schema(&tools, name.as_deref(), format)
                }
                Command::Call(call_args) => call::call(&tools, call_args).await,
                Command::Config { name, json } => inspect::config(&tools, &name, json),
                Command::Serve(_) | Command::Task(_) => unreachable!("handled above"),
                #[cfg(feature = "client-auth")]
                Command::Auth(_) => unreachable!("handled above"),
            };
            tools.close().await;
            code
        }
    }
}

/// A builder for a registry the command line makes; with the feature
/// `tokens`, its limits in tokens count OpenAI's `o200k_base` tokens.
pub(crate) fn registry_builder() -> tool_runtime::RegistryBuilder {
    let builder = Registry::builder();
    #[cfg(feature = "tokens")]
    let builder = builder.token_counter(tool_tokens::O200kBase);
    builder
}

/// The tools of the registry file at `path`, chosen among the program's
/// own (`program`'s, and the linked `#[tool]`s), or the exit code of the
/// message listing every mistake in it (its `mcp_servers`, `http_tools`
/// and `openapi` entries included).
fn load(path: &Path, program: &Registry) -> Result<Tools, ExitCode> {
    let manifest = Manifest::from_path_with(path, &sections::read_with())
        .map_err(|error| usage_error(format!("bad registry file: {error}")))?;
    let mut problems = Vec::new();
    let builder = registry_builder().catalog(program);
    #[cfg(feature = "http-tools")]
    let (builder, origins, targets) = {
        let loaded = tool_builtin::http_tools::load(&manifest);
        for note in &loaded.notes {
            let error = ManifestError {
                source: manifest.source().to_owned(),
                problems: vec![note.clone()],
            };
            eprintln!("warning: {error}");
        }
        problems.extend(loaded.problems.iter().cloned());
        (loaded.builder(builder), loaded.origins(), loaded.targets())
    };
    let (content, more) = sections::content(&manifest);
    problems.extend(more);
    let registry = match manifest.build_with(builder) {
        Ok(registry) => Some(registry),
        Err(error) => {
            problems.extend(error.problems);
            None
        }
    };
    #[cfg(feature = "mcp-client")]
    let remotes = {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let (remotes, more) = proxy::servers(&manifest, &text);
        problems.extend(more);
        remotes
    };
    match registry {
        Some(registry) if problems.is_empty() => {
            #[cfg_attr(
                not(any(
                    feature = "mcp-client",
                    feature = "http-tools",
                    feature = "code-mode",
                    feature = "auth"
                )),
                allow(unused_mut)
            )]
            let mut tools = Tools::new(registry, Vec::new());
            tools.content = content;
            #[cfg(feature = "mcp-client")]
            {
                tools.remotes = remotes;
            }
            #[cfg(feature = "http-tools")]
            {
                tools.origins = origins;
                tools.targets = targets;
            }
            #[cfg(feature = "code-mode")]
            {
                use tool_builtin::code_mode::CodeModeSection;
                tools.code_mode = manifest.section::<CodeModeSection>().cloned().flatten();
            }
            #[cfg(feature = "auth")]
            {
                tools.auth = manifest
                    .section::<auth::AuthSection>()
                    .cloned()
                    .flatten()
                    .map(|setting| setting.read_from(manifest.source()));
            }
            Ok(tools)
        }
        _ => {
            problems.sort_by_key(|problem| problem.location.map(|at| (at.line, at.column)));
            problems.dedup();
            let error = ManifestError {
                source: manifest.source().to_owned(),
                problems,
            };
            Err(usage_error(format!("bad registry file: {error}")))
        }
    }
}

/// The registry the command line works on, and the linked tools it left
/// out (with the reason).
pub(crate) struct Tools {
    pub(crate) registry: Registry,
    pub(crate) excluded: Vec<RegistryProblem>,
    /// The MCP server each remote tool comes from, by tool name.
    pub(crate) sources: BTreeMap<String, String>,
    /// Where each tool made from the registry file's `http_tools` and
    /// `openapi` sections comes from (`http:HOST`, `openapi:NAME`).
    pub(crate) origins: BTreeMap<String, String>,
    /// The origin the requests of each of those tools go to
    /// (`https://api.example.com`).
    pub(crate) targets: BTreeMap<String, String>,
    /// The registry file's MCP servers.
    #[cfg(feature = "mcp-client")]
    pub(crate) remotes: Vec<proxy::Remote>,
    /// The clients of the servers reached.
    #[cfg(feature = "mcp-client")]
    clients: Vec<tool_mcp::client::McpClient>,
    /// The registry file's `code_mode` section, which `serve` follows.
    #[cfg(feature = "code-mode")]
    pub(crate) code_mode: Option<tool_builtin::code_mode::CodeModeSetting>,
    /// The registry file's `auth` section, which `serve --http` follows.
    #[cfg(feature = "auth")]
    pub(crate) auth: Option<auth::AuthSetting>,
    /// The resources, prompts and skills of the registry file's sections,
    /// which `serve` serves.
    pub(crate) content: tool_mcp::sections::Loaded,
}

impl Tools {
    fn new(registry: Registry, excluded: Vec<RegistryProblem>) -> Self {
        Tools {
            registry,
            excluded,
            sources: BTreeMap::new(),
            origins: BTreeMap::new(),
            targets: BTreeMap::new(),
            #[cfg(feature = "mcp-client")]
            remotes: Vec::new(),
            #[cfg(feature = "mcp-client")]
            clients: Vec::new(),
            #[cfg(feature = "code-mode")]
            code_mode: None,
            #[cfg(feature = "auth")]
            auth: None,
            content: tool_mcp::sections::Loaded::default(),
        }
    }

    /// Reaches the registry file's MCP servers and adds their tools, or
    /// returns the exit code of the message saying which cannot be reached.
    async fn reach(&mut self) -> Result<(), ExitCode> {
        #[cfg(feature = "mcp-client")]
        if !self.remotes.is_empty() {
            match proxy::reach(self.registry.clone(), &self.remotes).await {
                Ok(reached) => {
                    self.registry = reached.registry;
                    self.sources = reached.sources;
                    self.clients = reached.clients;
                }
                Err(proxy::Failure::Unreachable(messages)) => {
                    for message in messages {
                        eprintln!("error: {message}");
                    }
                    return Err(ExitCode::from(EXIT_TOOL_ERROR));
                }
                Err(proxy::Failure::Refused(message)) => return Err(usage_error(message)),
            }
        }
        Ok(())
    }

    /// Stops the MCP servers reached (a spawned one is killed).
    async fn close(self) {
        #[cfg(feature = "mcp-client")]
        proxy::close_all(self.clients).await;
    }

    /// Where the tool `spec` comes from: `mcp:SERVER` for a tool of an MCP
    /// server, `http:HOST` or `openapi:NAME` for one the registry file
    /// declares as an HTTP request, the module path of a linked tool, else
    /// `local`.
    pub(crate) fn source(&self, spec: &ToolSpec) -> String {
        if let Some(origin) = self.origins.get(spec.name.as_ref()) {
            return origin.clone();
        }
        match self.sources.get(spec.name.as_ref()) {
            Some(server) => format!("mcp:{server}"),
            None if spec.location.module.is_empty() => "local".to_owned(),
            None => spec.location.module.to_owned(),
        }
    }

    /// Says on stderr which linked tools are left out, and why.
    pub(crate) fn note_excluded(&self) {
        for problem in &self.excluded {
            eprintln!("note: a linked tool is left out: {problem}");
        }
    }

    /// Why the linked tool `name` was left out of the registry, if it was.
    pub(crate) fn left_out(&self, name: &str) -> Option<&RegistryProblem> {
        self.excluded.iter().find(|problem| {
            matches!(problem, RegistryProblem::InvalidConfig { tool, .. } if tool == name)
        })
    }

    /// The spec of the linked tool `name` that was left out of the registry,
    /// and why it was.
    pub(crate) fn left_out_spec(&self, name: &str) -> Option<(ToolSpec, &RegistryProblem)> {
        let problem = self.left_out(name)?;
        let spec = Registry::linked_specs().find(|spec| spec.name == name)?;
        Some((spec.clone(), problem))
    }

    /// The tool named (or aliased) `name`, or the exit code of the message
    /// saying there is none.
    pub(crate) fn find(&self, name: &str) -> Result<&ToolSpec, ExitCode> {
        let registry = &self.registry;
        if let Some(tool) = registry.resolve(name) {
            return Ok(tool.spec());
        }
        if let Some(problem) = self.left_out(name) {
            return Err(usage_error(format!(
                "tool \"{name}\" is linked but left out of the registry: {problem}; \
                 `config {name}` shows what it needs"
            )));
        }
        // The name is quoted back escaped and cut short.
        let mut message = format!(
            "unknown tool \"{}\"",
            tool_runtime::__private::quote::name(name)
        );
        let close = (name.len() <= tool_runtime::__private::quote::MAX_NAME)
            .then(|| names::closest(name, registry.names()))
            .flatten();
        if let Some(close) = close {
            let _ = write!(message, "; did you mean \"{close}\"?");
        }
        if registry.is_empty() {
            message.push_str("; no tools are available");
        } else {
            let names: Vec<&str> = registry.names().collect();
            let _ = write!(message, "; the tools are: {}", names.join(", "));
        }
        Err(usage_error(message))
    }
}

/// Says `message` on stderr as an error; the exit code of a usage error.
pub(crate) fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}
