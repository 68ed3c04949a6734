//! Plain text with XML tags, for models without native tool calling: the
//! tools are described in the system prompt.
//!
//! ```text
//! <tools>
//!   <tool name="convert_length">
//!     <description>Convert a length from one unit to another.</description>
//!     <arguments>
//!       <arg name="value" type="number" required="true">The length to convert</arg>
//!       <arg name="from" type="string" required="true" enum="millimetre|metre|...">The unit `value` is in</arg>
//!       ...
//!     </arguments>
//!   </tool>
//! </tools>
//! ```
//!
//! Arguments are listed in declaration order (the fields of a nested
//! object: required ones first, in declaration order, then the others by
//! name). Each `<arg>` has `name`,
//! `type` (`string`, `integer`, `number`, `boolean`, `object`, `array`, or
//! `any`), `required`, `default` when there is one (text as it is, other
//! values as JSON) and `enum` (the allowed values, separated by `|`) for a
//! fixed set of values; its description is its text. An object argument
//! lists its fields as nested `<arg>` elements after a `<description>`
//! element; an array argument describes its elements in an `<items>`
//! element built the same way; a union lists its alternatives as `<option>`
//! elements. Schemas are first simplified as for Gemini (references
//! inlined, recursive types cut off, nullable types reduced to their type),
//! see [`super::gemini`].
//!
//! Text and attribute values are escaped; characters XML 1.0 does not allow
//! (control characters other than tab, newline and carriage return) become
//! U+FFFD.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// The `<tools>` block describing every tool of `specs`.
pub fn render_tools<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> String {
    let mut out = String::from("<tools>\n");
    for spec in specs {
        write_tool(&mut out, spec, 1);
    }
    out.push_str("</tools>\n");
    out
}

/// One `<tool>` element.
pub fn render_tool(spec: &ToolSpec) -> String {
    let mut out = String::new();
    write_tool(&mut out, spec, 0);
    out
}

/// A `<tool_result id=".." name=".." status="success|error">text</tool_result>`
/// element, JSON content written as compact JSON.
pub fn render_result(call: &ToolUse, result: &ToolResult) -> String {
    let status = if result.is_error() {
        "error"
    } else {
        "success"
    };
    format!(
        "<tool_result id=\"{}\" name=\"{}\" status=\"{status}\">{}</tool_result>",
        escape_attribute(&result.tool_use_id),
        escape_attribute(&call.name),
        escape_text(&result.text_content())
    )
}

/// `text` escaped for XML character data.
pub fn escape_text(text: &str) -> String {
    escape(text, false)
}

/// `text` escaped for a double-quoted XML attribute value.
pub fn escape_attribute(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\t' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_tool(out: &mut String, spec: &ToolSpec, level: usize) {
    let schema = super::gemini::schema(spec.input_schema());
    indent(out, level);
    let _ = write!(out, "<tool name=\"{}\"", escape_attribute(&spec.name));
    if let Some(title) = &spec.title {
        let _ = write!(out, " title=\"{}\"", escape_attribute(title));
    }
    out.push_str(">\n");
    if !spec.description.is_empty() {
        indent(out, level + 1);
        let _ = writeln!(
            out,
            "<description>{}</description>",
            escape_text(&spec.description)
        );
    }
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    indent(out, level + 1);
    if properties.is_empty() {
        out.push_str("<arguments/>\n");
    } else {
        out.push_str("<arguments>\n");
        let required = required_names(&schema);
        let declared = spec.params.iter().map(|param| param.name);
        write_args(out, properties, declared, &required, level + 2);
        indent(out, level + 1);
        out.push_str("</arguments>\n");
    }
    indent(out, level);
    out.push_str("</tool>\n");
}

/// Writes each of `properties` as an `<arg>` element: those named in
/// `first` in that order, then the others in the schema's order.
fn write_args<'a>(
    out: &mut String,
    properties: &'a Map<String, Value>,
    first: impl Iterator<Item = &'a str>,
    required: &[&str],
    level: usize,
) {
    let mut names: Vec<&str> = first
        .filter(|name| properties.contains_key(*name))
        .collect();
    for name in properties.keys() {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    for name in names {
        let attributes = Attributes {
            name: Some(name),
            required: Some(required.contains(&name)),
        };
        write_schema(out, "arg", attributes, &properties[name], level);
    }
}

fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

struct Attributes<'a> {
    name: Option<&'a str>,
    required: Option<bool>,
}

/// Writes one element (`arg`, `items` or `option`) describing `schema`.
fn write_schema(
    out: &mut String,
    tag: &str,
    attributes: Attributes<'_>,
    schema: &Value,
    level: usize,
) {
    let kind = match (
        schema.get("type").and_then(Value::as_str),
        schema.get("anyOf"),
    ) {
        (Some(kind), _) => kind,
        (None, Some(_)) => "one_of",
        (None, None) => "any",
    };
    indent(out, level);
    let _ = write!(out, "<{tag}");
    if let Some(name) = attributes.name {
        let _ = write!(out, " name=\"{}\"", escape_attribute(name));
    }
    let _ = write!(out, " type=\"{kind}\"");
    if let Some(required) = attributes.required {
        let _ = write!(out, " required=\"{required}\"");
    }
    if let Some(default) = schema.get("default") {
        let text = match default {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let _ = write!(out, " default=\"{}\"", escape_attribute(&text));
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        let _ = write!(out, " enum=\"{}\"", escape_attribute(&values.join("|")));
    }
    let description = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();

    let properties = schema.get("properties").and_then(Value::as_object);
    let items = schema.get("items");
    let options = schema.get("anyOf").and_then(Value::as_array);
    let has_children =
        properties.is_some_and(|p| !p.is_empty()) || items.is_some() || options.is_some();

    if !has_children {
        if description.is_empty() {
            out.push_str("/>\n");
        } else {
            let _ = writeln!(out, ">{}</{tag}>", escape_text(description));
        }
        return;
    }
    out.push_str(">\n");
    if !description.is_empty() {
        indent(out, level + 1);
        let _ = writeln!(
            out,
            "<description>{}</description>",
            escape_text(description)
        );
    }
    if let Some(properties) = properties {
        // Required fields first, in the order the schema lists them (their
        // declaration order), then the others by name.
        let required = required_names(schema);
        let first = required.iter().copied();
        write_args(out, properties, first, &required, level + 1);
    }
    if let Some(items) = items {
        let attributes = Attributes {
            name: None,
            required: None,
        };
        write_schema(out, "items", attributes, items, level + 1);
    }
    if let Some(options) = options {
        for option in options {
            let attributes = Attributes {
                name: None,
                required: None,
            };
            write_schema(out, "option", attributes, option, level + 1);
        }
    }
    indent(out, level);
    let _ = writeln!(out, "</{tag}>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_forbidden_characters() {
        assert_eq!(
            escape_text("a < b && c > \"d\"\n"),
            "a &lt; b &amp;&amp; c &gt; \"d\"\n"
        );
        assert_eq!(
            escape_attribute("say \"hi\"\nnow\u{0}"),
            "say &quot;hi&quot;&#10;now\u{FFFD}"
        );
    }
}
