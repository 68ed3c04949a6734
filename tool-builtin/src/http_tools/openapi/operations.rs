//! The operations: which of the document's operations become tools
//! (`include`, `exclude`, no TRACE), and the tool name each gets.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use tool_manifest::pointer_token;

use super::super::Problems;
use super::document::Reader;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One operation to make a tool of.
pub(super) struct Operation<'d> {
    pub(super) path: String,
    pub(super) method: &'static str,
    /// Its JSON pointer in the document.
    pub(super) pointer: String,
    /// `GET /pet/{petId}`, for messages.
    pub(super) shown: String,
    id: Option<String>,
    pub(super) operation: &'d Value,
    /// The path item's parameters.
    pub(super) common: Option<&'d Value>,
    pub(super) common_pointer: String,
}

/// The operations of the document that `filter` keeps, in the document's
/// order; an entry of `filter` that names no operation or tag is a
/// problem.
pub(super) fn collect<'d>(
    reader: &mut Reader<'d>,
    filter: &Filter,
    problems: &mut Problems<'_>,
) -> Vec<Operation<'d>> {
    let doc = reader.document.value();
    let mut operations = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    let mut tags: BTreeSet<String> = BTreeSet::new();
    if let Some(paths) = doc.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            let item_pointer = format!("/paths/{}", pointer_token(path));
            let (item, item_pointer) = reader.follow(item, &item_pointer);
            let Some(item) = item.as_object() else {
                continue;
            };
            // In the document's order.
            for (key, operation) in item {
                let Some(method) = METHODS.iter().copied().find(|m| m == key) else {
                    continue;
                };
                if !operation.is_object() {
                    continue;
                }
                let pointer = format!("{item_pointer}/{method}");
                let id = operation.get("operationId").and_then(Value::as_str);
                let op_tags: Vec<String> = operation
                    .get("tags")
                    .and_then(Value::as_array)
                    .map(|t| {
                        t.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                ids.extend(id.map(str::to_owned));
                tags.extend(op_tags.iter().cloned());
                if !filter.keeps(id, &op_tags) {
                    continue;
                }
                let shown = format!("{} {path}", method.to_ascii_uppercase());
                if method == "trace" {
                    reader.note(
                        &pointer,
                        format!("{shown}: TRACE operations are not made into tools"),
                    );
                    continue;
                }
                operations.push(Operation {
                    path: path.clone(),
                    method,
                    pointer,
                    shown,
                    id: id.map(str::to_owned),
                    operation,
                    common: item.get("parameters"),
                    common_pointer: format!("{item_pointer}/parameters"),
                });
            }
        }
    } else if reader.errors.is_empty() {
        reader.error("", "the document has no `paths`");
    }
    filter.check(&ids, &tags, problems);
    operations
}

/// The tool name of `operation`: `prefix` and its operationId (or method
/// and path), cut to 64 characters; `None` (with the error) when no name
/// can be made or another operation has it. `names` holds the names given
/// so far, each with the operation that has it.
pub(super) fn tool_name(
    reader: &mut Reader<'_>,
    operation: &Operation<'_>,
    prefix: &str,
    names: &mut BTreeMap<String, String>,
) -> Option<String> {
    let base_name = match &operation.id {
        Some(id) => sanitize(id),
        None => {
            let name = sanitize(&format!("{}_{}", operation.method, operation.path));
            reader.note(
                &operation.pointer,
                format!(
                    "{}: the operation has no operationId; its tool is named \"{prefix}{name}\" from its method and path (give it an operationId for a stable name)",
                    operation.shown
                ),
            );
            name
        }
    };
    let mut name = format!("{prefix}{base_name}");
    if name.len() > 64 {
        name.truncate(64);
        reader.note(
            &operation.pointer,
            format!(
                "{}: the tool's name is cut to 64 characters: \"{name}\"",
                operation.shown
            ),
        );
    }
    if name.is_empty() {
        reader.error(
            &operation.pointer,
            format!("{}: no tool name can be made", operation.shown),
        );
        return None;
    }
    if let Some(first) = names.get(&name) {
        reader.error(
            &operation.pointer,
            format!(
                "{} makes the tool name \"{name}\", as {first} does; `exclude` one of them",
                operation.shown
            ),
        );
        return None;
    }
    names.insert(name.clone(), operation.shown.clone());
    Some(name)
}

/// `include` and `exclude`: operationIds or tags.
pub(super) struct Filter {
    include: Option<Vec<(String, String)>>,
    exclude: Vec<(String, String)>,
}

impl Filter {
    pub(super) fn read(definition: &Value, problems: &mut Problems<'_>) -> Filter {
        let mut list = |key: &str| -> Option<Vec<(String, String)>> {
            let value = definition.get(key)?;
            let Some(items) = value.as_array() else {
                problems.at_value(key, format!("`{key}` is a list of operationIds and tags"));
                return Some(Vec::new());
            };
            Some(
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| match item.as_str() {
                        Some(text) => Some((text.to_owned(), format!("{key}/{i}"))),
                        None => {
                            problems.at_value(&format!("{key}/{i}"), "an operationId or a tag");
                            None
                        }
                    })
                    .collect(),
            )
        };
        Filter {
            include: list("include"),
            exclude: list("exclude").unwrap_or_default(),
        }
    }

    fn matches(entries: &[(String, String)], id: Option<&str>, tags: &[String]) -> bool {
        entries
            .iter()
            .any(|(entry, _)| Some(entry.as_str()) == id || tags.contains(entry))
    }

    fn keeps(&self, id: Option<&str>, tags: &[String]) -> bool {
        self.include
            .as_ref()
            .is_none_or(|include| Self::matches(include, id, tags))
            && !Self::matches(&self.exclude, id, tags)
    }

    /// An entry that names no operation and no tag is a mistake.
    fn check(&self, ids: &[String], tags: &BTreeSet<String>, problems: &mut Problems<'_>) {
        let all = self.include.iter().flatten().chain(&self.exclude);
        for (entry, key) in all {
            if ids.contains(entry) || tags.contains(entry) {
                continue;
            }
            let candidates = ids
                .iter()
                .map(String::as_str)
                .chain(tags.iter().map(String::as_str));
            let suggestion = tool_runtime::__private::names::closest(entry, candidates)
                .map(|s| format!("; did you mean \"{s}\"?"))
                .unwrap_or_default();
            problems.at_value(
                key,
                format!(
                    "\"{entry}\" is neither an operationId nor a tag of the document{suggestion}"
                ),
            );
        }
    }
}

/// An operationId (or `method_path`) as a tool name: characters outside
/// `[a-zA-Z0-9_-]` become `_`, runs of `_` one, none at either end.
fn sanitize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end_matches('_').to_owned()
}

/// A parameter's name as a property name every provider takes
/// (`[a-zA-Z0-9_.-]`, 64 at most).
pub(super) fn sanitize_property(raw: &str) -> String {
    let mut out: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out.truncate(64);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_provider_safe() {
        assert_eq!(sanitize("getPetById"), "getPetById");
        assert_eq!(sanitize("get_/pet/{petId}"), "get_pet_petId");
        assert_eq!(sanitize("pets.list v2"), "pets_list_v2");
        assert_eq!(sanitize_property("filter[name]"), "filter_name_");
    }
}
