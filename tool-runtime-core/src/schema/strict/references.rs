//! Local references: resolving `$ref`, and removing the definitions that
//! nothing references once conversion has inlined them.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// The schema `reference` points at within `root`: `#`, `#/$defs/Name`,
/// `#/definitions/Name`, or any other local JSON pointer.
pub(crate) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    // Fragments may be percent-encoded; local pointers made by schemars are
    // not, apart from the odd space.
    let decoded = pointer.replace("%25", "%").replace("%20", " ");
    root.pointer(&decoded)
}

/// Removes `$defs` entries nothing references any more (after inlining),
/// and `$defs` itself when it is left empty.
pub(super) fn prune_definitions(schema: &mut Value) {
    let Value::Object(root) = schema else { return };
    for key in ["$defs", "definitions"] {
        let Some(Value::Object(definitions)) = root.get(key) else {
            continue;
        };
        let prefix = format!("#/{key}/");
        let mut used = BTreeSet::new();
        let mut pending = Vec::new();
        for (name, value) in root.iter() {
            if name != "$defs" && name != "definitions" {
                collect_refs(value, &mut pending);
            }
        }
        while let Some(reference) = pending.pop() {
            let Some(name) = reference.strip_prefix(&prefix) else {
                continue;
            };
            if used.insert(name.to_owned())
                && let Some(definition) = definitions.get(name)
            {
                collect_refs(definition, &mut pending);
            }
        }
        let kept: Map<String, Value> = definitions
            .iter()
            .filter(|(name, _)| used.contains(name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        if kept.is_empty() {
            root.remove(key);
        } else {
            root.insert(key.into(), Value::Object(kept));
        }
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                match (key.as_str(), child) {
                    ("$ref", Value::String(reference)) => out.push(reference.clone()),
                    ("enum" | "const" | "default" | "examples", _) => {}
                    _ => collect_refs(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, out)),
        _ => {}
    }
}
