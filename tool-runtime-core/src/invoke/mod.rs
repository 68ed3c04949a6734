//! The agent path in full: how one call runs from tool use to result, with
//! the registry's limits and policies, and the ways to run calls
//! ([`Registry::invoke`], [`Registry::stream`],
//! [`Registry::invoke_recorded`], [`Registry::invoke_all`]).
//!
//! One call, in order:
//!
//! 1. The tool is looked up (an unknown name is an error result), and the
//!    context's caller is checked against its
//!    [scopes](crate::ToolSpec::scopes): one lacking any ends the call here
//!    ([`InsufficientScope`](ToolErrorKind::InsufficientScope)); an
//!    anonymous call is not checked.
//! 2. A call already cancelled ends here, `incomplete`.
//! 3. The registry's [`enabled_when`](crate::RegistryBuilder::enabled_when)
//!    predicate may refuse it ([`Disabled`](ToolErrorKind::Disabled)).
//! 4. A tool that needs approval waits for its approver; a rejection, or no
//!    approver at all, refuses it ([`NotApproved`](ToolErrorKind::NotApproved)).
//! 5. The tool runs (a `blocking` one on Tokio's blocking threads), raced
//!    against the caller's cancellation and its timeout. A sync tool has
//!    finished by the time its future exists, so its outcome is taken at
//!    once; only an async tool still pending is raced.
//!
//! Steps 3 and 4, time limits and blocking threads are one boxed path that
//! only the calls they apply to take; the others go straight to step 5.
//! 6. Errors are shaped for the model (detail logged, panics and internal
//!    errors redacted if so configured), the tool's formatter writes the
//!    text of its result and the result is held to its limit (`limit.rs`,
//!    only for a tool with either), the record is closed, and the
//!    `tool_call` tracing span gets its `status` and `duration_ms`.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
#[cfg(feature = "tracing")]
use std::time::Instant;

use serde_json::Value;
use tokio::sync::mpsc;

pub(crate) mod limit;
pub(crate) mod policy;
mod poll;
pub(crate) mod sequence;
pub(crate) mod store;

use policy::{ErrorDetail, Settings};

use crate::context::{Cancel, CancellationToken, Cancelled, ToolContext};
use crate::events::record::ToolCallRecord;
use crate::events::{CallSink, ToolCallStream};
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::result::{ToolOutput, ToolResult, ToolUse};
use crate::tool::{Tool, ToolFuture, ToolRef};

/// What the agent path needs from the tools it calls. [`Registry`](crate::Registry)
/// implements it; the functions here take it rather than the registry, so
/// that invocation depends on no registry and the registry's methods hand
/// each call to them.
pub(crate) trait Catalog {
    /// The settings every call honours (policies, limits, error detail).
    fn settings(&self) -> &Arc<Settings>;
    /// The tool with the name or alias `name`.
    fn resolve(&self, name: &str) -> Option<&dyn Tool>;
    /// The tool with the name or alias `name` as a handle a call can own,
    /// and whether a call of it needs nothing of its own: no context, no
    /// policy, no limit.
    fn tool_for_call(&self, name: &str) -> Option<(ToolRef, bool)>;
    /// The context of one call: the caller's, narrowed to the tool use.
    fn call_context(
        &self,
        ctx: &ToolContext,
        id: String,
        tool: &dyn Tool,
        input: Value,
        sink: Option<Arc<CallSink>>,
    ) -> ToolContext;
    /// The error for a call to a name no tool offered to `ctx` has.
    fn unknown_tool(&self, name: &str, ctx: &ToolContext) -> ToolError;
    /// Whether a call of the tool with the name or alias `name` is a
    /// barrier among calls made together (see `sequence.rs`).
    fn sequential(&self, name: &str) -> bool;
}

/// One call whose reports are read as it runs; see [`Registry::stream`].
pub(crate) fn stream(
    registry: &impl Catalog,
    tool_use: ToolUse,
    ctx: &ToolContext,
) -> ToolCallStream {
    let (sender, receiver) = mpsc::unbounded_channel();
    let record = ToolCallRecord::started(tool_use.id.clone(), tool_use.name.clone())
        .with_parent(ctx.tool_use_id());
    let (sink, _record) = CallSink::new(record, Some(sender));
    // A token of this call's own, so the stream can cancel just it.
    let token = ctx.child_token();
    let ctx = ctx.clone().with_cancellation(token.clone());
    let id = tool_use.id.clone();
    let future = call(registry, tool_use, &ctx, Some(Arc::clone(&sink)));
    ToolCallStream::new(id, Box::pin(future), receiver, sink, token)
}

/// One call and its record; see [`Registry::invoke_recorded`].
pub(crate) async fn invoke_recorded(
    registry: &impl Catalog,
    tool_use: ToolUse,
    ctx: &ToolContext,
) -> (ToolResult, ToolCallRecord) {
    let record = ToolCallRecord::started(tool_use.id.clone(), tool_use.name.clone())
        .with_parent(ctx.tool_use_id());
    let (sink, _record) = CallSink::new(record, None);
    let result = call(registry, tool_use, ctx, Some(Arc::clone(&sink))).await;
    (result, sink.snapshot())
}

/// One call on the direct path; see [`Registry::call_json`].
pub(crate) async fn call_json(
    registry: &impl Catalog,
    name: &str,
    input: Value,
    ctx: &ToolContext,
) -> Result<Value, ToolError> {
    let Some(tool) = registry.resolve(name) else {
        return Err(registry.unknown_tool(name, ctx));
    };
    if let Some(error) = crate::context::caller::scope_refusal(ctx, tool.spec()) {
        return Err(error);
    }
    if !tool.takes_context() {
        return run_guarded(tool, &input, ToolContext::unused())
            .await?
            .into_value();
    }
    let call_ctx = registry.call_context(ctx, String::new(), tool, input, None);
    run_guarded(tool, call_ctx.input(), &call_ctx)
        .await?
        .into_value()
}

/// Calls a tool, turning a panic while building or polling its future into
/// an error.
async fn run_guarded(
    tool: &dyn Tool,
    input: &Value,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let name = &*tool.spec().name;
    let future = match std::panic::catch_unwind(AssertUnwindSafe(|| tool.call(input, ctx))) {
        Ok(future) => future,
        Err(payload) => return Err(panic_error(name, payload.as_ref())),
    };
    if future.is_ready() {
        return future.await;
    }
    match poll::catch_unwind(future).await {
        Ok(outcome) => outcome,
        Err(payload) => Err(panic_error(name, payload.as_ref())),
    }
}

fn panic_error(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolError {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned());
    let message = match detail {
        Some(detail) => format!("tool {tool} panicked: {detail}"),
        None => format!("tool {tool} panicked"),
    };
    ToolError::with_kind(ToolErrorKind::Panicked, message)
}

/// What a call holds between being made and being polled.
enum Prepared {
    /// A tool that reads no context ([`Tool::takes_context`]), in a call
    /// nothing governs: its arguments, the id for the result, and the token
    /// the caller cancels with are all the call needs.
    Plain {
        tool: ToolRef,
        id: String,
        input: Value,
        token: Arc<Cancel>,
    },
    /// Any other tool: the call's own context, and the registry's settings
    /// when a policy or a limit applies.
    Context {
        tool: ToolRef,
        ctx: ToolContext,
        settings: Option<Arc<Settings>>,
    },
    /// No tool of that name, or one the caller lacks a scope of: the
    /// error, made when the call was.
    Refused {
        id: String,
        error: Option<ToolError>,
    },
}

/// One call on the agent path, from tool use to result. The future owns
/// what it needs, so it can be boxed, spawned or streamed.
pub(crate) fn call<C: Catalog>(
    registry: &C,
    tool_use: ToolUse,
    ctx: &ToolContext,
    sink: Option<Arc<CallSink>>,
) -> impl Future<Output = ToolResult> + Send + 'static + use<C> {
    let ToolUse { id, name, input } = tool_use;
    #[cfg(feature = "tracing")]
    let span = call_span(&name, &id);
    // Nobody reads the duration when neither the span nor the debug event
    // is enabled: the clock is skipped then.
    #[cfg(feature = "tracing")]
    let timed = !span.is_disabled() || tracing::enabled!(tracing::Level::DEBUG);
    let error_detail = registry.settings().error_detail;
    let mut prepared = prepare(registry, id, &name, input, ctx, &sink);
    drop(name);
    // A handle of its own to record the outcome into, when anyone reads
    // it: a subscriber need not track which span is current.
    #[cfg(feature = "tracing")]
    let recorded = timed.then(|| span.clone());
    let call = async move {
        #[cfg(feature = "tracing")]
        let started = timed.then(Instant::now);
        // Used in place: moving its parts out would make the future larger,
        // and it is moved whole several times before it runs.
        let (id, tool, outcome) = match &mut prepared {
            Prepared::Plain {
                tool,
                id,
                input,
                token,
            } => {
                let watch = Watch::Caller(token);
                let outcome = match start(tool, input, ToolContext::unused(), watch) {
                    Started::Done(outcome) => outcome,
                    Started::Running(future) => {
                        Box::pin(until_cancelled(&tool.spec().name, watch, future)).await
                    }
                };
                (std::mem::take(id), &*tool.spec().name, outcome)
            }
            Prepared::Context {
                tool,
                ctx,
                settings,
            } => {
                let outcome = match settings {
                    // Boxed, like the other rare paths, so the common
                    // call's future stays small: it is moved several times
                    // before it runs.
                    Some(settings) => Box::pin(governed(settings, tool, ctx)).await,
                    None => match start(tool, ctx.input(), ctx, Watch::Call(ctx)) {
                        Started::Done(outcome) => outcome,
                        Started::Running(future) => {
                            let watch = Watch::Call(ctx);
                            Box::pin(until_cancelled(&tool.spec().name, watch, future)).await
                        }
                    },
                };
                (ctx.take_tool_use_id(), &*tool.spec().name, outcome)
            }
            Prepared::Refused { id, error } => (
                std::mem::take(id),
                "",
                Err(error
                    .take()
                    .unwrap_or_else(|| ToolError::internal("the call had already ended"))),
            ),
        };
        let result = match outcome {
            Ok(output) => output.into_result(id),
            Err(error) => ToolResult::from_error(id, &shape_error(error_detail, tool, error)),
        };
        let result = limit::adapt_call(&prepared, result);
        #[cfg(feature = "tracing")]
        if let (Some(started), Some(recorded)) = (started, recorded) {
            record_end(started, &recorded, &result);
        }
        if let Some(sink) = sink {
            sink.finish(&result);
        }
        result
    };
    #[cfg(feature = "tracing")]
    let call = tracing::Instrument::instrument(call, span);
    call
}

/// The span of one call, after the OpenTelemetry conventions for
/// generative AI tool execution: named `execute_tool {tool}` (through
/// `otel.name`, which tracing-opentelemetry reads), its `gen_ai.*`
/// attributes set now and `error.type` when the call fails.
#[cfg(feature = "tracing")]
#[inline]
fn call_span(name: &str, id: &str) -> tracing::Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {name}"),
        otel.kind = "internal",
        otel.status_code = tracing::field::Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %name,
        gen_ai.tool.call.id = %id,
        gen_ai.tool.type = "function",
        error.type = tracing::field::Empty,
        status = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    )
}

/// The call made ready to run: the tool found by `name`, with a context
/// of the call's own when it reads one and the registry's settings when a
/// policy or a limit applies; or the error for a name no tool has, for a
/// caller that lacks a scope of the tool, or for arguments nested too
/// deep.
#[inline]
fn prepare<C: Catalog>(
    registry: &C,
    id: String,
    name: &str,
    input: Value,
    ctx: &ToolContext,
    sink: &Option<Arc<CallSink>>,
) -> Prepared {
    // Arguments nested past the limit are refused before anything walks
    // them, and taken apart without recursion.
    let deep = !crate::spec::args::within_depth(&input);
    let found = if deep {
        None
    } else {
        registry.tool_for_call(name)
    };
    match found {
        Some((tool, true)) => Prepared::Plain {
            tool,
            id,
            input,
            token: ctx.call_token(),
        },
        Some((tool, false)) => {
            // A tool that needs scopes is never plain: its caller is
            // checked here, before anything of the call is made.
            if let Some(error) = crate::context::caller::scope_refusal(ctx, tool.spec()) {
                return Prepared::Refused {
                    error: Some(error),
                    id,
                };
            }
            // Only a call that a policy or a limit applies to holds the
            // registry's settings, and only a tool that reads a context gets
            // one of the call's own (the id moves into it and comes back out
            // at the end).
            let settings = registry
                .settings()
                .govern(tool.spec())
                .then(|| Arc::clone(registry.settings()));
            let ctx = registry.call_context(ctx, id, &*tool, input, sink.clone());
            Prepared::Context {
                tool,
                ctx,
                settings,
            }
        }
        None if deep => {
            crate::spec::args::dismantle(input);
            Prepared::Refused {
                error: Some(crate::spec::args::too_deep(&crate::quote::name(name))),
                id,
            }
        }
        None => Prepared::Refused {
            error: Some(registry.unknown_tool(name, ctx)),
            id,
        },
    }
}

/// The end of a call on its span (status, duration and error type), and
/// the debug event that says it ended.
#[cfg(feature = "tracing")]
fn record_end(started: Instant, recorded: &tracing::Span, result: &ToolResult) {
    let status = crate::events::record::CallStatus::of(result);
    let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    recorded.record("status", status.as_str());
    recorded.record("duration_ms", elapsed);
    if let Some(kind) = result.error_kind {
        recorded.record("error.type", kind.as_str());
        recorded.record("otel.status_code", "error");
    }
    crate::trace::debug!(
        status = status.as_str(),
        duration_ms = elapsed,
        "tool call ended"
    );
}

/// Policies first, then the tool, under its time limit or on a blocking
/// thread if it has one.
///
/// Here as on the direct path, panics are caught where they can happen: in
/// the tool (building its future, or polling it) and in each policy hook,
/// so no call needs a guard around the whole.
async fn governed(
    settings: &Settings,
    tool: &ToolRef,
    ctx: &mut ToolContext,
) -> Result<ToolOutput, ToolError> {
    let spec = tool.spec();
    let name = &*spec.name;
    if ctx.is_cancelled() {
        return Err(cancelled(name));
    }
    if let Some(enabled) = &settings.enabled
        && !guard_hook(name, || enabled(spec, ctx))?
    {
        return Err(ToolError::with_kind(
            ToolErrorKind::Disabled,
            format!("tool {name} is not available here; do not call it again in this conversation"),
        ));
    }
    let needs_approval = spec.needs_approval
        || match &settings.require_approval {
            Some(require) => guard_hook(name, || require(spec))?,
            None => false,
        };
    if needs_approval {
        let approval = policy::approve(settings, spec, ctx);
        match poll::catch_unwind(approval).await {
            Ok(decision) => decision?,
            Err(payload) => return Err(hook_panicked(name, payload.as_ref())),
        }
    }

    let timer = spec
        .timeout
        .or(settings.default_timeout)
        .and_then(|limit| start_timer(&*name, limit));
    if timer.is_some() || spec.blocking {
        if let Some((limit, _)) = &timer {
            ctx.set_limit(*limit);
        }
        return run_limited(tool, ctx, spec.blocking, timer).await;
    }
    match start(tool, ctx.input(), ctx, Watch::Call(ctx)) {
        Started::Done(outcome) => outcome,
        Started::Running(future) => until_cancelled(name, Watch::Call(ctx), future).await,
    }
}

/// How a call on the caller's task began.
enum Started<'a> {
    /// It has ended: the tool was sync, failed to decode its arguments or
    /// panicked, or the call was cancelled before it began.
    Done(Result<ToolOutput, ToolError>),
    /// It has begun and is waiting: an async tool.
    Running(ToolFuture<'a>),
}

/// What cancels a call on the caller's task.
#[derive(Clone, Copy)]
enum Watch<'a> {
    /// A call with a context of its own: the caller's token, and the
    /// call's own once something asked for it.
    Call(&'a ToolContext),
    /// A call without one: the caller's token alone.
    Caller(&'a Cancel),
}

impl<'a> Watch<'a> {
    /// The caller's token, and the call's own if it has been made.
    fn tokens(self) -> (&'a CancellationToken, Option<&'a CancellationToken>) {
        match self {
            Watch::Call(ctx) => ctx.tokens(),
            Watch::Caller(cancel) => (cancel.token(), None),
        }
    }

    fn is_cancelled(self) -> bool {
        match self {
            Watch::Call(ctx) => ctx.is_cancelled(),
            Watch::Caller(cancel) => cancel.is_cancelled(),
        }
    }
}

/// Begins the call on the caller's task, with no time limit. A sync tool
/// has done its work by the time its future exists, so most calls end here
/// without an await; an async one is then raced against cancellation
/// ([`until_cancelled`]).
fn start<'a>(
    tool: &'a ToolRef,
    input: &'a Value,
    ctx: &'a ToolContext,
    watch: Watch<'a>,
) -> Started<'a> {
    let name = &*tool.spec().name;
    if watch.is_cancelled() {
        return Started::Done(Err(cancelled(name)));
    }
    // `prepare` checked the arguments' depth: the tool's decoder need not.
    let input = crate::spec::args::Checked::checked_by_registry(input);
    let call = || tool.call_checked(input, ctx);
    let future = match std::panic::catch_unwind(AssertUnwindSafe(call)) {
        Ok(future) => future,
        Err(payload) => return Started::Done(Err(panic_error(name, payload.as_ref()))),
    };
    match future.into_ready() {
        // A tool that cancelled its own call meant it: that wins over its
        // outcome, as in the race of an async call. (Only the call's own
        // token can have been cancelled by the tool itself; a caller
        // cancelling while a sync tool ran is too late to stop it, and its
        // finished work is kept.)
        Ok(_)
            if watch
                .tokens()
                .1
                .is_some_and(CancellationToken::is_cancelled) =>
        {
            Started::Done(Err(cancelled(name)))
        }
        Ok(outcome) => Started::Done(outcome),
        Err(future) => Started::Running(future),
    }
}

/// Runs a synchronous policy hook, turning its panic into an error.
fn guard_hook<T>(tool: &str, hook: impl FnOnce() -> T) -> Result<T, ToolError> {
    std::panic::catch_unwind(AssertUnwindSafe(hook))
        .map_err(|payload| hook_panicked(tool, payload.as_ref()))
}

/// The error for a policy hook (a predicate or an approver) that panicked.
fn hook_panicked(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolError {
    ToolError::with_kind(
        ToolErrorKind::Panicked,
        format!("a policy hook panicked while serving tool {tool}"),
    )
    .with_detail(panic_error(tool, payload).message())
}

/// Polls a pending tool future until it ends or the call is cancelled,
/// cancellation first, catching a panic while polling.
///
/// It waits on the caller's token rather than making the call's own: a
/// child token costs an allocation and takes the caller's token's lock when
/// it is made and again when it is dropped, and every call made with one
/// context shares that token. The call's own token only exists once
/// something inside the call asked for it, which can only happen while the
/// tool is polled, so it is looked for after each poll and watched from
/// then on (it is cancelled with the caller's).
async fn until_cancelled(
    name: &str,
    watch: Watch<'_>,
    future: ToolFuture<'_>,
) -> Result<ToolOutput, ToolError> {
    let mut work = std::pin::pin!(poll::catch_unwind(future));
    let (caller, own) = watch.tokens();
    let mut caller_cancelled = std::pin::pin!(caller.cancelled());
    let mut own_cancelled = std::pin::pin!(own.map(CancellationToken::cancelled));
    // The call was not cancelled when it started (`start` checked), so the
    // first poll goes to the tool: one that finishes at once never waits
    // on the shared token at all. From then on cancellation comes first.
    let mut first = true;
    let outcome = std::future::poll_fn(move |cx| {
        let watched = !std::mem::take(&mut first);
        if watched && cancellation(caller_cancelled.as_mut(), own_cancelled.as_mut(), cx) {
            return Poll::Ready(None);
        }
        if let Poll::Ready(output) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        // Pending: be woken by the token that matters, the call's own as
        // soon as the tool made it.
        let mut newly_own = false;
        if own_cancelled.is_none()
            && let (_, Some(own)) = watch.tokens()
        {
            own_cancelled.set(Some(own.cancelled()));
            newly_own = true;
        }
        if (!watched || newly_own)
            && cancellation(caller_cancelled.as_mut(), own_cancelled.as_mut(), cx)
        {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await;
    match outcome {
        Some(Ok(outcome)) => outcome,
        Some(Err(payload)) => Err(panic_error(name, payload.as_ref())),
        None => Err(cancelled(name)),
    }
}

/// Polls the call's own token's future once the call has one, else the
/// caller's: whether the call is cancelled (if not, the task is woken
/// when it is).
fn cancellation(
    caller: std::pin::Pin<&mut Cancelled<'_>>,
    own: std::pin::Pin<&mut Option<Cancelled<'_>>>,
    cx: &mut std::task::Context<'_>,
) -> bool {
    match own.as_pin_mut() {
        Some(own) => own.poll(cx).is_ready(),
        None => caller.poll(cx).is_ready(),
    }
}

/// A call with a time limit, or of a `blocking` tool: raced against the
/// call's own token (which the timer cancels) and the timer.
async fn run_limited(
    tool: &ToolRef,
    ctx: &ToolContext,
    blocking: bool,
    timer: Option<(Duration, Timer)>,
) -> Result<ToolOutput, ToolError> {
    let name = &*tool.spec().name;
    let token = ctx.cancellation_token();
    let (limit, timer) = match timer {
        Some((limit, timer)) => (limit, Some(timer)),
        None => (Duration::ZERO, None),
    };
    let mut timer = timer;
    let mut cancelled_call = std::pin::pin!(token.cancelled());
    let mut work = std::pin::pin!(execute(tool, ctx, blocking));
    // The timer first, then the token, then the work.
    std::future::poll_fn(|cx| {
        if let Some(timer) = &mut timer
            && timer.as_mut().poll(cx).is_ready()
        {
            // Tell the tool (a blocking one keeps running on its thread and
            // can check `ctx.is_cancelled()`); its future is dropped below.
            token.cancel();
            return Poll::Ready(Err(ToolError::with_kind(
                ToolErrorKind::TimedOut,
                format!("tool {name} timed out after {limit:?} and was stopped"),
            )));
        }
        if cancelled_call.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(cancelled(name)));
        }
        work.as_mut().poll(cx)
    })
    .await
}

pub(super) fn cancelled(name: &str) -> ToolError {
    ToolError::with_kind(
        ToolErrorKind::Cancelled,
        format!("the call to {name} was cancelled before it finished"),
    )
}

type Timer = std::pin::Pin<Box<tokio::time::Sleep>>;

/// Tokio's timer for `limit`, or `None` (and a warning) where there is no
/// Tokio runtime with time enabled.
#[cfg_attr(
    not(feature = "tracing"),
    expect(unused_variables, reason = "`name` is for the log")
)]
fn start_timer(name: &str, limit: Duration) -> Option<(Duration, Timer)> {
    if tokio::runtime::Handle::try_current().is_err() {
        crate::trace::warning!(
            tool = name,
            "no Tokio runtime: the call's time limit is not applied"
        );
        return None;
    }
    // Tokio panics when the runtime's timer is disabled.
    match std::panic::catch_unwind(|| tokio::time::sleep(limit)) {
        Ok(sleep) => Some((limit, Box::pin(sleep))),
        Err(_) => {
            crate::trace::warning!(
                tool = name,
                "the Tokio runtime has no timer (enable_time): the call's time limit is not applied"
            );
            None
        }
    }
}

/// Runs the tool: inline, or for a `blocking` tool on Tokio's blocking
/// threads (inline too when there is no Tokio runtime).
async fn execute(
    tool: &ToolRef,
    ctx: &ToolContext,
    blocking: bool,
) -> Result<ToolOutput, ToolError> {
    if blocking {
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            return run_blocking(handle, tool.clone(), ctx.clone()).await;
        }
        crate::trace::warning!("no Tokio runtime: a blocking tool runs inline");
    }
    run_guarded(&**tool, ctx.input(), ctx).await
}

async fn run_blocking(
    handle: tokio::runtime::Handle,
    tool: ToolRef,
    ctx: ToolContext,
) -> Result<ToolOutput, ToolError> {
    let name = tool.spec().name.clone();
    #[cfg(feature = "tracing")]
    let span = tracing::Span::current();
    let task = tokio::task::spawn_blocking(move || {
        #[cfg(feature = "tracing")]
        let _entered = span.enter();
        let tool: &dyn Tool = &*tool;
        let future =
            match std::panic::catch_unwind(AssertUnwindSafe(|| tool.call(ctx.input(), &ctx))) {
                Ok(future) => future,
                Err(payload) => return Err(panic_error(&tool.spec().name, payload.as_ref())),
            };
        if future.is_ready() {
            return poll::now_or_never(future)
                .unwrap_or_else(|| Err(ToolError::internal("a ready tool call was not ready")));
        }
        // A hand-written tool may still have async work: finish it here.
        match handle.block_on(poll::catch_unwind(future)) {
            Ok(outcome) => outcome,
            Err(payload) => Err(panic_error(&tool.spec().name, payload.as_ref())),
        }
    });
    match task.await {
        Ok(outcome) => outcome,
        Err(error) => Err(ToolError::internal(format!(
            "the blocking thread running tool {name} failed: {error}"
        ))),
    }
}

/// Logs what the model must not read and redacts what the registry says to.
#[cfg_attr(
    not(feature = "tracing"),
    expect(unused_variables, reason = "the detail is for the log")
)]
fn shape_error(detail: ErrorDetail, tool: &str, error: ToolError) -> ToolError {
    if let Some(detail) = error.detail() {
        crate::trace::warning!(kind = %error.kind(), message = error.message(), detail, "tool error detail");
    }
    let redacted = detail == ErrorDetail::Redacted;
    match error.kind() {
        ToolErrorKind::Panicked => {
            crate::trace::error!(message = error.message(), "tool panicked");
            if redacted {
                let text = format!("tool {tool} panicked; the details were logged");
                error.with_message(text)
            } else {
                error
            }
        }
        ToolErrorKind::Internal => {
            crate::trace::error!(
                message = error.message(),
                "tool failed with an internal error"
            );
            let text = if redacted {
                format!("tool {tool} failed with an internal error; the details were logged")
            } else {
                format!(
                    "tool {tool} failed with an internal error: {}",
                    error.message()
                )
            };
            error.with_message(text)
        }
        _ => error,
    }
}
