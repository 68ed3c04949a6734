//! Turn plain Rust functions into tools an LLM can call.
//!
//! Put `#[tool]` on a function. Its doc comment becomes the tool's
//! description, its parameters (with their own `///` docs) the tool's JSON
//! Schema, and the function itself stays exactly as written. Beside it the
//! macro emits a unit struct (`weather_forecast` gets
//! `WeatherForecastTool`) that implements [`Tool`], carries the spec as the
//! constant `SPEC`, and is registered in [`Registry::global`].
//!
//! ```
//! use tool_runtime::{tool, Registry, ToolContext, ToolError, ToolUse};
//! use serde::Deserialize;
//! use schemars::JsonSchema;
//! use serde_json::json;
//!
//! #[derive(Debug, Deserialize, JsonSchema)]
//! #[serde(rename_all = "lowercase")]
//! enum Unit {
//!     Celsius,
//!     Fahrenheit,
//! }
//!
//! /// Get the weather forecast for a city.
//! ///
//! /// Returns one line per day.
//! #[tool]
//! async fn weather_forecast(
//!     /// City name, e.g. "Paris"
//!     city: String,
//!     /// How many days ahead, 1 to 14
//!     #[tool(default = 3)]
//!     days: u32,
//!     /// Temperature unit; Celsius when absent
//!     unit: Option<Unit>,
//!     ctx: &ToolContext,
//! ) -> Result<String, ToolError> {
//!     let unit = unit.unwrap_or(Unit::Celsius);
//!     Ok(format!("{city}: {days} days of sun, in {unit:?}"))
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! // The function is still a function.
//! let plain = weather_forecast("Paris".into(), 2, None, &ToolContext::default()).await?;
//! assert_eq!(plain, "Paris: 2 days of sun, in Celsius");
//!
//! // The spec a model reads.
//! let schema = WeatherForecastTool::SPEC.input_schema();
//! assert_eq!(schema["required"], json!(["city"]));
//! assert_eq!(schema["properties"]["days"]["default"], json!(3));
//!
//! // The agent path: JSON in, a ToolResult out, errors included.
//! let registry = Registry::builder().tool(WeatherForecastTool).build()?;
//! let ctx = ToolContext::new();
//! let call = ToolUse::new("t1", "weather_forecast", json!({"city": "Oslo", "unit": "fahrenheit"}));
//! let result = registry.invoke(call, &ctx).await;
//! assert_eq!(result.text_content(), "Oslo: 3 days of sun, in Fahrenheit");
//!
//! let call = ToolUse::new("t2", "weather_forecast", json!({"city": "Oslo", "days": "three"}));
//! let result = registry.invoke(call, &ctx).await;
//! assert!(result.is_error());
//! assert_eq!(
//!     result.text_content(),
//!     r#"invalid arguments for weather_forecast: days: expected an integer from 0 to 4294967295, got "three""#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! # Where to go next
//!
//! - The attribute: [`tool`], and the guide in `docs/writing-tools.md`.
//! - Calling tools: [`Registry::invoke`] (the agent path, errors become
//!   results) and [`Tool::call_json`] (the direct path, errors propagate).
//! - Results: [`ToolResult`] serialises to the Bedrock Converse / Strands
//!   `toolResult` shape.
//! - Injected parameters: [`ToolContext`] and the [`FromToolContext`] trait.
//! - Application state and typed values: [`State`], [`Extension`](context::Extension).
//! - Progress, streaming and records: [`Progress`](events::Progress), [`Registry::stream`]
//!   ([`ToolEvent`]s), [`Registry::invoke_recorded`] ([`ToolCallRecord`](events::ToolCallRecord));
//!   limits and policies: [`RegistryBuilder::default_timeout`],
//!   [`Registry::invoke_all`], [`Approver`](context::Approver), [`ErrorDetail`](registry::ErrorDetail). The guide is
//!   `docs/context-and-streaming.md`.
//! - Providers: [`Registry::render`] gives the tool definitions for OpenAI,
//!   Anthropic, Bedrock, Gemini, MCP or an XML prompt ([`Provider`]);
//!   [`providers::parse_tool_calls`] reads calls from their responses and
//!   [`Registry::render_result`] answers them; OpenAI strict mode is in
//!   [`strict`](schema::strict). The guide is `docs/providers.md`.
//! - Tools that share state: `#[toolset]` on an impl block and
//!   [`RegistryBuilder::toolset`]; configured tools: `#[tool(config = T)]`,
//!   [`config::Config`] and [`RegistryBuilder::configure`]. The guide is
//!   `docs/stateful-tools-and-configuration.md`; argument constraints are in
//!   `docs/constraints.md`.
//! - Large tool sets: `search` ranks tools for a query
//!   (BM25, in process) and offers the ranking to the model as the tool
//!   `search_tools`; `RegistryBuilder::defer` and
//!   `RegistryBuilder::always_offer` keep most tools out of each request
//!   until a search finds them, with Anthropic's and OpenAI's own tool
//!   search where they have one. The guide is `docs/registries.md`.
//! - Names: aliases ([`Registry::resolve`]), allowlists
//!   ([`RegistryBuilder::allow`]) and what the global registry found
//!   ([`Registry::global_report`]). Registry files, which enable, alias and
//!   configure tools from a YAML or JSON file, are the crate
//!   `tool-manifest`. The guide is `docs/registries.md`.
//! - A command line for any program that links tools (`tool_cli::run()`,
//!   crate `tool-cli`) and a Model Context Protocol server
//!   (`tool_mcp::server::McpServer`, crate `tool-mcp`) are crates of their
//!   own, built on this crate's public API; guides `docs/cli.md` and
//!   `docs/mcp.md`.
//! - This crate is `tool-runtime-core` re-exported (every item above is
//!   the core's, under the same path, and so is the hidden module the
//!   generated code calls), plus the macros: [`tool`], [`toolset`],
//!   [`stream!`] and [`try_stream!`]. The core builds while the macros do,
//!   which shortens a tool crate's clean build (`docs/architecture.md`,
//!   "The crates").
//! - Feature `text-args` (on by default): `#[tool]` also decodes arguments
//!   given as JSON text (how OpenAI sends them) straight into the
//!   function's arguments, for [`Tool::call_str`]; without it that method
//!   parses the text into a `serde_json::Value` first. Turning it off
//!   (`default-features = false`) leaves each tool one decoder to compile
//!   instead of two (`docs/performance.md` has the figures).
//! - Feature `pattern` (off by default): `pattern` constraints
//!   (`#[tool(pattern = "^[a-z]+$")]`, and the `pattern` of a configuration
//!   type's schema), matched with `regex-lite`: `\d`, `\w` and `\s` are
//!   ASCII, as in JSON Schema, and Unicode classes (`\p{L}`) are refused by
//!   `#[tool]` at compile time. Without it a `pattern` fails to compile,
//!   saying to turn the feature on; a tool without one needs no regular
//!   expression engine. `tool-cli` turns it on.
//! - What each tool's definition costs in a model's context, counted with
//!   OpenAI's `o200k_base` tokenizer, and a tool set checked against a
//!   budget, are the `tool-tokens` crate's (`tool_tokens::report`;
//!   `toolbox schema --tokens`). A [`ResultLimit::Tokens`](limits::ResultLimit::Tokens) counts with the
//!   registry's [`TokenCounter`](limits::TokenCounter) ([`RegistryBuilder::token_counter`]): a
//!   text's bytes / 4 by default, `tool_tokens::O200kBase` for real tokens.
//! - No feature: tool search and deferred loading (above), and
//!   `schema::compat`, what changed between two tool sets, breaking or
//!   compatible, for schema lockfiles (`toolbox schema --lock` and
//!   `--check`). Neither brings a dependency, and both together take under
//!   half a second to build. `docs/features.md` lists every feature with
//!   what it adds to a build.
//! - Calls as tasks (started now, read, answered and cancelled later by
//!   their id), kept in memory or in Redis, are the `tool-tasks` crate's
//!   (`tool_tasks::Tasks`; its feature `redis` for `RedisTaskStore`).
//! - Feature `tracing` (off by default): each call runs in a `tracing` span
//!   (`tool_call`, with `tool`, `tool_use_id`, and `status` and
//!   `duration_ms` once it ends), tools' progress, trace and log messages
//!   are `tracing` events too, and what the model is not shown (an error's
//!   [detail](ToolError::with_detail), a panic's message under
//!   [`ErrorDetail::Redacted`](registry::ErrorDetail::Redacted)) is logged as an event. Without it the
//!   runtime emits nothing to `tracing` (tools' [`ToolEvent`]s still reach
//!   whoever streams the call). `tool-mcp` and `tool-cli` turn it on.

#![warn(missing_docs)]

// Everything but the macros, under the same paths.
#[doc(inline)]
pub use tool_runtime_core::*;

mod stream;

// The contract of the code `#[tool]` generates: the core's, whole. The
// expansion names `tool_runtime::__private::...` (or `<crate>::__private`).
#[doc(hidden)]
pub use tool_runtime_core::__private;
// What `stream!` and `try_stream!` expand to.
#[doc(hidden)]
pub use tool_runtime_macros::{__stream, __try_stream};

/// Turns a function into a tool an LLM can call.
///
/// See the [crate documentation](crate) for an example and
/// `docs/writing-tools.md` for every option. The function's doc comment is
/// the tool's description; a `///` comment on a parameter is that
/// parameter's description.
///
/// Keys on the function, `#[tool(...)]`:
///
/// | key | meaning |
/// |---|---|
/// | `name = "..."` | the tool's name (default: the function's) |
/// | `description = "..."` | the description (default: the doc comment) |
/// | `title = "..."` | a human-readable title, for MCP clients |
/// | `read_only`, `destructive`, `idempotent`, `open_world` (`= false` too) | MCP behaviour hints |
/// | `strict` | OpenAI strict-mode schemas |
/// | `timeout = "5s"` | how long one call may run |
/// | `blocking` | run a sync tool on a blocking thread |
/// | `needs_approval` | ask the registry's approval hook before each call |
/// | `task`, `task = "required"` | calls may (or must) run as tasks ([`TaskSupport`](spec::TaskSupport)) |
/// | `alias = "..."` | another name the tool answers to (repeatable) |
/// | `config = Type` | the configuration type, injected as [`config::Config<T>`] |
/// | `version = "2.0.0"` | the tool's semantic version |
/// | `deprecated`, `deprecated = "..."` | the tool is deprecated, and what to use instead (Rust's `#[deprecated]` counts too) |
/// | `requires(env = "..", program = "..", feature = "..")` | what the tool needs before a registry offers it ([`Requirements`](spec::Requirements)) |
/// | `sequential` | calls before it finish first, calls after it wait |
/// | `scopes("files:write", ..)` | the OAuth scopes a caller needs to call the tool and to have it offered ([`ToolSpec::scopes`]); a call without a [caller](context::Caller) is not checked |
/// | `ui = "ui://..."` | the MCP Apps view that shows the tool's results (`_meta.ui.resourceUri` in `tools/list`); needs `tool-mcp`, which serves the view (`tool_mcp::apps`) |
/// | `visibility = "app"` or `"model"` | with `ui`: who may call the tool, the view only or the model only (both when not given); the host enforces it |
/// | `result_limit = "64KB"` | the most of a result the model sees ([`ResultLimit`](limits::ResultLimit)) |
/// | `format = PATH` | a value whose type implements [`ToolFormat`](format::ToolFormat) |
/// | `transform = path` | a `fn(Value) -> Value` (or `-> Result<Value, E>`) that rewrites the JSON arguments first |
/// | `crate = path` | the path of this crate, for re-exporters |
///
/// Keys on a parameter, `#[tool(...)]`:
///
/// | key | meaning |
/// |---|---|
/// | `description = "..."` | the description (default: its `///` comment) |
/// | `default`, `default = expr` | optional, with `Default::default()` or `expr` |
/// | `rename = "..."` | its name in the schema |
/// | `inject` | supplied by [`FromToolContext`], not by the model |
/// | `range(min = a, max = b)` | numeric bounds |
/// | `length(min = a, max = b)` | characters or items |
/// | `pattern = "regex"` | strings must match (feature `pattern`) |
/// | `one_of = [...]` | the allowed values |
/// | `validate = path` | a custom `fn(&T) -> Result<(), E>` |
/// | `header`, `header = "Name"` | MCP clients also send it as the HTTP header `Mcp-Param-{Name}` (a string, integer or boolean) |
/// | `transform = path` | a `fn(T) -> T` (or `-> Result<T, E>`) run on the decoded value before the constraints |
pub use tool_runtime_macros::tool;

/// Makes the `#[tool]` methods of an impl block tools bound to a shared
/// instance of the type; see [`Toolset`].
///
/// Methods take `&self` (calls may run concurrently, so mutable state goes
/// behind a `Mutex` or atomics); associated functions without `self` work
/// too. Each tool gets a struct named after the type and the method
/// (`Db::query` gets `DbQueryTool`). Toolset tools are not registered
/// globally: add an instance with
/// [`RegistryBuilder::toolset`](crate::RegistryBuilder::toolset).
pub use tool_runtime_macros::toolset;
