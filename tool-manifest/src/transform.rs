//! A `tools` entry that re-exposes another tool (`from`): its new
//! description and what becomes of each argument, read with where each
//! part was written; applied with [`RegistryBuilder::transformed`], and
//! its problems found in the file.
//!
//! ```yaml
//! tools:
//!   - name: find_order
//!     from: order_lookup
//!     description: Finds a customer's order.
//!     arguments:
//!       q: {rename: query, description: The customer's words}
//!       limit: {hide: 10}
//!       unit: {default: m}
//! ```

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;
use serde_json::{Value, json};
use tool_runtime_core::{
    RegistryBuilder, registry::RegistryProblem, transform::ArgTransform, transform::GivenValue,
    transform::TransformError,
};

use crate::document::{Location, Locations, location, to_json};
use crate::problem::{ManifestProblem, problem};

/// The keys a `tools` entry has for a transform.
pub(crate) const KEYS: [&str; 3] = ["from", "description", "arguments"];

/// The keys of an argument's entry.
const ARG_KEYS: [&str; 4] = ["rename", "description", "default", "hide"];

/// What an entry with `from` makes of the tool it names.
#[derive(Debug, Clone)]
pub(crate) struct FileTransform {
    /// The tool re-exposed, and where its name was written.
    pub(crate) from: (String, Location),
    description: Option<String>,
    arguments: Vec<FileArg>,
}

/// One entry of `arguments`.
#[derive(Debug, Clone)]
struct FileArg {
    /// The argument's name in the tool, and where it was written.
    name: String,
    at: Location,
    /// The new name, and where it was written.
    rename: Option<(String, Location)>,
    /// Where the hidden value and the default were written.
    hide_at: Option<Location>,
    default_at: Option<Location>,
    change: ArgTransform,
}

/// The transform an entry declares (`index` is its place in `tools`);
/// `None` when it has no `from`, which `description` and `arguments` need.
pub(crate) fn read(
    index: usize,
    mapping: &MarkedMappingNode,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Option<FileTransform> {
    let Some(from) = mapping.get_node("from") else {
        for (key, _) in mapping.iter() {
            if matches!(key.as_str(), "description" | "arguments") {
                problems.push(problem(
                    key.span().start(),
                    format!(
                        "`{}` belongs to an entry that re-exposes another tool: add `from`, \
                         that tool's name",
                        key.as_str()
                    ),
                ));
            }
        }
        return None;
    };
    let Some(from) = from.as_scalar() else {
        problems.push(problem(from.span().start(), "`from` is a tool's name"));
        return None;
    };
    let mut transform = FileTransform {
        from: (from.as_str().to_owned(), location(from.span().start())),
        description: None,
        arguments: Vec::new(),
    };
    match mapping.get_node("description") {
        None => {}
        Some(Node::Scalar(text)) => transform.description = Some(text.as_str().to_owned()),
        Some(other) => problems.push(problem(other.span().start(), "`description` is text")),
    }
    match mapping.get_node("arguments") {
        None => {}
        Some(Node::Mapping(arguments)) => {
            for (key, value) in arguments.iter() {
                let pointer = format!(
                    "/tools/{index}/arguments/{}",
                    crate::document::pointer_token(key.as_str())
                );
                let arg = read_arg(key.as_str(), value, &pointer, locations, problems);
                transform.arguments.extend(arg.map(|mut arg| {
                    arg.at = location(key.span().start());
                    arg
                }));
            }
        }
        Some(other) => problems.push(problem(
            other.span().start(),
            "`arguments` is a mapping of the tool's argument names to what becomes of each",
        )),
    }
    Some(transform)
}

/// One argument's entry: `rename`, `description`, `default` and `hide`.
fn read_arg(
    name: &str,
    node: &Node,
    pointer: &str,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Option<FileArg> {
    let Node::Mapping(mapping) = node else {
        problems.push(problem(
            node.span().start(),
            "an argument's entry is a mapping of `rename`, `description`, `default` and `hide`",
        ));
        return None;
    };
    let mut arg = FileArg {
        name: name.to_owned(),
        at: location(node.span().start()),
        rename: None,
        hide_at: None,
        default_at: None,
        change: ArgTransform::new(),
    };
    for (key, value) in mapping.iter() {
        let text = || value.as_scalar().map(|text| text.as_str().to_owned());
        match key.as_str() {
            "rename" => match text() {
                Some(new) => {
                    arg.change = arg.change.rename(new.clone());
                    arg.rename = Some((new, location(value.span().start())));
                }
                None => problems.push(problem(value.span().start(), "`rename` is a name")),
            },
            "description" => match text() {
                Some(text) => arg.change = arg.change.description(text),
                None => problems.push(problem(value.span().start(), "`description` is text")),
            },
            "default" => {
                arg.default_at = Some(location(value.span().start()));
                let value = to_json(value, &format!("{pointer}/default"), locations);
                arg.change = arg.change.default(value);
            }
            "hide" => {
                arg.hide_at = Some(location(value.span().start()));
                let value = to_json(value, &format!("{pointer}/hide"), locations);
                arg.change = match value {
                    Value::Null => arg.change.hide(),
                    value => ArgTransform::hidden(value),
                };
            }
            other => {
                let suggestion =
                    tool_runtime_core::__private::names::closest(other, ARG_KEYS.into_iter())
                        .map(|s| format!("did you mean \"{s}\"? "))
                        .unwrap_or_default();
                problems.push(problem(
                    key.span().start(),
                    format!(
                        "unknown key \"{}\"; {suggestion}an argument has `rename`, \
                         `description`, `default` and `hide`",
                        tool_runtime_core::__private::quote::name(other)
                    ),
                ));
            }
        }
    }
    Some(arg)
}

/// `builder` making the tool `name` as `transform` says.
pub(crate) fn apply(
    name: &str,
    transform: &FileTransform,
    builder: RegistryBuilder,
) -> RegistryBuilder {
    let name = name.to_owned();
    let description = transform.description.clone();
    let arguments: Vec<(String, ArgTransform)> = transform
        .arguments
        .iter()
        .map(|arg| (arg.name.clone(), arg.change.clone()))
        .collect();
    builder.transformed(transform.from.0.clone(), move |mut tool| {
        tool = tool.name(name.clone());
        if let Some(description) = &description {
            tool = tool.description(description.clone());
        }
        for (argument, change) in &arguments {
            tool = tool.arg(argument.clone(), change.clone());
        }
        tool
    })
}

/// Where in the entry at `at`, which declares `transform`, the mistake
/// `error` was written.
pub(crate) fn locate(transform: &FileTransform, at: Location, error: &TransformError) -> Location {
    let argument = |name: &str| transform.arguments.iter().find(|arg| arg.name == name);
    match error {
        TransformError::UnknownArgument { argument: name, .. }
        | TransformError::HiddenRequired { argument: name, .. } => {
            argument(name).map_or(at, |arg| arg.at)
        }
        TransformError::InvalidValue {
            argument: name,
            value,
            ..
        } => argument(name).map_or(at, |arg| {
            let written = match value {
                GivenValue::Hidden => arg.hide_at,
                GivenValue::Default => arg.default_at.or(arg.hide_at),
                // A value given some other way: at the argument's entry.
                _ => None,
            };
            written.unwrap_or(arg.at)
        }),
        TransformError::NameTaken { argument: name, .. } => argument(name)
            .and_then(|arg| arg.rename.as_ref().map(|(_, at)| *at))
            .unwrap_or(at),
        TransformError::InvalidName { name } => transform
            .arguments
            .iter()
            .find_map(|arg| {
                let (new, at) = arg.rename.as_ref()?;
                (tool_runtime_core::__private::quote::name(new) == *name).then_some(*at)
            })
            .unwrap_or(at),
        // A mistake of another kind: at the entry.
        _ => at,
    }
}

/// The problem a registry reports for an entry that re-exposes a tool,
/// at its place, if it is one. `entries` are the entries that do: each
/// one's name, where it was written, and its transform.
pub(crate) fn problem_of<'a>(
    mut entries: impl Iterator<Item = (&'a str, Location, &'a FileTransform)>,
    registry_problem: &RegistryProblem,
) -> Option<ManifestProblem> {
    let location = match registry_problem {
        RegistryProblem::Transform { tool, error, .. } => {
            let (_, at, transform) = entries.find(|(name, _, _)| name == tool)?;
            locate(transform, at, error)
        }
        RegistryProblem::UnknownName { name, .. } => {
            let (_, _, transform) = entries.find(|(_, _, t)| t.from.0 == *name)?;
            transform.from.1
        }
        _ => return None,
    };
    Some(ManifestProblem {
        location: Some(location),
        message: registry_problem.to_string(),
    })
}

/// The schema of the keys an entry has for a transform.
pub(crate) fn schema() -> Value {
    json!({
        "from": {
            "type": "string",
            "description": "The tool this entry re-exposes under `name`, with `description` and `arguments`; it is not enabled itself unless listed too."
        },
        "description": {
            "type": "string",
            "description": "What the re-exposed tool does, in place of the description of the tool it re-exposes (with `from`)."
        },
        "arguments": {
            "type": "object",
            "description": "What becomes of the arguments of the tool re-exposed (with `from`), by their names in that tool.",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "rename": {"type": "string", "description": "The name the model gives the argument by."},
                    "description": {"type": "string", "description": "What the argument means."},
                    "default": {"description": "The value the tool gets when a call leaves the argument out; the argument is no longer required."},
                    "hide": {"description": "Hides the argument from the model: the tool always gets this value (`null`: none, for an argument that is not required)."}
                },
                "additionalProperties": false
            }
        }
    })
}
