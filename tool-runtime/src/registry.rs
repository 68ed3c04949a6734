//! The [`Registry`]: the set of tools an agent offers, and the agent path
//! that invokes them.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

use futures_util::FutureExt;
use serde_json::Value;

use crate::config::ConfigValue;
use crate::context::{CallParts, ToolContext};
use crate::names::{Aliases, Allowlist};
use crate::tool::Tool;
use crate::tool::error::{ToolError, ToolErrorKind};
use crate::tool::result::{ToolOutput, ToolResult, ToolUse};
use crate::tool::spec::{SourceLocation, ToolSpec};

/// The link-time registration `#[tool]` emits for each tool.
#[doc(hidden)]
pub struct Registration {
    tool: &'static dyn Tool,
}

impl Registration {
    #[doc(hidden)]
    pub const fn new(tool: &'static dyn Tool) -> Self {
        Self { tool }
    }
}

inventory::collect!(Registration);

/// The hasher of the name index: foldhash with a fixed seed, several times
/// cheaper than the default SipHash for names of a few dozen bytes. The
/// keys are the registry's own tool names, fixed at build time; a caller
/// only looks names up, which cannot lengthen a bucket's chain, so a
/// randomly keyed hash buys nothing here.
type NameHasher = foldhash::fast::FixedState;

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

/// A set of tools with unique names, and the way to call them.
///
/// [`Registry::global`] holds every `#[tool]` linked into the program;
/// [`Registry::builder`] makes one from chosen tools. Tools iterate in name
/// order.
///
/// ```
/// use tool_runtime::{tool, Registry, ToolContext, ToolUse};
/// use serde_json::json;
///
/// /// Repeats a word.
/// #[tool]
/// fn echo(
///     /// The word to repeat
///     word: String,
///     /// How many times
///     #[tool(default = 2)]
///     times: usize,
/// ) -> String {
///     word.repeat(times)
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder().tool(EchoTool).build().unwrap();
/// let ctx = ToolContext::new();
///
/// let ok = registry.invoke(ToolUse::new("1", "echo", json!({"word": "ab"})), &ctx).await;
/// assert_eq!(ok.text_content(), "abab");
///
/// let bad = registry.invoke(ToolUse::new("2", "echo", json!({"wrd": "ab"})), &ctx).await;
/// assert!(bad.is_error());
/// assert_eq!(bad.text_content(), r#"invalid arguments for echo: wrd: unknown field, did you mean "word"?"#);
/// # });
/// ```
#[derive(Clone)]
pub struct Registry {
    tools: Vec<ToolRef>,
    /// For each tool, whether a call of it needs nothing of its own: no
    /// context (see [`Tool::takes_context`]), no approval, no time limit,
    /// no blocking thread. Known when the tools are; what the registry's
    /// settings add is checked per call.
    plain: Vec<bool>,
    index: HashMap<&'static str, usize, NameHasher>,
    aliases: Aliases,
    allowlist: Option<Allowlist>,
    configs: HashMap<&'static str, ConfigValue>,
    pub(crate) settings: Arc<crate::invoke::Settings>,
    /// The strict switch and the cached provider renderings.
    pub(crate) providers: Arc<crate::providers::ProviderState>,
}

static GLOBAL: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();
static GLOBAL_EXCLUDED: OnceLock<Vec<RegistryProblem>> = OnceLock::new();

/// Builds the global registry: every linked tool, less those whose
/// configuration cannot be resolved from defaults and the environment.
fn build_global() -> Result<Registry, RegistryError> {
    let linked: Vec<ToolRef> = inventory::iter::<Registration>
        .into_iter()
        .map(|registration| ToolRef::Static(registration.tool))
        .collect();
    let mut registry = Registry::from_tools(linked)?;
    if registry.specs().all(|spec| spec.config.is_none()) {
        return Ok(registry);
    }
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(key, _)| key.starts_with("TOOL_"))
        .collect();
    let mut excluded = Vec::new();
    loop {
        let sources = crate::config::Sources {
            code: Vec::new(),
            file: Vec::new(),
            env: env.clone(),
        };
        match crate::config::resolve(&registry, sources) {
            Ok(configs) => {
                registry.configs = configs;
                break;
            }
            Err(problems) => {
                let bad: Vec<String> = problems
                    .iter()
                    .filter_map(|problem| match problem {
                        RegistryProblem::InvalidConfig { tool, .. } => Some(tool.clone()),
                        _ => None,
                    })
                    .collect();
                if bad.is_empty() {
                    return Err(RegistryError { problems });
                }
                excluded.extend(problems);
                let kept = registry
                    .tools
                    .iter()
                    .filter(|tool| !bad.iter().any(|name| name == tool.spec().name))
                    .cloned()
                    .collect();
                registry = Registry::from_tools(kept)?;
            }
        }
    }
    let _ = GLOBAL_EXCLUDED.set(excluded);
    Ok(registry)
}

/// What [`Registry::global`] found; see [`Registry::global_report`].
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalReport {
    /// How many `#[tool]`s are linked into the program.
    pub linked: usize,
    /// How many are in the global registry.
    pub registered: usize,
    /// Why the others were left out.
    pub excluded: Vec<RegistryProblem>,
}

impl Registry {
    /// Every `#[tool]` linked into this program, built on first use.
    ///
    /// A tool defined in a library crate is linked only when the program
    /// uses something from that crate; `use my_tools as _;` is enough.
    ///
    /// # Panics
    ///
    /// When two linked tools share a name; the message names both
    /// definitions. [`Registry::try_global`] returns that error instead.
    pub fn global() -> &'static Registry {
        match Self::try_global() {
            Ok(registry) => registry,
            Err(error) => panic!("{error}"),
        }
    }

    /// Every `#[tool]` linked into this program, or the error that two of
    /// them share a name (or an alias).
    ///
    /// Tools that declare a configuration get it from their defaults and the
    /// environment (see [`crate::config`]); a tool whose configuration is
    /// invalid or missing is left out, and [`Registry::global_report`] says
    /// which and why. Build a registry with [`Registry::builder`] to make
    /// that an error instead, or to configure tools in code.
    pub fn try_global() -> Result<&'static Registry, &'static RegistryError> {
        GLOBAL.get_or_init(build_global).as_ref()
    }

    /// What [`Registry::global`] found: how many tools were linked, and any
    /// left out because their configuration could not be resolved. A crate
    /// of tools that the program never refers to is not linked at all (see
    /// `docs/registries.md`), so check `linked` at start-up when it matters.
    pub fn global_report() -> GlobalReport {
        let linked = inventory::iter::<Registration>.into_iter().count();
        match Self::try_global() {
            Ok(registry) => GlobalReport {
                linked,
                registered: registry.len(),
                excluded: GLOBAL_EXCLUDED.get().cloned().unwrap_or_default(),
            },
            Err(error) => GlobalReport {
                linked,
                registered: 0,
                excluded: error.problems.clone(),
            },
        }
    }

    /// The spec of every `#[tool]` linked into this program, in link order,
    /// including any that [`Registry::global`] left out; a tool left out
    /// because of its configuration can still be inspected here.
    pub fn linked_specs() -> impl Iterator<Item = &'static ToolSpec> {
        inventory::iter::<Registration>
            .into_iter()
            .map(|registration| registration.tool.spec())
    }

    /// A builder for a registry of chosen tools.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    fn from_tools(mut tools: Vec<ToolRef>) -> Result<Self, RegistryError> {
        tools.sort_by(|a, b| {
            let (a, b) = (a.spec(), b.spec());
            (a.name, a.location.file, a.location.line).cmp(&(
                b.name,
                b.location.file,
                b.location.line,
            ))
        });
        // The same definition added twice (say, by name and by value) is one tool.
        tools.dedup_by(|a, b| {
            a.spec().name == b.spec().name && a.spec().location == b.spec().location
        });
        let mut problems = Vec::new();
        for pair in tools.windows(2) {
            let (first, second) = (pair[0].spec(), pair[1].spec());
            if first.name == second.name {
                problems.push(RegistryProblem::DuplicateName {
                    name: first.name,
                    first: first.location,
                    second: second.location,
                });
            }
        }
        problems.extend(strict_problems(tools.iter().map(|tool| tool.spec()), false));
        if !problems.is_empty() {
            return Err(RegistryError { problems });
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (tool.spec().name, i))
            .collect();
        let names: Vec<&'static str> = tools.iter().map(|t| t.spec().name).collect();
        let declared = tools.iter().enumerate().flat_map(|(i, tool)| {
            tool.spec()
                .aliases
                .iter()
                .map(move |alias| (i, (*alias).to_owned()))
        });
        let (aliases, collisions) = Aliases::build(&names, declared);
        if !collisions.is_empty() {
            return Err(RegistryError {
                problems: collisions
                    .into_iter()
                    .map(|(name, first, second)| RegistryProblem::NameCollision {
                        name,
                        first,
                        second,
                    })
                    .collect(),
            });
        }
        let plain = tools
            .iter()
            .map(|tool| {
                !tool.takes_context() && !crate::invoke::Settings::governs_tool(tool.spec())
            })
            .collect();
        Ok(Self {
            tools,
            plain,
            index,
            aliases,
            allowlist: None,
            configs: HashMap::new(),
            settings: Arc::default(),
            providers: Arc::default(),
        })
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.index.get(name).map(|&i| &*self.tools[i])
    }

    /// The tool with the name or alias `name`.
    pub fn resolve(&self, name: &str) -> Option<&dyn Tool> {
        self.position(name).map(|i| &*self.tools[i])
    }

    /// Where the tool with the name or alias `name` is held.
    #[inline]
    fn position(&self, name: &str) -> Option<usize> {
        self.index
            .get(name)
            .copied()
            .or_else(|| self.aliases.get(name))
    }

    /// The tool with the name or alias `name`, as a handle a call can own,
    /// and whether a call of it needs nothing of its own: no context, no
    /// policy, no limit. (Found by position: tools are often zero-sized, so
    /// their addresses cannot tell them apart.)
    #[inline]
    pub(crate) fn tool_for_call(&self, name: &str) -> Option<(ToolRef, bool)> {
        let i = self.position(name)?;
        let plain = self.plain[i] && !self.settings.governs_every_call();
        Some((self.tools[i].clone(), plain))
    }

    /// Every alias and the name of the tool it stands for, in alias order.
    pub fn aliases(&self) -> Vec<(&str, &'static str)> {
        let mut aliases: Vec<(&str, &'static str)> = self
            .aliases
            .iter()
            .map(|(alias, i)| (alias, self.tools[i].spec().name))
            .collect();
        aliases.sort_unstable();
        aliases
    }

    /// The validated configuration of the tool named `name`, if it has one.
    pub fn config(&self, name: &str) -> Option<&ConfigValue> {
        self.configs.get(name)
    }

    /// Whether a tool named `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The tools, in name order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &dyn Tool> + '_ {
        self.tools.iter().map(|tool| &**tool)
    }

    /// The tools' specs, in name order.
    pub fn specs(&self) -> impl ExactSizeIterator<Item = &ToolSpec> + '_ {
        self.tools.iter().map(|tool| tool.spec())
    }

    /// The tools' names, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.tools.iter().map(|tool| tool.spec().name)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Whether the registry was built with
    /// [`strict(true)`](RegistryBuilder::strict): OpenAI renderings then
    /// put every tool in strict mode.
    pub fn is_strict(&self) -> bool {
        self.providers.strict
    }

    /// Runs one tool use and returns its result: the agent path.
    ///
    /// This never panics and never fails: an unknown tool, invalid
    /// arguments, an `Err` from the tool and a panic inside it all become an
    /// error [`ToolResult`] whose text tells the model what went wrong. The
    /// registry is unaffected by a panicking tool and keeps serving.
    ///
    /// The registry's limits and policies apply: the tool's time limit,
    /// cancellation through the context's token, the
    /// [`enabled_when`](RegistryBuilder::enabled_when) predicate, approval
    /// for tools that need it, and [`ErrorDetail`](crate::ErrorDetail).
    /// Each ends the call with an error result of its own
    /// [kind](crate::ToolErrorKind). Every call runs in a `tool_call`
    /// tracing span (fields `tool`, `tool_use_id`, `status`, `duration_ms`).
    /// To watch a call as it runs, use [`stream`](Self::stream); for its
    /// record, [`invoke_recorded`](Self::invoke_recorded).
    ///
    /// The returned future owns what it needs (it borrows neither the
    /// registry nor `ctx`), so it can be spawned as it is.
    pub fn invoke(
        &self,
        tool_use: ToolUse,
        ctx: &ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        crate::invoke::call(self, tool_use, ctx, None)
    }

    /// Calls the tool named `name` directly and returns its plain value: the
    /// direct path. Errors, including an unknown name, are returned as `Err`;
    /// a panic inside the tool is caught and returned as an `Err` too.
    pub async fn call_json(
        &self,
        name: &str,
        input: Value,
        ctx: &ToolContext,
    ) -> Result<Value, ToolError> {
        let Some(tool) = self.resolve(name) else {
            return Err(self.unknown_tool(name, ctx));
        };
        if !tool.takes_context() {
            return run_guarded(tool, &input, ToolContext::unused())
                .await?
                .into_value();
        }
        let call_ctx = self.call_context(ctx, String::new(), tool, input, None);
        run_guarded(tool, call_ctx.input(), &call_ctx)
            .await?
            .into_value()
    }

    /// The context of one call: the caller's, narrowed to the tool use, with
    /// the tool's configuration and where its reports go.
    #[inline]
    pub(crate) fn call_context(
        &self,
        ctx: &ToolContext,
        id: String,
        tool: &dyn Tool,
        input: Value,
        sink: Option<Arc<crate::events::CallSink>>,
    ) -> ToolContext {
        let spec = tool.spec();
        let config = match spec.config {
            Some(_) => self.configs.get(spec.name).cloned(),
            None => None,
        };
        ctx.for_call(CallParts {
            id,
            name: spec.name,
            input,
            config,
            sink,
            registry_state: Some(&self.settings.state),
        })
    }

    /// Whether a model calling with `ctx` may see the tool: inside the
    /// allowlist (by name or alias) and enabled for `ctx`. A panicking
    /// [`enabled_when`](RegistryBuilder::enabled_when) predicate hides it.
    fn offered(&self, spec: &ToolSpec, ctx: &ToolContext) -> bool {
        let allowed = self.allowlist.as_ref().is_none_or(|allow| {
            allow.allows(spec.name) || spec.aliases.iter().any(|alias| allow.allows(alias))
        });
        allowed
            && self.settings.enabled.as_ref().is_none_or(|enabled| {
                std::panic::catch_unwind(AssertUnwindSafe(|| enabled(spec, ctx))).unwrap_or(false)
            })
    }

    /// The error for a call to a name no tool has, or one outside the
    /// allowlist. Its suggestions and list name only the tools the caller
    /// may see: allowed, and enabled for `ctx`. Built only on that path.
    pub(crate) fn unknown_tool(&self, name: &str, ctx: &ToolContext) -> ToolError {
        const SHOWN: usize = 20;
        let offered: Vec<&'static str> = self
            .tools
            .iter()
            .map(|tool| tool.spec())
            .filter(|spec| self.offered(spec, ctx))
            .map(|spec| spec.name)
            .collect();
        let listed = |more: bool| {
            let mut list = offered[..offered.len().min(SHOWN)].join(", ");
            if more && offered.len() > SHOWN {
                list.push_str(&format!(" and {} more", offered.len() - SHOWN));
            }
            list
        };
        // The name came from the model: quoted back escaped and cut short.
        let shown = crate::quote::name(name);
        if self
            .allowlist
            .as_ref()
            .is_some_and(|allow| !allow.allows(name))
        {
            return ToolError::with_kind(
                ToolErrorKind::NotAllowed,
                format!(
                    "tool \"{shown}\" is not allowed here; the tools you may call are: {}",
                    listed(false)
                ),
            );
        }
        let mut message = format!("unknown tool \"{shown}\"");
        // A name longer than any tool's is no typo of one, and comparing
        // it would take time in proportion to its length.
        let close = (name.len() <= crate::quote::MAX_NAME)
            .then(|| crate::names::closest(name, offered.iter().copied()))
            .flatten();
        if let Some(close) = close {
            message.push_str(&format!("; did you mean \"{close}\"?"));
        }
        if offered.is_empty() {
            message.push_str("; no tools are available");
        } else {
            message.push_str(&format!("; available tools: {}", listed(true)));
        }
        ToolError::with_kind(ToolErrorKind::UnknownTool, message)
    }
}

/// A tool the registry renders strict whose strict arguments differ in shape
/// from its ordinary ones (free-form maps, values of any type): they are
/// turned back with [`from_strict_arguments`](crate::strict::from_strict_arguments)
/// before the tool decodes them.
struct StrictArguments(ToolRef);

impl Tool for StrictArguments {
    fn spec(&self) -> &ToolSpec {
        self.0.spec()
    }

    fn takes_context(&self) -> bool {
        self.0.takes_context()
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> crate::ToolFuture<'a> {
        let input =
            crate::schema::strict::from_strict_arguments(self.spec().input_schema(), input.clone());
        crate::ToolFuture::pending(async move { self.0.call(&input, ctx).await })
    }

    fn call_str<'a>(&'a self, input: &'a str, ctx: &'a ToolContext) -> crate::ToolFuture<'a> {
        match crate::tool::args::parse_text(self.spec(), input) {
            Ok(value) => {
                let input =
                    crate::schema::strict::from_strict_arguments(self.spec().input_schema(), value);
                crate::ToolFuture::pending(async move { self.0.call(&input, ctx).await })
            }
            Err(error) => crate::ToolFuture::ready(Err(error)),
        }
    }
}

/// Calls a tool, turning a panic while building or polling its future into
/// an error.
pub(crate) async fn run_guarded(
    tool: &dyn Tool,
    input: &Value,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let name = tool.spec().name;
    let future = match std::panic::catch_unwind(AssertUnwindSafe(|| tool.call(input, ctx))) {
        Ok(future) => future,
        Err(payload) => return Err(panic_error(name, payload.as_ref())),
    };
    if future.is_ready() {
        return future.await;
    }
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(payload) => Err(panic_error(name, payload.as_ref())),
    }
}

pub(crate) fn panic_error(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolError {
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

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl<'a> IntoIterator for &'a Registry {
    type Item = &'a dyn Tool;
    type IntoIter = Box<dyn Iterator<Item = &'a dyn Tool> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// Builds a [`Registry`] from chosen tools.
///
/// ```
/// use tool_runtime::{tool, Registry};
///
/// /// Says hello.
/// #[tool]
/// fn hello() -> &'static str { "hello" }
///
/// /// Says goodbye.
/// #[tool]
/// fn goodbye() -> &'static str { "goodbye" }
///
/// let registry = Registry::builder()
///     .tool(HelloTool)
///     .global_named(["goodbye"])
///     .build()
///     .unwrap();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["goodbye", "hello"]);
///
/// let error = Registry::builder().global_named(["goodby"]).build().unwrap_err();
/// assert_eq!(error.to_string(), r#"no linked tool is named "goodby"; did you mean "goodbye"?"#);
/// ```
#[derive(Default)]
pub struct RegistryBuilder {
    tools: Vec<ToolRef>,
    named: Vec<String>,
    problems: Vec<RegistryProblem>,
    allowlist: Option<Allowlist>,
    extra_aliases: Vec<(String, String)>,
    code_configs: Vec<(String, Value)>,
    file_configs: Vec<(String, Value)>,
    ignore_env: bool,
    pub(crate) settings: crate::invoke::Settings,
    /// Whether every tool is strict (see `RegistryBuilder::strict`).
    pub(crate) strict: bool,
}

impl RegistryBuilder {
    /// Adds a tool, such as the struct `#[tool]` emits (`.tool(WeatherForecastTool)`).
    pub fn tool<T: Tool>(mut self, tool: T) -> Self {
        self.tools.push(ToolRef::new(tool));
        self
    }

    /// Configures the tool named `name` (see [`crate::config`] for how this
    /// combines with a registry file and the environment). The configuration
    /// is validated at [`build`](Self::build); every bad field is reported.
    pub fn configure(mut self, name: impl Into<String>, config: Value) -> Self {
        self.code_configs.push((name.into(), config));
        self
    }

    /// Configures a tool from a registry file; overrides [`configure`](Self::configure).
    pub(crate) fn configure_from_file(mut self, name: impl Into<String>, config: Value) -> Self {
        self.file_configs.push((name.into(), config));
        self
    }

    /// Whether to read configuration from `TOOL_<NAME>_<FIELD>` environment
    /// variables (the default) or not.
    pub fn config_from_env(mut self, read: bool) -> Self {
        self.ignore_env = !read;
        self
    }

    /// Restricts the registry to tools whose names match these entries
    /// (exact names or `prefix*` patterns). Tools outside are neither listed
    /// nor run; a call to one gets an error result saying it is not allowed.
    /// Called more than once, the entries add up.
    pub fn allow<I, S>(mut self, entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        match &mut self.allowlist {
            Some(allowlist) => allowlist.extend(entries),
            None => self.allowlist = Some(Allowlist::new(entries)),
        }
        self
    }

    /// Adds another name for the tool named `tool`, besides those its
    /// `#[tool(alias = ...)]` declares.
    pub fn alias(mut self, alias: impl Into<String>, tool: impl Into<String>) -> Self {
        self.extra_aliases.push((alias.into(), tool.into()));
        self
    }

    /// Adds every tool of a `#[toolset]` instance.
    pub fn toolset<T: crate::tool::Toolset>(mut self, instance: std::sync::Arc<T>) -> Self {
        self.tools
            .extend(instance.tools().into_iter().map(ToolRef::Shared));
        self
    }

    /// Adds a shared tool.
    pub fn shared(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(ToolRef::Shared(tool));
        self
    }

    /// Adds every linked `#[tool]` whose spec passes `filter`.
    pub fn global_filtered(mut self, filter: impl Fn(&ToolSpec) -> bool) -> Self {
        for registration in inventory::iter::<Registration> {
            if filter(registration.tool.spec()) {
                self.tools.push(ToolRef::Static(registration.tool));
            }
        }
        self
    }

    /// Adds every linked `#[tool]`.
    pub fn global(self) -> Self {
        self.global_filtered(|_| true)
    }

    /// Adds the linked `#[tool]`s with these names; a name no linked tool
    /// has is an error at [`build`](Self::build).
    pub fn global_named<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.named.extend(names.into_iter().map(Into::into));
        self
    }

    /// Whether every tool is rendered in OpenAI strict mode, not only those
    /// marked `#[tool(strict)]` (off by default).
    ///
    /// A tool whose schema cannot be expressed strictly is then an error at
    /// [`build`](Self::build):
    /// [`RegistryProblem::NotStrict`](crate::RegistryProblem::NotStrict)
    /// names it and lists every violation.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The registry, or every problem found: names no linked tool has, and
    /// names shared by two different tools.
    pub fn build(mut self) -> Result<Registry, RegistryError> {
        if !self.named.is_empty() {
            let linked: Vec<&'static dyn Tool> = inventory::iter::<Registration>
                .into_iter()
                .map(|r| r.tool)
                .collect();
            for name in std::mem::take(&mut self.named) {
                let mut found = false;
                for tool in linked.iter().filter(|t| t.spec().name == name) {
                    self.tools.push(ToolRef::Static(*tool));
                    found = true;
                }
                if !found {
                    let suggestion =
                        crate::names::closest(&name, linked.iter().map(|t| t.spec().name));
                    self.problems
                        .push(RegistryProblem::UnknownName { name, suggestion });
                }
            }
        }
        if let Some(allowlist) = &self.allowlist {
            self.tools.retain(|tool| {
                let spec = tool.spec();
                allowlist.allows(spec.name) || spec.aliases.iter().any(|a| allowlist.allows(a))
            });
        }
        let built = Registry::from_tools(self.tools);
        let mut problems = self.problems;
        let mut registry = match built {
            Ok(registry) => registry,
            Err(error) => {
                problems.extend(error.problems);
                return Err(RegistryError { problems });
            }
        };
        registry.allowlist = self.allowlist;
        registry.settings = Arc::new(self.settings);
        registry.providers = Arc::new(crate::providers::ProviderState::new(self.strict));
        if self.strict {
            let unmarked = registry.specs().filter(|spec| !spec.strict);
            problems.extend(strict_problems(unmarked, true));
        }
        for tool in &mut registry.tools {
            let spec = tool.spec();
            if (self.strict || spec.strict)
                && crate::schema::strict::arguments_differ(spec.input_schema())
            {
                *tool = ToolRef::Shared(Arc::new(StrictArguments(tool.clone())));
            }
        }
        if !self.extra_aliases.is_empty() {
            let names: Vec<&'static str> = registry.names().collect();
            let mut pairs: Vec<(usize, String)> = registry
                .aliases
                .iter()
                .map(|(alias, i)| (i, alias.to_owned()))
                .collect();
            for (alias, tool) in self.extra_aliases {
                match registry.index.get(tool.as_str()) {
                    Some(&i) => pairs.push((i, alias)),
                    None => problems.push(RegistryProblem::UnknownName {
                        suggestion: crate::names::closest(&tool, names.iter().copied()),
                        name: tool,
                    }),
                }
            }
            let (aliases, collisions) = Aliases::build(&names, pairs);
            registry.aliases = aliases;
            problems.extend(collisions.into_iter().map(|(name, first, second)| {
                RegistryProblem::NameCollision {
                    name,
                    first,
                    second,
                }
            }));
        }
        let env: Vec<(String, String)> = if self.ignore_env {
            Vec::new()
        } else {
            std::env::vars()
                .filter(|(key, _)| key.starts_with("TOOL_"))
                .collect()
        };
        let sources = crate::config::Sources {
            code: self.code_configs,
            file: self.file_configs,
            env,
        };
        match crate::config::resolve(&registry, sources) {
            Ok(configs) => registry.configs = configs,
            Err(more) => problems.extend(more),
        }
        if problems.is_empty() {
            Ok(registry)
        } else {
            Err(RegistryError { problems })
        }
    }
}

/// The strict-mode problems of the tools among `specs` that ask for strict
/// mode (or of all of them, with `all`).
fn strict_problems<'a>(
    specs: impl IntoIterator<Item = &'a ToolSpec>,
    all: bool,
) -> Vec<RegistryProblem> {
    specs
        .into_iter()
        .filter(|spec| all || spec.strict)
        .filter_map(
            |spec| match crate::schema::strict::strict_input_schema(spec) {
                Ok(_) => None,
                Err(violations) => Some(RegistryProblem::NotStrict {
                    name: spec.name,
                    violations,
                }),
            },
        )
        .collect()
}

/// Why a registry could not be built: every problem found.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryError {
    problems: Vec<RegistryProblem>,
}

impl RegistryError {
    /// Each problem found.
    pub fn problems(&self) -> &[RegistryProblem] {
        &self.problems
    }
}

/// One reason a registry could not be built.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RegistryProblem {
    /// Two different tools have the same name.
    DuplicateName {
        /// The shared name.
        name: &'static str,
        /// Where one was defined.
        first: SourceLocation,
        /// Where the other was defined.
        second: SourceLocation,
    },
    /// A name is used twice: an alias equal to a tool's name, or one alias
    /// given to two tools.
    NameCollision {
        /// The name used twice.
        name: String,
        /// Its first owner (`tool "x"` or `alias "y" of tool "x"`).
        first: String,
        /// Its second owner.
        second: String,
    },
    /// A tool's configuration is invalid, or missing when the tool needs one.
    InvalidConfig {
        /// The tool.
        tool: String,
        /// Every problem, each naming its field.
        problems: Vec<crate::ArgError>,
        /// Whether no configuration was given at all.
        missing: bool,
    },
    /// A configuration was given for a tool that takes none, or for no tool.
    UnexpectedConfig {
        /// The name the configuration was given for.
        tool: String,
        /// Why it cannot apply.
        reason: String,
    },
    /// A tool asks for OpenAI strict mode (`#[tool(strict)]`, or a registry
    /// built with `strict(true)`), but its schema cannot be expressed
    /// strictly (a free-form map parameter, say).
    NotStrict {
        /// The tool.
        name: &'static str,
        /// Every rule its schema breaks after conversion, with its JSON
        /// pointer.
        violations: Vec<crate::schema::strict::StrictViolation>,
    },
    /// A tool was asked for by a name no linked tool has.
    UnknownName {
        /// The name asked for.
        name: String,
        /// The closest linked name, if any is close.
        suggestion: Option<&'static str>,
    },
}

impl fmt::Display for RegistryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryProblem::DuplicateName {
                name,
                first,
                second,
            } => write!(
                f,
                "two tools are named \"{name}\": one defined in {first}, one in {second}; \
                 rename one with #[tool(name = \"...\")]"
            ),
            RegistryProblem::NameCollision {
                name,
                first,
                second,
            } => write!(
                f,
                "the name \"{name}\" is used twice: by the {first} and by the {second}; \
                 remove or rename one"
            ),
            RegistryProblem::InvalidConfig {
                tool,
                problems,
                missing,
            } => {
                if *missing {
                    write!(f, "tool \"{tool}\" needs a configuration: ")?;
                } else {
                    write!(f, "invalid configuration for tool \"{tool}\": ")?;
                }
                for (i, problem) in problems.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{problem}")?;
                }
                Ok(())
            }
            RegistryProblem::UnexpectedConfig { tool, reason } => {
                write!(f, "configuration for \"{tool}\" cannot apply: {reason}")
            }
            RegistryProblem::NotStrict { name, violations } => {
                write!(
                    f,
                    "tool \"{name}\" asks for strict mode, but its schema cannot be expressed strictly: "
                )?;
                for (i, violation) in violations.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{violation}")?;
                }
                Ok(())
            }
            RegistryProblem::UnknownName { name, suggestion } => {
                write!(f, "no linked tool is named \"{name}\"")?;
                if let Some(suggestion) = suggestion {
                    write!(f, "; did you mean \"{suggestion}\"?")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RegistryError {}
