//! The Model Context Protocol for `tool-runtime`: a
//! [`Registry`](tool_runtime::Registry) of tools
//! served to any MCP client (Claude Desktop, an IDE, an agent framework,
//! the MCP inspector), built on `rmcp`, the official Rust SDK.
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
//! assert_eq!(tools[0].name, "add");
//! assert_eq!(tools[0].input_schema["required"], serde_json::json!(["a", "b"]));
//! assert_eq!(tools[0].annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
//! # Ok::<(), tool_runtime::RegistryError>(())
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
//! use tool_runtime::{CancellationToken, Registry};
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let shutdown = CancellationToken::new(); // cancel it to stop serving
//! McpServer::new(Registry::global().clone())
//!     .serve_http(listener, shutdown)
//!     .await
//! # }
//! ```
//!
//! A program that links tools gets both, and a command line to list and
//! call them, from `tool-cli` (`tool_cli::run()`, whose `serve` is this
//! server).
//!
//! # Features
//!
//! - `http` (default): [`McpServer::serve_http`](server::McpServer::serve_http)
//!   and [`server::MCP_PATH`], with hyper. Without it
//!   (`default-features = false`) the server speaks stdio and byte streams
//!   only, and the build is lighter.
//!
//! # Versions
//!
//! This crate follows `rmcp`: a release of `rmcp` that breaks its API is a
//! breaking release of this crate, not of `tool-runtime`. [`rmcp`] is
//! re-exported at the version used, for its transports and protocol types.

#![warn(missing_docs)]

pub mod server;

/// The `rmcp` crate the server is built on: its transports and its
/// protocol types, at the version this crate uses.
pub use rmcp;
