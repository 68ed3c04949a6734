//! Several versions of one tool name: which one a registry offers, pins,
//! calls by `name@version`, and what a deprecated tool's calls carry.
//!
//! A registry holds tools of one name side by side when each has a
//! different [`version`](ToolSpec::version). It offers one per name: the
//! pinned version ([`RegistryBuilder::pin`](crate::RegistryBuilder::pin)),
//! else the newest that is not deprecated, else the newest. The others are
//! held: a call reaches them as `name@version`.

use std::sync::Arc;

use semver::Version;
use serde_json::Value;

use super::error::RegistryProblem;
use super::{Registry, Withheld};
use crate::context::ToolContext;
use crate::events::LogLevel;
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolFuture, ToolRef};

/// The tools a registry offers, those it holds besides, and what is wrong.
pub(super) struct Chosen {
    /// One tool per name (or, for a name used twice without versions, each
    /// of them, for the registry to report as duplicates).
    pub(super) offered: Vec<ToolRef>,
    /// The versions not offered, by name and then version.
    pub(super) held: Vec<ToolRef>,
    /// Versions that do not parse, and pins that name no version.
    pub(super) problems: Vec<RegistryProblem>,
}

/// The spec's version, parsed; `None` when it has none or it does not
/// parse (which [`choose`] reports).
fn version_of(spec: &ToolSpec) -> Option<Version> {
    spec.version
        .as_deref()
        .and_then(|text| Version::parse(text).ok())
}

/// Chooses the tool each name offers among `tools` (from [`dedup`](super::assemble::dedup)).
/// `pins` name the version to offer for a name; a pinned version among
/// `withheld` leaves its name without an offered tool.
pub(super) fn choose(
    tools: Vec<ToolRef>,
    pins: &[(String, String)],
    withheld: &[Withheld],
) -> Chosen {
    let mut chosen = Chosen {
        offered: Vec::new(),
        held: Vec::new(),
        problems: Vec::new(),
    };
    for tool in &tools {
        let spec = tool.spec();
        if let Some(text) = &spec.version
            && let Err(error) = Version::parse(text)
        {
            chosen.problems.push(RegistryProblem::InvalidVersion {
                name: spec.name.to_string(),
                version: text.to_string(),
                reason: error.to_string(),
            });
        }
    }
    for (name, version) in pins {
        let pinned = |spec: &ToolSpec| spec.name == *name && same_version(spec, version);
        let mut known = false;
        for tool in &tools {
            known |= pinned(tool.spec());
        }
        for w in withheld {
            known |= pinned(w.tool.spec());
        }
        if !known {
            let mut versions: Vec<&ToolSpec> = Vec::new();
            for tool in &tools {
                let spec = tool.spec();
                if spec.name == *name && spec.version.is_some() {
                    versions.push(spec);
                }
            }
            chosen.problems.push(RegistryProblem::UnknownVersion {
                name: name.clone(),
                version: version.clone(),
                versions: version_texts(versions),
            });
        }
    }
    // `tools` come in name order: each run of one name is a group.
    let mut group: Vec<ToolRef> = Vec::new();
    for tool in tools {
        if group
            .first()
            .is_some_and(|first| first.spec().name != tool.spec().name)
        {
            choose_one(std::mem::take(&mut group), pins, withheld, &mut chosen);
        }
        group.push(tool);
    }
    if !group.is_empty() {
        choose_one(group, pins, withheld, &mut chosen);
    }
    chosen
}

/// The versions of `specs`, oldest first.
fn version_texts(mut specs: Vec<&ToolSpec>) -> Vec<String> {
    crate::order::sort_by_key(&mut specs, |spec| version_of(spec));
    let mut texts = Vec::with_capacity(specs.len());
    for spec in specs {
        if let Some(version) = &spec.version {
            texts.push(version.to_string());
        }
    }
    texts
}

/// Chooses among the tools of one name.
fn choose_one(
    group: Vec<ToolRef>,
    pins: &[(String, String)],
    withheld: &[Withheld],
    chosen: &mut Chosen,
) {
    let name = group[0].spec().name.clone();
    let mut pin = None;
    for (pinned, version) in pins {
        if *pinned == name {
            pin = Some(version);
            break;
        }
    }
    // Each tool's version; `None` for all when one has none.
    let mut versions = Vec::with_capacity(group.len());
    for tool in &group {
        versions.push(version_of(tool.spec()));
    }
    let mut distinct = versions.iter().all(Option::is_some);
    for (i, a) in versions.iter().enumerate() {
        distinct &= !versions[..i].contains(a);
    }
    if group.len() > 1 && !distinct {
        // Two tools of one name without versions, or of one version: the
        // registry reports them as duplicates.
        chosen.offered.extend(group);
        return;
    }
    // Oldest first (a tool without a version before any with one).
    let mut order: Vec<usize> = (0..group.len()).collect();
    crate::order::sort_by(&mut order, |&a, &b| versions[a].cmp(&versions[b]));
    let mut offered = None;
    let mut pin_found = false;
    if let Some(pin) = pin {
        for (i, &at) in order.iter().enumerate() {
            if same_version(group[at].spec(), pin) {
                offered = Some(i);
                pin_found = true;
                break;
            }
        }
    }
    // A pinned version withheld for its requirements leaves the name with
    // nothing offered; one no tool has (an error of its own) is passed over.
    let mut pin_withheld = false;
    if let Some(pin) = pin {
        for w in withheld {
            let spec = w.tool.spec();
            pin_withheld |= spec.name == name && same_version(spec, pin);
        }
    }
    if !pin_found && !pin_withheld {
        // The newest not deprecated, else the newest.
        offered = order.len().checked_sub(1);
        for (i, &at) in order.iter().enumerate() {
            if group[at].spec().deprecated.is_none() {
                offered = Some(i);
            }
        }
    }
    let mut slots: Vec<Option<ToolRef>> = Vec::with_capacity(group.len());
    for tool in group {
        slots.push(Some(tool));
    }
    for (i, at) in order.into_iter().enumerate() {
        let Some(tool) = slots[at].take() else {
            continue;
        };
        if Some(i) == offered {
            chosen.offered.push(tool);
        } else {
            chosen.held.push(tool);
        }
    }
}

/// Whether the spec's version is `version`: equal as semantic versions
/// when both parse (`1.0.0+build` is not `1.0.0`), equal as text otherwise.
fn same_version(spec: &ToolSpec, version: &str) -> bool {
    let Some(own) = spec.version.as_deref() else {
        return false;
    };
    match (Version::parse(own), Version::parse(version)) {
        (Ok(own), Ok(asked)) => own == asked,
        _ => own == version,
    }
}

/// Every version of the tool named `name` that a call of `registry` can
/// reach, oldest first: the offered one and those held besides. See
/// [`Registry::versions`].
pub(super) fn reachable<'a>(registry: &'a Registry, name: &str) -> Vec<&'a ToolSpec> {
    let mut specs: Vec<&ToolSpec> = registry
        .get(name)
        .map(|tool| tool.spec())
        .into_iter()
        .chain(
            registry
                .held
                .iter()
                .map(|tool| tool.spec())
                .filter(|spec| spec.name == name),
        )
        .collect();
    crate::order::sort_by_key(&mut specs, |spec| version_of(spec));
    specs
}

/// The tool of `registry` a `name@version` call names, offered or held.
pub(super) fn versioned<'a>(registry: &'a Registry, name: &str) -> Option<&'a ToolRef> {
    let (base, version) = name.split_once('@')?;
    let offered = registry.index.get(base).map(|&i| &registry.tools[i]);
    offered
        .into_iter()
        .chain(registry.held.iter().filter(|tool| tool.spec().name == base))
        .find(|tool| same_version(tool.spec(), version))
}

/// The error for a call of `name` that names a tool `registry` holds but
/// cannot run: one withheld for its requirements
/// ([`Disabled`](ToolErrorKind::Disabled), naming what is missing), or a
/// version of a held name it does not have
/// ([`UnknownTool`](ToolErrorKind::UnknownTool), naming the versions it
/// has). `None` for any other name.
pub(super) fn unavailable(registry: &Registry, name: &str) -> Option<ToolError> {
    let (base, version) = match name.split_once('@') {
        Some((base, version)) => (base, Some(version)),
        None => (name, None),
    };
    let withheld = registry.withheld.iter().find(|w| {
        let spec = w.tool.spec();
        spec.name == base && version.is_none_or(|version| same_version(spec, version))
    });
    if let Some(withheld) = withheld {
        return Some(withheld.error());
    }
    let version = version?;
    let versions = reachable(registry, base);
    if versions.is_empty() {
        return None;
    }
    let list: Vec<&str> = versions
        .iter()
        .filter_map(|spec| spec.version.as_deref())
        .collect();
    let message = if list.is_empty() {
        format!(
            "tool `{base}` has no versions; call it as `{base}` (asked for version \"{}\")",
            crate::quote::name(version)
        )
    } else {
        format!(
            "tool `{base}` has no version \"{}\"; its versions are {}",
            crate::quote::name(version),
            list.join(", ")
        )
    };
    Some(ToolError::with_kind(ToolErrorKind::UnknownTool, message))
}

/// The text that starts the description of a deprecated tool, which is
/// what a model reads of the deprecation: `[deprecated: NOTE] `.
pub fn deprecation_prefix(note: &str) -> String {
    format!("[deprecated: {note}] ")
}

/// `tool` as a registry holds it: a deprecated tool wrapped so that its
/// description starts with [`deprecation_prefix`] and each call warns. A
/// tool already so wrapped, or not deprecated, is returned as it is.
pub(super) fn mark_deprecated(tool: ToolRef) -> ToolRef {
    let spec = tool.spec();
    let Some(note) = &spec.deprecated else {
        return tool;
    };
    let prefix = deprecation_prefix(note);
    if spec.description.starts_with(&prefix) {
        return tool;
    }
    let mut spec = spec.clone();
    spec.description = format!("{prefix}{}", spec.description).into();
    ToolRef::Shared(Arc::new(Deprecated { tool, spec }))
}

/// A deprecated tool: its description says so, and each call logs a
/// warning (a `tracing` warning with the tool's name, version and note,
/// and a [`LogLevel::Warning`] report the call's record keeps among its
/// warnings).
struct Deprecated {
    tool: ToolRef,
    spec: ToolSpec,
}

impl Deprecated {
    fn warn(&self, ctx: &ToolContext) {
        let spec = &self.spec;
        let note = spec.deprecated.as_deref().unwrap_or_default();
        let version = spec.version.as_deref().unwrap_or_default();
        crate::trace::warning!(
            tool = %spec.name,
            version = %version,
            note = %note,
            "deprecated tool called"
        );
        let at = match version {
            "" => String::new(),
            version => format!(" {version}"),
        };
        ctx.progress_handle().log(
            LogLevel::Warning,
            format!("tool `{}`{at} is deprecated: {note}", spec.name),
        );
    }
}

impl Tool for Deprecated {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Always: the warning goes through the call's context.
    fn takes_context(&self) -> bool {
        true
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.warn(ctx);
        self.tool.call(input, ctx)
    }

    fn call_checked<'a>(
        &'a self,
        input: crate::spec::args::Checked<'a>,
        ctx: &'a ToolContext,
    ) -> ToolFuture<'a> {
        self.warn(ctx);
        self.tool.call_checked(input, ctx)
    }

    fn call_str<'a>(&'a self, input: &'a str, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.warn(ctx);
        self.tool.call_str(input, ctx)
    }

    fn call_json<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a, Value> {
        self.warn(ctx);
        self.tool.call_json(input, ctx)
    }
}
