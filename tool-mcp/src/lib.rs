//! The Model Context Protocol for `tool-runtime`: a
//! [`Registry`](tool_runtime::Registry) of tools
//! served to any MCP client (Claude Desktop, an IDE, an agent framework,
//! the MCP inspector). The server speaks the protocol itself, over stdio
//! and streamable HTTP alike (one protocol core); the client is built on
//! `rmcp`, the official Rust SDK.
//!
//! [`server::McpServer`] answers `tools/list` and `tools/call` for a
//! registry: calls go through
//! [`Registry::stream`](tool_runtime::Registry::stream), so validation, time
//! limits, approval, error shaping, progress and cancellation work as they
//! do for a model's calls. It serves stdio, any byte stream pair, and
//! (feature `http`, on by default) MCP's streamable HTTP transport. The
//! [`server`] module says what the server does message by message; the
//! guide is `docs/mcp.md`.
//!
//! ```
//! use tool_mcp::server::McpServer;
//! use tool_runtime::{Registry, tool};
//!
//! /// Adds two numbers.
//! #[tool(read_only)]
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
//! let server = McpServer::new(registry).with_implementation("calculator", "1.0.0");
//!
//! // What `tools/list` answers: the tool, its schema and its hints.
//! let tools = server.tools();
//! assert_eq!(tools[0]["name"], "add");
//! assert_eq!(tools[0]["inputSchema"]["required"], serde_json::json!(["a", "b"]));
//! assert_eq!(tools[0]["annotations"]["readOnlyHint"], true);
//! # Ok::<(), tool_runtime::registry::RegistryError>(())
//! ```
//!
//! A whole server, for an MCP client to start as a subprocess (it speaks
//! on stdin and stdout, so log to stderr only):
//!
//! ```no_run
//! use tool_mcp::server::McpServer;
//! use tool_runtime::Registry;
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     // Every tool linked into this program.
//!     McpServer::new(Registry::global().clone())
//!         .with_implementation("my-tools", "1.0.0")
//!         .serve_stdio()
//!         .await
//! }
//! ```
//!
//! Or over streamable HTTP, at `http://127.0.0.1:8080/mcp` (feature
//! `http`):
//!
//! ```no_run
//! # #[cfg(feature = "http")]
//! # async fn serve() -> std::io::Result<()> {
//! use tool_mcp::server::McpServer;
//! use tool_runtime::{context::CancellationToken, Registry};
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let shutdown = CancellationToken::new(); // cancel it to stop serving
//! McpServer::new(Registry::global().clone())
//!     .serve_http(listener, shutdown)
//!     .await
//! # }
//! ```
//!
//! [`headers`] is MCP's side of header parameters (`#[tool(header)]`,
//! `x-mcp-header`): the rules on their declaration, and the `Mcp-Param-*`
//! headers of a call, written by a client and checked by the server.
//!
//! A program that links tools gets both, and a command line to list and
//! call them, from `tool-cli` (`tool_cli::run()`, whose `serve` is this
//! server).
//!
//! # Authorization
//!
//! Over HTTP the server can be an OAuth 2.1 resource server, as MCP's
//! authorization specification describes (feature `auth`): a
//! [`ResourceServer`](auth::ResourceServer) names the authorization server
//! (its issuer) and this server's canonical URL (the audience its tokens
//! must name), and [`HttpOptions::resource_server`](server::HttpOptions::resource_server)
//! makes every request to the endpoint carry a bearer token it accepts
//! (`401` with a `WWW-Authenticate` challenge otherwise, `403` for a
//! missing scope), serves the protected resource metadata, and hands each
//! call the token's [`Caller`](auth::Caller) on its context
//! (`ctx.caller()`). The [`auth`] module has the details.
//!
//! ```no_run
//! # #[cfg(feature = "auth")]
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! use tool_mcp::auth::ResourceServer;
//! use tool_mcp::server::{HttpOptions, McpServer};
//! use tool_runtime::{Registry, context::CancellationToken};
//!
//! let resource_server =
//!     ResourceServer::builder("https://auth.example.com", "https://tools.example.com/mcp")
//!         .required_scopes(["tools:call"])
//!         .build()?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let options = HttpOptions::new()
//!     .allowed_hosts(["tools.example.com"])
//!     .resource_server(resource_server);
//! McpServer::new(Registry::global().clone())
//!     .serve_http_with(listener, options, CancellationToken::new())
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! # The client: other servers' tools
//!
//! [`client::McpClient`] (feature `client`, on by default) goes the other
//! way: it starts an MCP server from the configuration MCP hosts write (a
//! command with `args` and `env`, or a `url` with `headers`:
//! [`client::McpServerConfig`]), or reaches one over streamable HTTP, and
//! calls its tools from Rust. Results become
//! [`ToolOutput`](tool_runtime::ToolOutput)s, `isError` an error result with
//! the server's text, the server's progress notifications the call's
//! [`Progress`](tool_runtime::events::Progress), and cancelling the call's
//! [`ToolContext`](tool_runtime::ToolContext) sends
//! `notifications/cancelled`. A server that exits is restarted with backoff;
//! each call has a time limit; every error names the server.
//! [`McpClient::tools`](client::McpClient::tools) makes the server's tools
//! registry tools ([`DynamicTool`](tool_runtime::dynamic::DynamicTool)s, prefixed or
//! renamed), and [`McpClient::sync_into`](client::McpClient::sync_into)
//! keeps a [`LiveRegistry`](tool_runtime::registry::LiveRegistry) in step with the
//! server's tool list; served by an [`McpServer`](server::McpServer), that
//! makes a proxy for several servers' tools.
//!
//! ```no_run
//! use serde_json::json;
//! use tool_mcp::client::{McpClient, McpServerConfig};
//! use tool_runtime::ToolContext;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config: McpServerConfig = serde_json::from_value(json!({
//!     "command": "npx",
//!     "args": ["-y", "@modelcontextprotocol/server-everything"]
//! }))?;
//! let everything = McpClient::connect("everything", config).await?;
//! let tools = everything.list_tools().await?;
//! println!("{} tools, the first {}", tools.len(), tools[0].name);
//!
//! let sum = everything
//!     .call("get-sum", json!({"a": 2, "b": 3}), &ToolContext::new())
//!     .await?;
//! println!("{}", sum.into_result("call-1").text_content());
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! - `http` (default): [`McpServer::serve_http`](server::McpServer::serve_http),
//!   [`server::HttpOptions`] and [`server::MCP_PATH`], with hyper (no rmcp).
//!   Without it (`default-features = false`) the server speaks stdio and
//!   byte streams only, and hyper is not compiled or linked.
//! - `auth`: the [`auth`] module, the HTTP server as an OAuth 2.1 resource
//!   server (`http`, with jsonwebtoken on the RustCrypto crates and reqwest
//!   for the authorization server's metadata and keys).
//! - `client` (default): the [`client`] module, an MCP client built on
//!   `rmcp`'s, with its child-process and streamable HTTP transports
//!   (reqwest, with rustls on ring: no system OpenSSL).
//! - `sections`: the [`sections`] module, a registry file's `resources`,
//!   `prompts` and (with `skills`) `skills` sections, read with
//!   tool-manifest, for a program that serves what its registry file
//!   declares (as `toolbox serve` does).
//!
//! # Versions
//!
//! This crate's client follows `rmcp`: a release of `rmcp` that breaks its
//! API is a breaking release of this crate, not of `tool-runtime`. With the
//! `client` feature, `rmcp` is re-exported (`tool_mcp::rmcp`) at the
//! version used, for its transports and protocol types.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod __private;
pub mod apps;
#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "client")]
pub mod client;
pub mod completion;
mod content;
pub mod headers;
pub mod prompts;
pub mod resources;
#[cfg(feature = "sections")]
pub mod sections;
pub mod server;
#[cfg(any(feature = "auth", feature = "client"))]
mod tls;

/// The `rmcp` crate the client is built on: its transports and its
/// protocol types, at the version this crate uses.
#[cfg(feature = "client")]
pub use rmcp;

/// Makes a function an MCP resource: `#[resource("scheme://path")]` for
/// one URI, `#[resource("scheme://items/{id}")]` for every URI of a
/// template, whose variables are the parameters of the same names.
///
/// The attribute emits a unit struct named after the function
/// (`static_text` gets `StaticTextResource`) that implements
/// [`Resource`](resources::Resource), and registers it, so that
/// [`Resources::global`](resources::Resources::global) holds every linked
/// `#[resource]`; give it to a builder by value
/// ([`ResourcesBuilder::resource`](resources::ResourcesBuilder::resource))
/// as well or instead (`register = false`). The doc comment is the
/// resource's description.
///
/// The function may be `async`. Its parameters are the template's
/// variables, by name: `&str`, `String`, any type that implements
/// `FromStr` (a value it refuses answers `-32602`), `Option<..>` of them
/// for a `{?q}` variable; or, as for `#[tool]`, what the request's context
/// supplies: `&ToolContext`, `ToolContext`, `State<T>`, `Extension<T>`,
/// `Progress`, or a type marked `#[resource(inject)]` that implements
/// `FromToolContext`. It returns its contents: `&'static str` or `String`
/// (text, `text/plain` unless `mime` says otherwise), `Vec<u8>` (bytes,
/// `application/octet-stream`), [`Contents`](resources::Contents), a
/// `Vec` of them, or a `Result` of one of these, whose error is a
/// [`ResourceError`](resources::ResourceError) (kept as it is, so
/// `NotFound` answers `-32602`) or anything `Display` (`-32603`).
///
/// Keys on the function, `#[resource(...)]`:
///
/// | key | meaning |
/// |---|---|
/// | `"uri"` first, or `uri = "..."` | its URI, or URI template ([`UriTemplate`](resources::UriTemplate)'s grammar, checked at compile time) |
/// | `name = "..."` | its name (default: the function's) |
/// | `title = "..."` | a title for people |
/// | `description = "..."` | its description (default: the doc comment) |
/// | `mime = "type/subtype"` | the media type of its contents |
/// | `size = 1234` | its size in bytes, listed (a fixed URI's only) |
/// | `audience = ["user", "assistant"]` (or one string) | whom it is for ([`ResourceAnnotations`](resources::ResourceAnnotations)) |
/// | `priority = 0.5` | how important it is, 0.0 to 1.0 |
/// | `cache = "public"` or `"private"` | who may share a cached read ([`CacheHint`](resources::CacheHint); default private) |
/// | `ttl = "60s"` | how long a read stays fresh (default: not at all; with `cache = "public"` alone, the server's list lifetime) |
/// | `register = false` | not in [`Resources::global`](resources::Resources::global) |
/// | `crate = path` | the path of this crate, for re-exporters |
///
/// Keys on a parameter, `#[resource(...)]`:
///
/// | key | meaning |
/// |---|---|
/// | `name = "..."` | the template variable it is (default: its name) |
/// | `complete = path` | a `fn(&str) -> Vec<String>` (or `Vec<&str>`, [`Completion`](completion::Completion)) offering values for what the client typed (`completion/complete`) |
/// | `inject` | supplied by `FromToolContext`, not by the URI |
///
/// <!-- standalone_crate: merged with the other doctests, this one would link their resources too. -->
///
/// ```rust,standalone_crate
/// use tool_mcp::resource;
/// use tool_mcp::resources::{Body, ReadRequest, Resources, UriParams};
///
/// /// The static text the conformance suite reads.
/// #[resource("test://static-text", mime = "text/plain")]
/// fn static_text() -> &'static str {
///     "This is the content of the static text resource."
/// }
///
/// /// Data for one id.
/// #[resource("test://template/{id}/data", mime = "application/json")]
/// async fn template_data(#[resource(complete = ids)] id: u32) -> String {
///     format!(r#"{{"id":"{id}"}}"#)
/// }
///
/// fn ids(typed: &str) -> Vec<&'static str> {
///     ["123", "456"].into_iter().filter(|id| id.starts_with(typed)).collect()
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let resources = Resources::global();
/// let (resource, params) = resources.resolve("test://template/123/data").unwrap();
/// let read = ReadRequest::new("test://template/123/data", params, Default::default());
/// let contents = resource.read(read).await.unwrap();
/// assert_eq!(contents[0].body, Body::Text(r#"{"id":"123"}"#.into()));
/// assert_eq!(contents[0].mime_type.as_deref(), Some("application/json"));
/// assert!(resources.resolves("test://static-text"));
/// # let _ = UriParams::new();
/// # }
/// ```
pub use tool_runtime_macros::resource;

/// Makes a function an MCP prompt: its messages, made from the arguments
/// a client gives (`prompts/get`).
///
/// The attribute emits a unit struct named after the function
/// (`code_review` gets `CodeReviewPrompt`) that implements
/// [`Prompt`](prompts::Prompt), and registers it, so that
/// [`Prompts::global`](prompts::Prompts::global) holds every linked
/// `#[prompt]` (unless `register = false`). The doc comment is the
/// prompt's description; a `///` comment on a parameter is that
/// argument's description.
///
/// The function may be `async`. Its parameters are the prompt's
/// arguments, by name: `&str`, `String` or any `FromStr` type (required;
/// a value it refuses answers `-32602` naming the argument), or
/// `Option<..>` of them (optional); or, as for `#[tool]`, what the
/// request's context supplies (`&ToolContext`, `State<T>`, ..., or a type
/// marked `#[prompt(inject)]`). It returns its messages: `String` or
/// `&str` (one message of the user's), a
/// [`PromptMessage`](prompts::PromptMessage), a `Vec` of them, a
/// [`GetPrompt`](prompts::GetPrompt), or a `Result` of one of these,
/// whose error is a [`PromptError`](prompts::PromptError) (kept as it is)
/// or anything `Display` (`-32603`).
///
/// Keys on the function, `#[prompt(...)]`: `name = "..."` (default: the
/// function's), `title = "..."`, `description = "..."` (default: the doc
/// comment), `register = false`, `crate = path`. Keys on a parameter:
/// `name = "..."` (the argument's name, such as `resourceUri`),
/// `complete = path` (as for [`resource`]), `inject`.
///
/// <!-- standalone_crate: merged with the other doctests, this one would link their prompts too. -->
///
/// ```rust,standalone_crate
/// use tool_mcp::prompt;
/// use tool_mcp::prompts::{PromptArguments, PromptError, PromptMessage, Prompts};
///
/// /// Reviews code.
/// #[prompt]
/// fn code_review(
///     /// The code to review
///     code: String,
///     /// Its language, when not obvious
///     #[prompt(complete = languages)]
///     language: Option<String>,
/// ) -> Vec<PromptMessage> {
///     let language = language.unwrap_or_else(|| "an unknown language".into());
///     vec![PromptMessage::user(format!("Review this code, written in {language}:\n{code}"))]
/// }
///
/// fn languages(typed: &str) -> Vec<&'static str> {
///     ["rust", "python"].into_iter().filter(|l| l.starts_with(typed)).collect()
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let prompt = Prompts::global().get("code_review").unwrap();
/// assert_eq!(prompt.spec().description.as_deref(), Some("Reviews code."));
/// assert!(prompt.spec().arguments[0].required);
/// assert!(!prompt.spec().arguments[1].required);
///
/// let mut arguments = PromptArguments::new();
/// arguments.insert("code", "fn main() {}");
/// let got = prompt.get(arguments, Default::default()).await.unwrap();
/// assert_eq!(got.messages.len(), 1);
///
/// let missing = prompt.get(PromptArguments::new(), Default::default()).await;
/// assert!(matches!(missing, Err(PromptError::MissingArgument(name)) if name == "code"));
/// # }
/// ```
pub use tool_runtime_macros::prompt;
