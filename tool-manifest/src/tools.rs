//! The `tools` section: which linked tools to enable, their aliases and
//! their configuration; applying it to a builder, and finding where in the
//! file a problem the registry reports comes from.

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
    const KEYS: [&str; 4] = ["name", "aliases", "config", "requires"];
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
                     `requires`, and `from`, `description` and `arguments` to re-expose a tool",
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
