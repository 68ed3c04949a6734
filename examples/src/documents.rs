//! A tool that takes a while and says how it is getting on:
//! `process_document` splits a document into sections, analyses each and
//! summarises the whole, reporting progress, trace entries and each
//! section's analysis as it goes.
//!
//! `cargo run -p examples --example process_document` prints those reports
//! live, then the result and the call's record as JSON.

use std::collections::HashMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use tool_runtime::{ToolError, events::LogLevel, events::Progress, tool};

/// What the analysis of one section found.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SectionAnalysis {
    /// The section's position, from 1.
    pub index: usize,
    /// The section's heading, or its first words.
    pub heading: String,
    /// How many words it has.
    pub words: usize,
    /// Its first sentence.
    pub lead: String,
}

/// The processed document.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DocumentSummary {
    /// The document's title: its `# ` line, else "untitled".
    pub title: String,
    /// Each section's analysis, in order.
    pub sections: Vec<SectionAnalysis>,
    /// Words in the whole document.
    pub words: usize,
    /// The most frequent content words, most frequent first.
    pub key_terms: Vec<String>,
    /// One line per section: its lead sentence.
    pub summary: String,
}

/// Process a document: split it into sections, analyse each one, and
/// summarise the whole.
///
/// Sections are separated by blank lines; a first line starting with `# `
/// is the title and a line starting with `## ` heads a section. Reports
/// progress and a trace of its steps while it works, and logs what it
/// read.
#[tool(timeout = "30s", read_only = true, task)]
pub async fn process_document(
    /// The document's text
    text: String,
    /// How many key terms to list
    #[tool(default = 5)]
    key_terms: usize,
    /// Pause after each section, in milliseconds, as if the analysis were
    /// slow (for demonstrations)
    #[tool(default = 0)]
    pause_ms: u64,
    progress: Progress,
) -> Result<DocumentSummary, ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::retry(
            "the document is empty; pass the document's full text in `text`",
        ));
    }
    progress.progress(0.0, "splitting into sections");
    progress.log(
        LogLevel::Debug,
        format!("splitting {} bytes of text", text.len()),
    );
    let (title, sections) = split(&text);
    progress.trace(
        "split",
        format!("\"{title}\": {} section(s)", sections.len()),
    );

    let mut analyses = Vec::with_capacity(sections.len());
    for (i, section) in sections.iter().enumerate() {
        let analysis = analyse(i + 1, section);
        progress.trace(
            "analyse",
            format!(
                "section {} \"{}\": {} words",
                analysis.index, analysis.heading, analysis.words
            ),
        );
        progress.partial(&analysis);
        analyses.push(analysis);
        // Leave room for the executor (and the reader) between sections.
        if pause_ms > 0 {
            tokio::time::sleep(Duration::from_millis(pause_ms)).await;
        } else {
            tokio::task::yield_now().await;
        }
        progress.progress(
            (i + 1) as f64 / (sections.len() + 1) as f64,
            format!("analysed section {} of {}", i + 1, sections.len()),
        );
    }

    let words = analyses.iter().map(|a| a.words).sum();
    let key_terms = frequent_terms(&text, key_terms);
    let summary = analyses
        .iter()
        .map(|a| a.lead.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    progress.trace(
        "summarise",
        format!("{words} words; key terms: {}", key_terms.join(", ")),
    );
    progress.log(
        LogLevel::Notice,
        format!("\"{title}\": {} section(s), {words} words", analyses.len()),
    );
    progress.progress(1.0, "done");
    Ok(DocumentSummary {
        title,
        sections: analyses,
        words,
        key_terms,
        summary,
    })
}

/// The title and the sections (each a list of lines).
fn split(text: &str) -> (String, Vec<Vec<&str>>) {
    let mut title = None;
    let mut sections: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim) {
        if title.is_none()
            && sections.is_empty()
            && current.is_empty()
            && let Some(rest) = line.strip_prefix("# ")
        {
            title = Some(rest.trim().to_owned());
        } else if line.is_empty() {
            if !current.is_empty() {
                sections.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        sections.push(current);
    }
    (title.unwrap_or_else(|| "untitled".to_owned()), sections)
}

fn analyse(index: usize, lines: &[&str]) -> SectionAnalysis {
    let (heading, body): (String, Vec<&str>) = match lines.first() {
        Some(first) if first.starts_with("## ") => (
            first.trim_start_matches("## ").trim().to_owned(),
            lines[1..].to_vec(),
        ),
        _ => {
            let mut words = lines.iter().flat_map(|l| l.split_whitespace());
            let mut heading = words.by_ref().take(4).collect::<Vec<_>>().join(" ");
            if words.next().is_some() {
                heading.push('…');
            }
            (heading, lines.to_vec())
        }
    };
    let body = body.join(" ");
    let words = body.split_whitespace().count();
    let lead = first_sentence(&body).to_owned();
    SectionAnalysis {
        index,
        heading,
        words,
        lead,
    }
}

/// Up to the first `.`, `!` or `?` that ends a sentence (followed by a
/// space or the end), so "99.97%" does not end one.
fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let at_end = chars.peek().is_none_or(|(_, next)| next.is_whitespace());
        if matches!(c, '.' | '!' | '?') && at_end {
            return &text[..i + c.len_utf8()];
        }
    }
    text
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "in", "is", "it", "its",
    "of", "on", "or", "that", "the", "this", "to", "was", "were", "which", "with",
];

fn frequent_terms(text: &str, how_many: usize) -> Vec<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        if word.len() > 2 && !STOP_WORDS.contains(&word.as_str()) {
            *counts.entry(word).or_default() += 1;
        }
    }
    let mut terms: Vec<(String, usize)> = counts.into_iter().collect();
    // Most frequent first; ties in alphabetical order, so the output is stable.
    terms.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    terms
        .into_iter()
        .take(how_many)
        .map(|(term, _)| term)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_titles_headings_and_sections() {
        let (title, sections) =
            split("# Report\n\n## Intro\nHello there. More.\n\nSecond part here.\n");
        assert_eq!(title, "Report");
        assert_eq!(sections.len(), 2);
        let intro = analyse(1, &sections[0]);
        assert_eq!(intro.heading, "Intro");
        assert_eq!(intro.lead, "Hello there.");
        assert_eq!(intro.words, 3);
        let second = analyse(2, &sections[1]);
        assert_eq!(second.heading, "Second part here.");
        let (title, sections) = split("No title, five words here.");
        assert_eq!(title, "untitled");
        assert_eq!(analyse(1, &sections[0]).heading, "No title, five words…");
        assert_eq!(
            first_sentence("Up 99.97% today. Then more."),
            "Up 99.97% today."
        );
        assert_eq!(first_sentence("no end"), "no end");
        assert_eq!(
            frequent_terms("the cat and the hat and the cat", 2),
            ["cat", "hat"]
        );
    }
}
