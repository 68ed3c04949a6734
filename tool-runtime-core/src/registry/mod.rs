//! The [`Registry`]: the set of tools an agent offers. Its whole API is in
//! this file; [`RegistryBuilder`] (in `builder.rs`) makes one. Running calls
//! is the invoke module's: the methods that start them here hand over to it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

mod builder;
pub(crate) mod config;
mod error;
#[cfg(feature = "live")]
mod live;
#[cfg(feature = "files")]
pub mod manifest;

pub use builder::RegistryBuilder;
pub use error::{RegistryError, RegistryProblem};

use crate::context::{CallParts, ToolContext};
use crate::events::ToolCallStream;
use crate::events::record::ToolCallRecord;
use crate::invoke::Catalog;
use crate::invoke::policy::Settings;
use crate::names::{Aliases, Allowlist};
use crate::providers::{Provider, Renderings};
use crate::spec::config::ConfigValue;
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolRef};
#[cfg(feature = "search")]
use crate::{
    providers::Offer,
    search::{Deferral, SearchTool},
};

#[cfg(feature = "live")]
pub use live::LiveRegistry;

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
    index: HashMap<Cow<'static, str>, usize, NameHasher>,
    aliases: Aliases,
    allowlist: Option<Allowlist>,
    configs: HashMap<Cow<'static, str>, ConfigValue>,
    settings: Arc<Settings>,
    /// Whether every tool is rendered strict ([`RegistryBuilder::strict`]).
    strict: bool,
    /// The provider renderings, made on first use.
    renderings: Arc<Renderings>,
    /// The tools left out for their configuration
    /// ([`RegistryBuilder::leave_out_unconfigured`]).
    left_out: Vec<RegistryProblem>,
    /// Which tools are deferred ([`RegistryBuilder::defer`]).
    #[cfg(feature = "search")]
    deferral: Deferral,
    /// The registry's `search_tools`, when it has one
    /// ([`RegistryBuilder::tool_search`]); also among `tools`.
    #[cfg(feature = "search")]
    search: Option<Arc<SearchTool>>,
}

static GLOBAL: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();

/// Builds the global registry: every linked tool, less those whose
/// configuration cannot be resolved from defaults and the environment.
fn build_global() -> Result<Registry, RegistryError> {
    Registry::builder()
        .global()
        .leave_out_unconfigured(true)
        .build()
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
                excluded: registry.left_out.clone(),
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
            (&a.name, a.location.file, a.location.line).cmp(&(
                &b.name,
                b.location.file,
                b.location.line,
            ))
        });
        // The same definition added twice (say, by name and by value) is one
        // tool; any other two tools of one name are an error below, made at
        // one line (a loop over a catalogue) or not.
        tools.dedup_by(|a, b| same_definition(a, b));
        let mut problems = Vec::new();
        for pair in tools.windows(2) {
            let (first, second) = (pair[0].spec(), pair[1].spec());
            if first.name == second.name {
                problems.push(RegistryProblem::DuplicateName {
                    name: first.name.to_string(),
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
            .map(|(i, tool)| (tool.spec().name.clone(), i))
            .collect();
        let names: Vec<&str> = tools.iter().map(|t| &*t.spec().name).collect();
        let declared = tools.iter().enumerate().flat_map(|(i, tool)| {
            tool.spec()
                .aliases
                .iter()
                .map(move |alias| (i, alias.to_string()))
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
            .map(|tool| !tool.takes_context() && !Settings::governs_tool(tool.spec()))
            .collect();
        Ok(Self {
            tools,
            plain,
            index,
            aliases,
            allowlist: None,
            configs: HashMap::new(),
            settings: Arc::default(),
            strict: false,
            renderings: Arc::default(),
            left_out: Vec::new(),
            #[cfg(feature = "search")]
            deferral: Deferral::default(),
            #[cfg(feature = "search")]
            search: None,
        })
    }

    /// This registry (fresh from [`from_tools`](Self::from_tools)) with a
    /// `search_tools` over its other tools.
    #[cfg(feature = "search")]
    pub(super) fn with_search_tool(self) -> Result<Self, RegistryError> {
        let search = Arc::new(SearchTool::new(self.specs()));
        let mut tools = self.tools;
        tools.push(ToolRef::Shared(search.clone()));
        let mut registry = Registry::from_tools(tools)?;
        registry.search = Some(search);
        Ok(registry)
    }

    /// Adds aliases given in code (`alias`, `tool`) to those the specs
    /// declare, returning every alias naming no tool and every collision.
    pub(super) fn add_aliases(&mut self, extra: Vec<(String, String)>) -> Vec<RegistryProblem> {
        let mut problems = Vec::new();
        if extra.is_empty() {
            return problems;
        }
        let names: Vec<String> = self.names().map(str::to_owned).collect();
        let mut pairs: Vec<(usize, String)> = self
            .aliases
            .iter()
            .map(|(alias, i)| (i, alias.to_owned()))
            .collect();
        for (alias, tool) in extra {
            match self.index.get(tool.as_str()) {
                Some(&i) => pairs.push((i, alias)),
                None => problems.push(RegistryProblem::UnknownName {
                    suggestion: crate::names::closest(&tool, names.iter().map(String::as_str))
                        .map(str::to_owned),
                    name: tool,
                }),
            }
        }
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let (aliases, collisions) = Aliases::build(&names, pairs);
        self.aliases = aliases;
        problems.extend(collisions.into_iter().map(|(name, first, second)| {
            RegistryProblem::NameCollision {
                name,
                first,
                second,
            }
        }));
        problems
    }

    /// This registry with `added` tools (replacing any of the same name)
    /// and without the tools named in `removed`: the same settings,
    /// allowlist, strictness and aliases given in code, the kept tools'
    /// configurations, and fresh renderings. A new tool that declares a
    /// configuration takes it from its defaults and the environment.
    #[cfg(feature = "live")]
    pub(crate) fn with_changes(
        &self,
        added: Vec<ToolRef>,
        removed: &[&str],
    ) -> Result<Registry, RegistryError> {
        let added_names: Vec<String> = added.iter().map(|t| t.spec().name.to_string()).collect();
        let replaced =
            |name: &str| removed.contains(&name) || added_names.iter().any(|added| added == name);
        let extra: Vec<(String, String)> = self
            .aliases()
            .into_iter()
            .filter(|(alias, tool)| {
                !replaced(tool)
                    && self
                        .get(tool)
                        .is_some_and(|t| !t.spec().aliases.iter().any(|a| a == alias))
            })
            .map(|(alias, tool)| (alias.to_owned(), tool.to_owned()))
            .collect();
        let mut problems = Vec::new();
        let mut fresh = Vec::new();
        for tool in added {
            let spec = tool.spec();
            if self.strict && !spec.strict {
                problems.extend(strict_problems(std::iter::once(spec), true));
            }
            if (self.strict || spec.strict)
                && crate::schema::strict::arguments_differ(spec.input_schema())
            {
                fresh.push(ToolRef::Shared(Arc::new(builder::StrictArguments(tool))));
            } else {
                fresh.push(tool);
            }
        }
        let mut tools: Vec<ToolRef> = self
            .tools
            .iter()
            .filter(|tool| !replaced(&tool.spec().name))
            .cloned()
            .collect();
        tools.extend(fresh.iter().cloned());
        #[cfg(feature = "search")]
        if self.search.is_some() {
            // A fresh search over the changed tools replaces the old one.
            tools.retain(|tool| tool.spec().name != SearchTool::NAME);
        }
        let built = Registry::from_tools(tools);
        #[cfg(feature = "search")]
        let built = built.and_then(|registry| match self.search {
            Some(_) => registry.with_search_tool(),
            None => Ok(registry),
        });
        let mut registry = match built {
            Ok(registry) => registry,
            Err(error) => {
                problems.extend(error.problems);
                return Err(RegistryError { problems });
            }
        };
        registry.allowlist = self.allowlist.clone();
        #[cfg(feature = "search")]
        {
            registry.deferral = self.deferral.clone();
        }
        registry.settings = Arc::clone(&self.settings);
        registry.strict = self.strict;
        registry.configs = self
            .configs
            .iter()
            .filter(|(name, _)| registry.contains(name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        if fresh.iter().any(|tool| tool.spec().config.is_some()) {
            let only_new = Registry::from_tools(fresh)?;
            let sources = config::Sources {
                code: Vec::new(),
                file: Vec::new(),
                env: std::env::vars()
                    .filter(|(key, _)| key.starts_with("TOOL_"))
                    .collect(),
            };
            match config::resolve(&only_new, sources) {
                Ok(configs) => registry.configs.extend(configs),
                Err(more) => problems.extend(more),
            }
        }
        problems.extend(registry.add_aliases(extra));
        if problems.is_empty() {
            Ok(registry)
        } else {
            Err(RegistryError { problems })
        }
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

    /// Every alias and the name of the tool it stands for, in alias order.
    pub fn aliases(&self) -> Vec<(&str, &str)> {
        let mut aliases: Vec<(&str, &str)> = self
            .aliases
            .iter()
            .map(|(alias, i)| (alias, &*self.tools[i].spec().name))
            .collect();
        aliases.sort_unstable();
        aliases
    }

    /// The validated configuration of the tool named `name`, if it has one.
    pub fn config(&self, name: &str) -> Option<&ConfigValue> {
        self.configs.get(name)
    }

    /// The tools left out of this registry because their configuration
    /// could not be resolved, with why (see
    /// [`RegistryBuilder::leave_out_unconfigured`] and
    /// [`Registry::global_report`]).
    pub fn left_out(&self) -> &[RegistryProblem] {
        &self.left_out
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
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.tools.iter().map(|tool| &*tool.spec().name)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The specs of the tools enabled in `ctx` (see
    /// [`RegistryBuilder::enabled_when`]), in name order: what to offer the
    /// model for this conversation.
    pub fn specs_for<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> impl Iterator<Item = &'a ToolSpec> + 'a {
        self.specs().filter(move |spec| {
            self.settings
                .enabled
                .as_ref()
                .is_none_or(|enabled| enabled(spec, ctx))
        })
    }

    /// Whether the registry was built with
    /// [`strict(true)`](RegistryBuilder::strict): OpenAI renderings then
    /// put every tool in strict mode.
    pub fn is_strict(&self) -> bool {
        self.strict
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
    ) -> impl Future<Output = ToolResult> + Send + 'static + use<> {
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
        crate::invoke::call_json(self, name, input, ctx).await
    }

    /// Runs one tool use and reads it as it runs: a stream of the progress,
    /// trace entries and partial outputs the tool reports, ending with its
    /// result (see [`ToolCallStream`]). Everything [`invoke`](Self::invoke)
    /// guarantees holds: the result is always there, errors included.
    ///
    /// ```
    /// use tool_runtime::{tool, Registry, ToolContext, ToolEvent, ToolUse};
    /// use futures_util::StreamExt;
    /// use serde_json::json;
    ///
    /// /// Counts to three, slowly.
    /// #[tool]
    /// fn count() -> impl tool_runtime::Stream<Item = u32> {
    ///     tool_runtime::stream! {
    ///         for i in 1..=3 {
    ///             tokio::task::yield_now().await;
    ///             yield i;
    ///         }
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let registry = Registry::builder().tool(CountTool).build().unwrap();
    /// let mut events = registry.stream(ToolUse::new("1", "count", json!({})), &ToolContext::new());
    /// let mut seen = Vec::new();
    /// while let Some(event) = events.next().await {
    ///     match event {
    ///         ToolEvent::Partial { value } => seen.push(value),
    ///         ToolEvent::Result(result) => assert_eq!(result.text_content(), "3"),
    ///         _ => {}
    ///     }
    /// }
    /// assert_eq!(seen, [json!(1), json!(2), json!(3)]);
    /// assert_eq!(events.record().status.as_str(), "completed");
    /// # });
    /// ```
    pub fn stream(&self, tool_use: ToolUse, ctx: &ToolContext) -> ToolCallStream {
        crate::invoke::stream(self, tool_use, ctx)
    }

    /// Runs one tool use like [`invoke`](Self::invoke) and also returns its
    /// [`ToolCallRecord`]: status, last progress, trace, times and result.
    pub async fn invoke_recorded(
        &self,
        tool_use: ToolUse,
        ctx: &ToolContext,
    ) -> (ToolResult, ToolCallRecord) {
        crate::invoke::invoke_recorded(self, tool_use, ctx).await
    }

    /// Runs several tool uses concurrently and returns their results in the
    /// order of `tool_uses`.
    ///
    /// At most [`concurrency_limit`](RegistryBuilder::concurrency_limit)
    /// calls run at once; a finished call frees its slot at once, so a slow
    /// call holds up only itself, and a failing one spoils only its own
    /// result. The calls share the caller's task (use `blocking` tools for
    /// CPU-heavy sync work). Each call has every guarantee of
    /// [`invoke`](Self::invoke).
    pub async fn invoke_all(
        &self,
        tool_uses: impl IntoIterator<Item = ToolUse>,
        ctx: &ToolContext,
    ) -> Vec<ToolResult> {
        crate::invoke::invoke_all(self, tool_uses, ctx).await
    }

    /// Every tool's definition as the value `provider`'s request takes (see
    /// [`render_tools`](crate::providers::render_tools)), in name order.
    ///
    /// A registry that defers tools renders what to offer instead (see
    /// [`render_offered_tools`](crate::providers::render_offered_tools)):
    /// for Anthropic and the OpenAI Responses API, the provider's tool
    /// search and every tool, deferred ones flagged; for the others, the
    /// tools not deferred and `search_tools`.
    ///
    /// Rendered on first use for each provider and cached: an agent loop
    /// that sends the tools with every request pays for the schema
    /// conversions once. For OpenAI, tools are strict when marked
    /// `#[tool(strict)]` or when the registry was built with
    /// [`strict(true)`](crate::RegistryBuilder::strict).
    pub fn render(&self, provider: Provider) -> &Value {
        self.renderings.get_or_render(provider, || {
            #[cfg(feature = "search")]
            if self.search.is_some() || self.deferral.is_set() {
                let tools = self.specs().map(|spec| (spec, self.offer(spec)));
                return crate::providers::render_offered_tools_with(provider, tools, self.strict);
            }
            crate::providers::render_tools_with(provider, self.specs(), self.strict)
        })
    }

    /// Whether the tool named `name` is deferred: left out of each request
    /// until a search finds it (see [`RegistryBuilder::defer`]).
    #[cfg(feature = "search")]
    pub fn is_deferred(&self, name: &str) -> bool {
        self.deferral.defers(name) && self.contains(name)
    }

    /// The specs of the tools offered with every request where the
    /// provider has no tool search of its own: every tool not deferred,
    /// `search_tools` included, in name order. Without deferral, every
    /// tool.
    #[cfg(feature = "search")]
    pub fn offered_specs(&self) -> impl Iterator<Item = &ToolSpec> + '_ {
        self.specs()
            .filter(move |spec| !self.deferral.defers(&spec.name))
    }

    /// The registry's `search_tools`, when it has one
    /// ([`RegistryBuilder::tool_search`], or tools deferred).
    #[cfg(feature = "search")]
    pub fn search_tool(&self) -> Option<&SearchTool> {
        self.search.as_deref()
    }

    /// How the tool with this spec is offered.
    #[cfg(feature = "search")]
    fn offer(&self, spec: &ToolSpec) -> Offer {
        if self.search.is_some() && spec.name == SearchTool::NAME {
            Offer::Search
        } else if self.deferral.defers(&spec.name) {
            Offer::Deferred
        } else {
            Offer::Always
        }
    }

    /// The tool definitions for a request that also carries the deferred
    /// tools named in `loaded` (those `search_tools` found: see
    /// [`search::found_names`](crate::search::found_names)), in name
    /// order; names of other tools, or of none, are passed over.
    ///
    /// For a provider [with tool search of its
    /// own](Provider::has_tool_search) this is [`render`](Self::render)'s
    /// value: the provider loads what its search finds. Not cached.
    #[cfg(feature = "search")]
    pub fn render_loaded<S: AsRef<str>>(
        &self,
        provider: Provider,
        loaded: impl IntoIterator<Item = S>,
    ) -> Value {
        if provider.has_tool_search() || !self.deferral.is_set() {
            return self.render(provider).clone();
        }
        let loaded: Vec<S> = loaded.into_iter().collect();
        let specs = self.specs().filter(|spec| {
            !self.deferral.defers(&spec.name)
                || loaded.iter().any(|name| name.as_ref() == spec.name)
        });
        crate::providers::render_tools_with(provider, specs, self.strict)
    }

    /// The `<tools>` block for a system prompt, as [`Provider::Xml`]
    /// renders it.
    pub fn render_xml(&self) -> &str {
        self.render(Provider::Xml).as_str().unwrap_or_default()
    }

    /// The result of `call` as `provider`'s message, with the called tool's
    /// spec looked up by name (see [`render_result`](crate::providers::render_result)).
    pub fn render_result(&self, provider: Provider, call: &ToolUse, result: &ToolResult) -> Value {
        let spec = self.resolve(&call.name).map(|tool| tool.spec());
        crate::providers::render_result(provider, call, result, spec)
    }

    /// The results of several calls as what `provider` expects next in the
    /// conversation (see [`render_results`](crate::providers::render_results)).
    pub fn render_results<'a>(
        &self,
        provider: Provider,
        outcomes: impl IntoIterator<Item = (&'a ToolUse, &'a ToolResult)>,
    ) -> Value {
        crate::providers::render_results(
            provider,
            outcomes.into_iter().map(|(call, result)| {
                let spec = self.resolve(&call.name).map(|tool| tool.spec());
                (call, result, spec)
            }),
        )
    }

    /// Whether a model calling with `ctx` may see the tool: inside the
    /// allowlist (by name or alias) and enabled for `ctx`. A panicking
    /// [`enabled_when`](RegistryBuilder::enabled_when) predicate hides it.
    fn offered(&self, spec: &ToolSpec, ctx: &ToolContext) -> bool {
        let allowed = self.allowlist.as_ref().is_none_or(|allow| {
            allow.allows(&spec.name) || spec.aliases.iter().any(|alias| allow.allows(alias))
        });
        allowed
            && self.settings.enabled.as_ref().is_none_or(|enabled| {
                std::panic::catch_unwind(AssertUnwindSafe(|| enabled(spec, ctx))).unwrap_or(false)
            })
    }
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

/// Whether two tools are one definition added twice: the same value (one
/// shared tool, or one `static`), or the same `#[tool]` (a spec `#[tool]`
/// generated, of the same name and location: the struct of a `#[tool]` has
/// no size, so each value of it may be held at an address of its own, or
/// all at one).
///
/// Two tools made at run time are never one definition because they were
/// made at the same line: a loop over a catalogue makes every tool there.
fn same_definition(a: &ToolRef, b: &ToolRef) -> bool {
    let (first, second) = (a.spec(), b.spec());
    if first.name != second.name {
        return false;
    }
    let (a, b): (&dyn Tool, &dyn Tool) = (&**a, &**b);
    // Values of no size share addresses, so only sized ones are compared.
    let same_value = std::mem::size_of_val(a) != 0 && std::ptr::addr_eq(a, b);
    same_value
        || (first.is_generated() && second.is_generated() && first.location == second.location)
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
                    name: spec.name.to_string(),
                    violations,
                }),
            },
        )
        .collect()
}

/// The registry is what the agent path calls tools from.
impl Catalog for Registry {
    #[inline]
    fn settings(&self) -> &Arc<Settings> {
        &self.settings
    }

    #[inline]
    fn resolve(&self, name: &str) -> Option<&dyn Tool> {
        Registry::resolve(self, name)
    }

    /// The tool with the name or alias `name`, as a handle a call can own,
    /// and whether a call of it needs nothing of its own: no context, no
    /// policy, no limit. (Found by position: tools are often zero-sized, so
    /// their addresses cannot tell them apart.)
    #[inline]
    fn tool_for_call(&self, name: &str) -> Option<(ToolRef, bool)> {
        let i = self.position(name)?;
        let plain = self.plain[i] && !self.settings.governs_every_call();
        Some((self.tools[i].clone(), plain))
    }

    /// The context of one call: the caller's, narrowed to the tool use, with
    /// the tool's configuration and where its reports go.
    #[inline]
    fn call_context(
        &self,
        ctx: &ToolContext,
        id: String,
        tool: &dyn Tool,
        input: Value,
        sink: Option<Arc<crate::events::CallSink>>,
    ) -> ToolContext {
        let spec = tool.spec();
        let config = match spec.config {
            Some(_) => self.configs.get(&*spec.name).cloned(),
            None => None,
        };
        ctx.for_call(CallParts {
            id,
            name: spec.name.clone(),
            input,
            config,
            sink,
            registry_state: Some(&self.settings.state),
        })
    }

    /// The error for a call to a name no tool has, or one outside the
    /// allowlist. Its suggestions and list name only the tools the caller
    /// may see: allowed, and enabled for `ctx`. Built only on that path.
    fn unknown_tool(&self, name: &str, ctx: &ToolContext) -> ToolError {
        const SHOWN: usize = 20;
        let offered: Vec<&str> = self
            .tools
            .iter()
            .map(|tool| tool.spec())
            .filter(|spec| self.offered(spec, ctx))
            .map(|spec| &*spec.name)
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
