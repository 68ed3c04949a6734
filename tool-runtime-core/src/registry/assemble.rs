//! Assembling a registry from tools: name order, one definition added
//! twice, duplicate names, aliases, strict mode, and the search tool. The
//! builder's last step, and each change of a live registry, call these.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::Registry;
use super::error::{RegistryError, RegistryProblem};
use crate::context::ToolContext;
use crate::invoke::policy::Settings;
use crate::names::Aliases;
use crate::search::{Deferral, SearchTool};
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolRef};

/// A registry of `tools` alone, in name order, with the aliases their
/// specs declare and default settings; or every duplicate name, alias
/// collision and strict-mode problem among them.
pub(super) fn from_tools(mut tools: Vec<ToolRef>) -> Result<Registry, RegistryError> {
    // The same definition added twice (say, by name and by value) is one
    // tool; any other two tools of one name are an error below, made at
    // one line (a loop over a catalogue) or not.
    tools = dedup(tools);
    let mut problems = Vec::new();
    for pair in tools.windows(2) {
        let (first, second) = (pair[0].spec(), pair[1].spec());
        if first.name == second.name {
            problems.push(RegistryProblem::DuplicateName {
                name: first.name.to_string(),
                first: first.location,
                second: second.location,
            });
        }
    }
    problems.extend(strict_problems(tools.iter().map(|tool| tool.spec()), false));
    if !problems.is_empty() {
        return Err(RegistryError { problems });
    }
    let index = tools
        .iter()
        .enumerate()
        .map(|(i, tool)| (tool.spec().name.clone(), i))
        .collect();
    let names: Vec<&str> = tools.iter().map(|t| &*t.spec().name).collect();
    let declared = tools.iter().enumerate().flat_map(|(i, tool)| {
        tool.spec()
            .aliases
            .iter()
            .map(move |alias| (i, alias.to_string()))
    });
    let (aliases, collisions) = Aliases::build(&names, declared);
    if !collisions.is_empty() {
        return Err(RegistryError {
            problems: collisions
                .into_iter()
                .map(|(name, first, second)| RegistryProblem::NameCollision {
                    name,
                    first,
                    second,
                })
                .collect(),
        });
    }
    // A tool that needs scopes is not plain: its calls check their caller.
    let plain = tools
        .iter()
        .map(|tool| {
            let spec = tool.spec();
            !tool.takes_context() && !Settings::governs_tool(spec) && spec.scopes.is_empty()
        })
        .collect();
    Ok(Registry {
        tools,
        plain,
        index,
        aliases,
        allowlist: None,
        configs: HashMap::new(),
        settings: Arc::default(),
        strict: false,
        renderings: Arc::default(),
        left_out: Vec::new(),
        held: Vec::new(),
        withheld: Vec::new(),
        deferral: Deferral::default(),
        search: None,
    })
}

/// `registry` (fresh from [`from_tools`]) with a `search_tools` over its
/// other tools.
pub(super) fn with_search_tool(registry: Registry) -> Result<Registry, RegistryError> {
    let search = Arc::new(SearchTool::new(registry.specs()));
    let mut tools = registry.tools;
    tools.push(ToolRef::Shared(search.clone()));
    let mut registry = from_tools(tools)?;
    registry.search = Some(search);
    Ok(registry)
}

/// Adds aliases given in code (`alias`, `tool`) to those the specs of
/// `registry`'s tools declare, returning every alias naming no tool and
/// every collision.
pub(super) fn add_aliases(
    registry: &mut Registry,
    extra: Vec<(String, String)>,
) -> Vec<RegistryProblem> {
    let mut problems = Vec::new();
    if extra.is_empty() {
        return problems;
    }
    let names: Vec<String> = registry.names().map(str::to_owned).collect();
    let mut pairs: Vec<(usize, String)> = registry
        .aliases
        .iter()
        .map(|(alias, i)| (i, alias.to_owned()))
        .collect();
    for (alias, tool) in extra {
        match registry.index.get(tool.as_str()) {
            Some(&i) => pairs.push((i, alias)),
            None => problems.push(RegistryProblem::UnknownName {
                suggestion: crate::names::closest(&tool, names.iter().map(String::as_str))
                    .map(str::to_owned),
                name: tool,
            }),
        }
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (aliases, collisions) = Aliases::build(&names, pairs);
    registry.aliases = aliases;
    problems.extend(collisions.into_iter().map(|(name, first, second)| {
        RegistryProblem::NameCollision {
            name,
            first,
            second,
        }
    }));
    problems
}

/// `tools` in name order, with one definition added twice kept once.
pub(super) fn dedup(mut tools: Vec<ToolRef>) -> Vec<ToolRef> {
    crate::order::sort_by(&mut tools, |a, b| {
        let (a, b) = (a.spec(), b.spec());
        (&a.name, a.location.file, a.location.line).cmp(&(
            &b.name,
            b.location.file,
            b.location.line,
        ))
    });
    tools.dedup_by(|a, b| same_definition(a, b));
    tools
}

/// Whether two tools are one definition added twice: the same value (one
/// shared tool, or one `static`), or the same `#[tool]` (a spec `#[tool]`
/// generated, of the same name and location: the struct of a `#[tool]` has
/// no size, so each value of it may be held at an address of its own, or
/// all at one).
///
/// Two tools made at run time are never one definition because they were
/// made at the same line: a loop over a catalogue makes every tool there.
pub(super) fn same_definition(a: &ToolRef, b: &ToolRef) -> bool {
    let (first, second) = (a.spec(), b.spec());
    if first.name != second.name {
        return false;
    }
    let (a, b): (&dyn Tool, &dyn Tool) = (&**a, &**b);
    // Values of no size share addresses, so only sized ones are compared.
    let same_value = std::mem::size_of_val(a) != 0 && std::ptr::addr_eq(a, b);
    same_value
        || (first.is_generated() && second.is_generated() && first.location == second.location)
}

/// The strict-mode problems of the tools among `specs` that ask for strict
/// mode (or of all of them, with `all`).
pub(super) fn strict_problems<'a>(
    specs: impl IntoIterator<Item = &'a ToolSpec>,
    all: bool,
) -> Vec<RegistryProblem> {
    specs
        .into_iter()
        .filter(|spec| all || spec.strict)
        .filter_map(
            |spec| match crate::schema::strict::strict_input_schema(spec) {
                Ok(_) => None,
                Err(violations) => Some(RegistryProblem::NotStrict {
                    name: spec.name.to_string(),
                    violations,
                }),
            },
        )
        .collect()
}

/// A tool the registry renders strict whose strict arguments differ in shape
/// from its ordinary ones (free-form maps, values of any type): they are
/// turned back with [`from_strict_arguments`](crate::schema::strict::from_strict_arguments)
/// before the tool decodes them.
pub(super) struct StrictArguments(pub(super) ToolRef);

impl Tool for StrictArguments {
    fn spec(&self) -> &ToolSpec {
        self.0.spec()
    }

    fn takes_context(&self) -> bool {
        self.0.takes_context()
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> crate::spec::ToolFuture<'a> {
        let input =
            crate::schema::strict::from_strict_arguments(self.spec().input_schema(), input.clone());
        crate::spec::ToolFuture::pending(async move { self.0.call(&input, ctx).await })
    }

    fn call_str<'a>(&'a self, input: &'a str, ctx: &'a ToolContext) -> crate::spec::ToolFuture<'a> {
        match crate::spec::args::parse_text(self.spec(), input) {
            Ok(value) => {
                let input =
                    crate::schema::strict::from_strict_arguments(self.spec().input_schema(), value);
                crate::spec::ToolFuture::pending(async move { self.0.call(&input, ctx).await })
            }
            Err(error) => crate::spec::ToolFuture::ready(Err(error)),
        }
    }
}
