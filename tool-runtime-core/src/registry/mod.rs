//! The [`Registry`]: the set of tools an agent offers, and the way to call
//! them.
//!
//! A [`Registry`] holds tools of unique names. It looks them up by name,
//! alias or `name@version`, calls them for a model
//! ([`invoke`](Registry::invoke), [`stream`](Registry::stream),
//! [`invoke_all`](Registry::invoke_all)) or for a program
//! ([`call_json`](Registry::call_json)), and renders their definitions and
//! results for a [`Provider`](crate::Provider)
//! ([`render`](Registry::render), [`render_results`](Registry::render_results)).
//!
//! - [`Registry::global`] holds every `#[tool]` linked into the program,
//!   and [`Registry::global_report`] says what it found ([`GlobalReport`]).
//! - [`RegistryBuilder`] ([`Registry::builder`]) makes a registry of chosen
//!   tools: given by value, linked `#[tool]`s chosen with [`Linked`], or
//!   offered by name from a catalogue ([`IntoCatalog`]); with aliases,
//!   configurations, pinned versions, requirements, result limits, deferred
//!   tools and the policies of its calls, such as how much the model
//!   reads of a panic or an internal error ([`ErrorDetail`]).
//! - A build that fails returns a [`RegistryError`], with every
//!   [`RegistryProblem`] found.
//! - [`Registry::report`] says what a registry did with each tool it was
//!   given ([`ToolReport`]): offered it, held it as another version of an
//!   offered name, or withheld it for its requirements ([`Availability`]).
#![cfg_attr(
    feature = "live",
    doc = "- [`LiveRegistry`] (feature `live`) serves tools that are added, removed"
)]
#![cfg_attr(
    not(feature = "live"),
    doc = "- `LiveRegistry` (feature `live`) serves tools that are added, removed"
)]
//!   and replaced while it serves calls.

// `Registry`'s inherent methods are in three files, each method an entry
// point that hands over to the file of its concept:
//
// - this file: the type, making it and looking its tools up, and what it
//   holds besides (other versions, reports, full results, the global
//   registry);
// - `calls.rs`: running calls, which the invoke module does;
// - `render.rs`: the tool definitions and results for a provider.
//
// The other files hold the logic, as free functions and types of their own:
//
// - `builder.rs`: `RegistryBuilder`;
// - `assemble.rs`: a registry from tools (the builder's last step, and
//   each change of a live registry);
// - `select.rs`: which linked `#[tool]`s a builder adds (`Linked`), and the
//   catalogues it offers by name (`IntoCatalog`);
// - `transforms.rs`: tools re-exposed by name through `ToolTransform`;
// - `config.rs`: where configurations come from, and how they are layered;
// - `versions.rs`: several versions of one name, the one offered, calls by
//   `name@version`, and deprecated tools;
// - `report.rs`: tools withheld for their requirements, and the report;
// - `scopes.rs`: scopes added to tools by name;
// - `results.rs`: the `read_result` tool that reads full results in pages;
// - `global.rs`: the global registry, built on first use;
// - `live.rs`: `LiveRegistry`, and the registry each change builds
//   (feature `live`);
// - `error.rs`: `RegistryError` and `RegistryProblem`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

mod assemble;
mod builder;
mod calls;
mod changes;
pub(crate) mod config;
mod error;
mod global;
#[cfg(feature = "live")]
mod live;
mod render;
mod report;
mod results;
mod scopes;
pub(crate) mod select;
mod transforms;
pub(crate) mod versions;

pub use builder::RegistryBuilder;
pub use error::{RegistryError, RegistryProblem};
pub use global::GlobalReport;
#[cfg(feature = "live")]
pub use live::LiveRegistry;
use report::Withheld;
pub use report::{Availability, ToolReport};

pub use crate::invoke::policy::ErrorDetail;
pub use select::{IntoCatalog, Linked};

use crate::context::ToolContext;
use crate::invoke::policy::Settings;
use crate::names::{Aliases, Allowlist};
use crate::providers::Renderings;
use crate::search::{Deferral, SearchTool};
use crate::spec::config::ConfigValue;
use crate::spec::limit::{MissingResult, ResultHandle, ResultLimit, TokenCounter};
use crate::spec::result::ToolResult;
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolRef};

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
    /// The versions of offered names that are not offered, by name and
    /// then version ([`Registry::versions`]).
    held: Vec<ToolRef>,
    /// The tools withheld for their requirements ([`Registry::report`]).
    withheld: Vec<Withheld>,
    /// Which tools are deferred ([`RegistryBuilder::defer`]).
    deferral: Deferral,
    /// The registry's `search_tools`, when it has one
    /// ([`RegistryBuilder::tool_search`]); also among `tools`.
    search: Option<Arc<SearchTool>>,
}

// Making a registry, and looking its tools up.
impl Registry {
    /// A builder for a registry of chosen tools.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// The same registry with `limit` as its result limit, for every tool
    /// without one of its own, as
    /// [`RegistryBuilder::result_limit`](crate::RegistryBuilder::result_limit)
    /// sets it: the same tools, settings, configurations and kept results,
    /// and `read_result` offered to read the results cut, unless a tool of
    /// the registry's own takes the name. For a registry built elsewhere,
    /// say a command line's `--result-limit` over a program's registry.
    ///
    /// ```
    /// use tool_runtime::{tool, Registry, limits::ResultLimit};
    ///
    /// /// Says a lot.
    /// #[tool(register = false)]
    /// fn chatter() -> String { "la ".repeat(1_000) }
    ///
    /// let registry = Registry::builder().tool(ChatterTool).build()?;
    /// assert!(!registry.contains("read_result"));
    /// let limited = registry.with_result_limit(ResultLimit::Bytes(500))?;
    /// assert_eq!(limited.result_limit(), Some(ResultLimit::Bytes(500)));
    /// assert!(limited.contains("read_result"));
    /// # Ok::<(), tool_runtime::registry::RegistryError>(())
    /// ```
    pub fn with_result_limit(
        &self,
        limit: crate::spec::limit::ResultLimit,
    ) -> Result<Registry, RegistryError> {
        changes::with_result_limit(self, limit)
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.index.get(name).map(|&i| &*self.tools[i])
    }

    /// The tool named `name` as a handle of its own, which outlives the
    /// registry: to re-expose it with [`ToolTransform::shared`](crate::transform::ToolTransform::shared),
    /// or to add it to another registry with [`RegistryBuilder::shared`].
    pub fn get_shared(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.index.get(name).map(|&i| self.tools[i].to_shared())
    }

    /// The tool with the name or alias `name`, or the version a
    /// `name@version` names (offered or held: see [`versions`](Self::versions)).
    pub fn resolve(&self, name: &str) -> Option<&dyn Tool> {
        match self.position(name) {
            Some(i) => Some(&*self.tools[i]),
            None => versions::versioned(self, name).map(|tool| &**tool),
        }
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
        crate::order::sort_by(&mut aliases, Ord::cmp);
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

    /// The specs of the tools offered in `ctx`, in name order: what to
    /// offer the model for this conversation. A tool is offered when it is
    /// enabled (see [`RegistryBuilder::enabled_when`]) and the caller on
    /// `ctx` was granted every one of its [scopes](ToolSpec::scopes): a
    /// model is not offered what its caller cannot call. An anonymous
    /// context (no caller) is offered every enabled tool.
    pub fn specs_for<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> impl Iterator<Item = &'a ToolSpec> + 'a {
        self.specs().filter(move |spec| {
            crate::context::caller::may_call(ctx, spec)
                && self
                    .settings
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
}

// What a registry holds besides the tools it offers: other versions, and
// what it did with each tool it was given.
impl Registry {
    /// Every version of the tool named `name` that a call can reach, oldest
    /// first: the offered one and those held besides (called as
    /// `name@version`). Tools withheld for their requirements are not
    /// among them; [`report`](Self::report) lists those. Empty for a name
    /// no tool has.
    ///
    /// ```
    /// use tool_runtime::{Registry, tool};
    ///
    /// /// Converts a length.
    /// #[tool(name = "convert_length", version = "1.0.0")]
    /// fn convert_length_v1() -> &'static str {
    ///     "1.0.0"
    /// }
    ///
    /// /// Converts a length.
    /// #[tool(name = "convert_length", version = "2.0.0")]
    /// fn convert_length_v2() -> &'static str {
    ///     "2.0.0"
    /// }
    ///
    /// let registry = Registry::builder()
    ///     .tool(ConvertLengthV2Tool)
    ///     .tool(ConvertLengthV1Tool)
    ///     .build()
    ///     .unwrap();
    /// let versions: Vec<_> = registry
    ///     .versions("convert_length")
    ///     .iter()
    ///     .map(|spec| spec.version.as_deref().unwrap())
    ///     .collect();
    /// assert_eq!(versions, ["1.0.0", "2.0.0"]);
    /// assert_eq!(registry.len(), 1);
    /// ```
    pub fn versions(&self, name: &str) -> Vec<&ToolSpec> {
        versions::reachable(self, name)
    }

    /// Every tool the registry was given, with what it did with it, by
    /// name and then version: the offered tools, the other versions it
    /// holds, and the tools withheld because their requirements are not
    /// met, each naming what is missing. Tools left out for their
    /// configuration are in [`left_out`](Self::left_out).
    ///
    /// ```
    /// use tool_runtime::{Registry, tool};
    ///
    /// /// Searches the web.
    /// #[tool(requires(env = "TOOL_RUNTIME_DOC_NO_SUCH_KEY"))]
    /// fn web_search() -> &'static str {
    ///     "results"
    /// }
    ///
    /// let registry = Registry::builder().tool(WebSearchTool).build().unwrap();
    /// assert_eq!(registry.len(), 0);
    /// let report = registry.report();
    /// assert_eq!(report[0].spec.name, "web_search");
    /// assert!(!report[0].availability.is_offered());
    /// assert_eq!(
    ///     report[0].availability.to_string(),
    ///     "withheld: environment variable TOOL_RUNTIME_DOC_NO_SUCH_KEY is not set"
    /// );
    /// ```
    pub fn report(&self) -> Vec<ToolReport<'_>> {
        report::tool_reports(self)
    }
}

// The full results a result limit kept from the model, and how results
// are measured.
impl Registry {
    /// The full result kept under `handle`: one that reached the model cut
    /// to its [`ResultLimit`], or refused for it (a structured result), as
    /// the tool made it (and its formatter wrote it).
    ///
    /// The handle is in the cut result ([`ToolResult::full_result`]), in
    /// the call's record ([`ToolCallRecord::full_result`](crate::events::ToolCallRecord::full_result))
    /// and in the marker the model reads. A registry keeps the 64 most
    /// recent full results by default, 64 MiB at most, the oldest dropped
    /// first ([`RegistryBuilder::kept_results`](crate::RegistryBuilder::kept_results));
    /// a handle whose result was dropped gives a [`MissingResult`] saying
    /// so.
    pub fn full_result(&self, handle: &ResultHandle) -> Result<Arc<ToolResult>, MissingResult> {
        self.settings.results.get(handle)
    }

    /// The registry's result limit, for tools without one of their own
    /// ([`RegistryBuilder::result_limit`](crate::RegistryBuilder::result_limit));
    /// `None`, the default, for no limit.
    pub fn result_limit(&self) -> Option<ResultLimit> {
        self.settings.result_limit
    }

    /// How the registry counts tokens for a [`ResultLimit::Tokens`]: the
    /// counter given to
    /// [`RegistryBuilder::token_counter`](crate::RegistryBuilder::token_counter),
    /// else [`ByteEstimate`](crate::limits::ByteEstimate).
    pub fn token_counter(&self) -> &dyn TokenCounter {
        &self.settings.token_counter
    }
}

// The global registry: every `#[tool]` linked into the program.
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
        global::try_global()
    }

    /// What [`Registry::global`] found: how many tools were linked, and any
    /// left out because their configuration could not be resolved. A crate
    /// of tools that the program never refers to is not linked at all (see
    /// `docs/registries.md`), so check `linked` at start-up when it matters.
    pub fn global_report() -> GlobalReport {
        global::report()
    }

    /// The spec of every `#[tool]` linked into this program, in link order,
    /// including any that [`Registry::global`] left out; a tool left out
    /// because of its configuration can still be inspected here.
    pub fn linked_specs() -> impl Iterator<Item = &'static ToolSpec> {
        global::linked_specs()
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
