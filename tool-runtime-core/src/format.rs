//! A tool's own formatting of its definition and of its results:
//! [`ToolFormat`] (`#[tool(format = PATH)]`), held by a spec as a
//! [`Formatter`].

pub use crate::spec::tool_spec::format::{CallBody, DescriptionFormat, Formatter, ToolFormat};
