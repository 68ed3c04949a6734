//! What a tool result holds: text, JSON, images, audio and resources
//! ([`Content`]), and the media types a tool returns to make them.
//!
//! A tool returns an [`Image`], an [`Audio`] clip, a [`Resource`], a
//! [`ResourceLink`], one [`Content`] block or a `Vec<Content>`, and its
//! result holds those blocks. Each provider rendering sends a block in the
//! provider's own shape where the provider accepts that kind in a tool
//! result, and a short text stand-in ([`Content::stand_in`]) where it does
//! not (docs/providers.md has the table).
//!
//! ```
//! use tool_runtime::{Content, content::Image, Registry, ToolUse, tool};
//!
//! /// Draw a one-pixel image.
//! #[tool]
//! fn pixel() -> Vec<Content> {
//!     vec![
//!         Content::text("One red pixel:"),
//!         Image::png(draw()).into(),
//!     ]
//! }
//!
//! # fn draw() -> Vec<u8> { vec![0x89, b'P', b'N', b'G'] }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::builder().tool(PixelTool).build().unwrap();
//! let call = ToolUse::new("1", "pixel", serde_json::json!({}));
//! let result = registry.invoke(call, &Default::default()).await;
//! assert!(matches!(&result.content[1], Content::Image(image) if image.mime_type() == "image/png"));
//! assert_eq!(result.text_content(), "One red pixel:\n[image/png image, 4 bytes]");
//! # }
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::base64;

/// One piece of a tool result's content.
///
/// Serialises as an object with one key naming the kind: `{"text": "..."}`
/// and `{"json": ...}` (the content blocks of the Bedrock Converse /
/// Strands `toolResult`), `{"image": {"mimeType", "data"}}`,
/// `{"audio": {"mimeType", "data"}}`, `{"resource": {"uri", "mimeType",
/// "text" | "blob"}}` and `{"resourceLink": {"uri", "name", ...}}`, with
/// binary data in base64 as MCP sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text(String),
    /// A JSON value.
    Json(Value),
    /// An image.
    Image(Image),
    /// An audio clip.
    Audio(Audio),
    /// A resource's contents, embedded in the result.
    Resource(Resource),
    /// A reference to a resource the client can fetch.
    ResourceLink(ResourceLink),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(text.into())
    }

    /// The text, if this is text content.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            _ => None,
        }
    }

    /// Text content for a JSON string, JSON content for any other value.
    #[inline]
    pub fn from_value(value: Value) -> Self {
        match value {
            Value::String(text) => Content::Text(text),
            other => Content::Json(other),
        }
    }

    /// The content as a JSON value: text becomes a JSON string, JSON stays
    /// as it is, and any other block becomes its serialised form (for
    /// example `{"image": {"mimeType": "image/png", "data": "..."}}`).
    pub fn into_value(self) -> Value {
        match self {
            Content::Text(text) => Value::String(text),
            Content::Json(value) => value,
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        }
    }

    /// The block as text, for a reader that takes only text: text as it
    /// is, JSON as compact JSON, and for media a bracketed line naming the
    /// kind, the media type and the size, such as `[image/png image, 69
    /// bytes]`. An embedded text resource gives its URI line and its text;
    /// a resource link its name, URI and description.
    pub fn stand_in(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Json(value) => value.to_string(),
            Content::Image(image) => {
                format!("[{} image, {}]", image.mime_type, bytes(image.len()))
            }
            Content::Audio(audio) => {
                format!("[{} audio, {}]", audio.mime_type, bytes(audio.len()))
            }
            Content::Resource(resource) => {
                let mime = resource.mime_type.as_deref().unwrap_or("unknown type");
                match &resource.contents {
                    ResourceContents::Text(text) => {
                        format!("[resource {}, {mime}]\n{text}", resource.uri)
                    }
                    ResourceContents::Blob(data) => format!(
                        "[resource {}, {mime}, {}]",
                        resource.uri,
                        bytes(decoded_len(data))
                    ),
                }
            }
            Content::ResourceLink(link) => {
                let mut line = format!("[resource link: {} <{}>", link.name, link.uri);
                if let Some(mime) = &link.mime_type {
                    line.push_str(", ");
                    line.push_str(mime);
                }
                line.push(']');
                if let Some(description) = &link.description {
                    line.push(' ');
                    line.push_str(description);
                }
                line
            }
        }
    }
}

/// `1 byte`, `2 bytes`.
fn bytes(count: usize) -> String {
    if count == 1 {
        "1 byte".to_owned()
    } else {
        format!("{count} bytes")
    }
}

/// The number of bytes a padded base64 text decodes to.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// Base64 text that is not valid standard base64 with padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidBase64(String);

impl fmt::Display for InvalidBase64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the data is not valid base64: {}", self.0)
    }
}

impl std::error::Error for InvalidBase64 {}

fn checked_base64(data: String) -> Result<String, InvalidBase64> {
    match base64::decode(data.as_bytes()) {
        Ok(_) => Ok(data),
        Err(error) => Err(InvalidBase64(error.to_string())),
    }
}

/// Image and audio: a media type and base64 data, made from bytes.
macro_rules! media {
    (
        $(#[$doc:meta])*
        $name:ident, $kind:literal, $variant:ident,
        [$($(#[$ctor_doc:meta])* $ctor:ident => $mime:literal),* $(,)?]
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            mime_type: String,
            data: String,
        }

        impl $name {
            #[doc = concat!("An ", $kind, " of media type `mime_type` holding `bytes`.")]
            pub fn new(mime_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
                Self {
                    mime_type: mime_type.into(),
                    data: base64::encode(bytes.as_ref()),
                }
            }

            $(
                $(#[$ctor_doc])*
                pub fn $ctor(bytes: impl AsRef<[u8]>) -> Self {
                    Self::new($mime, bytes)
                }
            )*

            #[doc = concat!("An ", $kind, " from data already in base64, as MCP and most")]
            /// provider APIs carry it; the data is checked.
            pub fn from_base64(
                mime_type: impl Into<String>,
                data: impl Into<String>,
            ) -> Result<Self, InvalidBase64> {
                Ok(Self {
                    mime_type: mime_type.into(),
                    data: checked_base64(data.into())?,
                })
            }

            /// The media type, such as `image/png` or `audio/wav`.
            pub fn mime_type(&self) -> &str {
                &self.mime_type
            }

            /// The data in standard base64 with padding.
            pub fn base64(&self) -> &str {
                &self.data
            }

            /// The data as bytes.
            pub fn to_bytes(&self) -> Vec<u8> {
                base64::decode(self.data.as_bytes()).unwrap_or_default()
            }

            /// The number of bytes of data.
            pub fn len(&self) -> usize {
                decoded_len(&self.data)
            }

            /// Whether there is no data.
            pub fn is_empty(&self) -> bool {
                self.data.is_empty()
            }
        }

        impl From<$name> for Content {
            fn from(value: $name) -> Self {
                Content::$variant(value)
            }
        }
    };
}

media!(
    /// An image in a tool result: `Image::png(bytes)`.
    ///
    /// Sent as an image block to MCP clients, Anthropic, Bedrock (PNG,
    /// JPEG, GIF and WebP), OpenAI's Responses API and Gemini; as a text
    /// stand-in elsewhere.
    Image, "image", Image,
    [
        /// A PNG image.
        png => "image/png",
        /// A JPEG image.
        jpeg => "image/jpeg",
        /// A GIF image.
        gif => "image/gif",
        /// A WebP image.
        webp => "image/webp",
    ]
);

media!(
    /// An audio clip in a tool result: `Audio::wav(bytes)`.
    ///
    /// Sent as an audio block to MCP clients and as inline data to Gemini;
    /// as a text stand-in elsewhere.
    Audio, "audio clip", Audio,
    [
        /// A WAV clip.
        wav => "audio/wav",
        /// An MP3 clip.
        mp3 => "audio/mpeg",
        /// An Ogg clip.
        ogg => "audio/ogg",
    ]
);

/// What an embedded [`Resource`] holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ResourceContents {
    /// Text.
    Text(String),
    /// Binary data, in base64.
    Blob(String),
}

/// A resource's contents embedded in a tool result, named by its URI:
/// `Resource::text("file:///notes.md", "text/markdown", "# Notes")`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// Its media type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text or data.
    #[serde(flatten)]
    pub contents: ResourceContents,
}

impl Resource {
    /// A text resource.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            contents: ResourceContents::Text(text.into()),
        }
    }

    /// A binary resource holding `bytes`.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            contents: ResourceContents::Blob(base64::encode(bytes.as_ref())),
        }
    }

    /// The text, for a text resource.
    pub fn as_text(&self) -> Option<&str> {
        match &self.contents {
            ResourceContents::Text(text) => Some(text),
            ResourceContents::Blob(_) => None,
        }
    }
}

impl From<Resource> for Content {
    fn from(value: Resource) -> Self {
        Content::Resource(value)
    }
}

/// A link to a resource the client can read itself, rather than its
/// contents: `ResourceLink::new("file:///report.pdf", "report.pdf")`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for people, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl ResourceLink {
    /// A link to `uri`, named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }

    /// The same link with a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The same link with a media type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

impl From<ResourceLink> for Content {
    fn from(value: ResourceLink) -> Self {
        Content::ResourceLink(value)
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_serialise_with_a_key_naming_their_kind_and_read_back() {
        let blocks = vec![
            Content::text("hi"),
            Content::Json(json!({"a": 1})),
            Image::png([1u8, 2, 3]).into(),
            Audio::wav([0u8; 4]).into(),
            Resource::text("test://r", "text/plain", "body").into(),
            Resource::blob("test://b", "application/pdf", [9u8]).into(),
            ResourceLink::new("test://l", "l")
                .with_mime_type("text/csv")
                .into(),
        ];
        let value = serde_json::to_value(&blocks).unwrap();
        assert_eq!(
            value,
            json!([
                {"text": "hi"},
                {"json": {"a": 1}},
                {"image": {"mimeType": "image/png", "data": "AQID"}},
                {"audio": {"mimeType": "audio/wav", "data": "AAAAAA=="}},
                {"resource": {"uri": "test://r", "mimeType": "text/plain", "text": "body"}},
                {"resource": {"uri": "test://b", "mimeType": "application/pdf", "blob": "CQ=="}},
                {"resourceLink": {"uri": "test://l", "name": "l", "mimeType": "text/csv"}},
            ])
        );
        let back: Vec<Content> = serde_json::from_value(value).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn media_keeps_its_bytes_and_counts_them() {
        let image = Image::jpeg(b"hello");
        assert_eq!(image.to_bytes(), b"hello");
        assert_eq!(image.len(), 5);
        assert_eq!(Audio::mp3([]).len(), 0);
        assert!(Audio::mp3([]).is_empty());
        assert_eq!(Image::from_base64("image/png", "AQID").unwrap().len(), 3);
        let error = Image::from_base64("image/png", "not base64!").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("the data is not valid base64")
        );
    }

    #[test]
    fn stand_ins_name_kind_type_and_size() {
        assert_eq!(
            Content::from(Image::png([0u8; 10])).stand_in(),
            "[image/png image, 10 bytes]"
        );
        assert_eq!(
            Content::from(Audio::wav([0u8; 7])).stand_in(),
            "[audio/wav audio, 7 bytes]"
        );
        assert_eq!(
            Content::from(Resource::text("test://r", "text/plain", "body")).stand_in(),
            "[resource test://r, text/plain]\nbody"
        );
        assert_eq!(
            Content::from(Resource::blob("test://b", "application/pdf", [1u8])).stand_in(),
            "[resource test://b, application/pdf, 1 byte]"
        );
        assert_eq!(
            Content::from(
                ResourceLink::new("file:///r.pdf", "r.pdf")
                    .with_mime_type("application/pdf")
                    .with_description("The report")
            )
            .stand_in(),
            "[resource link: r.pdf <file:///r.pdf>, application/pdf] The report"
        );
    }
}
