//! The `tools` section: which linked tools to enable, their aliases, their
//! configuration, what they require and the scopes a caller needs; applying
//! it to a builder, and finding where in the file a problem the registry
//! reports comes from.

use std::collections::HashMap;

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;
use serde_json::{Value, json};
use tool_runtime_core::{
    RegistryBuilder, registry::Linked, registry::RegistryProblem, spec::Requirements,
};

use crate::document::{Location, Locations, location, to_json};
use crate::problem::{ManifestProblem, problem};
use crate::transform;

/// One entry of `tools`, with where each part was written.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) name: String,
    at: Location,
    aliases: Vec<(String, Location)>,
    config: Option<(Value, Location)>,
    /// The version pinned (`name@version`).
    version: Option<String>,
    /// Requirements added to the tool's own (`requires`).
    requires: Option<Requirements>,
    /// OAuth scopes a caller needs besides the tool's own (`scopes`).
    scopes: Vec<String>,
    /// What it makes of the tool it re-exposes (`from`), if it does.
    transform: Option<transform::FileTransform>,
}

impl Entry {
    /// An entry for the tool `written` (`name` or `name@version`).
    fn new(written: &str, at: Location) -> Self {
        let (name, version) = match written.split_once('@') {
            Some((name, version)) => (name, Some(version.to_owned())),
            None => (written, None),
        };
        Entry {
            name: name.to_owned(),
            at,
            aliases: Vec::new(),
            config: None,
            version,
            requires: None,
            scopes: Vec::new(),
            transform: None,
        }
    }
}

/// The section's entries, in file order. `others` says whether the file
/// has another section, without which `tools` must be there.
pub(crate) fn read(
    root: &MarkedMappingNode,
    others: bool,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Vec<Entry> {
    let mut entries = Vec::new();
    match root.get_node("tools") {
        None if others => {}
        None => problems.push(problem(root.span().start(), "missing the `tools` list")),
        Some(Node::Sequence(tools)) => {
            for (index, item) in tools.iter().enumerate() {
                entries.extend(read_entry(index, item, locations, problems));
            }
        }
        Some(other) => problems.push(problem(other.span().start(), "`tools` must be a list")),
    }
    entries
}

fn read_entry(
    index: usize,
    node: &Node,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Option<Entry> {
    let at = location(node.span().start());
    let mapping: &MarkedMappingNode = match node {
        Node::Scalar(name) => return Some(Entry::new(name.as_str(), at)),
        Node::Mapping(mapping) => mapping,
        Node::Sequence(_) => {
            problems.push(problem(
                node.span().start(),
                "each entry is a tool name or a mapping with `name`",
            ));
            return None;
        }
    };
    const KEYS: [&str; 5] = ["name", "aliases", "config", "requires", "scopes"];
    for (key, _) in mapping.iter() {
        let more = transform::KEYS;
        if !KEYS.contains(&key.as_str()) && !more.contains(&key.as_str()) {
            let suggestion = tool_runtime_core::__private::names::closest(
                key.as_str(),
                KEYS.into_iter().chain(more),
            )
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
            problems.push(problem(
                key.span().start(),
                format!(
                    "unknown key \"{}\"; {suggestion}an entry has `name`, `aliases`, `config`, \
                     `requires`, `scopes`, and `from`, `description` and `arguments` to \
                     re-expose a tool",
                    key.as_str()
                ),
            ));
        }
    }
    let Some(name) = mapping.get_scalar("name") else {
        problems.push(problem(node.span().start(), "this entry has no `name`"));
        return None;
    };
    let mut entry = Entry::new(name.as_str(), location(name.span().start()));
    read_aliases(mapping.get_node("aliases"), &mut entry, problems);
    entry.transform = transform::read(index, mapping, locations, problems);
    if let Some(requires) = mapping.get_node("requires") {
        entry.requires = read_requires(requires, problems);
    }
    if let Some(scopes) = mapping.get_node("scopes") {
        entry.scopes = read_scopes(scopes, problems);
    }
    if let Some(config) = mapping.get_node("config") {
        let pointer = format!("/tools/{index}/config");
        let value = to_json(config, &pointer, locations);
        entry.config = Some((value, location(config.span().start())));
    }
    Some(entry)
}

/// An entry's `requires`: a mapping of `env`, `program` and `feature`,
/// each a name or a list of names.
fn read_requires(node: &Node, problems: &mut Vec<ManifestProblem>) -> Option<Requirements> {
    let Node::Mapping(mapping) = node else {
        problems.push(problem(
            node.span().start(),
            "`requires` is a mapping of `env`, `program` and `feature` lists",
        ));
        return None;
    };
    let mut requires = Requirements::new();
    for (key, value) in mapping.iter() {
        let names: Vec<&str> = match value {
            Node::Scalar(name) => vec![name.as_str()],
            Node::Sequence(items) => items
                .iter()
                .filter_map(|item| match item.as_scalar() {
                    Some(name) => Some(name.as_str()),
                    None => {
                        problems.push(problem(item.span().start(), "each entry is a name"));
                        None
                    }
                })
                .collect(),
            Node::Mapping(_) => {
                problems.push(problem(value.span().start(), "a name or a list of names"));
                continue;
            }
        };
        for name in names {
            let name = name.to_owned();
            requires = match key.as_str() {
                "env" => requires.env(name),
                "program" => requires.program(name),
                "feature" => requires.feature(name),
                _ => requires,
            };
        }
        if !matches!(key.as_str(), "env" | "program" | "feature") {
            problems.push(problem(
                key.span().start(),
                format!(
                    "unknown key \"{}\"; `requires` has `env`, `program` and `feature`",
                    key.as_str()
                ),
            ));
        }
    }
    Some(requires)
}

/// An entry's `scopes`: a scope or a list of scopes, each an OAuth scope
/// token, none twice.
fn read_scopes(node: &Node, problems: &mut Vec<ManifestProblem>) -> Vec<String> {
    let written: Vec<&Node> = match node {
        Node::Scalar(_) => vec![node],
        Node::Sequence(items) if items.is_empty() => {
            problems.push(problem(
                node.span().start(),
                "`scopes` is an empty list: write the scopes a caller needs, as in \
                 scopes: [files:read], or remove `scopes`",
            ));
            return Vec::new();
        }
        Node::Sequence(items) => items.iter().collect(),
        Node::Mapping(_) => {
            problems.push(problem(
                node.span().start(),
                "`scopes` is a scope or a list of scopes, as in scopes: [files:read, files:write]",
            ));
            return Vec::new();
        }
    };
    let mut scopes: Vec<String> = Vec::new();
    for item in written {
        let Some(scope) = item.as_scalar() else {
            problems.push(problem(
                item.span().start(),
                "a scope is a word, such as files:read",
            ));
            continue;
        };
        let text = scope.as_str();
        let shown = tool_runtime_core::__private::quote::name(text);
        if let Some(why) = tool_runtime_core::__private::scope_problem(text) {
            problems.push(problem(
                item.span().start(),
                format!("invalid scope \"{shown}\": {why}"),
            ));
        } else if scopes.iter().any(|known| known == text) {
            problems.push(problem(
                item.span().start(),
                format!("scope \"{shown}\" is listed twice; remove one"),
            ));
        } else {
            scopes.push(text.to_owned());
        }
    }
    scopes
}

/// An entry's `aliases`: a name or a list of names.
fn read_aliases(node: Option<&Node>, entry: &mut Entry, problems: &mut Vec<ManifestProblem>) {
    match node {
        None => {}
        Some(Node::Sequence(aliases)) => {
            for alias in aliases.iter() {
                match alias.as_scalar() {
                    Some(text) => entry
                        .aliases
                        .push((text.as_str().to_owned(), location(text.span().start()))),
                    None => problems.push(problem(alias.span().start(), "an alias is a name")),
                }
            }
        }
        Some(Node::Scalar(alias)) => entry
            .aliases
            .push((alias.as_str().to_owned(), location(alias.span().start()))),
        Some(other) => problems.push(problem(
            other.span().start(),
            "`aliases` is a list of names",
        )),
    }
}

/// `builder` with the entries' tools enabled, their aliases and their
/// configurations.
pub(crate) fn configure(entries: &[Entry], mut builder: RegistryBuilder) -> RegistryBuilder {
    let linked = entries.iter().filter(|e| e.transform.is_none());
    builder = builder.linked(Linked::named(linked.map(|e| e.name.clone())));
    for entry in entries {
        if let Some(change) = &entry.transform {
            builder = transform::apply(&entry.name, change, builder);
        }
        for (alias, _) in &entry.aliases {
            builder = builder.alias(alias.clone(), entry.name.clone());
        }
        if let Some((config, _)) = &entry.config {
            builder = builder.configure_from_file(entry.name.clone(), config.clone());
        }
        if let Some(version) = &entry.version {
            builder = builder.pin(entry.name.clone(), version.clone());
        }
        if let Some(requires) = &entry.requires {
            builder = builder.require(entry.name.clone(), requires.clone());
        }
        if !entry.scopes.is_empty() {
            builder = builder.require_scopes(entry.name.clone(), entry.scopes.clone());
        }
    }
    builder
}

/// A problem for each tool listed again after its first entry.
pub(crate) fn duplicates(entries: &[Entry]) -> Vec<ManifestProblem> {
    let mut problems = Vec::new();
    let mut seen: HashMap<&str, Location> = HashMap::new();
    for entry in entries {
        if let Some(first) = seen.get(entry.name.as_str()) {
            problems.push(ManifestProblem {
                location: Some(entry.at),
                message: format!(
                    "tool \"{}\" is listed twice (first at line {}); remove one entry",
                    entry.name, first.line
                ),
            });
        } else {
            seen.insert(&entry.name, entry.at);
        }
    }
    problems
}

/// Finds where in the file a registry problem comes from.
pub(crate) fn locate(
    entries: &[Entry],
    locations: &Locations,
    registry_problem: &RegistryProblem,
) -> Vec<ManifestProblem> {
    let transforms = entries
        .iter()
        .filter_map(|e| Some((e.name.as_str(), e.at, e.transform.as_ref()?)));
    if let Some(found) = transform::problem_of(transforms, registry_problem) {
        return vec![found];
    }
    let entry_named = |name: &str| entries.iter().position(|e| e.name == name);
    match registry_problem {
        RegistryProblem::UnknownName { name, .. }
        | RegistryProblem::UnknownVersion { name, .. }
        | RegistryProblem::InvalidVersion { name, .. } => vec![ManifestProblem {
            location: entry_named(name).map(|i| entries[i].at),
            message: registry_problem.to_string(),
        }],
        RegistryProblem::InvalidConfig { tool, problems, .. } => {
            let Some(index) = entry_named(tool) else {
                return vec![ManifestProblem {
                    location: None,
                    message: registry_problem.to_string(),
                }];
            };
            let entry = &entries[index];
            problems
                .iter()
                .map(|arg| {
                    let pointer = format!("/tools/{index}/config/{}", arg.field.replace('.', "/"));
                    let location = locations
                        .values
                        .get(&pointer)
                        .copied()
                        .or(entry.config.as_ref().map(|(_, at)| *at))
                        .unwrap_or(entry.at);
                    ManifestProblem {
                        location: Some(location),
                        message: format!("configuration of \"{tool}\": {arg}"),
                    }
                })
                .collect()
        }
        RegistryProblem::NameCollision { name, .. } => {
            let at = entries.iter().find_map(|entry| {
                entry
                    .aliases
                    .iter()
                    .find(|(alias, _)| alias == name)
                    .map(|(_, at)| *at)
            });
            vec![ManifestProblem {
                location: at,
                message: registry_problem.to_string(),
            }]
        }
        RegistryProblem::UnexpectedConfig { tool, .. } => vec![ManifestProblem {
            location: entry_named(tool).and_then(|i| entries[i].config.as_ref().map(|(_, at)| *at)),
            message: registry_problem.to_string(),
        }],
        other => vec![ManifestProblem {
            location: None,
            message: other.to_string(),
        }],
    }
}

/// An OAuth scope token (RFC 6749 §3.3), as a JSON Schema pattern.
const SCOPE_PATTERN: &str = r"^[\x21\x23-\x5B\x5D-\x7E]+$";

/// The section's JSON Schema: names, or `{name, aliases, config}`.
pub(crate) fn schema() -> Value {
    let mut schema = json!({
        "type": "array",
        "description": "The tools to enable.",
        "items": {
            "anyOf": [
                {"type": "string", "description": "A tool's name (or alias), enabled with no further setup; `name@version` offers that version of it."},
                {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The tool's name (or alias); `name@version` offers that version of it."},
                        "aliases": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "More names the tool answers to."
                        },
                        "config": {
                            "type": "object",
                            "description": "The tool's configuration, checked against its configuration schema."
                        },
                        "requires": {
                            "type": "object",
                            "description": "What the tool needs besides what its definition states; a tool whose requirements are not met is withheld.",
                            "properties": {
                                "env": {
                                    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                                    "description": "Environment variables that must be set and not empty."
                                },
                                "program": {
                                    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                                    "description": "Programs that must be found on the PATH."
                                },
                                "feature": {
                                    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                                    "description": "Features the program must turn on."
                                }
                            },
                            "additionalProperties": false
                        },
                        "scopes": {
                            "anyOf": [
                                {"type": "string", "pattern": SCOPE_PATTERN},
                                {"type": "array", "items": {"type": "string", "pattern": SCOPE_PATTERN}, "minItems": 1, "uniqueItems": true}
                            ],
                            "description": "OAuth scopes a caller needs to call the tool and to see it listed, besides those the tool states itself; a call without a caller (a server that authenticates no one) is not checked."
                        }
                    },
                    "required": ["name"],
                    "additionalProperties": false
                }
            ]
        }
    });
    let entry = &mut schema["items"]["anyOf"][1]["properties"];
    if let (Some(entry), Value::Object(more)) = (entry.as_object_mut(), transform::schema()) {
        entry.extend(more);
    }
    schema
}
