//! Tools a registry makes by re-exposing others ([`RegistryBuilder::transformed`](crate::RegistryBuilder::transformed),
//! a registry file's entries with `from`): each found by name among the
//! tools added, the catalogue and the linked tools, then reshaped with a
//! [`ToolTransform`].

use std::sync::Arc;

use super::error::RegistryProblem;
use crate::tool::ToolRef;
use crate::tool::transform::ToolTransform;

/// What makes the new tool of the one found.
pub(super) type Reshape = Arc<dyn Fn(ToolTransform) -> ToolTransform + Send + Sync>;

/// A tool to make when the registry is built.
#[derive(Clone)]
pub(super) struct Pending {
    /// The name of the tool it re-exposes.
    pub(super) from: String,
    pub(super) reshape: Reshape,
}

/// Adds to `tools` the tool each of `pending` makes: the one it re-exposes
/// found by name among `tools`, then `offered`. Returns a problem for each
/// that names no tool or cannot be made.
pub(super) fn add(
    tools: &mut Vec<ToolRef>,
    offered: &[ToolRef],
    pending: Vec<Pending>,
) -> Vec<RegistryProblem> {
    let mut problems = Vec::new();
    let mut made = Vec::new();
    for Pending { from, reshape } in pending {
        let found = tools
            .iter()
            .chain(offered)
            .find(|tool| tool.spec().name == from);
        let Some(found) = found else {
            let names = tools.iter().chain(offered).map(|tool| &*tool.spec().name);
            problems.push(RegistryProblem::UnknownName {
                suggestion: crate::names::closest(&from, names).map(str::to_owned),
                name: from,
            });
            continue;
        };
        let transform = reshape(ToolTransform::of(found.clone()));
        let tool = transform.target_name().to_owned();
        match transform.build() {
            Ok(built) => made.push(ToolRef::Shared(Arc::new(built))),
            Err(error) => problems.push(RegistryProblem::Transform { tool, from, error }),
        }
    }
    tools.extend(made);
    problems
}
