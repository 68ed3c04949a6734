//! What a tool's result holds: text, images, audio, embedded resources and
//! links to them ([`Content`] and its parts).

pub use crate::spec::content::{
    Audio, Content, Image, InvalidBase64, Resource, ResourceContents, ResourceLink,
};
