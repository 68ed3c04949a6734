//! What a registry did with each tool it was given: offered it, held it
//! as another version of an offered name, or withheld it because its
//! requirements ([`ToolSpec::requires`]) were not met when it was built.

use super::Registry;
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::requires::{Missing, Requirements};
use crate::spec::tool_spec::ToolSpec;
use crate::tool::ToolRef;

/// A tool withheld for its requirements, and what it misses.
#[derive(Clone)]
pub(super) struct Withheld {
    pub(super) tool: ToolRef,
    pub(super) missing: Vec<Missing>,
}

impl Withheld {
    /// The error a call of the tool gets: it is unavailable, and why.
    pub(super) fn error(&self) -> ToolError {
        let spec = self.tool.spec();
        let version = spec
            .version
            .as_deref()
            .map(|version| format!(" {version}"))
            .unwrap_or_default();
        ToolError::with_kind(
            ToolErrorKind::Disabled,
            format!(
                "tool `{}`{version} is unavailable: {}",
                spec.name,
                join(&self.missing)
            ),
        )
    }
}

/// Splits `tools` into those whose requirements are met and those
/// withheld. A tool's requirements are its spec's and those `extra` gives
/// for its name; `features` are the features the registry turns on.
pub(super) fn withhold(
    tools: Vec<ToolRef>,
    features: &[String],
    extra: &[(String, Requirements)],
) -> (Vec<ToolRef>, Vec<Withheld>) {
    let mut kept = Vec::with_capacity(tools.len());
    let mut withheld = Vec::new();
    for tool in tools {
        let spec = tool.spec();
        let added = extra.iter().filter(|(name, _)| *name == spec.name);
        let missing = if added.clone().next().is_none() {
            if spec.requires.is_empty() {
                kept.push(tool);
                continue;
            }
            spec.requires.missing(features)
        } else {
            added
                .fold(spec.requires.clone(), |all, (_, more)| all.and(more))
                .missing(features)
        };
        if missing.is_empty() {
            kept.push(tool);
        } else {
            withheld.push(Withheld { tool, missing });
        }
    }
    (kept, withheld)
}

/// What the registry did with one tool: see [`Registry::report`].
#[derive(Debug, Clone, Copy)]
pub struct ToolReport<'a> {
    /// The tool's spec as the registry holds it.
    pub spec: &'a ToolSpec,
    /// Whether it is offered, and if not, why.
    pub availability: Availability<'a>,
}

/// Whether a registry offers a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Availability<'a> {
    /// Offered: listed, rendered and called by its name.
    Offered,
    /// Another version of its name is offered; this one is called as
    /// `name@version`.
    OtherVersion,
    /// Not offered, since requirements are not met: each thing missing.
    /// A call of it is an error that names them.
    Withheld(&'a [Missing]),
}

impl Availability<'_> {
    /// Whether the tool is offered.
    pub fn is_offered(self) -> bool {
        matches!(self, Availability::Offered)
    }
}

impl std::fmt::Display for Availability<'_> {
    /// `offered`, `other version`, or `withheld: ` and what is missing.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Availability::Offered => f.write_str("offered"),
            Availability::OtherVersion => f.write_str("other version"),
            Availability::Withheld(missing) => write!(f, "withheld: {}", join(missing)),
        }
    }
}

/// What is missing, joined with `; `.
fn join(missing: &[Missing]) -> String {
    missing
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Every tool `registry` was given, with what it did with it, by name and
/// then version. See [`Registry::report`].
pub(super) fn tool_reports(registry: &Registry) -> Vec<ToolReport<'_>> {
    let offered = registry.specs().map(|spec| ToolReport {
        spec,
        availability: Availability::Offered,
    });
    let held = registry.held.iter().map(|tool| ToolReport {
        spec: tool.spec(),
        availability: Availability::OtherVersion,
    });
    let withheld = registry.withheld.iter().map(|w| ToolReport {
        spec: w.tool.spec(),
        availability: Availability::Withheld(&w.missing),
    });
    let mut report: Vec<ToolReport<'_>> = offered.chain(held).chain(withheld).collect();
    crate::order::sort_by(&mut report, |a, b| {
        let version = |spec: &ToolSpec| {
            spec.version
                .as_deref()
                .and_then(|v| semver::Version::parse(v).ok())
        };
        (&a.spec.name, version(a.spec)).cmp(&(&b.spec.name, version(b.spec)))
    });
    report
}
