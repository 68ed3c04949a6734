//! The `#[tool]` attribute. Use it through the `tool-runtime` crate, which
//! re-exports it and documents it; the generated code names only
//! `tool_runtime` paths.
//!
//! The macro works in three steps, each in its own module: `parse` reads
//! the function and its attributes into the plain data of `model`
//! (checking with `validate` and collecting every error), and `expand`
//! emits code from that model alone.

mod attr;
mod docs;
mod errors;
mod expand;
mod model;
mod parse;
mod toolset;
mod validate;

use proc_macro::TokenStream;

/// Makes the `#[tool]` methods of an impl block tools bound to a shared
/// instance. See `tool_runtime::toolset`.
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    toolset::toolset(args.into(), input.into()).into()
}

/// Turns a function into a tool an LLM can call. See `tool_runtime::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}
