//! A `SKILL.md`'s frontmatter: the YAML mapping between its first line,
//! `---`, and the next line `---`, read as registry files are (YAML 1.2's
//! core types, duplicate keys refused) with the line of each mistake.

use serde_json::{Map, Value};
use tool_manifest::Document;

/// A mistake in a frontmatter: its line in the `SKILL.md` (from 1), and
/// what is wrong.
#[derive(Debug)]
pub(super) struct Mistake {
    pub(super) line: usize,
    pub(super) message: String,
}

fn mistake(line: usize, message: impl Into<String>) -> Mistake {
    Mistake {
        line,
        message: message.into(),
    }
}

/// The frontmatter of `bytes`, a `SKILL.md` of the skill named `name` (its
/// folder's name): a mapping with a non-empty `name` equal to `name` and a
/// non-empty `description`.
pub(super) fn parse(bytes: &[u8], name: &str) -> Result<Map<String, Value>, Mistake> {
    let text = std::str::from_utf8(bytes)
        .map_err(|error| mistake(1, format!("SKILL.md is not UTF-8 text: {error}")))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let yaml = block(text)?;
    // One empty line in place of the opening `---`, so that the lines the
    // YAML reader gives are the file's.
    let document = Document::parse(&format!("\n{yaml}")).map_err(|error| located(&error))?;
    let start = document.location_of("").map_or(2, |at| at.line);
    let Value::Object(frontmatter) = document.value().clone() else {
        return Err(mistake(
            start,
            "the frontmatter is not a mapping: write `name: ...` and `description: ...`",
        ));
    };
    for key in ["name", "description"] {
        let line = document
            .location_of(&format!("/{key}"))
            .map_or(start, |at| at.line);
        match frontmatter.get(key) {
            None => {
                return Err(mistake(
                    start,
                    format!(
                        "the frontmatter has no `{key}`: a skill's frontmatter gives its name and \
                         description"
                    ),
                ));
            }
            Some(Value::String(value)) if !value.trim().is_empty() => {}
            Some(_) => {
                return Err(mistake(
                    line,
                    format!("the frontmatter's `{key}` must be a non-empty string"),
                ));
            }
        }
    }
    let line = document.location_of("/name").map_or(start, |at| at.line);
    let written = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Some(reason) = bad_name(written) {
        return Err(mistake(
            line,
            format!("the skill's name `{written}` is not a skill name: {reason}"),
        ));
    }
    if written != name {
        return Err(mistake(
            line,
            format!(
                "the frontmatter's name is `{written}` but the skill's folder is `{name}`: a \
                 skill's name is its folder's"
            ),
        ));
    }
    warn_reserved(&frontmatter, name);
    Ok(frontmatter)
}

/// The YAML between the opening and closing `---` lines of `text`.
fn block(text: &str) -> Result<&str, Mistake> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end_matches(['\r', '\n']) != "---" {
        return Err(mistake(
            1,
            "SKILL.md must begin with a YAML frontmatter: a line `---`, `name: ...` and \
             `description: ...`, and a line `---`",
        ));
    }
    let start = first.len();
    let mut end = start;
    for line in lines {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            return Ok(&text[start..end]);
        }
        end += line.len();
    }
    Err(mistake(1, "the frontmatter has no closing line `---`"))
}

/// A mistake the YAML reader reports (`line:column: what`), at its line.
fn located(error: &str) -> Mistake {
    let line = error
        .split_once(':')
        .and_then(|(line, _)| line.trim().parse().ok())
        .or_else(|| {
            // "Duplicate key ... at L:C and L:C": the second.
            let (_, last) = error.rsplit_once(" and ")?;
            last.split_once(':')?.0.parse().ok()
        })
        .unwrap_or(2);
    mistake(line, format!("the frontmatter is not valid YAML: {error}"))
}

/// Why `name` is not a skill name (1 to 64 lowercase letters, digits and
/// hyphens, not beginning or ending with one, no two together), if it is
/// not.
pub(super) fn bad_name(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 64 {
        return Some("a name has 1 to 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("a name has lowercase letters, digits and hyphens only");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Some("a name neither begins nor ends with a hyphen, nor has two together");
    }
    None
}

/// Warns of `metadata` keys under `io.modelcontextprotocol/`, which MCP
/// keeps for its extensions (none defines one yet).
fn warn_reserved(frontmatter: &Map<String, Value>, name: &str) {
    let Some(Value::Object(metadata)) = frontmatter.get("metadata") else {
        return;
    };
    for key in metadata.keys() {
        if key.starts_with("io.modelcontextprotocol/") {
            tracing::warn!(
                skill = name,
                key = %key,
                "a skill's metadata key under io.modelcontextprotocol/ is reserved for MCP's \
                 extensions"
            );
        }
    }
}
