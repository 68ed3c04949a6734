//! What describes a tool and its calls: the spec a model reads
//! ([`ToolSpec`](crate::ToolSpec), its parameters and constraints), the
//! configuration a tool declares, argument decoding, and what a call gives
//! back ([`ToolResult`](crate::ToolResult), [`ToolError`](crate::ToolError)).
//!
//! Plain data and the checks on it: this folder knows nothing of contexts,
//! registries or providers, which all build on it.

pub(crate) mod args;
pub(crate) mod config;
pub mod constraints;
pub(crate) mod content;
pub(crate) mod error;
pub(crate) mod limit;
pub(crate) mod requires;
pub(crate) mod result;
pub(crate) mod tool_spec;
