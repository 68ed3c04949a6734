//! What a read gives: contents, text or bytes, each named by its URI.

use base64::Engine as _;
use serde_json::{Map, Value};

/// The body of [`Contents`]: text, or bytes (base64 on the wire).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Text (`text`).
    Text(String),
    /// Binary data (`blob`).
    Blob(Vec<u8>),
}

impl Body {
    /// Its size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Body::Text(text) => text.len(),
            Body::Blob(bytes) => bytes.len(),
        }
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One item of a `resources/read` result: a resource's text or bytes,
/// named by its URI.
///
/// ```
/// use tool_mcp::resources::{Body, Contents};
///
/// let contents = Contents::text("test://static-text", "text/plain", "Hello");
/// assert_eq!(contents.body, Body::Text("Hello".into()));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Contents {
    /// The URI of what was read.
    pub uri: String,
    /// Its media type, when known.
    pub mime_type: Option<String>,
    /// Its text or bytes.
    pub body: Body,
    /// Its `_meta`.
    pub meta: Option<Map<String, Value>>,
}

impl Contents {
    /// Text of media type `mime_type` at `uri`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: Body::Text(text.into()),
            meta: None,
        }
    }

    /// Bytes of media type `mime_type` at `uri`.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: Body::Blob(bytes.into()),
            meta: None,
        }
    }

    /// With `_meta`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// In MCP's shape: `{uri, mimeType?, text | blob, _meta?}`.
    pub(crate) fn to_json(&self) -> Value {
        let mut item = Map::new();
        item.insert("uri".into(), self.uri.clone().into());
        if let Some(mime) = &self.mime_type {
            item.insert("mimeType".into(), mime.clone().into());
        }
        match &self.body {
            Body::Text(text) => item.insert("text".into(), text.clone().into()),
            Body::Blob(bytes) => item.insert(
                "blob".into(),
                base64::engine::general_purpose::STANDARD
                    .encode(bytes)
                    .into(),
            ),
        };
        if let Some(meta) = &self.meta {
            item.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(item)
    }
}

impl From<tool_runtime::content::Resource> for Contents {
    /// A resource embedded in a tool result, as read contents (a blob whose
    /// base64 does not decode keeps its text).
    fn from(resource: tool_runtime::content::Resource) -> Self {
        use tool_runtime::content::ResourceContents;
        let body = match resource.contents {
            ResourceContents::Text(text) => Body::Text(text),
            ResourceContents::Blob(data) => {
                match base64::engine::general_purpose::STANDARD.decode(&data) {
                    Ok(bytes) => Body::Blob(bytes),
                    Err(_) => Body::Text(data),
                }
            }
        };
        Self {
            uri: resource.uri,
            mime_type: resource.mime_type,
            body,
            meta: None,
        }
    }
}
