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
//!
//! A tool whose formatter writes its own XML definition
//! ([`ToolFormat::describe`](crate::format::ToolFormat::describe) for
//! [`DescriptionFormat::Xml`](crate::format::DescriptionFormat::Xml)) has that text
//! in place of its `<tool>` element, as written.
//!
//! A model calls a tool by writing a `<tool_call>` element in its answer,
//! which [`parse_tool_calls`] reads:
//!
//! ```text
//! <tool_call name="convert_length">{"value": 3, "from": "metre", "to": "foot"}</tool_call>
//! ```
//!
//! `name` is the tool's name (or an alias), `id` an optional id for the
//! result; the body is the arguments' JSON object (empty for none), unless
//! the tool's formatter reads calls in a form of its own
//! ([`ToolFormat::parse_call`](crate::format::ToolFormat::parse_call)).

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::{Provider, ProviderError};
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

/// The `<tool_call>` elements of a plain-text answer, in order (see the
/// [module](self) documentation), the tools among `specs` reading the calls
/// written in a form of their own. A call without an `id` gets `call_1`,
/// `call_2`, ... by its place; a name no spec has is kept, for the registry
/// to answer. Text outside the elements is passed over.
///
/// The error names the byte where a call goes wrong (its pointer is empty):
/// an opening tag without its end, a body that is not a JSON object, a
/// missing `</tool_call>`, or what a tool's own reading says.
pub fn parse_tool_calls<'a>(
    text: &str,
    specs: impl IntoIterator<Item = &'a ToolSpec>,
) -> Result<Vec<ToolUse>, ProviderError> {
    const OPEN: &str = "<tool_call";
    const CLOSE: &str = "</tool_call>";
    let specs: Vec<&ToolSpec> = specs.into_iter().collect();
    let error = |at: usize, message: String| ProviderError {
        provider: Provider::Xml,
        pointer: String::new(),
        message: format!("at byte {at}: {message}"),
    };
    let mut calls = Vec::new();
    let mut at = 0;
    while let Some(found) = text[at..].find(OPEN) {
        let start = at + found;
        let after = start + OPEN.len();
        // `<tool_calls>` or `<tool_caller`: another element.
        if !text[after..].starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/') {
            at = after;
            continue;
        }
        let Some(end) = text[after..].find('>').map(|i| after + i) else {
            return Err(error(
                start,
                "a <tool_call> tag without its closing `>`".into(),
            ));
        };
        let tag = &text[after..end];
        let empty = tag.trim_end().ends_with('/');
        let attributes = read_attributes(tag.trim_end().trim_end_matches('/'))
            .map_err(|message| error(start, message))?;
        let Some(name) = attributes
            .iter()
            .find(|(key, _)| key == "name")
            .map(|(_, v)| v.clone())
        else {
            return Err(error(
                start,
                "a <tool_call> without a name attribute".into(),
            ));
        };
        let id = attributes
            .iter()
            .find(|(key, _)| key == "id")
            .map_or_else(|| format!("call_{}", calls.len() + 1), |(_, v)| v.clone());
        let body_start = end + 1;
        if empty {
            calls.push(ToolUse::new(id, name, Value::Object(Map::new())));
            at = body_start;
            continue;
        }
        let spec = specs
            .iter()
            .find(|spec| spec.name == name || spec.aliases.iter().any(|alias| *alias == name));
        let rest = &text[body_start..];
        let own = spec.and_then(|spec| {
            let formatter = spec.formatter.as_ref()?;
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                formatter.get().parse_call(spec, rest)
            }))
            .unwrap_or_else(|_| Some(Err(format!("reading a call of {name} failed"))))
        });
        let (arguments, body_end) = match own {
            Some(Ok(body)) if body.len <= rest.len() && rest.is_char_boundary(body.len) => {
                let tail = &rest[body.len..];
                let gap = tail.len() - tail.trim_start().len();
                if !tail.trim_start().starts_with(CLOSE) {
                    let at = body_start + body.len + gap;
                    return Err(error(
                        at,
                        format!("expected {CLOSE} after the call of {name}"),
                    ));
                }
                (body.arguments, body_start + body.len + gap)
            }
            Some(Ok(_)) => {
                return Err(error(
                    body_start,
                    format!("the call of {name} was read past its end"),
                ));
            }
            Some(Err(message)) => return Err(error(body_start, message)),
            None => {
                let Some(close) = rest.find(CLOSE) else {
                    return Err(error(start, format!("the call of {name} has no {CLOSE}")));
                };
                (
                    json_arguments(&rest[..close]).map_err(|m| error(body_start, m))?,
                    body_start + close,
                )
            }
        };
        if !arguments.is_object() {
            let got = super::describe_value(&arguments);
            return Err(error(
                body_start,
                format!("the arguments must be an object, got {got}"),
            ));
        }
        calls.push(ToolUse::new(id, name, arguments));
        at = body_end + CLOSE.len();
    }
    Ok(calls)
}

/// A call's body read as its arguments' JSON object (empty for none).
fn json_arguments(body: &str) -> Result<Value, String> {
    let body = body.trim();
    if body.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(body)
        .map_err(|error| format!("the arguments are not valid JSON ({error})"))
}

/// The `key="value"` attributes of a tag (single or double quotes), their
/// values unescaped.
fn read_attributes(tag: &str) -> Result<Vec<(String, String)>, String> {
    let mut attributes = Vec::new();
    let mut rest = tag.trim_start();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else {
            return Err(format!(
                "expected key=\"value\" in the tag, got {:?}",
                crate::quote::name(rest)
            ));
        };
        let key = rest[..eq].trim().to_owned();
        let value = rest[eq + 1..].trim_start();
        let Some(quote) = value.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            return Err(format!(
                "the value of {} must be quoted",
                crate::quote::name(&key)
            ));
        };
        let Some(close) = value[1..].find(quote) else {
            return Err(format!(
                "the value of {} has no closing quote",
                crate::quote::name(&key)
            ));
        };
        attributes.push((key, unescape(&value[1..1 + close])));
        rest = value[close + 2..].trim_start();
    }
    Ok(attributes)
}

/// XML's five named entities replaced by their characters.
fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
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
    let format = crate::spec::tool_spec::format::DescriptionFormat::Xml;
    if let Some(written) = crate::spec::tool_spec::format::written_description(spec, format) {
        out.push_str(&written);
        if !written.ends_with('\n') {
            out.push('\n');
        }
        return;
    }
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
    fn reads_tool_calls_in_text() {
        use serde_json::json;
        let text = "<tool_calls>not one</tool_calls>\n\
                    <tool_call name='a&amp;b' id=\"7\">{\"x\": 1}</tool_call>\n\
                    <tool_call name=\"ping\"/> <tool_call name=\"ping\">  </tool_call>";
        let calls = parse_tool_calls(text, []).unwrap();
        assert_eq!(
            calls,
            [
                ToolUse::new("7", "a&b", json!({"x": 1})),
                ToolUse::new("call_2", "ping", json!({})),
                ToolUse::new("call_3", "ping", json!({})),
            ]
        );
        for (bad, says) in [
            ("<tool_call name=\"a\">{}", "has no </tool_call>"),
            ("<tool_call>{}</tool_call>", "without a name"),
            ("<tool_call name=a>{}</tool_call>", "must be quoted"),
            ("<tool_call name=\"a\">[1]</tool_call>", "must be an object"),
            ("<tool_call name=\"a\"", "without its closing"),
        ] {
            let error = parse_tool_calls(bad, []).unwrap_err();
            assert!(error.message.contains(says), "{bad}: {error}");
        }
    }

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
