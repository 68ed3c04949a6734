//! Tool calls coming in ([`ToolUse`]) and results going out ([`ToolResult`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::content::Content;
use crate::spec::error::{ToolError, ToolErrorKind};

/// A request from the model to run one tool.
///
/// The field names follow the Bedrock Converse / Strands `toolUse` shape
/// (`toolUseId`, `name`, `input`); `id` is also accepted when deserialising.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    /// The id the model gave the call; the result carries it back.
    #[serde(rename = "toolUseId", alias = "id")]
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, normally a JSON object.
    #[serde(default)]
    pub input: Value,
}

impl ToolUse {
    /// A tool use with the given id, tool name and arguments.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
        }
    }
}

/// Whether a tool call succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    /// The tool ran and returned a value.
    Success,
    /// The call failed; the content says why.
    Error,
}

/// The outcome of one tool call, as sent back to the model.
///
/// Serialises to the shape the Strands SDK and Bedrock Converse use:
///
/// ```
/// use tool_runtime::ToolResult;
/// use serde_json::json;
///
/// let result = ToolResult::text("call-1", "Sunny, 21°C");
/// assert_eq!(
///     serde_json::to_value(&result).unwrap(),
///     json!({"toolUseId": "call-1", "status": "success", "content": [{"text": "Sunny, 21°C"}]})
/// );
/// ```
///
/// A tool may return a `ToolResult` itself for full control over its content
/// and status; the registry then fills in the tool use id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the [`ToolUse`] this answers.
    #[serde(rename = "toolUseId", default)]
    pub tool_use_id: String,
    /// Success or error.
    pub status: ToolStatus,
    /// What the tool returned, or the error text.
    #[serde(default)]
    pub content: Vec<Content>,
    /// For an error result made from a [`ToolError`], its kind. Not part of
    /// the serialised shape.
    #[serde(skip)]
    pub error_kind: Option<ToolErrorKind>,
    /// The tool's value, kept beside text that stands for it: set when a
    /// tool's [formatter](crate::format::ToolFormat::format_result) wrote the text
    /// the model reads. `None` when the content holds the value itself (its
    /// one JSON block). Serialised as `structuredContent` when set.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    ///
    /// Boxed, as a result is moved several times on its way to the caller
    /// and most results have none.
    pub structured_content: Option<Box<Value>>,
    /// When the model was given less than the full result (see
    /// [`ResultLimit`](crate::limits::ResultLimit)), the handle the full result is
    /// kept under. Not part of the serialised shape.
    #[serde(skip)]
    pub full_result: Option<crate::spec::limit::ResultHandle>,
}

impl ToolResult {
    /// A successful result with the given content.
    pub fn success(tool_use_id: impl Into<String>, content: Vec<Content>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            status: ToolStatus::Success,
            content,
            error_kind: None,
            structured_content: None,
            full_result: None,
        }
    }

    /// A successful result holding one piece of text.
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self::success(tool_use_id, vec![Content::Text(text.into())])
    }

    /// A successful result holding one JSON value.
    pub fn json(tool_use_id: impl Into<String>, value: Value) -> Self {
        Self::success(tool_use_id, vec![Content::Json(value)])
    }

    /// An error result whose text is `message`.
    pub fn error(tool_use_id: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            status: ToolStatus::Error,
            content: vec![Content::Text(message.into())],
            error_kind: None,
            structured_content: None,
            full_result: None,
        }
    }

    /// An error result carrying a [`ToolError`]'s message and kind.
    pub fn from_error(tool_use_id: impl Into<String>, error: &ToolError) -> Self {
        let mut result = Self::error(tool_use_id, error.message());
        result.error_kind = Some(error.kind());
        result
    }

    /// This result with `value` kept as its structured content beside its
    /// text (see [`structured_content`](Self::structured_content)): for a
    /// tool that writes the text the model reads itself and has an output
    /// schema, whose structured content must still be there.
    pub fn with_structured_content(mut self, value: Value) -> Self {
        self.structured_content = Some(Box::new(value));
        self
    }

    /// The tool's value, when the result holds one: its
    /// [`structured_content`](Self::structured_content) when set, else the
    /// value of its one text or JSON block (text as a JSON string). `None`
    /// for an error, for no content, several blocks or media.
    pub fn value(&self) -> Option<std::borrow::Cow<'_, Value>> {
        use std::borrow::Cow;
        if self.is_error() {
            return None;
        }
        if let Some(value) = &self.structured_content {
            return Some(Cow::Borrowed(value));
        }
        match self.content.as_slice() {
            [Content::Json(value)] => Some(Cow::Borrowed(value)),
            [Content::Text(text)] => Some(Cow::Owned(Value::String(text.clone()))),
            _ => None,
        }
    }

    /// Whether the call succeeded.
    pub fn is_success(&self) -> bool {
        self.status == ToolStatus::Success
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.status == ToolStatus::Error
    }

    /// All content as text, blocks joined with newlines: text as it is,
    /// JSON as compact JSON text, and any other block as its
    /// [stand-in](Content::stand_in), such as `[image/png image, 69 bytes]`.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for (i, part) in self.content.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            match part {
                Content::Text(text) => out.push_str(text),
                other => out.push_str(&other.stand_in()),
            }
        }
        out
    }

    /// Whether any block is something other than text or JSON: an image,
    /// audio or a resource.
    pub fn has_media(&self) -> bool {
        self.content
            .iter()
            .any(|part| !matches!(part, Content::Text(_) | Content::Json(_)))
    }
}

/// What a tool's body produced, before it is tied to a tool use id.
///
/// Generated code makes one from the function's return value: a value that
/// serialises to a JSON string becomes text, any other value JSON; a
/// returned [`ToolResult`] is kept as it is.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput {
    /// A serialised return value.
    Value(Value),
    /// A result the tool built itself.
    Result(ToolResult),
}

/// Serialises as the value, or as the result a tool built, so a tool may
/// return a `ToolOutput` like any other serialisable value.
impl Serialize for ToolOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolOutput::Value(value) => value.serialize(serializer),
            ToolOutput::Result(result) => result.serialize(serializer),
        }
    }
}

/// Text: a result with one text block.
impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        ToolOutput::Value(Value::String(text))
    }
}

/// Text: a result with one text block.
impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        ToolOutput::Value(Value::String(text.to_owned()))
    }
}

/// A JSON value: text when it is a string, JSON otherwise.
impl From<Value> for ToolOutput {
    fn from(value: Value) -> Self {
        ToolOutput::Value(value)
    }
}

/// One content block: a result holding it.
impl From<Content> for ToolOutput {
    fn from(content: Content) -> Self {
        ToolOutput::Result(ToolResult::success("", vec![content]))
    }
}

/// Content blocks: a result holding them, in order.
impl From<Vec<Content>> for ToolOutput {
    fn from(content: Vec<Content>) -> Self {
        ToolOutput::Result(ToolResult::success("", content))
    }
}

/// Media and resources: a result holding that one block.
macro_rules! one_block_output {
    ($($ty:ident),*) => {$(
        #[doc = concat!("One [`", stringify!($ty), "`](crate::content::", stringify!($ty), "): a result holding it.")]
        impl From<crate::spec::content::$ty> for ToolOutput {
            fn from(value: crate::spec::content::$ty) -> Self {
                ToolOutput::from(Content::from(value))
            }
        }
    )*};
}
one_block_output!(Image, Audio, Resource, ResourceLink);

/// A result built whole, kept as it is.
impl From<ToolResult> for ToolOutput {
    fn from(result: ToolResult) -> Self {
        ToolOutput::Result(result)
    }
}

impl ToolOutput {
    /// The result for the tool use `tool_use_id`.
    ///
    /// A value becomes the result's one block, text for a string and JSON
    /// otherwise: that block is the result's [value](ToolResult::value),
    /// which MCP's `structuredContent` is made from. On the agent path a
    /// tool's [formatter](crate::format::ToolFormat::format_result) may then put
    /// its own text in the block's place; the value moves to
    /// [`structured_content`](ToolResult::structured_content), unchanged.
    #[inline]
    pub fn into_result(self, tool_use_id: impl Into<String>) -> ToolResult {
        match self {
            ToolOutput::Value(Value::Null) => ToolResult::success(tool_use_id, Vec::new()),
            ToolOutput::Value(value) => {
                ToolResult::success(tool_use_id, vec![Content::from_value(value)])
            }
            ToolOutput::Result(mut result) => {
                result.tool_use_id = tool_use_id.into();
                result
            }
        }
    }

    /// The plain value, as the direct call path returns it.
    ///
    /// A returned error [`ToolResult`] becomes `Err` with its text; a result
    /// with one content block becomes that block's value; several blocks
    /// become an array of values.
    pub fn into_value(self) -> Result<Value, ToolError> {
        match self {
            ToolOutput::Value(value) => Ok(value),
            ToolOutput::Result(result) if result.is_error() => Err(ToolError::with_kind(
                result.error_kind.unwrap_or(ToolErrorKind::Failed),
                result.text_content(),
            )),
            ToolOutput::Result(mut result) => Ok(match result.content.len() {
                0 => Value::Null,
                1 => result
                    .content
                    .pop()
                    .map_or(Value::Null, Content::into_value),
                _ => Value::Array(
                    result
                        .content
                        .into_iter()
                        .map(Content::into_value)
                        .collect(),
                ),
            }),
        }
    }
}
