//! What the commands print: stdout that tolerates a closed pipe, pretty
//! JSON, and aligned tables of one-line summaries.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::process::ExitCode;

use serde_json::Value;
use tool_runtime::ToolSpec;

/// Writes `text` and a newline to stdout. A closed pipe (`| head`) is not
/// an error worth reporting.
pub(crate) fn print_out(text: &str) -> ExitCode {
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write to stdout: {error}");
            ExitCode::FAILURE
        }
    }
}

pub(crate) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The first paragraph of a description, as one line.
pub(crate) fn summary(description: &str) -> String {
    description
        .lines()
        .map(str::trim)
        .skip_while(|line| line.is_empty())
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The parameters of a tool: its name, whether it is required, its
/// description. A tool defined at run time (an MCP server's, say) has no
/// parameter list; its input schema's properties are read instead.
pub(crate) fn parameters(spec: &ToolSpec) -> Vec<(String, bool, String)> {
    if !spec.params.is_empty() {
        return spec
            .params
            .iter()
            .map(|param| {
                (
                    param.name.to_owned(),
                    param.required,
                    param.description.to_owned(),
                )
            })
            .collect();
    }
    let schema = spec.input_schema();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    let description = property
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    (
                        name.clone(),
                        required.contains(&name.as_str()),
                        description.to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The parameters of a tool, optional ones marked with `?`.
pub(crate) fn parameter_list(spec: &ToolSpec) -> String {
    // A remote tool's parameter names are its server's: escaped.
    let names: Vec<String> = parameters(spec)
        .into_iter()
        .map(|(name, required, _)| {
            let name = tool_runtime::__private::quote::name(&name);
            if required { name } else { format!("{name}?") }
        })
        .collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}

/// A schema's type for a table: its `type`, or what it is made of.
pub(crate) fn type_label(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if schema.get("enum").is_some() => "enum".into(),
        _ if schema.get("$ref").is_some() => "object".into(),
        _ if schema.get("anyOf").is_some() || schema.get("oneOf").is_some() => "union".into(),
        _ => "any".into(),
    }
}

/// Rows as a table with aligned columns (the last column is not padded).
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}  ", width = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.pop();
    out
}

/// Text for the terminal whose lines may come from elsewhere (an MCP
/// server's description, a remote tool's error): each line's control
/// characters but tabs escaped (`\u{1b}`), so that none reaches the
/// terminal raw, and the whole cut at `max` characters.
pub(crate) fn terminal(text: &str, max: usize) -> String {
    let escape_line = |line: &str| {
        line.split('\t')
            .map(tool_runtime::__private::quote::escape)
            .collect::<Vec<_>>()
            .join("\t")
    };
    clip(text, max)
        .split('\n')
        .map(escape_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Cuts `text` to `max` characters, marking the cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((cut, _)) if text.chars().count() > max => format!("{}…", &text[..cut]),
        _ => text.to_owned(),
    }
}
