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

/// The global registry, built on first use, or why it could not be. See
/// [`Registry::try_global`].
pub(super) fn try_global() -> Result<&'static Registry, &'static RegistryError> {
    GLOBAL.get_or_init(build_global).as_ref()
}

/// What the global registry found. See [`Registry::global_report`].
pub(super) fn report() -> GlobalReport {
    let linked = inventory::iter::<Registration>.into_iter().count();
    match try_global() {
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

/// The spec of every `#[tool]` linked into the program, in link order.
/// See [`Registry::linked_specs`].
pub(super) fn linked_specs() -> impl Iterator<Item = &'static ToolSpec> {
    inventory::iter::<Registration>
        .into_iter()
        .map(|registration| registration.tool.spec())
}
