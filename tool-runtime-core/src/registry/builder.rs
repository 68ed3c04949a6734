//! [`RegistryBuilder`]: every way to choose a registry's tools, names,
//! configurations, limits and policies, in one place.

use std::borrow::Borrow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::assemble::{self, strict_problems};
use super::select::Registration;
use super::select::{IntoCatalog, Linked, Selected};
use super::{Registry, RegistryError, RegistryProblem};
use crate::context::ToolContext;
use crate::context::approval::Approver;
use crate::invoke::policy::{ErrorDetail, Settings};
use crate::names::Allowlist;
use crate::search::Deferral;
use crate::spec::tool_spec::ToolSpec;
use crate::tool::Tool;
use crate::tool::ToolRef;

/// Builds a [`Registry`] from chosen tools.
///
/// <!-- standalone_crate: merged with the other doctests, this one would link their tools too. -->
///
/// ```rust,standalone_crate
/// use tool_runtime::{tool, registry::Linked, Registry};
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
///     .linked(Linked::named(["goodbye"]))
///     .build()
///     .unwrap();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["goodbye", "hello"]);
///
/// let error = Registry::builder().linked(Linked::named(["goodby"])).build().unwrap_err();
/// assert_eq!(error.to_string(), r#"no linked tool is named "goodby"; did you mean "goodbye"?"#);
/// ```
#[derive(Default, Clone)]
pub struct RegistryBuilder {
    tools: Vec<ToolRef>,
    /// Tools offered by name only (`catalog`): added when
    /// `Linked::named` or a registry file names them.
    catalog: Vec<ToolRef>,
    named: Vec<String>,
    problems: Vec<RegistryProblem>,
    allowlist: Option<Allowlist>,
    extra_aliases: Vec<(String, String)>,
    code_configs: Vec<(String, Value)>,
    file_configs: Vec<(String, Value)>,
    ignore_env: bool,
    /// Whether a tool whose configuration cannot be resolved is left out
    /// rather than an error (`leave_out_unconfigured`).
    leave_out: bool,
    settings: Settings,
    /// Whether every tool is strict (see `RegistryBuilder::strict`).
    strict: bool,
    /// Which tools are deferred (`defer`, `always_offer`).
    deferral: Deferral,
    /// Whether to add `search_tools` (`tool_search`).
    tool_search: bool,
    /// The version offered for a name (`pin`).
    pins: Vec<(String, String)>,
    /// The features turned on (`features`).
    features: Vec<String>,
    /// Requirements added to tools by name (`require`).
    required: Vec<(String, crate::spec::requires::Requirements)>,
    /// Scopes added to tools by name (`require_scopes`).
    scopes: Vec<super::scopes::Added>,
    /// Tools to make by re-exposing others (`transformed`).
    transforms: Vec<super::transforms::Pending>,
    /// Whether to offer `read_result` (`read_result`); when not said, it
    /// is offered where a result can be cut.
    read_result: Option<bool>,
}

impl RegistryBuilder {
    /// Adds a tool, such as the struct `#[tool]` emits (`.tool(WeatherForecastTool)`).
    pub fn tool<T: Tool>(mut self, tool: T) -> Self {
        self.tools.push(ToolRef::new(tool));
        self
    }

    /// Adds each of these tools, such as a crate's list of tools written
    /// `#[tool(register = false)]` (`.tools(tool_builtin::ALL)`).
    pub fn tools<I>(mut self, tools: I) -> Self
    where
        I: IntoIterator,
        I::Item: Borrow<&'static dyn Tool>,
    {
        self.tools.extend(
            tools
                .into_iter()
                .map(|tool| ToolRef::Static(*tool.borrow())),
        );
        self
    }

    /// Offers these tools by name: each is added only when
    /// [`Linked::named`] (or a registry file's `tools`) names it, as a
    /// linked `#[tool]` would be. A catalogue adds nothing by itself, so a
    /// program can offer a crate's whole list and let a file choose. The
    /// tools are a list of `&'static dyn Tool` or `Arc<dyn Tool>`, or
    /// another registry (see [`IntoCatalog`]): a registry file read over a
    /// program's registry then chooses among the program's own tools, whose
    /// configuration this builder resolves again.
    ///
    /// ```
    /// use tool_runtime::{tool, registry::Linked, Registry, Tool};
    ///
    /// /// Waves.
    /// #[tool(register = false)]
    /// fn wave() -> &'static str { "o/" }
    ///
    /// /// Bows.
    /// #[tool(register = false)]
    /// fn bow() -> &'static str { "_o_" }
    ///
    /// const MINE: &[&dyn Tool] = &[&WaveTool, &BowTool];
    ///
    /// let registry = Registry::builder()
    ///     .catalog(MINE)
    ///     .linked(Linked::named(["bow"]))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(registry.names().collect::<Vec<_>>(), ["bow"]);
    /// // Neither is linked into the global registry: `register = false`.
    /// assert!(Registry::linked_specs().all(|spec| spec.name != "wave"));
    ///
    /// // A registry's tools, offered to another.
    /// let chosen = Registry::builder()
    ///     .catalog(&registry)
    ///     .linked(Linked::named(["bow"]))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(chosen.names().collect::<Vec<_>>(), ["bow"]);
    /// ```
    pub fn catalog(mut self, tools: impl IntoCatalog) -> Self {
        self.catalog.extend(tools.into_catalog().0);
        self
    }

    /// Offers version `version` of the tool named `name`, rather than the
    /// newest that is not deprecated; the other versions stay callable as
    /// `name@version`. A version no tool of the name has is an error at
    /// [`build`](Self::build); a pinned version withheld for its
    /// requirements leaves the name with no tool offered. A later pin of
    /// a name replaces an earlier one. [`Registry::versions`] lists the
    /// versions a registry holds.
    pub fn pin(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let name = name.into();
        self.pins.retain(|(pinned, _)| *pinned != name);
        self.pins.push((name, version.into()));
        self
    }

    /// Turns these features on: a tool that requires one
    /// ([`Requirements::feature`](crate::spec::Requirements::feature),
    /// `#[tool(requires(feature = ".."))]`) and was not built with it is
    /// offered all the same. Called more than once, the features add up.
    pub fn features<I, S>(mut self, features: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.features.extend(features.into_iter().map(Into::into));
        self
    }

    /// Adds requirements to the tool named `name` (every version of it),
    /// besides those its spec states, as a registry file's `requires:`
    /// does. A name no tool has adds nothing.
    pub fn require(
        mut self,
        name: impl Into<String>,
        requirements: crate::spec::requires::Requirements,
    ) -> Self {
        self.required.push((name.into(), requirements));
        self
    }

    /// Adds OAuth scopes to those the tool named `name` (every version of
    /// it) needs, besides those its spec states, as a registry file's
    /// `scopes:` does: a caller must be granted them all to call the tool
    /// or to have it offered (see [`ToolSpec::scopes`], which says why an
    /// anonymous call is not checked). Each is a scope token, such as
    /// `files:write`. A name no tool has adds nothing.
    pub fn require_scopes<I, S>(mut self, name: impl Into<String>, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<std::borrow::Cow<'static, str>>,
    {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.scopes.push((name.into(), scopes));
        self
    }

    /// Configures the tool named `name` (see [`crate::config`] for how this
    /// combines with a registry file and the environment). The configuration
    /// is validated at [`build`](Self::build); every bad field is reported.
    pub fn configure(mut self, name: impl Into<String>, config: Value) -> Self {
        self.code_configs.push((name.into(), config));
        self
    }

    /// Configures the tool named `name` from a configuration file, such as
    /// a registry file (crate `tool-manifest`) or a program's own: this
    /// overrides [`configure`](Self::configure) field by field, and the
    /// environment overrides it (see [`crate::config`] for the order). The
    /// configuration is validated at [`build`](Self::build); every bad field
    /// is reported.
    ///
    /// ```
    /// use serde::Deserialize;
    /// use schemars::JsonSchema;
    /// use serde_json::json;
    /// use tool_runtime::{config::Config, tool, Registry};
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Limits { max_results: u32, language: String }
    ///
    /// /// Searches the documents.
    /// #[tool(config = Limits, register = false)]
    /// fn find_docs(config: Config<Limits>) -> String {
    ///     format!("{} in {}", config.max_results, config.language)
    /// }
    ///
    /// let registry = Registry::builder()
    ///     .tool(FindDocsTool)
    ///     .config_from_env(false)
    ///     .configure("find_docs", json!({"max_results": 3, "language": "en"}))
    ///     .configure_from_file("find_docs", json!({"max_results": 10}))
    ///     .build()
    ///     .unwrap();
    /// let config = registry.config("find_docs").unwrap().get::<Limits>().unwrap();
    /// assert_eq!((config.max_results, config.language.as_str()), (10, "en"));
    /// ```
    pub fn configure_from_file(mut self, name: impl Into<String>, config: Value) -> Self {
        self.file_configs.push((name.into(), config));
        self
    }

    /// Whether a tool whose configuration cannot be resolved (a required
    /// field missing, a value of the wrong type) is left out of the
    /// registry, rather than failing [`build`](Self::build) (the default).
    /// [`Registry::left_out`] then says which tools were left out, and why;
    /// every other mistake is still an error. This is what
    /// [`Registry::global`] does with the linked tools.
    ///
    /// ```
    /// use serde::Deserialize;
    /// use schemars::JsonSchema;
    /// use tool_runtime::{config::Config, tool, Registry};
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Keyed { api_key: String }
    ///
    /// /// Looks something up with a key.
    /// #[tool(config = Keyed, register = false)]
    /// fn keyed_lookup(config: Config<Keyed>) -> usize { config.api_key.len() }
    ///
    /// /// Says hello.
    /// #[tool(register = false)]
    /// fn greet() -> &'static str { "hello" }
    ///
    /// let builder = Registry::builder()
    ///     .tool(KeyedLookupTool)
    ///     .tool(GreetTool)
    ///     .config_from_env(false);
    /// assert!(builder.clone().build().is_err());
    ///
    /// let registry = builder.leave_out_unconfigured(true).build().unwrap();
    /// assert_eq!(registry.names().collect::<Vec<_>>(), ["greet"]);
    /// assert!(registry.left_out()[0].to_string().contains("api_key"));
    /// ```
    pub fn leave_out_unconfigured(mut self, leave_out: bool) -> Self {
        self.leave_out = leave_out;
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

    /// Adds the tool named `from` re-exposed as `transform` makes it from
    /// a [`ToolTransform`](crate::transform::ToolTransform) of it: under another name,
    /// with its arguments renamed, hidden or given new defaults. `from` is
    /// looked up at [`build`](Self::build) among the tools added, the
    /// [`catalog`](Self::catalog) and the linked `#[tool]`s (it is not added
    /// itself unless named too); a name none has, or a transform that
    /// cannot be made, is an error there.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_runtime::{tool, transform::ArgTransform, Registry};
    ///
    /// /// Searches the web.
    /// #[tool(register = false)]
    /// fn web_search(query: String, site: Option<String>) -> String {
    ///     format!("{query} on {}", site.unwrap_or_default())
    /// }
    ///
    /// let registry = Registry::builder()
    ///     .tool(WebSearchTool)
    ///     .transformed("web_search", |tool| {
    ///         tool.name("docs_search")
    ///             .arg("site", ArgTransform::hidden(json!("docs.rs")))
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(registry.names().collect::<Vec<_>>(), ["docs_search", "web_search"]);
    /// ```
    pub fn transformed(
        mut self,
        from: impl Into<String>,
        transform: impl Fn(crate::transform::ToolTransform) -> crate::transform::ToolTransform
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.transforms.push(super::transforms::Pending {
            from: from.into(),
            reshape: Arc::new(transform),
        });
        self
    }

    /// Adds a shared tool.
    pub fn shared(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(ToolRef::Shared(tool));
        self
    }

    /// Adds the `#[tool]`s linked into the program that `which` selects:
    /// [`Linked::all`], [`Linked::named`] (among the
    /// [`catalog`](Self::catalog) too; a name none has is an error at
    /// [`build`](Self::build)), [`Linked::crates`] or [`Linked::matching`].
    /// Called more than once, the selections add up.
    pub fn linked(mut self, which: Linked<'_>) -> Self {
        match which.select() {
            Selected::Tools(tools) => self.tools.extend(tools),
            Selected::Names(names) => self.named.extend(names),
        }
        self
    }

    /// Whether every tool is rendered in OpenAI strict mode, not only those
    /// marked `#[tool(strict)]` (off by default).
    ///
    /// A tool whose schema cannot be expressed strictly is then an error at
    /// [`build`](Self::build):
    /// [`RegistryProblem::NotStrict`](crate::registry::RegistryProblem::NotStrict)
    /// names it and lists every violation.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Adds `search_tools`, a tool that finds the registry's other tools by
    /// what they do (see [`SearchTool`](crate::search::SearchTool)). Off by
    /// default; deferring tools ([`defer`](Self::defer),
    /// [`always_offer`](Self::always_offer)) turns it on whatever this says,
    /// since a deferred tool is otherwise out of the model's reach.
    ///
    /// A tool of the registry's own named `search_tools` is then an error
    /// at [`build`](Self::build) (two tools with one name).
    pub fn tool_search(mut self, on: bool) -> Self {
        self.tool_search = on;
        self
    }

    /// Defers the tools whose names match these entries (exact names or
    /// `prefix*` patterns): they stay in the registry and run when called,
    /// but are not sent with each request until a search finds them.
    /// Called more than once, the entries add up.
    ///
    /// [`Registry::render`] then renders, for Anthropic and the OpenAI
    /// Responses API, the provider's own tool search and the deferred tools
    /// flagged `"defer_loading": true`; for every other provider, the tools
    /// not deferred and `search_tools`. [`always_offer`](Self::always_offer)
    /// wins over this.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_runtime::{tool, Provider, Registry};
    ///
    /// /// Looks an order up by its number.
    /// #[tool]
    /// fn order_lookup(number: u64) -> String { format!("order {number}: shipped") }
    ///
    /// /// Refunds an order in full.
    /// #[tool]
    /// fn order_refund(number: u64) -> String { format!("order {number}: refunded") }
    ///
    /// let registry = Registry::builder()
    ///     .tool(OrderLookupTool)
    ///     .tool(OrderRefundTool)
    ///     .defer(["order_refund"])
    ///     .build()
    ///     .unwrap();
    /// assert!(registry.is_deferred("order_refund"));
    /// let offered: Vec<&str> = registry
    ///     .render(Provider::OpenAiChat)
    ///     .as_array().unwrap().iter()
    ///     .map(|tool| tool["function"]["name"].as_str().unwrap())
    ///     .collect();
    /// assert_eq!(offered, ["order_lookup", "search_tools"]);
    /// let anthropic = registry.render(Provider::Anthropic);
    /// assert_eq!(anthropic[0]["type"], "tool_search_tool_bm25_20251119");
    /// assert_eq!(anthropic[2], json!({
    ///     "name": "order_refund",
    ///     "description": "Refunds an order in full.",
    ///     "input_schema": anthropic[2]["input_schema"],
    ///     "defer_loading": true,
    /// }));
    /// ```
    pub fn defer<I, S>(mut self, entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        match &mut self.deferral.defer {
            Some(list) => list.extend(entries),
            None => self.deferral.defer = Some(Allowlist::new(entries)),
        }
        self
    }

    /// Offers the tools whose names match these entries (exact names or
    /// `prefix*` patterns) with every request, and defers every other tool
    /// (see [`defer`](Self::defer)). Called more than once, the entries add
    /// up; `search_tools` is always offered.
    pub fn always_offer<I, S>(mut self, entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        match &mut self.deferral.always {
            Some(list) => list.extend(entries),
            None => self.deferral.always = Some(Allowlist::new(entries)),
        }
        self
    }

    /// The registry, or every problem found: names no linked tool has, and
    /// names shared by two different tools.
    pub fn build(self) -> Result<Registry, RegistryError> {
        if !self.leave_out {
            return self.build_once();
        }
        let mut builder = self;
        let mut left_out = Vec::new();
        loop {
            let error = match builder.clone().build_once() {
                Ok(mut registry) => {
                    registry.left_out = left_out;
                    return Ok(registry);
                }
                Err(error) => error,
            };
            let mut unconfigured = Vec::new();
            for problem in &error.problems {
                match problem {
                    RegistryProblem::InvalidConfig { tool, .. } => unconfigured.push(tool.clone()),
                    _ => return Err(error),
                }
            }
            let out = |name: &str| unconfigured.iter().any(|bad| bad == name);
            builder.tools.retain(|tool| !out(&tool.spec().name));
            builder.catalog.retain(|tool| !out(&tool.spec().name));
            builder.named.retain(|name| !out(name));
            builder.code_configs.retain(|(name, _)| !out(name));
            builder.file_configs.retain(|(name, _)| !out(name));
            left_out.extend(error.problems);
        }
    }

    /// Builds the registry once: every problem is an error.
    fn build_once(mut self) -> Result<Registry, RegistryError> {
        if !self.named.is_empty() || !self.transforms.is_empty() {
            let offered: Vec<ToolRef> = std::mem::take(&mut self.catalog)
                .into_iter()
                .chain(
                    inventory::iter::<Registration>
                        .into_iter()
                        .map(|r| ToolRef::Static(r.tool)),
                )
                .collect();
            for name in std::mem::take(&mut self.named) {
                let mut found = false;
                for tool in offered.iter().filter(|t| t.spec().name == name) {
                    self.tools.push(tool.clone());
                    found = true;
                }
                if !found {
                    let suggestion =
                        crate::names::closest(&name, offered.iter().map(|t| &*t.spec().name))
                            .map(str::to_owned);
                    self.problems
                        .push(RegistryProblem::UnknownName { name, suggestion });
                }
            }
            let pending = std::mem::take(&mut self.transforms);
            let made = super::transforms::add(&mut self.tools, &offered, pending);
            self.problems.extend(made);
        }
        if let Some(allowlist) = &self.allowlist {
            self.tools.retain(|tool| {
                let spec = tool.spec();
                allowlist.allows(&spec.name) || spec.aliases.iter().any(|a| allowlist.allows(a))
            });
        }
        self.settings.read_result = self.read_result.unwrap_or_else(|| self.cuts_results());
        if self.settings.read_result {
            let reader = super::results::read_result_tool(&self.settings);
            self.tools.push(ToolRef::Shared(Arc::new(reader)));
        }
        // Requirements are checked once, here; then one version of each
        // name is chosen.
        let tools = assemble::dedup(std::mem::take(&mut self.tools));
        let (tools, withheld) = super::report::withhold(tools, &self.features, &self.required);
        let chosen = super::versions::choose(tools, &self.pins, &withheld);
        self.problems.extend(chosen.problems);
        let held_as =
            |tool| super::versions::mark_deprecated(super::scopes::add(tool, &self.scopes));
        let offered = chosen.offered.into_iter().map(held_as).collect();
        let held = chosen.held.into_iter().map(held_as).collect();
        let built = assemble::from_tools(offered);
        let built = built.and_then(
            |registry| match self.tool_search || self.deferral.is_set() {
                true => assemble::with_search_tool(registry),
                false => Ok(registry),
            },
        );
        let mut problems = self.problems;
        let mut registry = match built {
            Ok(registry) => registry,
            Err(error) => {
                problems.extend(error.problems);
                return Err(RegistryError { problems });
            }
        };
        registry.allowlist = self.allowlist;
        registry.held = held;
        registry.withheld = withheld;
        registry.deferral = self.deferral;
        registry.settings = Arc::new(self.settings);
        registry.strict = self.strict;
        if self.strict {
            let unmarked = registry.specs().filter(|spec| !spec.strict);
            problems.extend(strict_problems(unmarked, true));
        }
        for tool in registry.tools.iter_mut().chain(&mut registry.held) {
            let spec = tool.spec();
            if (self.strict || spec.strict)
                && crate::schema::strict::arguments_differ(spec.input_schema())
            {
                *tool = ToolRef::Shared(Arc::new(assemble::StrictArguments(tool.clone())));
            }
        }
        problems.extend(assemble::add_aliases(&mut registry, self.extra_aliases));
        let env: Vec<(String, String)> = if self.ignore_env {
            Vec::new()
        } else {
            std::env::vars()
                .filter(|(key, _)| key.starts_with("TOOL_"))
                .collect()
        };
        let sources = super::config::Sources {
            code: self.code_configs,
            file: self.file_configs,
            env,
        };
        match super::config::resolve(&registry, sources) {
            Ok(configs) => registry.configs = configs,
            Err(more) => problems.extend(more),
        }
        if problems.is_empty() {
            Ok(registry)
        } else {
            Err(RegistryError { problems })
        }
    }

    /// Registers application state of type `T` that every tool can take
    /// as a [`State<T>`](crate::State) parameter; one value per type, a
    /// later one replacing an earlier one. A value of the same type on the
    /// call's context ([`ToolContext::with_app_state`]) takes precedence.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        Arc::make_mut(&mut self.settings.state)
            .insert(std::any::TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The time limit of a call to a tool without a timeout of its own
    /// (`#[tool(timeout = "...")]` wins over this). A call past its limit
    /// is stopped and ends with a [`TimedOut`](crate::spec::ToolErrorKind::TimedOut)
    /// error result; its record ends `incomplete`.
    ///
    /// Time limits use Tokio's timer: calls with one must run inside a
    /// Tokio runtime with time enabled. Elsewhere the limit is not applied
    /// (and a warning is logged).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.settings.default_timeout = Some(timeout);
        self
    }

    /// At most `limit` calls of one [`Registry::invoke_all`] run at once
    /// (0 counts as 1). Without it, all of them do.
    pub fn concurrency_limit(mut self, limit: usize) -> Self {
        self.settings.concurrency_limit = Some(limit.max(1));
        self
    }

    /// Whether every tool annotated destructive
    /// ([`ToolAnnotations::destructive`](crate::spec::ToolAnnotations::destructive))
    /// is sequential, as a tool marked `#[tool(sequential)]` is: a barrier
    /// among the calls of one [`Registry::invoke_all`] (and of one MCP
    /// session), run alone once the calls before it have finished. Off by
    /// default.
    pub fn sequential_destructive(mut self, on: bool) -> Self {
        self.settings.sequential_destructive = on;
        self
    }

    /// Decides on calls that need approval, unless the call's context has
    /// an approver of its own. See [`Approver`].
    pub fn approver(mut self, approver: Approver) -> Self {
        self.settings.approver = Some(approver);
        self
    }

    /// Makes more tools need approval than those whose spec says so: every
    /// tool for which `needs_approval` returns true (say, those annotated
    /// destructive).
    pub fn require_approval(
        mut self,
        needs_approval: impl Fn(&ToolSpec) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.settings.require_approval = Some(Arc::new(needs_approval));
        self
    }

    /// Offers and runs a tool only in the contexts where `enabled` returns
    /// true. [`Registry::specs_for`] leaves the others out, and a call to
    /// one ends with a [`Disabled`](crate::spec::ToolErrorKind::Disabled) error result
    /// without running it. [`Registry::specs`] still lists every tool.
    ///
    /// ```
    /// use tool_runtime::{tool, Registry, ToolContext, spec::ToolErrorKind, ToolUse};
    /// use serde_json::json;
    ///
    /// /// Reads the audit log.
    /// #[tool]
    /// fn audit_log() -> &'static str { "all quiet" }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let registry = Registry::builder()
    ///     .tool(AuditLogTool)
    ///     .enabled_when(|_spec, ctx| ctx.state().get("role").is_some_and(|r| r == "admin"))
    ///     .build()
    ///     .unwrap();
    /// let guest = ToolContext::new().with_state("role", json!("guest"));
    /// assert_eq!(registry.specs_for(&guest).count(), 0);
    /// let result = registry.invoke(ToolUse::new("1", "audit_log", json!({})), &guest).await;
    /// assert_eq!(result.error_kind, Some(ToolErrorKind::Disabled));
    ///
    /// let admin = ToolContext::new().with_state("role", json!("admin"));
    /// assert_eq!(registry.specs_for(&admin).count(), 1);
    /// # });
    /// ```
    pub fn enabled_when(
        mut self,
        enabled: impl Fn(&ToolSpec, &ToolContext) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.settings.enabled = Some(Arc::new(enabled));
        self
    }

    /// How much of a panic or an internal error the model reads; see
    /// [`ErrorDetail`]. `Full` by default.
    pub fn error_detail(mut self, detail: ErrorDetail) -> Self {
        self.settings.error_detail = detail;
        self
    }

    /// The most of a result the model sees, for every tool without a limit
    /// of its own (which wins); none by default. Text over it is cut in the
    /// middle, a structured result refused; the full result is kept (see
    /// [`ResultLimit`](crate::limits::ResultLimit), [`Registry::full_result`]).
    pub fn result_limit(mut self, limit: crate::spec::limit::ResultLimit) -> Self {
        self.settings.result_limit = Some(limit);
        self
    }

    /// How a [`ResultLimit::Tokens`](crate::limits::ResultLimit::Tokens), the
    /// registry's or a tool's, counts tokens: a
    /// [`TokenCounter`](crate::limits::TokenCounter) such as `tool_tokens::O200kBase`
    /// or a closure `|text: &str| -> usize`. By default
    /// [`ByteEstimate`](crate::limits::ByteEstimate), `n` bytes for `n / 4` tokens.
    pub fn token_counter(mut self, counter: impl crate::spec::limit::TokenCounter) -> Self {
        self.settings.token_counter = crate::spec::limit::Counter::new(counter);
        self
    }

    /// Whether the registry offers `read_result`, which reads a kept full
    /// result by its handle in pages that fit, with the line naming their
    /// bytes, within the limit the result was held to and the registry's
    /// [result limit](Self::result_limit) (64 KiB when the registry has
    /// none), which does not cut them again.
    ///
    /// When not said, it is offered where a result can be cut: with a
    /// registry [result limit](Self::result_limit) or a tool with a limit
    /// of its own, unless a tool of the registry's own is named
    /// `read_result`. Turned on here, such a tool is an error at
    /// [`build`](Self::build); turned off, a cut result's marker names its
    /// handle for [`Registry::full_result`] only.
    pub fn read_result(mut self, on: bool) -> Self {
        self.read_result = Some(on);
        self
    }

    /// Whether a result of the registry can be cut, so that `read_result`
    /// is offered unless said otherwise: a limit applies, and no tool of
    /// the registry's own takes the name.
    fn cuts_results(&self) -> bool {
        let specs = || self.tools.iter().map(|tool| tool.spec());
        let limited =
            self.settings.result_limit.is_some() || specs().any(|spec| spec.result_limit.is_some());
        limited && !specs().any(|spec| spec.name == crate::invoke::limit::READ_RESULT)
    }

    /// How many full results cut to their limit the registry keeps, and
    /// how many bytes of them: 64 and 64 MiB by default, the oldest dropped
    /// first. A result larger than `max_bytes` is not kept.
    pub fn kept_results(mut self, max_results: usize, max_bytes: usize) -> Self {
        let store = crate::invoke::store::ResultStore::new(max_results, max_bytes);
        self.settings.results = Arc::new(store);
        self
    }
}
