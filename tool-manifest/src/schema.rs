//! The JSON Schema of a registry file, assembled from the schema of
//! `tools` and those of the sections a program reads.

use serde_json::{Map, Value, json};

use crate::section::AnySection;
use crate::tools;

/// The JSON Schema of a registry file that has `tools` alone (and
/// optionally `$schema`).
pub fn schema() -> Value {
    schema_with(&[])
}

/// The JSON Schema of a registry file read with `sections`, each with its
/// own schema ([`Section::schema`](crate::Section::schema)): the file has
/// `tools`, any of the sections, or both; no other key.
///
/// ```
/// use serde_json::json;
/// use tool_manifest::schema;
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

/// The JSON Schema of `T`, a form of a section's value (a type that
/// derives `schemars::JsonSchema`, its doc comments the descriptions), to
/// stand in the registry file's schema, as [`Section::schema`](crate::Section::schema)
/// gives it: subschemas inline, no `$schema` or `title`,
/// descriptions on one line; an optional key may be left out, not written
/// `null`.
pub fn section_schema<T: schemars::JsonSchema>() -> Value {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    settings
        .transforms
        .push(Box::new(schemars::transform::RecursiveTransform(tidy)));
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    schema.remove("title");
    schema.to_value()
}

/// `schema` without the `null` an `Option` adds (to `type`, to `enum`, or
/// as a choice of `anyOf`), its description on one line.
fn tidy(schema: &mut schemars::Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::String(description)) = object.get_mut("description") {
        *description = description.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|kind| kind != "null");
        if let [single] = types.as_slice() {
            let single = single.clone();
            object.insert("type".to_owned(), single);
        }
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    if let Some(Value::Array(choices)) = object.get_mut("anyOf") {
        choices.retain(|choice| choice.get("type").is_none_or(|kind| kind != "null"));
        if let [Value::Object(single)] = choices.as_slice() {
            let single = single.clone();
            object.remove("anyOf");
            for (key, value) in single {
                object.entry(key).or_insert(value);
            }
        }
    }
}

/// Whether `name` is a valid name for an entry of a section keyed by names
/// (an MCP server, an OpenAPI document): 1 to 64 letters, digits, `_` or
/// `-`, the `propertyNames` pattern of those sections' schemas.
///
/// ```
/// use tool_manifest::is_entry_name;
///
/// assert!(is_entry_name("everything_2"));
/// assert!(!is_entry_name("two words"));
/// assert!(!is_entry_name(""));
/// ```
pub fn is_entry_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
