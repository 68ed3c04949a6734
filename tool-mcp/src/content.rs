//! Content blocks between the runtime's [`Content`] and rmcp's
//! [`ContentBlock`], both ways: what the server sends and what the client
//! brings back.

use rmcp::model::{ContentBlock, ResourceContents as McpResourceContents};
use tool_runtime::{Audio, Content, Image, Resource, ResourceContents, ResourceLink};

/// A result's block as MCP sends it: text and JSON (as compact JSON text)
/// as `text`, media as `image` and `audio`, resources as `resource` and
/// `resource_link`.
pub(crate) fn to_mcp(part: &Content) -> ContentBlock {
    match part {
        Content::Text(text) => ContentBlock::text(text.clone()),
        Content::Json(value) => ContentBlock::text(value.to_string()),
        Content::Image(image) => ContentBlock::image(image.base64(), image.mime_type()),
        Content::Audio(audio) => ContentBlock::audio(audio.base64(), audio.mime_type()),
        Content::Resource(resource) => ContentBlock::resource(match &resource.contents {
            ResourceContents::Text(text) => McpResourceContents::TextResourceContents {
                uri: resource.uri.clone(),
                mime_type: resource.mime_type.clone(),
                text: text.clone(),
                meta: None,
            },
            ResourceContents::Blob(data) => McpResourceContents::BlobResourceContents {
                uri: resource.uri.clone(),
                mime_type: resource.mime_type.clone(),
                blob: data.clone(),
                meta: None,
            },
        }),
        Content::ResourceLink(link) => {
            let mut resource = rmcp::model::Resource::new(link.uri.clone(), link.name.clone());
            resource.title = link.title.clone();
            resource.description = link.description.clone();
            resource.mime_type = link.mime_type.clone();
            resource.size = link.size;
            ContentBlock::resource_link(resource)
        }
        other => ContentBlock::text(other.stand_in()),
    }
}

/// A block a remote tool returned, as the runtime's content: each MCP kind
/// as its own [`Content`] variant; media whose data is not valid base64,
/// and any kind this crate does not know, as the block's JSON.
pub(crate) fn from_mcp(block: &ContentBlock) -> Content {
    let as_json = || Content::Json(serde_json::to_value(block).unwrap_or_default());
    match block {
        ContentBlock::Text(text) => Content::Text(text.text.clone()),
        ContentBlock::Image(image) => {
            Image::from_base64(image.mime_type.clone(), image.data.clone())
                .map_or_else(|_| as_json(), Content::from)
        }
        ContentBlock::Audio(audio) => {
            Audio::from_base64(audio.mime_type.clone(), audio.data.clone())
                .map_or_else(|_| as_json(), Content::from)
        }
        ContentBlock::Resource(embedded) => {
            let (uri, mime_type, contents) = match &embedded.resource {
                McpResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    ..
                } => (uri, mime_type, ResourceContents::Text(text.clone())),
                McpResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => (uri, mime_type, ResourceContents::Blob(blob.clone())),
                _ => return as_json(),
            };
            Content::from(Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                contents,
            })
        }
        ContentBlock::ResourceLink(resource) => {
            let mut link = ResourceLink::new(resource.uri.clone(), resource.name.clone());
            link.title = resource.title.clone();
            link.description = resource.description.clone();
            link.mime_type = resource.mime_type.clone();
            link.size = resource.size;
            Content::from(link)
        }
        _ => as_json(),
    }
}

/// A block as JSON in MCP's shape, as the runtime's content (see
/// [`from_mcp`]); JSON that is not a content block stays JSON.
pub(crate) fn from_mcp_json(block: serde_json::Value) -> Content {
    match crate::reread::<ContentBlock>(&block) {
        Ok(parsed) => from_mcp(&parsed),
        Err(_) => Content::Json(block),
    }
}
