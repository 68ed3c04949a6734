//! Plain text, for a prompt that lists tools in prose: each tool's name
//! and description, then its arguments as a list.
//!
//! ```text
//! convert_length: Convert a length from one unit to another.
//! Arguments:
//! - value (number, required): The length to convert
//! - from (string, required; one of: millimetre, metre, ...): The unit `value` is in
//! - options (object, optional): How to round
//!   - digits (integer, optional; default 2): Digits after the point
//! ```
//!
//! Arguments are listed as in the [XML rendering](super::xml): in
//! declaration order, the schema first simplified as for Gemini; an
//! object's fields are listed under it, indented, and an array's elements
//! are named by their type (`array of string`). A tool whose formatter
//! writes its own text ([`ToolFormat::describe`](crate::format::ToolFormat::describe)
//! for [`DescriptionFormat::Text`]) has that
//! text in place of its entry, as written. Entries are separated by a
//! blank line. Nothing is escaped: the text goes into a prompt as it is.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::spec::tool_spec::ToolSpec;
use crate::spec::tool_spec::format::{DescriptionFormat, written_description};

/// Every tool of `specs`, one entry each, separated by blank lines.
pub fn render_tools<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> String {
    let entries: Vec<String> = specs.into_iter().map(render_tool).collect();
    entries.join("\n")
}

/// One tool's entry, ending with a newline.
pub fn render_tool(spec: &ToolSpec) -> String {
    if let Some(mut written) = written_description(spec, DescriptionFormat::Text) {
        if !written.ends_with('\n') {
            written.push('\n');
        }
        return written;
    }
    let mut out = String::new();
    let _ = write!(out, "{}", spec.name);
    if let Some(title) = &spec.title {
        let _ = write!(out, " ({title})");
    }
    match spec.description.trim() {
        "" => out.push('\n'),
        description => {
            let _ = writeln!(out, ": {description}");
        }
    }
    let schema = super::gemini::schema(spec.input_schema());
    let declared: Vec<&str> = spec.params.iter().map(|param| param.name).collect();
    if has_properties(&schema) {
        out.push_str("Arguments:\n");
        write_fields(&mut out, &schema, &declared, 0);
    } else {
        out.push_str("Arguments: none\n");
    }
    out
}

fn has_properties(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty())
}

/// One line per property of `schema`, those named in `first` first, each
/// object's own fields under it.
fn write_fields(out: &mut String, schema: &Value, first: &[&str], level: usize) {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<&str> = first
        .iter()
        .copied()
        .filter(|name| properties.contains_key(*name))
        .collect();
    if first.is_empty() {
        names.extend(
            required
                .iter()
                .filter(|name| properties.contains_key(**name)),
        );
    }
    for name in properties.keys() {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    for name in names {
        let field = &properties[name];
        for _ in 0..level {
            out.push_str("  ");
        }
        let need = if required.contains(&name) {
            "required"
        } else {
            "optional"
        };
        let _ = write!(out, "- {name} ({}, {need}", kind(field));
        if let Some(Value::Array(values)) = field.get("enum") {
            let values: Vec<String> = values.iter().map(plain).collect();
            let _ = write!(out, "; one of: {}", values.join(", "));
        }
        if let Some(default) = field.get("default") {
            let _ = write!(out, "; default {}", plain(default));
        }
        out.push(')');
        match field.get("description").and_then(Value::as_str) {
            Some(description) if !description.trim().is_empty() => {
                let _ = writeln!(out, ": {}", description.trim());
            }
            _ => out.push('\n'),
        }
        if has_properties(field) {
            write_fields(out, field, &[], level + 1);
        }
    }
}

/// A schema's type as a word: `string`, `array of integer`, `any`.
fn kind(schema: &Value) -> String {
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => match schema.get("items") {
            Some(items) => format!("array of {}", kind(items)),
            None => "array".into(),
        },
        Some(kind) => kind.into(),
        None if schema.get("anyOf").is_some() => "one of several types".into(),
        None => "any".into(),
    }
}

/// A value as a prompt shows it: text as it is, anything else as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_arguments_with_their_kinds_and_nested_fields() {
        let spec = ToolSpec::new(
            "convert_length",
            "Convert a length.",
            json!({
                "type": "object",
                "properties": {
                    "value": {"type": "number", "description": "The length"},
                    "unit": {"type": "string", "enum": ["metre", "foot"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "round": {
                        "type": "object",
                        "description": "How to round",
                        "properties": {"digits": {"type": "integer", "default": 2}}
                    }
                },
                "required": ["value", "unit"]
            }),
        );
        assert_eq!(
            render_tool(&spec),
            "convert_length: Convert a length.\nArguments:\n\
             - value (number, required): The length\n\
             - unit (string, required; one of: metre, foot)\n\
             - tags (array of string, optional)\n\
             - round (object, optional): How to round\n  \
             - digits (integer, optional; default 2)\n"
        );
        let none = ToolSpec::new("ping", "", json!({"type": "object"}));
        assert_eq!(
            render_tools([&none, &none]),
            "ping\nArguments: none\n\nping\nArguments: none\n"
        );
    }
}
