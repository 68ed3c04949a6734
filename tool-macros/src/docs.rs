//! Reading doc comments: the tool description, and parameter descriptions
//! from a rustdoc `# Arguments` list.

use std::collections::BTreeMap;

/// What a function's doc comment says, split the way a tool needs it.
#[derive(Debug, Default, PartialEq)]
pub struct FnDocs {
    /// Summary and body: code blocks and conventional rustdoc sections
    /// (`# Examples`, `# Arguments`, `# Errors`, ...) left out.
    pub description: String,
    /// Entries of the `# Arguments` section, by parameter name.
    pub arguments: BTreeMap<String, String>,
    /// Whether the docs have an `# Arguments` section.
    pub has_arguments_section: bool,
}

/// Sections that document the Rust function, not the tool.
const RUST_ONLY_SECTIONS: &[&str] = &[
    "examples",
    "example",
    "panics",
    "errors",
    "safety",
    "arguments",
    "parameters",
    "params",
];

/// The text of `#[doc = "..."]` attributes, one entry per attribute.
pub fn doc_lines(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) = &nv.value
        {
            // `split`, not `lines`: an empty `///` line is a paragraph break.
            lines.extend(text.value().split('\n').map(str::to_owned));
        }
    }
    unindent(lines)
}

/// Removes the indentation every non-blank line shares, as rustdoc does.
fn unindent(lines: Vec<String>) -> Vec<String> {
    let indent = lines
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .into_iter()
        .map(|line| {
            if line.trim().is_empty() {
                String::new()
            } else {
                line[indent..].trim_end().to_owned()
            }
        })
        .collect()
}

/// The heading level and lowercased title of a markdown heading line.
fn heading(line: &str) -> Option<(usize, String)> {
    let trimmed = line.trim_start();
    let level = trimmed.chars().take_while(|c| *c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &trimmed[level..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some((level, rest.trim().to_lowercase()))
}

fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// Splits a function's doc lines into the tool description and the
/// `# Arguments` entries.
pub fn parse_fn_docs(lines: &[String]) -> FnDocs {
    let mut docs = FnDocs::default();
    let mut kept: Vec<&str> = Vec::new();
    let mut in_code = false;
    // The level of the section being skipped, if any.
    let mut skipping: Option<usize> = None;
    let mut in_arguments = false;
    let mut current_arg: Option<String> = None;

    for line in lines {
        if is_fence(line) {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some((level, title)) = heading(line) {
            if skipping.is_some_and(|skip| level > skip) {
                continue;
            }
            skipping = None;
            in_arguments = false;
            current_arg = None;
            if RUST_ONLY_SECTIONS.contains(&title.as_str()) {
                skipping = Some(level);
                if matches!(title.as_str(), "arguments" | "parameters" | "params") {
                    in_arguments = true;
                    docs.has_arguments_section = true;
                }
                continue;
            }
        }
        if skipping.is_some() {
            if in_arguments {
                read_argument_line(line, &mut docs.arguments, &mut current_arg);
            }
            continue;
        }
        kept.push(line);
    }
    docs.description = strip_link_brackets(&collapse_blank_lines(&kept));
    docs
}

/// Reads one line of an `# Arguments` list: ``* `city` - text``,
/// `- city: text`, or an indented continuation of the previous entry.
fn read_argument_line(
    line: &str,
    arguments: &mut BTreeMap<String, String>,
    current: &mut Option<String>,
) {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        *current = None;
        return;
    }
    let item = trimmed
        .strip_prefix("* ")
        .or_else(|| trimmed.strip_prefix("- "))
        .or_else(|| trimmed.strip_prefix("+ "));
    if let Some(item) = item
        && let Some((name, text)) = split_entry(item)
    {
        arguments.insert(name.clone(), text);
        *current = Some(name);
        return;
    }
    if let Some(name) = current
        && let Some(text) = arguments.get_mut(name)
    {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(trimmed);
    }
}

/// Splits `` `name` - text ``, `name: text` and their mixes.
fn split_entry(item: &str) -> Option<(String, String)> {
    let (name, rest) = if let Some(rest) = item.strip_prefix('`') {
        let end = rest.find('`')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let end = item
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(item.len());
        (&item[..end], &item[end..])
    };
    if name.is_empty() {
        return None;
    }
    let rest = rest.trim_start();
    let text = rest
        .strip_prefix("- ")
        .or_else(|| rest.strip_prefix(": "))
        .or_else(|| rest.strip_prefix("— "))
        .or_else(|| rest.strip_prefix("-- "))
        .or_else(|| rest.strip_prefix(':'))
        .or_else(|| rest.strip_prefix('-'))?;
    Some((
        name.trim_start_matches("r#").to_owned(),
        text.trim().to_owned(),
    ))
}

/// Joins lines as markdown reads them: the lines of a paragraph (soft
/// wraps in the source) become one line, paragraphs are separated by one
/// blank line, and headings and list items keep their own lines.
fn collapse_blank_lines(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut blank = false;
    let mut previous_stands_alone = false;
    for line in lines {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        let is_heading = heading(line).is_some();
        let stands_alone = is_heading || is_list_item(trimmed);
        if !out.is_empty() {
            if blank {
                out.push_str("\n\n");
            } else if stands_alone || previous_stands_alone && last_line_is_heading(&out) {
                out.push('\n');
            } else {
                out.push(' ');
            }
        }
        blank = false;
        previous_stands_alone = stands_alone;
        if out.ends_with(' ') {
            out.push_str(trimmed);
        } else {
            out.push_str(line);
        }
    }
    out
}

fn last_line_is_heading(text: &str) -> bool {
    heading(text.rsplit('\n').next().unwrap_or(text)).is_some()
}

/// Whether a line starts a markdown list item.
fn is_list_item(line: &str) -> bool {
    if line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ") {
        return true;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

/// Turns rustdoc intra-doc links (`` [`Unit`] ``, `[Unit]`) into their text;
/// links with a target (`[text](url)`, `[text][ref]`) stay as written.
pub fn strip_link_brackets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('[') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find(']') {
            Some(end) => {
                let inner = &after[..end];
                let next = after[end + 1..].chars().next();
                // `[text][ref]`: keep the reference with the text.
                if next == Some('[')
                    && let Some(close) = after[end + 1..].find(']')
                {
                    out.push('[');
                    out.push_str(&after[..end + 1 + close + 1]);
                    rest = &after[end + 1 + close + 1..];
                    continue;
                }
                let plain = !inner.is_empty()
                    && !inner.contains('[')
                    && !matches!(next, Some('(') | Some('['))
                    && (inner.starts_with('`') || !inner.contains(' '));
                if plain {
                    out.push_str(inner);
                } else {
                    out.push('[');
                    out.push_str(inner);
                    out.push(']');
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A parameter's own doc comment as one description.
pub fn param_description(attrs: &[syn::Attribute]) -> Option<String> {
    let lines = doc_lines(attrs);
    let text = collapse_blank_lines(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let text = strip_link_brackets(text.trim());
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn keeps_summary_and_body_without_examples_or_code() {
        let docs = parse_fn_docs(&lines(
            "Get the weather.\n\nReturns one line per day.\n\n```\nlet x = 1;\n```\n\n# Examples\n\nCall it.\n",
        ));
        assert_eq!(
            docs.description,
            "Get the weather.\n\nReturns one line per day."
        );
    }

    #[test]
    fn reads_both_argument_list_forms_and_drops_the_section() {
        let docs = parse_fn_docs(&lines(
            "Search.\n\n# Arguments\n\n* `query` - what to look for\n  across all pages\n- limit: how many\n\n# Notes\n\nFast.",
        ));
        assert_eq!(docs.arguments["query"], "what to look for across all pages");
        assert_eq!(docs.arguments["limit"], "how many");
        assert!(docs.has_arguments_section);
        assert_eq!(docs.description, "Search.\n\n# Notes\n\nFast.");
    }

    #[test]
    fn subsections_of_skipped_sections_are_skipped() {
        let docs = parse_fn_docs(&lines(
            "Do it.\n# Examples\n## Basic\ntext\n# Details\nmore",
        ));
        assert_eq!(docs.description, "Do it.\n# Details\nmore");
    }

    #[test]
    fn joins_soft_wraps_but_keeps_paragraphs_lists_and_headings() {
        let docs = parse_fn_docs(&lines(
            "Look up the balance\nof an account.\n\nNotes:\n- one\n- two\n# Limits\nAt most\nten.",
        ));
        assert_eq!(
            docs.description,
            "Look up the balance of an account.\n\nNotes:\n- one\n- two\n# Limits\nAt most ten."
        );
    }

    #[test]
    fn blank_doc_lines_separate_paragraphs() {
        let attrs: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[doc = " First."]),
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = " Second."]),
        ];
        let docs = parse_fn_docs(&doc_lines(&attrs));
        assert_eq!(docs.description, "First.\n\nSecond.");
    }

    #[test]
    fn intra_doc_links_lose_their_brackets() {
        assert_eq!(
            strip_link_brackets("see [`Unit`] and [Unit]"),
            "see `Unit` and Unit"
        );
        assert_eq!(
            strip_link_brackets("[a link](http://x)"),
            "[a link](http://x)"
        );
        assert_eq!(strip_link_brackets("a [b c] d"), "a [b c] d");
        assert_eq!(
            strip_link_brackets("see [`Unit`][u] here"),
            "see [`Unit`][u] here"
        );
    }

    #[test]
    fn unindents_block_comments() {
        assert_eq!(
            unindent(vec!["   a".into(), "     b".into()]),
            vec!["a", "  b"]
        );
    }
}
