//! The core of [`tool-runtime`](https://docs.rs/tool-runtime): tools and
//! their specs, argument decoding and validation, registries, invocation,
//! the context a tool is given, events and records, and the renderings of
//! tool definitions, calls and results for each LLM provider.
//!
//! Depend on `tool-runtime`, not on this crate: it re-exports everything
//! here under the same paths (`tool_runtime::Registry` is
//! `tool_runtime_core::Registry`, `tool_runtime::context::Approver` is
//! `tool_runtime_core::context::Approver`) and adds what needs a procedural macro:
//! `#[tool]`, `#[toolset]`, `stream!` and `try_stream!`. Keeping the macros
//! out of this crate lets it build while they are still building. What the
//! code `#[tool]` generates calls is this crate's hidden `__private` module,
//! which `tool-runtime` re-exports.
//!
//! Everything here works without the macros, as a crate that only renders
//! or routes tools does:
//!
//! ```
//! use serde_json::json;
//! use tool_runtime_core::providers::render_result;
//! use tool_runtime_core::{schema::strict, Provider, ToolResult, ToolUse};
//!
//! // OpenAI strict mode: every property required, no other properties.
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
//!     "required": ["city"],
//! });
//! let strict = strict::to_strict(&schema).unwrap();
//! assert_eq!(strict["required"], json!(["city", "days"]));
//! assert_eq!(strict["additionalProperties"], json!(false));
//! assert!(strict::is_strict(&strict));
//!
//! // A result in the shape Anthropic expects back.
//! let call = ToolUse::new("toolu_1", "forecast", json!({"city": "Oslo"}));
//! let result = ToolResult::text(&call.id, "sunny");
//! let block = render_result(Provider::Anthropic, &call, &result, None);
//! assert_eq!(block["type"], "tool_result");
//! assert_eq!(block["tool_use_id"], "toolu_1");
//! ```
//!
//! The crate's features (`dynamic`, `live`, `pattern`, `tracing`) are
//! `tool-runtime`'s of the same names, which turn them on.

#![warn(missing_docs)]

pub mod config;
pub mod content;
pub mod context;
#[cfg(feature = "dynamic")]
pub mod dynamic;
pub mod events;
pub mod format;
pub mod limits;
pub mod providers;
pub mod registry;
pub mod schema;
pub mod search;
pub mod spec;
pub mod transform;

mod invoke;
mod names;
mod order;
mod quote;
mod stream;
mod tool;
mod trace;

#[doc(hidden)]
pub mod __private;

pub use content::Content;
pub use context::{FromToolContext, State, ToolContext};
pub use events::{ToolCallStream, ToolEvent};
pub use providers::Provider;
pub use registry::{Registry, RegistryBuilder};
pub use spec::{ToolError, ToolOutput, ToolResult, ToolSpec, ToolUse};
pub use tool::{Tool, Toolset};
