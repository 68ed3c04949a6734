//! Which tools a [`RegistryBuilder`](super::RegistryBuilder) takes besides
//! those given by value: [`Linked`], the selector of the `#[tool]`s linked
//! into the program (each of which `#[tool]` registers at link time with a
//! `Registration`), and [`IntoCatalog`], what a catalogue of tools offered
//! by name is made from.

use std::sync::Arc;

use super::Registry;
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolRef};

/// The link-time registration `#[tool]` emits for each tool.
#[doc(hidden)]
pub struct Registration {
    pub(super) tool: &'static dyn Tool,
}

impl Registration {
    #[doc(hidden)]
    pub const fn new(tool: &'static dyn Tool) -> Self {
        Self { tool }
    }
}

inventory::collect!(Registration);

/// Which `#[tool]`s linked into the program
/// [`RegistryBuilder::linked`](super::RegistryBuilder::linked) adds:
/// [`all`](Self::all) of them (what [`Registry::global`] holds),
/// those [`named`](Self::named), those of some [`crates`](Self::crates), or
/// those [`matching`](Self::matching) a test of their spec.
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
///     .linked(Linked::matching(|spec| spec.name.starts_with("good")))
///     .build()
///     .unwrap();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["goodbye"]);
/// ```
pub struct Linked<'a>(Selector<'a>);

enum Selector<'a> {
    Named(Vec<String>),
    Matching(Box<dyn Fn(&ToolSpec) -> bool + 'a>),
}

impl<'a> Linked<'a> {
    /// Every linked `#[tool]`.
    pub fn all() -> Self {
        Self::matching(|_| true)
    }

    /// The linked `#[tool]`s, and the tools of the builder's
    /// [`catalog`](super::RegistryBuilder::catalog), with these names. They
    /// are looked up at [`build`](super::RegistryBuilder::build): a name
    /// none has is an error there, with the closest name as a suggestion;
    /// a name given twice adds its tool once.
    pub fn named<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self(Selector::Named(names.into_iter().map(Into::into).collect()))
    }

    /// Every linked `#[tool]` defined in one of these crates (by the
    /// crate's name as Rust spells it: `my_tools` for the package
    /// `my-tools`), whatever else the program links. A crate that defines
    /// none adds nothing.
    pub fn crates<I, S>(crates: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let crates: Vec<String> = crates.into_iter().map(Into::into).collect();
        Self::matching(move |spec| {
            let krate = spec.location.module.split("::").next().unwrap_or_default();
            crates.iter().any(|name| name == krate)
        })
    }

    /// Every linked `#[tool]` whose spec passes `filter`.
    pub fn matching(filter: impl Fn(&ToolSpec) -> bool + 'a) -> Self {
        Self(Selector::Matching(Box::new(filter)))
    }

    /// The tools to add now, or the names to look up at build.
    pub(super) fn select(self) -> Selected {
        match self.0 {
            Selector::Named(names) => Selected::Names(names),
            Selector::Matching(filter) => Selected::Tools(
                inventory::iter::<Registration>
                    .into_iter()
                    .filter(|registration| filter(registration.tool.spec()))
                    .map(|registration| ToolRef::Static(registration.tool))
                    .collect(),
            ),
        }
    }
}

/// What a [`Linked`] selector comes to.
pub(super) enum Selected {
    /// Tools chosen by their spec, added at once.
    Tools(Vec<ToolRef>),
    /// Names looked up at build, among the linked tools and the catalogue.
    Names(Vec<String>),
}

/// What [`RegistryBuilder::catalog`](super::RegistryBuilder::catalog)
/// offers by name: a list of `&'static dyn Tool` by reference (a slice such
/// as `tool_builtin::ALL`, `&vec`; any iterable of `&&'static dyn Tool`),
/// an iterable of `Arc<dyn Tool>` or `&Arc<dyn Tool>`, or a `&Registry`,
/// whose every tool is offered (its other versions and the tools it
/// withholds for their requirements included).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a catalogue of tools",
    note = "a catalogue is a list of `&'static dyn Tool` by reference (`&[&dyn Tool]`, `&vec`), \
            an iterable of `Arc<dyn Tool>`, or a `&Registry`"
)]
pub trait IntoCatalog {
    /// The tools, as the registry holds them.
    #[doc(hidden)]
    fn into_catalog(self) -> Catalogue;
}

/// The tools of a catalogue, as the registry holds them.
#[doc(hidden)]
pub struct Catalogue(pub(super) Vec<ToolRef>);

/// One tool of an iterable [`IntoCatalog`].
#[doc(hidden)]
pub trait CatalogItem {
    /// The tool, as the registry holds it.
    fn into_tool(self) -> Offered;
}

/// One tool of a catalogue, as the registry holds it.
#[doc(hidden)]
pub struct Offered(ToolRef);

impl CatalogItem for &&'static dyn Tool {
    fn into_tool(self) -> Offered {
        Offered(ToolRef::Static(*self))
    }
}

impl CatalogItem for Arc<dyn Tool> {
    fn into_tool(self) -> Offered {
        Offered(ToolRef::Shared(self))
    }
}

impl CatalogItem for &Arc<dyn Tool> {
    fn into_tool(self) -> Offered {
        Offered(ToolRef::Shared(Arc::clone(self)))
    }
}

impl<I> IntoCatalog for I
where
    I: IntoIterator,
    I::Item: CatalogItem,
{
    fn into_catalog(self) -> Catalogue {
        Catalogue(self.into_iter().map(|item| item.into_tool().0).collect())
    }
}

impl IntoCatalog for &Registry {
    fn into_catalog(self) -> Catalogue {
        let withheld = self.withheld.iter().map(|w| &w.tool);
        let all = self.tools.iter().chain(&self.held).chain(withheld);
        Catalogue(all.cloned().collect())
    }
}
