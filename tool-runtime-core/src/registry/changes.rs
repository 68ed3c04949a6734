//! A registry with tools added and removed, its settings kept: what each
//! change of a `LiveRegistry` swaps in, and a registry given another
//! result limit ([`Registry::with_result_limit`]).

use std::sync::Arc;

use super::assemble::StrictArguments;
use super::assemble::{add_aliases, from_tools, strict_problems, with_search_tool};
use super::config;
use super::{Registry, RegistryError};
use crate::invoke::limit::READ_RESULT;
use crate::search::SearchTool;
use crate::spec::limit::ResultLimit;
use crate::tool::ToolRef;

/// [`Registry::with_result_limit`]: `registry` with `limit` as its result
/// limit, and `read_result` offered unless a tool of its own has the name.
pub(super) fn with_result_limit(
    registry: &Registry,
    limit: ResultLimit,
) -> Result<Registry, RegistryError> {
    let mut settings = (*registry.settings).clone();
    settings.result_limit = Some(limit);
    // A reader is offered unless a tool of the registry's own has the
    // name; one offered already reads pages within the new limit.
    settings.read_result |= !registry.contains(READ_RESULT);
    let mut base = registry.clone();
    base.settings = Arc::new(settings);
    if !base.settings.read_result {
        return Ok(base);
    }
    let reader = super::results::read_result_tool(&base.settings);
    with_changes(&base, vec![ToolRef::Shared(Arc::new(reader))], &[])
}

/// `current` with `added` tools (replacing any of the same name) and
/// without the tools named in `removed`: the same settings, allowlist,
/// strictness and aliases given in code, the kept tools' configurations,
/// and fresh renderings. A new tool that declares a configuration takes it
/// from its defaults and the environment. What each change of a
/// [`LiveRegistry`] swaps in.
pub(super) fn with_changes(
    current: &Registry,
    added: Vec<ToolRef>,
    removed: &[&str],
) -> Result<Registry, RegistryError> {
    let added_names: Vec<String> = added.iter().map(|t| t.spec().name.to_string()).collect();
    let replaced =
        |name: &str| removed.contains(&name) || added_names.iter().any(|added| added == name);
    let extra: Vec<(String, String)> = current
        .aliases()
        .into_iter()
        .filter(|(alias, tool)| {
            !replaced(tool)
                && current
                    .get(tool)
                    .is_some_and(|t| !t.spec().aliases.iter().any(|a| a == alias))
        })
        .map(|(alias, tool)| (alias.to_owned(), tool.to_owned()))
        .collect();
    let mut problems = Vec::new();
    let mut fresh = Vec::new();
    for tool in added {
        let tool = super::versions::mark_deprecated(tool);
        let spec = tool.spec();
        if current.strict && !spec.strict {
            problems.extend(strict_problems(std::iter::once(spec), true));
        }
        if (current.strict || spec.strict)
            && crate::schema::strict::arguments_differ(spec.input_schema())
        {
            fresh.push(ToolRef::Shared(Arc::new(StrictArguments(tool))));
        } else {
            fresh.push(tool);
        }
    }
    let mut tools: Vec<ToolRef> = current
        .tools
        .iter()
        .filter(|tool| !replaced(&tool.spec().name))
        .cloned()
        .collect();
    tools.extend(fresh.iter().cloned());
    if current.search.is_some() {
        // A fresh search over the changed tools replaces the old one.
        tools.retain(|tool| tool.spec().name != SearchTool::NAME);
    }
    let built = from_tools(tools);
    let built = built.and_then(|registry| match current.search {
        Some(_) => with_search_tool(registry),
        None => Ok(registry),
    });
    let mut registry = match built {
        Ok(registry) => registry,
        Err(error) => {
            problems.extend(error.problems);
            return Err(RegistryError { problems });
        }
    };
    registry.allowlist = current.allowlist.clone();
    let kept = |tool: &ToolRef| !replaced(&tool.spec().name);
    registry.held = current.held.iter().filter(|t| kept(t)).cloned().collect();
    registry.withheld = (current.withheld.iter())
        .filter(|w| kept(&w.tool))
        .cloned()
        .collect();
    registry.deferral = current.deferral.clone();
    registry.settings = Arc::clone(&current.settings);
    registry.strict = current.strict;
    registry.configs = current
        .configs
        .iter()
        .filter(|(name, _)| registry.contains(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    if fresh.iter().any(|tool| tool.spec().config.is_some()) {
        let only_new = from_tools(fresh)?;
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
    problems.extend(add_aliases(&mut registry, extra));
    if problems.is_empty() {
        Ok(registry)
    } else {
        Err(RegistryError { problems })
    }
}
