//! Values a tool receives by type, like axum extractors: [`State`],
//! [`Extension`], [`Progress`](crate::Progress), the
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
//! use tool_runtime::{tool, Extension, Registry, State, ToolContext, ToolUse};
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

use std::any::type_name;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::context::{FromToolContext, ToolContext};
use crate::events::Progress;
use crate::spec::error::{ToolError, ToolErrorKind};

/// Application state of type `T`, shared by every call: a database pool, a
/// client, a cache.
///
/// Register it once with
/// [`RegistryBuilder::state`](crate::RegistryBuilder::state), or pass it with
/// one call's context with
/// [`ToolContext::with_app_state`](crate::ToolContext::with_app_state) (the
/// context's value wins). A tool takes it with a `State<T>` parameter; it
/// dereferences to `T` and clones cheaply (an [`Arc`] inside).
///
/// A tool asking for a `State<T>` nobody supplied gets an error result of
/// kind [`MissingContext`](ToolErrorKind::MissingContext) naming `T`.
pub struct State<T: ?Sized>(Arc<T>);

impl<T> State<T> {
    /// Wraps a value.
    pub fn new(value: T) -> Self {
        Self(Arc::new(value))
    }
}

impl<T: ?Sized> State<T> {
    /// Wraps a shared value.
    pub fn from_arc(value: Arc<T>) -> Self {
        Self(value)
    }

    /// The shared value.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

impl<T: Send + Sync + 'static> FromToolContext<'_> for State<T> {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.app_state::<T>().ok_or_else(|| {
            missing(
                ctx,
                format!(
                    "shared state of type `{}`, but none was provided; register it with \
                     `Registry::builder().state(...)` or pass it with \
                     `ToolContext::with_app_state(...)`",
                    type_name::<T>()
                ),
            )
        })
    }
}

/// A value of type `T` the caller put on the call's context with
/// [`ToolContext::with_extension`](crate::ToolContext::with_extension): the
/// current user, a request id, a per-conversation handle.
///
/// It dereferences to `T` and clones cheaply. A tool asking for an
/// `Extension<T>` the context does not carry gets an error result of kind
/// [`MissingContext`](ToolErrorKind::MissingContext) naming `T`.
pub struct Extension<T: ?Sized>(Arc<T>);

impl<T: ?Sized> Extension<T> {
    /// The shared value.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> Deref for Extension<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for Extension<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Extension<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Extension").field(&&*self.0).finish()
    }
}

impl<T: Send + Sync + 'static> FromToolContext<'_> for Extension<T> {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.extension_arc::<T>().map(Extension).ok_or_else(|| {
            missing(
                ctx,
                format!(
                    "an extension of type `{}`, but the call's context has none; add it with \
                     `ToolContext::with_extension(...)`",
                    type_name::<T>()
                ),
            )
        })
    }
}

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

fn missing(ctx: &ToolContext, what: String) -> ToolError {
    let message = match ctx.tool_name() {
        Some(tool) => format!("tool {tool} needs {what}"),
        None => format!("this tool needs {what}"),
    };
    ToolError::with_kind(ToolErrorKind::MissingContext, message)
}
