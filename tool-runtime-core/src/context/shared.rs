//! One extractor for a value shared by `Arc`: [`Shared<T, S>`], where the
//! source `S` says where a call finds it. [`State<T>`], [`Extension<T>`]
//! and [`Config<T>`] are its three sources by name.

use std::any::type_name;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use crate::context::{FromToolContext, ToolContext};
use crate::spec::config::ConfigValue;
use crate::spec::error::{ToolError, ToolErrorKind};

/// A value of type `T` shared by every holder (an [`Arc`] inside), which a
/// tool takes as a parameter and the runtime finds in the call's context
/// through the source `S`: [`State<T>`], [`Extension<T>`] and
/// [`Config<T>`] are its three sources by name, and the types to write.
///
/// It dereferences to `T` and clones cheaply. A tool asking for a value its
/// source does not hold gets an error result of kind
/// [`MissingContext`](ToolErrorKind::MissingContext) naming `T`.
pub struct Shared<T: ?Sized, S>(Arc<T>, PhantomData<fn() -> S>);

/// Where a [`Shared`] value comes from: [`AppState`], [`CallExtension`] or
/// [`ToolConfiguration`]. Sealed: the runtime's context holds these three.
pub trait Source: sealed::Sealed {
    /// The name of the extractor, as `Debug` prints it.
    const NAME: &'static str;

    /// The value of type `T` the call's context holds, or the error that
    /// says where to put one.
    fn fetch<T: Send + Sync + 'static>(ctx: &ToolContext) -> Result<Arc<T>, ToolError>;
}

/// The source of [`State<T>`]: application state, registered on the
/// registry or passed with the call's context.
pub enum AppState {}

/// The source of [`Extension<T>`]: a value the caller put on the call's
/// context.
pub enum CallExtension {}

/// The source of [`Config<T>`]: the tool's configuration.
pub enum ToolConfiguration {}

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
pub type State<T> = Shared<T, AppState>;

/// A value of type `T` the caller put on the call's context with
/// [`ToolContext::with_extension`](crate::ToolContext::with_extension): the
/// current user, a request id, a per-conversation handle.
///
/// It dereferences to `T` and clones cheaply. A tool asking for an
/// `Extension<T>` the context does not carry gets an error result of kind
/// [`MissingContext`](ToolErrorKind::MissingContext) naming `T`.
pub type Extension<T> = Shared<T, CallExtension>;

/// A tool's configuration, injected into a parameter of type `Config<T>`.
///
/// ```
/// use tool_runtime::{tool, config::Config, Registry, ToolContext, ToolUse};
/// use serde::Deserialize;
/// use schemars::JsonSchema;
/// use serde_json::json;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Greeting {
///     /// What to say.
///     #[serde(default = "hello")]
///     word: String,
/// }
/// fn hello() -> String { "hello".into() }
///
/// /// Greets someone.
/// #[tool(config = Greeting)]
/// fn greet(name: String, config: Config<Greeting>) -> String {
///     format!("{}, {name}", config.word)
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder()
///     .tool(GreetTool)
///     .configure("greet", json!({"word": "hi"}))
///     .build()
///     .unwrap();
/// let result = registry.invoke(ToolUse::new("1", "greet", json!({"name": "Ada"})), &ToolContext::new()).await;
/// assert_eq!(result.text_content(), "hi, Ada");
/// # });
/// ```
pub type Config<T> = Shared<T, ToolConfiguration>;

impl<T> Shared<T, AppState> {
    /// Wraps a value.
    pub fn new(value: T) -> Self {
        Self::from_arc(Arc::new(value))
    }
}

impl<T: ?Sized> Shared<T, AppState> {
    /// Wraps a shared value.
    pub fn from_arc(value: Arc<T>) -> Self {
        Self(value, PhantomData)
    }
}

impl<T: ?Sized, S> Shared<T, S> {
    /// The shared value.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized, S> Deref for Shared<T, S> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized, S> Clone for Shared<T, S> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0), PhantomData)
    }
}

impl<T: ?Sized + fmt::Debug, S: Source> fmt::Debug for Shared<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple(S::NAME).field(&&*self.0).finish()
    }
}

impl<T: Send + Sync + 'static, S: Source> FromToolContext<'_> for Shared<T, S> {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        S::fetch(ctx).map(|value| Self(value, PhantomData))
    }
}

impl Source for AppState {
    const NAME: &'static str = "State";

    fn fetch<T: Send + Sync + 'static>(ctx: &ToolContext) -> Result<Arc<T>, ToolError> {
        ctx.app_state::<T>().map(State::into_arc).ok_or_else(|| {
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

impl Source for CallExtension {
    const NAME: &'static str = "Extension";

    fn fetch<T: Send + Sync + 'static>(ctx: &ToolContext) -> Result<Arc<T>, ToolError> {
        ctx.extension_arc::<T>().ok_or_else(|| {
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

impl Source for ToolConfiguration {
    const NAME: &'static str = "Config";

    fn fetch<T: Send + Sync + 'static>(ctx: &ToolContext) -> Result<Arc<T>, ToolError> {
        ctx.config().and_then(ConfigValue::get::<T>).ok_or_else(|| {
            ToolError::with_kind(
                ToolErrorKind::MissingContext,
                format!(
                    "tool {} has no configuration of type {}; configure it on the registry",
                    ctx.tool_name().unwrap_or("?"),
                    type_name::<T>()
                ),
            )
        })
    }
}

/// The error for a value the call's context does not hold.
fn missing(ctx: &ToolContext, what: String) -> ToolError {
    let message = match ctx.tool_name() {
        Some(tool) => format!("tool {tool} needs {what}"),
        None => format!("this tool needs {what}"),
    };
    ToolError::with_kind(ToolErrorKind::MissingContext, message)
}

mod sealed {
    /// Only the runtime's three sources are [`Source`](super::Source)s.
    pub trait Sealed {}
    impl Sealed for super::AppState {}
    impl Sealed for super::CallExtension {}
    impl Sealed for super::ToolConfiguration {}
}
