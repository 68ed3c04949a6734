//! The `read_result` tool, through which the model reads in pages the full
//! results a [`ResultLimit`] kept from it
//! ([`RegistryBuilder::read_result`](crate::RegistryBuilder::read_result)):
//! in a call of the same [owner](crate::context::ToolContext::owner) as the
//! call that made the result; to any other, the handle is unknown.
//! A program reads them whole by their handle with
//! [`Registry::full_result`](super::Registry::full_result).

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::context::ToolContext;
use crate::invoke::limit::{READ_RESULT, ceil_boundary, floor_boundary};
use crate::invoke::policy::Settings;
use crate::invoke::store::ResultStore;
use crate::spec::content::Content;
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::limit::{Counter, ResultHandle, ResultLimit, grouped};
use crate::spec::result::ToolResult;
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolFuture};

/// The page `read_result` reads when the registry has no result limit:
/// 64 KiB.
const DEFAULT_PAGE: usize = 64 << 10;

/// Room kept in each page of `read_result` for its note.
const NOTE_ROOM: usize = 256;

/// The most bytes of a page that keeps to `limit`, note included: about
/// the limit, less room for the note.
fn page_within(limit: ResultLimit) -> usize {
    limit.approximate_bytes().saturating_sub(NOTE_ROOM).max(1)
}

/// The `read_result` tool of a registry's settings: pages bounded by its
/// result limit, and by the limit each result read was held to.
pub(super) fn read_result_tool(settings: &Settings) -> ReadResult {
    let limit = settings.result_limit;
    let page = limit.map_or(DEFAULT_PAGE, page_within);
    let mut spec = ToolSpec::new(
        READ_RESULT,
        "Reads a tool result that was too long to show whole, page by page, by the handle \
         its marker gives (\"r-...\"). Start at offset 0, then read on from the offset each \
         page names, until a page says it is the end.",
        json!({
            "type": "object",
            "properties": {
                "handle": {
                    "type": "string",
                    "description": "The handle of the full result, from the marker where it was cut"
                },
                "offset": {
                    "type": "integer",
                    "description": "Where the page starts, in bytes from the start of the result",
                    "minimum": 0,
                    "default": 0
                },
                "length": {
                    "type": "integer",
                    "description": format!("How many bytes to read, at most {page}"),
                    "minimum": 1,
                    "maximum": page,
                    "default": page
                }
            },
            "required": ["handle"],
            "additionalProperties": false
        }),
    );
    spec.title = Some("Read a full result".into());
    spec.annotations.read_only = Some(true);
    spec.annotations.idempotent = Some(true);
    spec.annotations.open_world = Some(false);
    ReadResult {
        spec,
        store: Arc::clone(&settings.results),
        page,
        limit,
        counter: settings.token_counter.clone(),
    }
}

/// The `read_result` tool: reads a kept full result in pages.
pub(super) struct ReadResult {
    spec: ToolSpec,
    store: Arc<ResultStore>,
    /// The most bytes of one page.
    page: usize,
    /// The registry's limit, which a page and its note stay within (as
    /// they do within the limit the result read was held to).
    limit: Option<ResultLimit>,
    /// The registry's token counter, for limits in tokens.
    counter: Counter,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageArgs {
    handle: String,
    #[serde(default)]
    offset: u64,
    length: Option<u64>,
}

impl ReadResult {
    fn read(&self, input: &Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
        let args = PageArgs::deserialize(input).map_err(|error| {
            ToolError::with_kind(
                ToolErrorKind::InvalidArguments,
                format!("invalid arguments for {READ_RESULT}: {error}"),
            )
        })?;
        let handle = ResultHandle::new(args.handle);
        let (full, held) = self
            .store
            .get_held(&handle, ctx.owner())
            .map_err(|missing| ToolError::new(missing.to_string()))?;
        // The page and its note keep to the limit the result was held to (a
        // tool's own), and to the registry's.
        let limits: Vec<ResultLimit> = std::iter::once(held).chain(self.limit).collect();
        let most = self.page.min(page_within(held));
        let text = full_text(&full);
        let total = text.len();
        let start = usize::try_from(args.offset).unwrap_or(usize::MAX);
        if start > total {
            return Err(ToolError::with_kind(
                ToolErrorKind::InvalidArguments,
                format!(
                    "offset {start} is past the end of the result {handle}, which has {} bytes",
                    grouped(total)
                ),
            ));
        }
        let length = args
            .length
            .map_or(most, |n| usize::try_from(n).unwrap_or(usize::MAX))
            .clamp(1, most);
        let start = floor_boundary(&text, start);
        // The least a page holds: one character (none at the end).
        let smallest = ceil_boundary(&text, (start + 1).min(total));
        let mut end = floor_boundary(&text, start.saturating_add(length).min(total)).max(smallest);
        loop {
            let note = if end == total {
                format!("[{handle}: bytes {start}..{end} of {total}, the end]")
            } else {
                format!("[{handle}: bytes {start}..{end} of {total}; read on from offset {end}]")
            };
            let page = &text[start..end];
            // A limit in tokens may take less than the page's bytes.
            let fits = end <= smallest || {
                let shown = format!("{note}\n{page}");
                limits
                    .iter()
                    .all(|limit| limit.admits(&shown, &self.counter))
            };
            if fits {
                return Ok(ToolResult::success(
                    "",
                    vec![Content::Text(note), Content::Text(page.to_owned())],
                ));
            }
            end = floor_boundary(&text, start + (end - start) * 9 / 10).max(smallest);
        }
    }
}

impl Tool for ReadResult {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(self.read(input, ctx).map(Into::into))
    }
}

/// The text of a full result as the model reads it: its one text block as
/// it is, else every block as [`ToolResult::text_content`] joins them.
fn full_text(result: &ToolResult) -> Cow<'_, str> {
    match result.content.as_slice() {
        [Content::Text(text)] => Cow::Borrowed(text),
        _ => Cow::Owned(result.text_content()),
    }
}
