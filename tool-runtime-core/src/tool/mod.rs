//! The [`Tool`] trait every tool implements, and the future its calls return;
//! [`DynamicTool`](crate::dynamic::DynamicTool), a tool made at run time (feature `dynamic`);
//! [`ToolTransform`](crate::transform::ToolTransform), a tool re-exposed under other
//! names (`transform.rs`).

#[cfg(feature = "dynamic")]
pub(crate) mod dynamic;
pub(crate) mod transform;

use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::Value;

use crate::context::ToolContext;
use crate::spec::args::Checked;
use crate::spec::error::ToolError;
use crate::spec::result::ToolOutput;
use crate::spec::tool_spec::ToolSpec;

/// A tool: a spec the model reads, and a way to call it with JSON arguments.
///
/// `#[tool]` implements it for the unit struct it emits beside the function
/// (`weather_forecast` gets `WeatherForecastTool`). It is object safe, so a
/// [`Registry`](crate::Registry) holds tools as `dyn Tool`; implement it by
/// hand for tools whose shape is only known at run time.
pub trait Tool: Send + Sync + 'static {
    /// The tool's name, description and parameters.
    fn spec(&self) -> &ToolSpec;

    /// Decodes `input`, runs the tool and returns what it produced.
    ///
    /// Invalid arguments are an `Err` of kind
    /// [`InvalidArguments`](crate::spec::ToolErrorKind::InvalidArguments) listing
    /// every problem. A sync tool runs before this returns (the future is
    /// already complete); an async tool runs when the future is polled, on
    /// the caller's executor. Panics are not caught here:
    /// [`Registry::invoke`](crate::Registry::invoke) catches them.
    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a>;

    /// [`call`](Self::call) with arguments whose depth a registry has
    /// already checked: `#[tool]`'s decoder then does not walk them again.
    /// The provided implementation calls `call`; a tool that wraps another
    /// forwards it.
    #[doc(hidden)]
    fn call_checked<'a>(&'a self, input: Checked<'a>, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.call(input.get(), ctx)
    }

    /// Whether [`call`](Self::call) reads its [`ToolContext`]: the tool use,
    /// injected values, progress reporting, cancellation.
    ///
    /// A [`Registry`](crate::Registry) builds a context of the call's own
    /// only for tools that do; the others are handed an empty context, which
    /// spares every call of theirs that work. `#[tool]` answers for its
    /// function: true when it has an injected parameter or returns a stream.
    /// The provided answer, true, is right for every tool.
    fn takes_context(&self) -> bool {
        true
    }

    /// Calls the tool with its arguments as JSON text, the way OpenAI's
    /// APIs send them: [`call`](Self::call) for text.
    ///
    /// Empty text counts as an empty argument object; mistakes are
    /// reported as for `call`, and text that is not JSON is an
    /// [`InvalidArguments`](crate::spec::ToolErrorKind::InvalidArguments) error
    /// saying where it stops being JSON.
    ///
    /// The provided implementation parses the text into a
    /// `serde_json::Value` and calls [`call`](Self::call) in a boxed
    /// future. With the crate feature `text-args` (on by default),
    /// `#[tool]` overrides it to decode the text straight into the
    /// function's arguments, with no value in between and no box for a sync
    /// tool.
    ///
    /// ```
    /// use tool_runtime::{tool, Tool, ToolContext, spec::ToolErrorKind};
    /// use futures_util::FutureExt;
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// let ctx = ToolContext::new();
    /// let output = AddTool.call_str(r#"{"a": 2, "b": 3}"#, &ctx).now_or_never().unwrap();
    /// assert_eq!(output.unwrap().into_value().unwrap(), 5);
    ///
    /// let error = AddTool.call_str(r#"{"a": 2, "b": "#, &ctx).now_or_never().unwrap().unwrap_err();
    /// assert_eq!(error.kind(), ToolErrorKind::InvalidArguments);
    /// assert!(error.message().contains("not valid JSON"), "{}", error.message());
    /// ```
    fn call_str<'a>(&'a self, input: &'a str, ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::pending(async move {
            let value = crate::spec::args::parse_text(self.spec(), input)?;
            self.call(&value, ctx).await
        })
    }

    /// Calls the tool directly and returns its plain value.
    ///
    /// This is the direct path: arguments are validated as for
    /// [`call`](Self::call), errors propagate as `Err` (they are not wrapped
    /// into an error result), and the value is what the function returned,
    /// serialised (a `String` return gives a JSON string).
    fn call_json<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a, Value> {
        self.call(input, ctx).map(ToolOutput::into_value)
    }
}

type BoxedFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send + 'a>>;

/// The future a tool call returns.
///
/// A call that finished synchronously (a sync tool, or arguments that failed
/// to decode) is held ready without a heap allocation; an async call is
/// boxed.
#[must_use = "a tool call does nothing for an async tool until awaited"]
pub struct ToolFuture<'a, T = ToolOutput> {
    state: State<'a, T>,
}

enum State<'a, T> {
    Ready(Option<Result<T, ToolError>>),
    Pending(BoxedFuture<'a, T>),
}

impl<'a, T: Send + 'a> ToolFuture<'a, T> {
    /// A call that has already finished with `result`.
    pub fn ready(result: Result<T, ToolError>) -> Self {
        Self {
            state: State::Ready(Some(result)),
        }
    }

    /// A call that finishes when `future` does.
    pub fn pending(future: impl Future<Output = Result<T, ToolError>> + Send + 'a) -> Self {
        Self {
            state: State::Pending(Box::pin(future)),
        }
    }

    /// Whether the call has already finished (it will not allocate or wait).
    pub fn is_ready(&self) -> bool {
        matches!(self.state, State::Ready(Some(_)))
    }

    /// The outcome of a call that has already finished, or the future
    /// back if it has not: a ready call is read without polling it.
    pub fn into_ready(self) -> Result<Result<T, ToolError>, Self> {
        match self.state {
            State::Ready(Some(result)) => Ok(result),
            state => Err(Self { state }),
        }
    }

    /// Maps a successful outcome to another one.
    pub fn map<U: Send + 'a>(
        self,
        f: impl FnOnce(T) -> Result<U, ToolError> + Send + 'a,
    ) -> ToolFuture<'a, U> {
        match self.state {
            State::Ready(Some(result)) => ToolFuture::ready(result.and_then(f)),
            State::Ready(None) => {
                ToolFuture::ready(Err(ToolError::new("tool future polled after completion")))
            }
            State::Pending(future) => ToolFuture::pending(async move { future.await.and_then(f) }),
        }
    }
}

// Neither variant is structurally pinned: the boxed future is pinned on the
// heap and the ready value is only ever moved out.
impl<T> Unpin for ToolFuture<'_, T> {}

impl<T> Future for ToolFuture<'_, T> {
    type Output = Result<T, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match &mut this.state {
            State::Ready(result) => Poll::Ready(
                result
                    .take()
                    .unwrap_or_else(|| Err(ToolError::new("tool future polled after completion"))),
            ),
            State::Pending(future) => future.as_mut().poll(cx),
        }
    }
}

impl<T> std::fmt::Debug for ToolFuture<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.state {
            State::Ready(Some(_)) => "ready",
            State::Ready(None) => "done",
            State::Pending(_) => "pending",
        };
        f.debug_struct("ToolFuture").field("state", &state).finish()
    }
}

/// A type whose `#[tool]` methods are tools bound to one shared instance.
///
/// `#[toolset]` on an impl block implements it; add the tools to a registry
/// with [`RegistryBuilder::toolset`](crate::RegistryBuilder::toolset).
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use tool_runtime::{tool, toolset, Registry, ToolContext, ToolUse};
/// use serde_json::json;
///
/// #[derive(Default)]
/// struct Counter {
///     total: AtomicU64,
/// }
///
/// #[toolset]
/// impl Counter {
///     /// Adds to the running total and returns it.
///     #[tool]
///     fn add(&self, amount: u64) -> u64 {
///         self.total.fetch_add(amount, Ordering::SeqCst) + amount
///     }
///
///     /// The unit totals are counted in.
///     #[tool]
///     fn unit() -> &'static str {
///         "items"
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let counter = Arc::new(Counter::default());
/// let registry = Registry::builder().toolset(Arc::clone(&counter)).build().unwrap();
/// let ctx = ToolContext::new();
/// registry.invoke(ToolUse::new("1", "add", json!({"amount": 2})), &ctx).await;
/// let result = registry.invoke(ToolUse::new("2", "add", json!({"amount": 3})), &ctx).await;
/// assert_eq!(result.text_content(), "5");
/// assert_eq!(counter.total.load(Ordering::SeqCst), 5);
/// assert!(registry.contains("unit"));
/// # });
/// ```
pub trait Toolset: Send + Sync + 'static {
    /// The tools, each holding a reference to this instance.
    fn tools(self: std::sync::Arc<Self>) -> Vec<std::sync::Arc<dyn Tool>>;
}

/// A tool held by a registry: a `'static` one from `#[tool]`, or a shared one.
#[derive(Clone)]
pub(crate) enum ToolRef {
    Static(&'static dyn Tool),
    Shared(Arc<dyn Tool>),
}

impl ToolRef {
    /// Holds `tool`. A tool of no size with nothing to drop, as `#[tool]`
    /// emits for a function, is held by a `'static` reference, which takes
    /// no memory to make and no reference count to clone.
    pub(crate) fn new<T: Tool>(tool: T) -> Self {
        if std::mem::size_of::<T>() == 0 && !std::mem::needs_drop::<T>() {
            ToolRef::Static(Box::leak(Box::new(tool)))
        } else {
            ToolRef::Shared(Arc::new(tool))
        }
    }

    /// The tool as a shared handle: the one held, or, for a `'static`
    /// tool, a handle that calls it.
    pub(crate) fn to_shared(&self) -> Arc<dyn Tool> {
        match self {
            ToolRef::Static(tool) => Arc::new(Static(*tool)),
            ToolRef::Shared(tool) => Arc::clone(tool),
        }
    }
}

/// A `'static` tool behind a shared handle ([`ToolRef::to_shared`]).
struct Static(&'static dyn Tool);

impl Tool for Static {
    fn spec(&self) -> &ToolSpec {
        self.0.spec()
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.0.call(input, ctx)
    }

    fn call_checked<'a>(&'a self, input: Checked<'a>, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.0.call_checked(input, ctx)
    }

    fn takes_context(&self) -> bool {
        self.0.takes_context()
    }

    fn call_str<'a>(&'a self, input: &'a str, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.0.call_str(input, ctx)
    }
}

impl Deref for ToolRef {
    type Target = dyn Tool;

    fn deref(&self) -> &(dyn Tool + 'static) {
        match self {
            ToolRef::Static(tool) => *tool,
            ToolRef::Shared(tool) => &**tool,
        }
    }
}
