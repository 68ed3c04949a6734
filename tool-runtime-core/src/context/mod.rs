//! What a tool can ask for besides its arguments: the [`ToolContext`] and
//! the [`FromToolContext`] extractor trait.
//!
//! The context carries what the caller hands to every tool (the JSON
//! invocation state, typed extensions, application state, a cancellation
//! token, an approver, who is calling: the [`Caller`], and whom what the
//! calls leave behind belongs to: the [`Owner`]) and, inside a registry call, what belongs to that
//! call (the tool use, its deadline, where its progress reports go). The
//! injectable types built on it: one extractor for shared values in
//! `shared.rs` ([`Shared`], named [`State`],
//! [`Extension`] and `Config` by where a call finds
//! them), and the others in `extract.rs` ([`Progress`], the cancellation
//! token, `Option`).

pub(crate) mod approval;
pub(crate) mod caller;
pub(crate) mod cancel;
pub(crate) mod client;
pub(crate) mod elicit;
pub(crate) mod extract;
pub(crate) mod owner;
pub(crate) mod shared;

pub use approval::{Approval, ApprovalRequest, Approver};
pub use caller::Caller;
pub use cancel::{CancellationToken, Cancelled};
pub use client::{
    ClientFuture, ClientRequests, Elicitation, ElicitationRequest, Role, Root, SamplingMessage,
    SamplingRequest, SamplingResponse,
};
pub use elicit::Elicit;
pub use owner::Owner;
pub use shared::{AppState, CallExtension, Extension, Shared, Source, State};

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::events::{CallSink, Progress};
use crate::spec::error::ToolError;
use crate::spec::result::ToolOutput;

/// Values keyed by their type.
pub(crate) type TypeMap = HashMap<TypeId, Arc<dyn Any + Send + Sync>>;

/// Everything a tool may want to know about the call it is serving.
///
/// A tool asks for it with a `ctx: &ToolContext` (or `ToolContext`)
/// parameter; such a parameter is injected, never part of the tool's schema.
/// The caller builds one context and passes it to
/// [`Registry::invoke`](crate::Registry::invoke); the registry gives each call
/// its own copy that also knows the tool use (id, name, input).
///
/// Cloning is cheap: the shared parts are reference-counted.
///
/// What it offers a tool:
///
/// - the tool use: [`tool_use_id`](Self::tool_use_id),
///   [`tool_name`](Self::tool_name), [`input`](Self::input);
/// - the caller's data: the JSON [`state`](Self::state) map (Strands'
///   `invocationState`), typed [`extension`](Self::extension)s and
///   application state ([`app_state`](Self::app_state));
/// - cancellation: [`is_cancelled`](Self::is_cancelled) and the
///   [`cancelled`](Self::cancelled) future, fired when the caller cancels
///   or the call's timeout expires; and the [`deadline`](Self::deadline);
/// - reporting: [`progress`](Self::progress), [`trace`](Self::trace) and
///   [`partial`](Self::partial) (see [`Progress`]).
///
/// ```
/// use tool_runtime::ToolContext;
/// use serde_json::json;
///
/// #[derive(Clone)]
/// struct UserId(u64);
///
/// let ctx = ToolContext::new()
///     .with_state("session", json!("s-42"))
///     .with_extension(UserId(7));
/// assert_eq!(ctx.state()["session"], "s-42");
/// assert_eq!(ctx.extension::<UserId>().map(|u| u.0), Some(7));
///
/// // Cancelling the caller's context cancels every call made with it.
/// assert!(!ctx.is_cancelled());
/// ctx.cancellation_token().cancel();
/// assert!(ctx.is_cancelled());
/// ```
#[derive(Default)]
pub struct ToolContext {
    shared: Arc<Given>,
    call: Option<CallInfo>,
    /// The caller's token inside a registry call (the parent of the call's
    /// own, see `own`); this context's token otherwise.
    ///
    /// Held in an `Arc` because every call made with one context holds it:
    /// cloning or dropping a `CancellationToken` locks its node, which all
    /// those calls share, while an `Arc` only counts.
    cancel: Arc<Cancel>,
    /// Inside a registry call, the call's own token: a child of `cancel`,
    /// made the first time something asks for it. Most calls never do, and
    /// a child token costs an allocation and two locks of the parent.
    own: Option<OnceLock<Arc<Cancel>>>,
    limit: Option<Limit>,
    /// What answers the tool's requests to the calling client, when a
    /// server put one here.
    client: Option<Arc<dyn client::ClientRequests>>,
}

impl Clone for ToolContext {
    fn clone(&self) -> Self {
        // Clones of a call's context share the call's own token, so it is
        // made now if it was not yet.
        let own = self
            .own
            .as_ref()
            .map(|_| OnceLock::from(Arc::clone(self.token())));
        Self {
            shared: Arc::clone(&self.shared),
            call: self.call.clone(),
            cancel: Arc::clone(&self.cancel),
            own,
            limit: self.limit,
            client: self.client.clone(),
        }
    }
}

#[derive(Default)]
struct Given {
    state: Map<String, Value>,
    extensions: TypeMap,
    app_state: TypeMap,
    caller: Option<Arc<Caller>>,
    /// The caller's owner key, made once with the caller.
    caller_owner: Option<Owner>,
    /// The owner when the caller names none (a server's session).
    owner: Option<Owner>,
}

impl Clone for Given {
    fn clone(&self) -> Self {
        Self {
            state: self.state.clone(),
            extensions: self.extensions.clone(),
            app_state: self.app_state.clone(),
            caller: self.caller.clone(),
            caller_owner: self.caller_owner.clone(),
            owner: self.owner.clone(),
        }
    }
}

/// A cancellation token, and whether anything outside the runtime holds it.
///
/// Reading a `CancellationToken` takes its lock, and every call made with one
/// context reads the same token before its tool runs. A token the context
/// made itself can only be cancelled through a handle that left the runtime
/// ([`ToolContext::cancellation_token`], an injected token); until one has,
/// it cannot have been cancelled, and reading this flag is all a check costs.
#[derive(Default)]
pub(crate) struct Cancel {
    token: CancellationToken,
    /// Set, and never cleared, once a handle to `token` may be held where it
    /// can be cancelled: the token came from the caller, or was handed out.
    reachable: AtomicBool,
}

impl Cancel {
    /// A token the caller holds, or that the runtime cancels itself (a
    /// call's own, which its timer cancels): always read.
    fn reachable(token: CancellationToken) -> Self {
        Self {
            token,
            reachable: AtomicBool::new(true),
        }
    }

    /// The token, for the runtime's own use: to wait on, or to make a
    /// child of. Neither can cancel it.
    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// The token, for a handle that leaves the runtime: from now on it may
    /// be cancelled by whoever holds it.
    fn hand_out(&self) -> &CancellationToken {
        // Only the first hand-out writes, so checks on other threads keep
        // reading a line nobody writes.
        if !self.reachable.load(Ordering::Relaxed) {
            self.reachable.store(true, Ordering::Release);
        }
        &self.token
    }

    /// Whether the token has been cancelled. One that was never handed out
    /// has not been, and answers without taking the token's lock. (A handle
    /// handed out before this check, on any thread, is seen: the flag is set
    /// before the handle exists, so before anything can cancel through it.)
    pub(crate) fn is_cancelled(&self) -> bool {
        self.reachable.load(Ordering::Acquire) && self.token.is_cancelled()
    }
}

/// The time limit of one call.
#[derive(Clone, Copy)]
struct Limit {
    timeout: Duration,
    deadline: tokio::time::Instant,
}

/// What a registry call adds to the caller's context; see
/// [`ToolContext::for_call`].
pub(crate) struct CallParts<'a> {
    pub(crate) id: String,
    pub(crate) name: Cow<'static, str>,
    pub(crate) input: Value,
    pub(crate) config: Option<crate::spec::config::ConfigValue>,
    pub(crate) sink: Option<Arc<CallSink>>,
    pub(crate) registry_state: Option<&'a Arc<TypeMap>>,
}

#[derive(Clone)]
struct CallInfo {
    id: String,
    name: Cow<'static, str>,
    input: Value,
    config: Option<crate::spec::config::ConfigValue>,
    sink: Option<Arc<CallSink>>,
    registry_state: Option<Arc<TypeMap>>,
}

impl ToolContext {
    /// An empty context: no state, no extensions, no tool use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an entry to the invocation state (the JSON map Strands calls
    /// `invocationState`): data the caller hands to every tool it runs.
    pub fn with_state(mut self, key: impl Into<String>, value: Value) -> Self {
        Arc::make_mut(&mut self.shared)
            .state
            .insert(key.into(), value);
        self
    }

    /// Replaces the whole invocation state.
    pub fn with_state_map(mut self, state: Map<String, Value>) -> Self {
        Arc::make_mut(&mut self.shared).state = state;
        self
    }

    /// Adds a typed value any tool can read with [`extension`](Self::extension);
    /// one value per type, a later one replacing an earlier one.
    pub fn with_extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        Arc::make_mut(&mut self.shared)
            .extensions
            .insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// Says who is calling: the principal the server authenticated for the
    /// calls made with this context (see [`Caller`]).
    pub fn with_caller(mut self, caller: Caller) -> Self {
        let given = Arc::make_mut(&mut self.shared);
        given.caller_owner = Owner::of_caller(&caller);
        given.caller = Some(Arc::new(caller));
        self
    }

    /// Who is calling, or `None` for an anonymous call: one its server
    /// authenticated no one for.
    pub fn caller(&self) -> Option<&Caller> {
        self.shared.caller.as_deref()
    }

    /// Says whom what the calls made with this context leave behind belongs
    /// to when their caller names no one (see [`owner`](Self::owner)): a
    /// server gives each session of an anonymous client an owner of its
    /// own ([`Owner::session`]).
    pub fn with_owner(mut self, owner: Owner) -> Self {
        Arc::make_mut(&mut self.shared).owner = Some(owner);
        self
    }

    /// Whom what the calls made with this context leave behind (a task, a
    /// full result kept from the model, a request state) belongs to: their
    /// caller ([`Owner::of_caller`]) when they have one that names itself,
    /// else the owner [`with_owner`](Self::with_owner) set, else `None`:
    /// no one's, found by whoever has no owner either.
    pub fn owner(&self) -> Option<&Owner> {
        self.shared
            .caller_owner
            .as_ref()
            .or(self.shared.owner.as_ref())
    }

    /// The invocation state the caller passed in.
    pub fn state(&self) -> &Map<String, Value> {
        &self.shared.state
    }

    /// The typed value of type `T`, if the caller added one.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.shared
            .extensions
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// The extension of type `T`, shared.
    fn extension_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let value = self.shared.extensions.get(&TypeId::of::<T>())?;
        Arc::clone(value).downcast::<T>().ok()
    }

    /// Adds application state of type `T` for the calls made with this
    /// context; a tool reads it with a [`State<T>`] parameter. It takes
    /// precedence over state of the same type registered on the registry
    /// ([`RegistryBuilder::state`](crate::RegistryBuilder::state)).
    pub fn with_app_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        Arc::make_mut(&mut self.shared)
            .app_state
            .insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The application state of type `T`: this context's, else (inside a
    /// registry call) the registry's.
    pub fn app_state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let key = TypeId::of::<T>();
        let value = self.shared.app_state.get(&key).or_else(|| {
            self.call
                .as_ref()
                .and_then(|call| call.registry_state.as_ref())
                .and_then(|state| state.get(&key))
        })?;
        Arc::clone(value).downcast::<T>().ok().map(State::from_arc)
    }

    /// Uses `token` as this context's cancellation signal: cancelling it
    /// cancels every call made with this context (clones of the context
    /// share it). A fresh context has a token of its own.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = Arc::new(Cancel::reachable(token));
        self.own = None;
        self
    }

    /// The cancellation token. Outside a call it is the caller's: cancel it
    /// to stop every call made with this context. Inside a call it is the
    /// call's own (a child of the caller's), which the registry also
    /// cancels when the call's timeout expires.
    ///
    /// Until a context's token has been asked for here (or injected, or set
    /// with [`with_cancellation`](Self::with_cancellation)), nothing can
    /// have cancelled it, and calls made with the context skip reading it.
    pub fn cancellation_token(&self) -> &CancellationToken {
        self.token().hand_out()
    }

    /// The token [`cancellation_token`](Self::cancellation_token) returns,
    /// shared, and not handed out.
    fn token(&self) -> &Arc<Cancel> {
        match &self.own {
            Some(own) => {
                own.get_or_init(|| Arc::new(Cancel::reachable(self.cancel.token.child_token())))
            }
            None => &self.cancel,
        }
    }

    /// A child of this context's token: cancelled with it, and on its own
    /// without cancelling it.
    pub(crate) fn child_token(&self) -> CancellationToken {
        self.token().token.child_token()
    }

    /// The caller's token, and the call's own token if it has been made:
    /// what a registry call races an async tool against without making one.
    pub(crate) fn tokens(&self) -> (&CancellationToken, Option<&CancellationToken>) {
        match &self.own {
            Some(own) => (&self.cancel.token, own.get().map(|own| &own.token)),
            None => (&self.cancel.token, None),
        }
    }

    /// Whether the call has been cancelled (by the caller, or because its
    /// timeout expired). A long-running sync tool can check this between
    /// steps; an async tool is stopped at its next await point anyway.
    pub fn is_cancelled(&self) -> bool {
        // A call's own token not made yet cannot have been cancelled
        // itself; it would be cancelled only through the caller's.
        match self.own.as_ref().and_then(OnceLock::get) {
            Some(own) => own.is_cancelled(),
            None => self.cancel.is_cancelled(),
        }
    }

    /// Completes when the call is cancelled, for `select!`-ing against
    /// other work.
    pub fn cancelled(&self) -> Cancelled<'_> {
        // Waiting cannot cancel it: the token is not handed out.
        self.token().token.cancelled()
    }

    /// The time limit of the call being served (the tool's own
    /// `#[tool(timeout = ...)]`, else the registry's default), if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.limit.map(|limit| limit.timeout)
    }

    /// When the call being served will be stopped, if it has a time limit.
    /// Tokio's clock, so it follows a paused test clock; `.into_std()`
    /// converts it.
    pub fn deadline(&self) -> Option<tokio::time::Instant> {
        self.limit.map(|limit| limit.deadline)
    }

    /// The time left before the deadline (zero once it has passed), if the
    /// call has a time limit.
    pub fn remaining(&self) -> Option<Duration> {
        self.limit.map(|limit| {
            limit
                .deadline
                .saturating_duration_since(tokio::time::Instant::now())
        })
    }

    /// Decides on the calls made with this context that need approval,
    /// instead of the registry's approver (see [`Approver`]).
    pub fn with_approver(self, approver: Approver) -> Self {
        self.with_extension(approver)
    }

    /// The approver passed with this context, if any.
    pub(crate) fn approver(&self) -> Option<&Approver> {
        self.extension::<Approver>()
    }

    /// The handle to report this call's progress, trace and partial outputs
    /// with; it can be cloned and moved into threads.
    pub fn progress_handle(&self) -> Progress {
        Progress::new(self.call.as_ref().and_then(|call| call.sink.clone()))
    }

    /// Reports how far the tool is; see [`Progress::progress`].
    pub fn progress(&self, fraction: f64, message: impl Into<String>) {
        self.progress_handle().progress(fraction, message);
    }

    /// Logs a message at `level`; see [`Progress::log`].
    ///
    /// ```
    /// use tool_runtime::{tool, events::LogLevel, ToolContext};
    ///
    /// /// Cleans the cache.
    /// #[tool]
    /// fn clean(ctx: &ToolContext) -> &'static str {
    ///     ctx.log(LogLevel::Notice, "removed 3 stale entries");
    ///     "clean"
    /// }
    /// # let _ = CleanTool;
    /// ```
    pub fn log(&self, level: crate::events::LogLevel, message: impl Into<String>) {
        self.progress_handle().log(level, message);
    }

    /// Adds a timestamped trace entry; see [`Progress::trace`].
    pub fn trace(&self, step: impl Into<String>, message: impl Into<String>) {
        self.progress_handle().trace(step, message);
    }

    /// Reports an intermediate output; see [`Progress::partial`].
    pub fn partial(&self, value: impl Serialize) {
        self.progress_handle().partial(value);
    }

    /// The id of the tool use being served; `None` outside a registry call.
    pub fn tool_use_id(&self) -> Option<&str> {
        self.call.as_ref().map(|call| call.id.as_str())
    }

    /// The name of the tool being called; `None` outside a registry call.
    pub fn tool_name(&self) -> Option<&str> {
        self.call.as_ref().map(|call| &*call.name)
    }

    /// The raw arguments of the tool use being served (`Null` outside a
    /// registry call).
    pub fn input(&self) -> &Value {
        static NULL: Value = Value::Null;
        self.call.as_ref().map_or(&NULL, |call| &call.input)
    }

    /// Reports one intermediate output of a streaming tool to whoever
    /// watches this call.
    pub(crate) fn report_partial(&self, output: &ToolOutput) {
        self.progress_handle().partial_output(output);
    }

    /// This context, narrowed to one tool use: its id, the tool's name,
    /// the arguments, the tool's configuration, where its reports go
    /// (nowhere without a sink) and the registry's application state (none
    /// when empty). Built in one go: a call's context is made per call.
    #[inline]
    /// The same context with `client` answering the tools' requests to the
    /// client that made the call ([`sample`](Self::sample),
    /// [`elicit_with_schema`](Self::elicit_with_schema)). A server sets this; see the
    /// [`ClientRequests`] trait.
    pub fn with_client(mut self, client: Arc<dyn client::ClientRequests>) -> Self {
        self.client = Some(client);
        self
    }

    /// What answers requests to the calling client, if anything does.
    pub fn client(&self) -> Option<&Arc<dyn client::ClientRequests>> {
        self.client.as_ref()
    }

    /// Asks the calling client's model for a completion
    /// (`sampling/createMessage` over MCP): a prompt, or a
    /// [`SamplingRequest`] with more.
    ///
    /// A [`ClientUnavailable`](crate::spec::ToolErrorKind::ClientUnavailable)
    /// error when there is no such client (the call did not come through MCP,
    /// or the client lacks the `sampling` capability).
    pub async fn sample(
        &self,
        request: impl Into<client::SamplingRequest>,
    ) -> Result<client::SamplingResponse, ToolError> {
        match &self.client {
            Some(client) => client.sample(request.into()).await,
            None => Err(client::no_client("sampling")),
        }
    }

    /// Asks the calling client's user for input matching
    /// `requested_schema` (`elicitation/create` over MCP), showing
    /// `message`; the answer is the user's input as JSON.
    ///
    /// MCP allows the schema to be an object of strings, numbers,
    /// integers, booleans and enumerations. The answer is
    /// [`Accepted`](crate::context::Elicitation::Accepted) with the user's input,
    /// [`Declined`](crate::context::Elicitation::Declined) or
    /// [`Cancelled`](crate::context::Elicitation::Cancelled). A
    /// [`ClientUnavailable`](crate::spec::ToolErrorKind::ClientUnavailable)
    /// error when there is no such client. `tool_runtime::context::Elicit` asks for
    /// a Rust type instead, with the type's schema, and reads the answer
    /// as that type.
    pub async fn elicit_with_schema(
        &self,
        message: impl Into<String>,
        requested_schema: Value,
    ) -> Result<client::Elicitation<Value>, ToolError> {
        self.elicit_request(client::ElicitationRequest::new(message, requested_schema))
            .await
    }

    /// Asks the calling client's user for input as
    /// [`elicit_with_schema`](Self::elicit_with_schema) does, with the
    /// request made by the tool (a name for it, for one).
    pub async fn elicit_request(
        &self,
        request: client::ElicitationRequest,
    ) -> Result<client::Elicitation<Value>, ToolError> {
        match &self.client {
            Some(client) => client.elicit(request).await,
            None => Err(client::no_client("elicitation")),
        }
    }

    /// Asks the calling client for its roots (`roots/list` over MCP): the
    /// directories and files it lets the server work in.
    ///
    /// A [`ClientUnavailable`](crate::spec::ToolErrorKind::ClientUnavailable)
    /// error when there is no such client (the call did not come through
    /// MCP, or the client lacks the `roots` capability).
    pub async fn roots(&self) -> Result<Vec<client::Root>, ToolError> {
        match &self.client {
            Some(client) => client.roots().await,
            None => Err(client::no_client("roots")),
        }
    }

    pub(crate) fn for_call(&self, call: CallParts) -> Self {
        let CallParts {
            id,
            name,
            input,
            config,
            sink,
            registry_state,
        } = call;
        Self {
            shared: Arc::clone(&self.shared),
            call: Some(CallInfo {
                id,
                name,
                input,
                config,
                sink,
                registry_state: registry_state
                    .filter(|state| !state.is_empty())
                    .map(Arc::clone),
            }),
            cancel: self.call_token(),
            own: Some(OnceLock::new()),
            limit: None,
            client: self.client.clone(),
        }
    }

    /// The context handed to a tool that reads none
    /// ([`Tool::takes_context`](crate::Tool::takes_context) is false): empty,
    /// shared by all such calls, never cancelled.
    pub(crate) fn unused() -> &'static Self {
        static UNUSED: std::sync::LazyLock<ToolContext> =
            std::sync::LazyLock::new(ToolContext::new);
        &UNUSED
    }

    /// The token a call made with this context answers to: the caller's
    /// own, shared. A call holds it to check and wait on, and the context of
    /// a call is made with it.
    pub(crate) fn call_token(&self) -> Arc<Cancel> {
        Arc::clone(self.token())
    }

    /// Takes the tool use id back out of a call's context once the call is
    /// over, so the result can carry it without a copy.
    pub(crate) fn take_tool_use_id(&mut self) -> String {
        self.call
            .as_mut()
            .map(|call| std::mem::take(&mut call.id))
            .unwrap_or_default()
    }

    /// Gives this call a time limit starting now.
    pub(crate) fn set_limit(&mut self, timeout: Duration) {
        const CENTURY: Duration = Duration::from_secs(100 * 365 * 86_400);
        let now = tokio::time::Instant::now();
        // A limit past what an Instant can hold is a century away in practice.
        let deadline = now.checked_add(timeout).unwrap_or_else(|| now + CENTURY);
        self.limit = Some(Limit { timeout, deadline });
    }

    /// The configuration of the tool being served, when it has one.
    pub fn config(&self) -> Option<&crate::spec::config::ConfigValue> {
        self.call.as_ref().and_then(|call| call.config.as_ref())
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("tool_use_id", &self.tool_use_id())
            .field("tool_name", &self.tool_name())
            .field("caller", &self.shared.caller)
            .field("state", &self.shared.state)
            .field("extensions", &self.shared.extensions.len())
            .field("app_state", &self.shared.app_state.len())
            .field("cancelled", &self.is_cancelled())
            .field("timeout", &self.timeout())
            .finish()
    }
}

/// A value a tool can receive by declaring a parameter of its type, supplied
/// by the runtime instead of the model (like an axum extractor).
///
/// `#[tool]` injects parameters of the runtime's injectable types by name
/// (`ToolContext`, `Progress`, and the wrapper types [`State<T>`],
/// [`Extension<T>`](crate::context::Extension), `Config<T>`) and any other type
/// whose parameter is marked `#[tool(inject)]`. Supporting a new type is
/// one implementation of this trait; the macro calls it generically.
///
/// Returning `Err` ends the call with that error result, so a value that is
/// missing is reported to the model instead of panicking.
///
/// ```
/// use tool_runtime::{tool, FromToolContext, ToolContext, ToolError, spec::ToolErrorKind};
///
/// /// The caller's locale, from the invocation state.
/// struct Locale(String);
///
/// impl FromToolContext<'_> for Locale {
///     fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
///         ctx.state()
///             .get("locale")
///             .and_then(|v| v.as_str())
///             .map(|s| Locale(s.to_owned()))
///             .ok_or_else(|| ToolError::with_kind(ToolErrorKind::MissingContext, "no locale set"))
///     }
/// }
///
/// /// Greets the user in their locale.
/// #[tool]
/// fn greet(#[tool(inject)] locale: Locale) -> String {
///     format!("hello ({})", locale.0)
/// }
/// # assert_eq!(GreetTool::SPEC.params.len(), 0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a tool",
    label = "`{Self}` does not implement `FromToolContext`",
    note = "the runtime injects `ToolContext`, `&ToolContext`, `State<T>`, `Extension<T>`, `Config<T>`, `Progress`, `CancellationToken`, and `Option<T>` of any of these",
    note = "implement `tool_runtime::FromToolContext` for `{Self}` to make it injectable, or drop #[tool(inject)] to have the model supply it as an argument"
)]
pub trait FromToolContext<'a>: Sized {
    /// Takes the value from the context of the call being served.
    fn from_tool_context(ctx: &'a ToolContext) -> Result<Self, ToolError>;
}

impl<'a> FromToolContext<'a> for &'a ToolContext {
    fn from_tool_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(ctx)
    }
}

impl FromToolContext<'_> for ToolContext {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.clone())
    }
}
