//! A tool's own formatting of its definition and of its results:
//! [`ToolFormat`] (`#[tool(format = ..)]`), held by a spec as a
//! [`Formatter`].

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::spec::tool_spec::ToolSpec;

/// The text forms of a definition a tool may write itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DescriptionFormat {
    /// The `<tool>` element of an XML prompt.
    Xml,
    /// Plain text, for a prompt that lists tools in prose.
    Text,
    /// The description field of a JSON rendering (any provider).
    Json,
}

/// A tool's own formatting, where the default does not suit it.
///
/// Every method has a provided answer, `None`, which keeps the default: a
/// formatter overrides only what it names. Where each answer is used:
///
/// - [`describe`](Self::describe) with [`DescriptionFormat::Xml`]: the
///   tool's element in the XML rendering's `<tools>` block, in place of
///   the generated `<tool>` element; with [`DescriptionFormat::Text`]: the
///   tool's entry in the plain-text rendering
///   ([`Registry::render_text`](crate::Registry::render_text)); with
///   [`DescriptionFormat::Json`]: the description of every JSON rendering
///   (each provider's, and MCP's `tools/list`).
/// - [`format_result`](Self::format_result): the text of a successful
///   result, on the agent path ([`Registry::invoke`](crate::Registry::invoke)
///   and the rest), before any [result limit](crate::limits::ResultLimit).
/// - [`parse_call`](Self::parse_call): a call written in the tool's own
///   form in a plain-text response.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool formatter",
    label = "`format = ..` names a value whose type implements `ToolFormat`",
    note = "implement `tool_runtime::format::ToolFormat` for `{Self}` (`impl ToolFormat for {Self} {{}}` keeps every default), or name another value"
)]
pub trait ToolFormat: Send + Sync + 'static {
    /// The tool's definition in `format`, in place of the one generated
    /// from its spec.
    fn describe(&self, spec: &ToolSpec, format: DescriptionFormat) -> Option<String> {
        let _ = (spec, format);
        None
    }

    /// The text the model reads for a result whose value is `value`, in
    /// place of the default (the value as JSON, or the text itself).
    ///
    /// It is asked for a successful result only: a returned value, or a
    /// [`ToolResult`](crate::ToolResult) the tool built holding one text or
    /// JSON block. A formatted result keeps its value beside the text: the
    /// result's [`structured_content`](crate::ToolResult::structured_content)
    /// (and MCP's `structuredContent`) is the value unchanged, so a tool
    /// with an output schema still sends structured content its schema
    /// accepts; only the text block changes.
    fn format_result(&self, spec: &ToolSpec, value: &Value) -> Option<String> {
        let _ = (spec, value);
        None
    }

    /// A call of the tool written in the tool's own form, in a plain-text
    /// (XML) response: `text` is everything after the call's opening
    /// `<tool_call name="..">` tag (see
    /// [`providers::xml::parse_tool_calls`](crate::providers::xml::parse_tool_calls)).
    ///
    /// Return the arguments and how many bytes of `text` the call's body
    /// takes; the closing `</tool_call>` tag must follow them (after any
    /// white space). The body may hold anything, `</tool_call>` included,
    /// since the formatter says where it ends. An `Err` says what is wrong
    /// with the call, for the model to read. `None`, the default, reads the
    /// body as the arguments' JSON object, up to the first `</tool_call>`.
    fn parse_call(&self, spec: &ToolSpec, text: &str) -> Option<Result<CallBody, String>> {
        let _ = (spec, text);
        None
    }
}

/// A call's body read by [`ToolFormat::parse_call`]: the arguments, and the
/// bytes of the text they were read from.
#[derive(Debug, Clone, PartialEq)]
pub struct CallBody {
    /// The arguments, a JSON object.
    pub arguments: Value,
    /// How many bytes of the text the body takes.
    pub len: usize,
}

/// A spec's [`ToolFormat`]: a `'static` one, as `#[tool(format = ..)]`
/// names, or a shared one made at run time.
#[derive(Clone)]
pub enum Formatter {
    /// A formatter that lives for the program's life.
    Static(&'static dyn ToolFormat),
    /// A formatter made at run time.
    Shared(Arc<dyn ToolFormat>),
}

impl Formatter {
    /// The formatter.
    pub fn get(&self) -> &dyn ToolFormat {
        match self {
            Formatter::Static(format) => *format,
            Formatter::Shared(format) => &**format,
        }
    }
}

/// What the formatter of the tool with `spec`, if it has one, writes for
/// its definition in `format`; `None` when it has none, writes none, or
/// panics (the default definition is rendered then).
pub(crate) fn written_description(spec: &ToolSpec, format: DescriptionFormat) -> Option<String> {
    let formatter = spec.formatter.as_ref()?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        formatter.get().describe(spec, format)
    }))
    .ok()
    .flatten()
}

impl fmt::Debug for Formatter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Formatter")
    }
}
