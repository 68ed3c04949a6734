//! The JSON Schema of a registry file, assembled from the schema of
//! `tools` and those of the sections a program reads.

use serde_json::{Map, Value, json};

use super::section::AnySection;
use super::tools;

/// The JSON Schema of a registry file that has `tools` alone (and
/// optionally `$schema`).
pub fn schema() -> Value {
    schema_with(&[])
}

/// The JSON Schema of a registry file read with `sections`, each with its
/// own schema ([`Section::schema`](super::Section::schema)): the file has
/// `tools`, any of the sections, or both; no other key.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::manifest::schema;
///
/// let schema = schema();
/// assert_eq!(schema["required"], json!(["tools"]));
/// assert_eq!(schema["additionalProperties"], json!(false));
/// ```
pub fn schema_with(sections: &[&dyn AnySection]) -> Value {
    let mut properties = Map::new();
    properties.insert(
        "$schema".to_owned(),
        json!({"type": "string", "description": "The schema this file follows, for editors."}),
    );
    let mut keys = Vec::new();
    let mut described = Vec::new();
    for section in sections {
        let key = section.key();
        if key != "tools" && key != "$schema" && !keys.contains(&key) {
            properties.insert(key.to_owned(), section.schema());
            keys.push(key);
            described.push(section.description());
        }
    }
    properties.insert("tools".to_owned(), tools::schema());
    let mut description =
        "Which linked #[tool]s to enable, their aliases and their configuration".to_owned();
    if !described.is_empty() {
        description.push_str("; and the sections other crates provide: ");
        description.push_str(&described.join(", "));
    }
    description.push('.');
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tool-runtime.invalid/registry-file.schema.json",
        "title": "Tool registry file",
        "description": description,
        "type": "object",
        "properties": properties,
    });
    let required = if keys.is_empty() {
        ("required", json!(["tools"]))
    } else {
        let any: Vec<Value> = std::iter::once("tools")
            .chain(keys)
            .map(|key| json!({"required": [key]}))
            .collect();
        ("anyOf", Value::Array(any))
    };
    if let Some(object) = schema.as_object_mut() {
        object.insert(required.0.to_owned(), required.1);
        object.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    schema
}
