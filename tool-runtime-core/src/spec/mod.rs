//! What describes a tool and its calls: the spec a model reads
//! ([`ToolSpec`], its parameters and constraints), the
//! configuration a tool declares, argument decoding, and what a call gives
//! back ([`ToolResult`], [`ToolError`]).
//!
//! The types a tool's definition is made of, and those of a call's outcome
//! a caller inspects.

pub(crate) mod args;
mod base64;
pub(crate) mod config;
pub mod constraints;
pub(crate) mod content;
pub(crate) mod error;
pub(crate) mod limit;
pub(crate) mod requires;
pub(crate) mod result;
pub(crate) mod tool_spec;

pub use args::MAX_ARGUMENT_DEPTH;
pub use error::{ArgError, ArgErrorKind, ToolError, ToolErrorKind};
pub use requires::{Feature, Missing, Requirements};
pub use result::{ToolOutput, ToolResult, ToolStatus, ToolUse};
pub use tool_spec::{
    ParamSpec, SchemaSource, SourceLocation, TaskSupport, ToolAnnotations, ToolSpec,
};

pub use crate::tool::ToolFuture;
