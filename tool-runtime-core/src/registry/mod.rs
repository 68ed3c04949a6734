//! The [`Registry`]: the set of tools an agent offers, and the way to call
//! them. [`RegistryBuilder`] (in `builder.rs`) makes one. `Registry`'s API
//! is in this folder, one file for each thing it does:
//!
//! - this file: the type, and looking tools up (by name or alias, the
//!   specs, names, aliases and configurations);
//! - `global.rs`: the global registry of every linked `#[tool]`;
//! - `select.rs`: which linked `#[tool]`s a builder adds ([`Linked`]), and
//!   the catalogues it offers by name ([`IntoCatalog`]);
//! - `assemble.rs`: a registry from tools (the builder's last step);
//! - `render.rs`: the tool definitions and results for a provider;
//! - `calls.rs`: running calls, which the invoke module does: the methods
//!   that start them hand over to it;
//! - `results.rs`: full results kept from the model by a result limit,
//!   and the `read_result` tool that reads them in pages;
//! - `live.rs`: [`LiveRegistry`], and a registry with tools added and
//!   removed (feature `live`);
//! - `versions.rs`: several versions of one name, the one offered, calls
//!   by `name@version`, and deprecated tools;
//! - `report.rs`: tools withheld for their requirements, and
//!   [`Registry::report`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

mod assemble;
mod builder;
mod calls;
pub(crate) mod config;
mod error;
mod global;
#[cfg(feature = "live")]
mod live;
mod render;
mod report;
mod results;
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

impl Registry {
    /// A builder for a registry of chosen tools.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
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
            None => self.versioned(name).map(|tool| &**tool),
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
