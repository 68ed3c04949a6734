//! Where a registry's tool configurations come from, and how they are
//! layered and validated when it is built.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{Registry, RegistryProblem};
use crate::spec::config::ConfigValue;

/// The environment variable prefix for a tool: `TOOL_SEARCH_`.
pub fn env_prefix(tool: &str) -> String {
    let mut prefix = String::from("TOOL_");
    prefix.extend(tool.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        }
    }));
    prefix.push('_');
    prefix
}

/// The configuration fields set for `tool` in the environment, read with the
/// schema's help: a string property keeps the text as it is, any other
/// property reads it as JSON (`5`, `true`, `["a"]`) when it parses.
pub fn from_env(
    tool: &str,
    schema: &Value,
    vars: impl IntoIterator<Item = (String, String)>,
) -> Map<String, Value> {
    let prefix = env_prefix(tool);
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for (key, text) in vars {
        let Some(field) = key.strip_prefix(&prefix) else {
            continue;
        };
        let field = field.to_ascii_lowercase();
        let property = properties.and_then(|p| p.get(&field));
        let is_string = property.and_then(|p| p.get("type")).is_some_and(|t| {
            t == "string"
                || t.as_array()
                    .is_some_and(|a| a.contains(&Value::from("string")))
        });
        let value = if is_string {
            Value::String(text)
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        out.insert(field, value);
    }
    out
}

/// Merges `overlay` into `base` field by field (objects recursively).
pub fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                match base.get_mut(&key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        merge(existing, value)
                    }
                    _ => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, overlay) => *base = overlay,
    }
}

/// Configurations given for a registry, by source.
pub(super) struct Sources {
    /// From [`RegistryBuilder::configure`](crate::RegistryBuilder::configure).
    pub(super) code: Vec<(String, Value)>,
    /// From a registry file.
    pub(super) file: Vec<(String, Value)>,
    /// `TOOL_*` environment variables.
    pub(super) env: Vec<(String, String)>,
}

/// Validates the configuration of every tool in `registry` that declares
/// one, layering the sources; a tool whose configuration is required but
/// missing is a problem now, not at its first call.
pub(super) fn resolve(
    registry: &Registry,
    sources: Sources,
) -> Result<HashMap<Cow<'static, str>, ConfigValue>, Vec<RegistryProblem>> {
    let mut problems = Vec::new();
    let mut given: HashMap<&str, Value> = HashMap::new();
    for (name, value) in sources.code.into_iter().chain(sources.file) {
        let Some(tool) = registry.resolve(&name) else {
            problems.push(RegistryProblem::UnexpectedConfig {
                reason: "no tool in this registry has that name".into(),
                tool: name,
            });
            continue;
        };
        let spec = tool.spec();
        if spec.config.is_none() {
            problems.push(RegistryProblem::UnexpectedConfig {
                tool: name,
                reason: format!("tool \"{}\" takes no configuration", spec.name),
            });
            continue;
        }
        merge(
            given
                .entry(&*spec.name)
                .or_insert_with(|| Value::Object(Map::new())),
            value,
        );
    }
    let mut configs = HashMap::new();
    for spec in registry.specs() {
        let Some(config) = spec.config else {
            continue;
        };
        let from_env = from_env(&spec.name, config.schema(), sources.env.iter().cloned());
        let was_given = given.contains_key(&*spec.name) || !from_env.is_empty();
        let mut value = given
            .remove(&*spec.name)
            .unwrap_or_else(|| Value::Object(Map::new()));
        merge(&mut value, Value::Object(from_env));
        match config.validate(&value) {
            Ok(decoded) => {
                configs.insert(spec.name.clone(), decoded);
            }
            Err(errors) => problems.push(RegistryProblem::InvalidConfig {
                tool: spec.name.to_string(),
                problems: errors,
                missing: !was_given,
            }),
        }
    }
    if problems.is_empty() {
        Ok(configs)
    } else {
        Err(problems)
    }
}
