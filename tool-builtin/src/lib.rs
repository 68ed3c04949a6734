//! Ready-made tools for LLM agents, safe by default.
//!
//! | tool | what it does | safe default |
//! |---|---|---|
//! | [`calculator`](calculator::calculator) | arithmetic expressions | no variables, no side effects |
//! | [`current_time`](time::current_time) | the time now in an IANA zone | UTC |
//! | [`file_read`](files::file_read), [`file_write`](files::file_write), [`file_list`](files::file_list) | files under one root directory | root `./tool-files`; `..`, absolute paths outside it and symbolic links out refused |
//! | [`http_request`](http::http_request) | HTTP to allowed hosts | the allowlist is empty: nothing is reachable |
//! | [`python_exec`](python::python_exec) | Python in a limited child process | 10 s, 10 CPU s, 512 MiB, 64 KiB of output |
//!
//! Every tool is an ordinary `#[tool]` function of `tool-runtime`, with a
//! configuration type (`#[tool(config = ...)]`) whose every field has a
//! default. None of them is registered globally (`#[tool(register =
//! false)]`): linking the crate, or turning on any of its features, adds no
//! tool to `Registry::global()`. A program chooses them in code, by value
//! (`.tool(calculator::CalculatorTool)`), all at once (`.tools(ALL)`), or by
//! name from the catalogue, where a registry file can name them too:
//!
//! ```
//! use tool_runtime::{registry::Linked, Registry, ToolContext, ToolUse};
//! use serde_json::json;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let registry = Registry::builder()
//!     .catalog(tool_builtin::ALL)
//!     .linked(Linked::named(["calculator", "current_time"]))
//!     .configure("current_time", json!({"default_zone": "Europe/Paris"}))
//!     .build()?;
//! assert_eq!(registry.names().collect::<Vec<_>>(), ["calculator", "current_time"]);
//! // Nothing of this crate is linked into the global registry.
//! assert!(Registry::linked_specs().all(|spec| spec.name != "python_exec"));
//!
//! let ctx = ToolContext::new();
//! let value = registry
//!     .call_json("calculator", json!({"expression": "2 ^ 10 + sqrt(16)"}), &ctx)
//!     .await
//!     .expect("a valid expression");
//! assert_eq!(value["result"], 1028.0);
//!
//! // The agent path: errors become error results the model reads.
//! let call = ToolUse::new("t2", "calculator", json!({"expression": "1 / (2 - 2)"}));
//! let result = registry.invoke(call, &ctx).await;
//! assert!(result.is_error());
//! assert!(result.text_content().contains("division by zero"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! # Configuration
//!
//! Each tool reads its configuration from the registry like any configured
//! tool (see `docs/stateful-tools-and-configuration.md`): the defaults,
//! then [`RegistryBuilder::configure`](tool_runtime::RegistryBuilder::configure),
//! then a registry file, then environment variables `TOOL_<NAME>_<FIELD>`:
//!
//! ```yaml
//! tools:
//!   - calculator
//!   - name: file_read
//!     config: { root: /srv/agent-files }
//!   - name: http_request
//!     config:
//!       allowed_hosts: [api.example.com, "*.internal.example.com:8443"]
//!       timeout_ms: 10000
//! ```
//!
//! or `TOOL_HTTP_REQUEST_ALLOWED_HOSTS='["api.example.com"]'`. Every
//! setting and its default is listed in `docs/builtin-tools.md`; what each
//! guard protects against, and what it does not, in `docs/security.md`.
//!
//! # Tools from configuration (feature `http-tools`)
//!
//! `http_tools` turns a registry file's `http_tools` section (tools that
//! are one HTTP request each: a URL template, query, headers, a JSON body)
//! and its `openapi` section (one tool per operation of an OpenAPI 3.0 or
//! 3.1 document) into `DynamicTool`s that go out through `http_request`'s
//! guards: their own host only, redirects re-checked, time and size
//! limits. The guide is `docs/http-tools.md`.
//!
//! # Features
//!
//! - `tools` (default): the built-in tools above and [`ALL`]. Without it
//!   the crate has only what `http-tools` needs (tool-cli depends on it
//!   that way). Either way linking it registers nothing globally.
//! - `https` (default): `https://` URLs, with rustls.
//! - `http-tools`: the `http_tools` module.
//! - `code-mode` (Unix): the `code_mode` module, a tool that runs one Python
//!   script calling many tools of a registry (`docs/code-mode.md`).
//!
//! # Why a separate crate
//!
//! These tools need an HTTP client (`ureq`, with `rustls` behind the
//! default `https` feature), the time-zone database (`jiff` with the zones
//! bundled), an expression parser (`evalexpr`) and a capability-based file
//! system layer (`cap-std`). Keeping them here keeps `tool-runtime` free of
//! those dependencies for programs that only define their own tools.

#![warn(missing_docs)]

#[cfg(feature = "tools")]
pub mod calculator;
#[cfg(all(unix, feature = "code-mode"))]
pub mod code_mode;
#[cfg(feature = "tools")]
pub mod files;
#[cfg(any(feature = "tools", feature = "http-tools"))]
pub mod http;
#[cfg(feature = "http-tools")]
pub mod http_tools;
#[cfg(feature = "tools")]
pub mod python;
#[cfg(feature = "tools")]
pub mod time;

/// Every built-in tool, in name order: `calculator`, `current_time`,
/// `file_list`, `file_read`, `file_write`, `http_request`, `python_exec`.
///
/// Hand it to `RegistryBuilder::tools` to offer them all, or to
/// `RegistryBuilder::catalog` to offer each by name (to `Linked::named`, or
/// to a registry file's `tools`).
#[cfg(feature = "tools")]
pub const ALL: &[&dyn tool_runtime::Tool] = &[
    &calculator::CalculatorTool,
    &time::CurrentTimeTool,
    &files::FileListTool,
    &files::FileReadTool,
    &files::FileWriteTool,
    &http::HttpRequestTool,
    &python::PythonExecTool,
];
