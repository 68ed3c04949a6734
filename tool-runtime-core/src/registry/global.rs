//! The global registry, [`Registry::global`], built on first use from every
//! tool linked into the program.

use std::sync::OnceLock;

use super::Registry;
use super::error::{RegistryError, RegistryProblem};
use super::select::{Linked, Registration};
use crate::spec::tool_spec::ToolSpec;

static GLOBAL: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();

/// Builds the global registry: every linked tool, less those whose
/// configuration cannot be resolved from defaults and the environment.
fn build_global() -> Result<Registry, RegistryError> {
    Registry::builder()
        .linked(Linked::all())
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
}
