//! Content blocks between the runtime's [`Content`] and MCP's: what the
//! server sends and what the client (and a sampling answer) brings back.
//! The server writes blocks with `tool_runtime::providers::mcp` (its one
//! rendering of MCP's shapes); JSON in MCP's shape is read here, and rmcp's
//! `ContentBlock` read (through its JSON) for the client.

use serde_json::Value;
use tool_runtime::{
    Content, content::Audio, content::Image, content::Resource, content::ResourceContents,
    content::ResourceLink,
};

/// A block a remote tool returned, as the runtime's content (see
/// [`from_json`]).
#[cfg(feature = "client")]
pub(crate) fn from_mcp(block: &rmcp::model::ContentBlock) -> Content {
    from_json(serde_json::to_value(block).unwrap_or_default())
}

/// A content block as JSON in MCP's shape, as the runtime's content: each
/// MCP kind as its own [`Content`] variant; media whose data is not valid
/// base64, and any kind (or JSON) this crate does not know, as the block's
/// JSON.
pub(crate) fn from_json(block: Value) -> Content {
    let text = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_owned);
    let made = match block.get("type").and_then(Value::as_str) {
        Some("text") => text("text").map(Content::Text),
        Some("image") => match (text("mimeType"), text("data")) {
            (Some(mime), Some(data)) => Image::from_base64(mime, data).ok().map(Content::from),
            _ => None,
        },
        Some("audio") => match (text("mimeType"), text("data")) {
            (Some(mime), Some(data)) => Audio::from_base64(mime, data).ok().map(Content::from),
            _ => None,
        },
        Some("resource") => resource(&block["resource"]),
        Some("resource_link") => match (text("uri"), text("name")) {
            (Some(uri), Some(name)) => {
                let mut link = ResourceLink::new(uri, name);
                link.title = text("title");
                link.description = text("description");
                link.mime_type = text("mimeType");
                link.size = block.get("size").and_then(Value::as_u64);
                Some(Content::from(link))
            }
            _ => None,
        },
        _ => None,
    };
    made.unwrap_or(Content::Json(block))
}

/// The `resource` of an embedded resource block.
fn resource(resource: &Value) -> Option<Content> {
    let text = |key: &str| resource.get(key).and_then(Value::as_str).map(str::to_owned);
    let contents = match (text("text"), text("blob")) {
        (Some(text), None) => ResourceContents::Text(text),
        (None, Some(blob)) => ResourceContents::Blob(blob),
        _ => return None,
    };
    Some(Content::from(Resource {
        uri: text("uri")?,
        mime_type: text("mimeType"),
        contents,
    }))
}
