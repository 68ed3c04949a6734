//! Tools made at run time, from a name, a JSON Schema and a closure
//! ([`DynamicTool::builder`]); feature `dynamic`.

pub use crate::tool::dynamic::{DynamicTool, DynamicToolBuilder, DynamicToolError};
