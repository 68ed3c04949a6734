//! A tool re-exposed under other names: [`ToolTransform`] renames, hides or
//! fixes its arguments, and [`TransformedTool`] is the tool it makes.

pub use crate::tool::transform::{
    ArgTransform, GivenValue, ToolTransform, TransformError, TransformedTool,
};
