//! The core of [`tool-runtime`](https://docs.rs/tool-runtime): tools and
//! their specs, argument decoding and validation, registries, invocation,
//! the context a tool is given, events and records, and the renderings of
//! tool definitions, calls and results for each LLM provider.
//!
//! Depend on `tool-runtime`, not on this crate: it re-exports everything
//! here under the same paths (`tool_runtime::Registry` is
//! `tool_runtime_core::Registry`) and adds what needs a procedural macro:
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
//! use tool_runtime_core::{strict, Provider, ToolResult, ToolUse};
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
mod context;
mod events;
mod invoke;
pub mod names;
pub mod providers;
pub mod quote;
mod registry;
pub mod schema;
pub mod search;
mod spec;
mod stream;
mod tool;
mod trace;

#[doc(hidden)]
pub mod __private;

pub use context::approval::{Approval, ApprovalRequest, Approver};
pub use context::client::{
    ClientFuture, ClientRequests, Elicitation, ElicitationRequest, Role, Root, SamplingMessage,
    SamplingRequest, SamplingResponse,
};
pub use context::elicit::Elicit;
pub use context::shared::{
    AppState, CallExtension, Extension, Shared, Source, State, ToolConfiguration,
};
pub use context::{FromToolContext, ToolContext};
pub use events::record::{CallStatus, ToolCallRecord};
pub use events::{LogLevel, Progress, ToolCallStream, ToolEvent, TraceEntry};
/// The trait a streaming tool's return type implements
/// (`fn f(..) -> impl Stream<Item = T>`).
pub use futures_core::Stream;
pub use invoke::policy::ErrorDetail;
pub use providers::{Provider, ProviderError};
#[cfg(feature = "live")]
pub use registry::LiveRegistry;
pub use registry::{
    Availability, GlobalReport, IntoCatalog, Linked, Registry, RegistryBuilder, RegistryError,
    RegistryProblem, ToolReport, deprecation_prefix,
};
#[doc(inline)]
pub use schema::strict;
pub use spec::args::MAX_ARGUMENT_DEPTH;
pub use spec::constraints;
pub use spec::content::{
    Audio, Content, Image, InvalidBase64, Resource, ResourceContents, ResourceLink,
};
pub use spec::error::{ArgError, ArgErrorKind, ToolError, ToolErrorKind};
pub use spec::limit::{
    BadResultLimit, ByteEstimate, MissingResult, ResultHandle, ResultLimit, TokenCounter,
};
pub use spec::requires::{Feature, Missing, Requirements};
pub use spec::result::{ToolOutput, ToolResult, ToolStatus, ToolUse};
pub use spec::tool_spec::format::{CallBody, DescriptionFormat, Formatter, ToolFormat};
pub use spec::tool_spec::{
    ParamSpec, SchemaSource, SourceLocation, TaskSupport, ToolAnnotations, ToolSpec,
};
#[doc(no_inline)]
pub use strict::StrictViolation;
/// The cancellation signal of a [`ToolContext`] (from `tokio-util`).
pub use tokio_util::sync::CancellationToken;
#[cfg(feature = "dynamic")]
pub use tool::dynamic::{DynamicTool, DynamicToolBuilder, DynamicToolError};
pub use tool::transform::{
    ArgTransform, GivenValue, ToolTransform, TransformError, TransformedTool,
};
pub use tool::{Tool, ToolFuture, Toolset};
