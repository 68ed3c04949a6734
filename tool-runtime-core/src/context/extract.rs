//! Values a tool receives by type, like axum extractors: [`State`](crate::State),
//! [`Extension`](crate::context::Extension) (both [`Shared`](crate::context::Shared) values, in
//! `shared.rs`, with `Config`), [`Progress`](crate::events::Progress), the
//! [`ToolContext`](crate::ToolContext) itself and its
//! [`CancellationToken`].
//!
//! # Injected parameters
//!
//! `#[tool]` never asks the model for a parameter whose type is
//! `ToolContext` (or `&ToolContext`), `Progress`, `State<T>`,
//! `Extension<T>` or `Config<T>` (the last path segment decides, so
//! `tool_runtime::State<Db>` counts too), nor for any parameter marked
//! `#[tool(inject)]`. For each such parameter the generated code calls
//! [`FromToolContext::from_tool_context`] with the call's context; an `Err`
//! ends the call with that error result before the function runs.
//!
//! Making a new type injectable is one implementation of
//! [`FromToolContext`]; mark the parameter `#[tool(inject)]` (the built-in
//! names above need no mark). `Option<T>` of an injectable `T` is injectable
//! too, and is `None` where `T` would have been an error.
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use tool_runtime::{tool, context::Extension, Registry, State, ToolContext, ToolUse};
//! use serde_json::json;
//!
//! /// Application state, shared by every call.
//! struct Counter(AtomicU64);
//!
//! /// Who is calling, set per request.
//! #[derive(Clone)]
//! struct User(String);
//!
//! /// Counts a visit.
//! #[tool]
//! fn visit(counter: State<Counter>, user: Extension<User>) -> String {
//!     let n = counter.0.fetch_add(1, Ordering::Relaxed) + 1;
//!     format!("{} is visitor {n}", user.0)
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let registry = Registry::builder()
//!     .tool(VisitTool)
//!     .state(Counter(AtomicU64::new(0)))
//!     .build()
//!     .unwrap();
//! let ctx = ToolContext::new().with_extension(User("ada".into()));
//! let result = registry.invoke(ToolUse::new("1", "visit", json!({})), &ctx).await;
//! assert_eq!(result.text_content(), "ada is visitor 1");
//!
//! // Nobody supplied a User: an error result naming the type, not a panic.
//! let result = registry.invoke(ToolUse::new("2", "visit", json!({})), &ToolContext::new()).await;
//! assert!(result.is_error());
//! assert!(result.text_content().contains("User"), "{}", result.text_content());
//! # });
//! ```

use crate::context::CancellationToken;

use crate::context::{FromToolContext, ToolContext};
use crate::events::Progress;
use crate::spec::error::ToolError;

impl FromToolContext<'_> for Progress {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.progress_handle())
    }
}

/// The call's cancellation token (`#[tool(inject)] cancel: CancellationToken`),
/// for handing to code that takes one.
impl FromToolContext<'_> for CancellationToken {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.cancellation_token().clone())
    }
}

/// `Some` when `T` could be injected, `None` when it was missing.
impl<'a, T: FromToolContext<'a>> FromToolContext<'a> for Option<T> {
    fn from_tool_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(T::from_tool_context(ctx).ok())
    }
}
