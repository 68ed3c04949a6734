//! What the model gets of a call's result: the tool's own text for it
//! ([`ToolFormat::format_result`]), then the result held to its
//! [`ResultLimit`]; and the store of full results that were cut.
//!
//! Only a call whose tool has a formatter or a limit (its own or the
//! registry's) comes here; the others keep their result as the tool made
//! it (see [`Settings::govern`](super::policy::Settings::govern)).
//!
//! Held to its limit, a result is:
//!
//! - within it: unchanged;
//! - text over it: its text cut in the middle, on character boundaries,
//!   the head and the tail kept with a marker between them that says how
//!   much was cut and where the full result is kept, the whole about the
//!   limit's size;
//! - structured over it (its value, which an output schema checks, is over
//!   the limit: a value kept beside formatted text, a JSON block, or the one
//!   block of a tool with an output schema; text kept beside formatted
//!   text only for a tool with an output schema): an error result naming the
//!   limit, the size and the handle of the full value. A value is never cut,
//!   so no result reaches the model in a shape its output schema rejects.
//!   Formatted text over the limit beside a value within it is cut as text,
//!   the value kept whole.
//!
//! The full result of one that was cut or refused is kept in the registry's
//! [`ResultStore`](super::store::ResultStore) under a [`ResultHandle`], the
//! call's [owner](crate::context::ToolContext::owner)'s: `read_result`
//! reads it in that owner's calls only.

use std::fmt::Write as _;
use std::panic::AssertUnwindSafe;

use serde_json::Value;

use super::policy::Settings;
use crate::context::Owner;
use crate::spec::content::Content;
use crate::spec::error::ToolErrorKind;
use crate::spec::limit::{ResultHandle, ResultLimit, TokenCounter, grouped};
use crate::spec::result::ToolResult;
use crate::spec::tool_spec::ToolSpec;
use crate::spec::tool_spec::format::ToolFormat;

/// The name of the tool that reads kept results in pages.
pub(crate) const READ_RESULT: &str = "read_result";

/// The result the model gets of a call made ready: [`adapt`]ed when it
/// holds the registry's settings, which only a call governed by a formatter
/// or a result limit (among others) does.
#[inline]
pub(super) fn adapt_call(prepared: &super::Prepared, result: ToolResult) -> ToolResult {
    match prepared {
        super::Prepared::Context {
            tool,
            settings: Some(settings),
            ctx,
        } => adapt(settings, tool.spec(), result, ctx.owner()),
        _ => result,
    }
}

/// The result the model gets of a call of the tool with `spec`, made by
/// `owner`: formatted by its formatter, then held to its limit (the
/// tool's, else the registry's), the full result kept as `owner`'s.
#[inline(never)]
pub(crate) fn adapt(
    settings: &Settings,
    spec: &ToolSpec,
    result: ToolResult,
    owner: Option<&Owner>,
) -> ToolResult {
    let result = match &spec.formatter {
        Some(formatter) => format(formatter.get(), spec, result),
        None => result,
    };
    // `read_result`'s pages are bounded by the limit already: a page too
    // small for its note is not cut, and kept, again.
    if settings.read_result && spec.name == READ_RESULT {
        return result;
    }
    match spec.result_limit.or(settings.result_limit) {
        Some(limit) => hold(settings, spec, limit, result, owner),
        None => result,
    }
}

/// The result with the text its formatter writes for its value, the value
/// kept as its structured content. A result the formatter passes over (or
/// panics on) is kept as it is.
fn format(formatter: &dyn ToolFormat, spec: &ToolSpec, mut result: ToolResult) -> ToolResult {
    if result.is_error() || result.structured_content.is_some() || result.content.len() != 1 {
        return result;
    }
    let (value, was_text) = match result.content.pop() {
        Some(Content::Json(value)) => (value, false),
        Some(Content::Text(text)) => (Value::String(text), true),
        Some(other) => {
            result.content.push(other);
            return result;
        }
        None => return result,
    };
    let written =
        std::panic::catch_unwind(AssertUnwindSafe(|| formatter.format_result(spec, &value)));
    match written {
        Ok(Some(text)) => {
            result.content.push(Content::Text(text));
            result.structured_content = Some(Box::new(value));
        }
        Ok(None) | Err(_) => {
            if written.is_err() {
                crate::trace::warning!(
                    tool = &*spec.name,
                    "the tool's formatter panicked: its result is sent unformatted"
                );
            }
            result.content.push(match (value, was_text) {
                (Value::String(text), true) => Content::Text(text),
                (value, _) => Content::Json(value),
            });
        }
    }
    result
}

/// The result held to `limit`, its tokens counted by the registry's
/// counter, the full result kept as `owner`'s.
fn hold(
    settings: &Settings,
    spec: &ToolSpec,
    limit: ResultLimit,
    result: ToolResult,
    owner: Option<&Owner>,
) -> ToolResult {
    let counter = &settings.token_counter;
    // Tokens are at least a byte each: a result within the limit in bytes
    // needs no count.
    if text_bytes(&result) <= limit.amount() {
        return result;
    }
    // The value an output schema checks: one kept beside formatted text, a
    // JSON block, or the one block of a tool with an output schema. It is
    // never cut.
    let has_json = result
        .content
        .iter()
        .any(|part| matches!(part, Content::Json(_)));
    // Text kept beside formatted text is a value no schema checks, unless
    // the tool has an output schema.
    let checked = |value: &Value| !value.is_string() || spec.output_schema().is_some();
    let value_size = match &result.structured_content {
        Some(value) if checked(value) => Some(value_size(limit, value, counter)),
        Some(_) => None,
        None if has_json || (result.is_success() && spec.output_schema().is_some()) => {
            Some(limit.measure(&result.text_content(), counter))
        }
        None => None,
    };
    match value_size {
        Some(size) if size > limit.amount() => refuse(settings, spec, limit, size, result, owner),
        // The value is all the model reads, and it fits.
        Some(_) if result.structured_content.is_none() => result,
        // Text alone, or formatted text beside a value that fits.
        _ => {
            let text = joined_text(&result);
            if limit.admits(&text, counter) {
                return result;
            }
            cut(settings, limit, text, result, owner, value_size.is_some())
        }
    }
}

/// The size of a value's compact JSON text in `limit`'s unit.
fn value_size(limit: ResultLimit, value: &Value, counter: &dyn TokenCounter) -> usize {
    match limit {
        ResultLimit::Bytes(_) => json_len(value),
        ResultLimit::Tokens(_) => limit.measure(&value.to_string(), counter),
    }
}

/// The bytes of a result's text as the model reads it: text blocks, JSON
/// blocks as compact JSON; a structured value kept beside the text counts
/// instead when it is larger.
fn text_bytes(result: &ToolResult) -> usize {
    let blocks: usize = result
        .content
        .iter()
        .map(|part| match part {
            Content::Text(text) => text.len(),
            Content::Json(value) => json_len(value),
            _ => 0,
        })
        .sum();
    match &result.structured_content {
        Some(value) => blocks.max(json_len(value)),
        None => blocks,
    }
}

/// The length of a value's compact JSON text, counted without building it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The error result that stands for a structured result over its limit,
/// the full result kept as its owner's.
fn refuse(
    settings: &Settings,
    spec: &ToolSpec,
    limit: ResultLimit,
    size: usize,
    full: ToolResult,
    owner: Option<&Owner>,
) -> ToolResult {
    let id = full.tool_use_id.clone();
    let unit = match limit {
        ResultLimit::Bytes(_) => "bytes",
        ResultLimit::Tokens(_) => "tokens",
    };
    let mut message = format!(
        "the result of {} is {} {unit} of structured data, over its limit of {limit}; a \
         structured result is not cut, so it was not sent",
        crate::quote::name(&spec.name),
        grouped(size),
    );
    let handle = keep(settings, full, limit, owner);
    match &handle {
        Some(handle) if settings.read_result => {
            let _ = write!(
                message,
                ". The full result is kept under the handle {handle}: {READ_RESULT} reads it in pages"
            );
        }
        Some(handle) => {
            let _ = write!(
                message,
                ". The full result is kept under the handle {handle}"
            );
        }
        None => message.push_str(". The full result was too large to keep"),
    }
    let mut result = ToolResult::error(id, message);
    result.error_kind = Some(ToolErrorKind::Failed);
    result.full_result = handle;
    result
}

/// The text result cut in the middle to fit `limit`, the full one kept as
/// its owner's: its text blocks become one, where the first was; media
/// stay.
fn cut(
    settings: &Settings,
    limit: ResultLimit,
    text: String,
    full: ToolResult,
    owner: Option<&Owner>,
    keep_value: bool,
) -> ToolResult {
    let mut result = ToolResult {
        tool_use_id: full.tool_use_id.clone(),
        status: full.status,
        content: Vec::with_capacity(full.content.len()),
        error_kind: full.error_kind,
        // A value an output schema checks, kept beside formatted text, fits:
        // only the text is cut. Text kept beside text stays with the full
        // result.
        structured_content: keep_value
            .then(|| full.structured_content.clone())
            .flatten(),
        full_result: None,
    };
    let mut at = None;
    for part in &full.content {
        match part {
            Content::Text(_) => {
                at.get_or_insert(result.content.len());
            }
            other => result.content.push(other.clone()),
        }
    }
    let handle = keep(settings, full, limit, owner);
    let note = |cut: usize| marker(cut, text.len(), handle.as_ref(), settings.read_result);
    let shortened = shorten(limit, &settings.token_counter, &text, note);
    result
        .content
        .insert(at.unwrap_or(0), Content::Text(shortened));
    result.full_result = handle;
    result
}

/// The text blocks of a result, joined by newlines.
fn joined_text(result: &ToolResult) -> String {
    let mut text = String::new();
    let blocks = result.content.iter().filter_map(|part| match part {
        Content::Text(block) => Some(block),
        _ => None,
    });
    for (i, block) in blocks.enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(block);
    }
    text
}

/// Keeps the full result held to `limit` in the registry's store, by the
/// bytes of its text, as `owner`'s.
fn keep(
    settings: &Settings,
    full: ToolResult,
    limit: ResultLimit,
    owner: Option<&Owner>,
) -> Option<ResultHandle> {
    let size = text_bytes(&full);
    settings.results.keep(full, size, limit, owner)
}

/// The marker put where `cut` of `total` bytes were cut.
fn marker(cut: usize, total: usize, handle: Option<&ResultHandle>, read_result: bool) -> String {
    let (cut, total) = (grouped(cut), grouped(total));
    match handle {
        Some(handle) if read_result => format!(
            "\n[… {cut} of {total} bytes cut; full result: handle {handle}, read it with {READ_RESULT} …]\n"
        ),
        Some(handle) => {
            format!("\n[… {cut} of {total} bytes cut; full result: handle {handle} …]\n")
        }
        None => {
            format!("\n[… {cut} of {total} bytes cut; the full result was too large to keep …]\n")
        }
    }
}

/// `text` cut in the middle to fit `limit` (its tokens counted by
/// `counter`), marker included: the head and the tail kept, on character
/// boundaries, with `note(bytes cut)` between them. A limit smaller than
/// the marker leaves the marker alone.
pub(crate) fn shorten(
    limit: ResultLimit,
    counter: &dyn TokenCounter,
    text: &str,
    note: impl Fn(usize) -> String,
) -> String {
    // The longest marker: its number is at most the whole length.
    let widest = note(text.len());
    let mut budget = match limit {
        ResultLimit::Bytes(max) => max.saturating_sub(widest.len()),
        ResultLimit::Tokens(max) => {
            // Bytes a token in this text, on average, for a first guess.
            let tokens = limit.measure(text, counter).max(1);
            let room = max.saturating_sub(limit.measure(&widest, counter));
            room.saturating_mul(text.len()) / tokens
        }
    };
    loop {
        let head = floor_boundary(text, budget / 2);
        let tail = ceil_boundary(text, text.len() - (budget - head).min(text.len() - head));
        let out = format!("{}{}{}", &text[..head], note(tail - head), &text[tail..]);
        // Bytes are exact; a count of tokens may need a smaller guess.
        if limit.admits(&out, counter) || budget == 0 {
            return out;
        }
        budget = budget * 9 / 10;
    }
}

/// The largest character boundary of `text` at or before `at`.
pub(crate) fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest character boundary of `text` at or after `at`.
pub(crate) fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::limit::ByteEstimate;

    fn note(cut: usize) -> String {
        format!("[{cut} cut]")
    }

    #[test]
    fn cuts_the_middle_on_character_boundaries() {
        let text = "é".repeat(1000);
        let out = shorten(ResultLimit::Bytes(101), &ByteEstimate, &text, note);
        assert!(out.len() <= 101, "{}", out.len());
        assert!(out.starts_with("éé") && out.ends_with("éé"));
        let cut: usize = out
            .split('[')
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert_eq!(out.len() - note(cut).len() + cut, text.len());
    }

    #[test]
    fn a_limit_below_the_marker_leaves_the_marker() {
        let out = shorten(
            ResultLimit::Bytes(3),
            &ByteEstimate,
            "abcdefghijklmnop",
            note,
        );
        assert_eq!(out, "[16 cut]");
    }

    #[test]
    fn tokens_fit_their_limit() {
        let text = "word ".repeat(5000);
        let limit = ResultLimit::Tokens(200);
        let out = shorten(limit, &ByteEstimate, &text, note);
        assert!(limit.admits(&out, &ByteEstimate));
        let tokens = limit.measure(&out, &ByteEstimate);
        assert!(tokens > 150, "{tokens}");
    }

    #[test]
    fn tokens_are_counted_by_the_counter_given() {
        // One token a word: far fewer than the bytes / 4 estimate.
        let words = |text: &str| text.split_whitespace().count();
        let text = "word ".repeat(5000);
        let limit = ResultLimit::Tokens(200);
        let out = shorten(limit, &words, &text, note);
        assert!(limit.admits(&out, &words));
        assert!(words(&out) > 150, "{}", words(&out));
        // 200 words are some 1,000 bytes, where the estimate keeps 800.
        assert!(out.len() > 900, "{}", out.len());
    }
}
