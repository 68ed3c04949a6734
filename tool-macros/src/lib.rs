//! The `#[tool]` and `#[toolset]` attributes. Use them through the
//! `tool-runtime` crate, which re-exports and documents them; the generated
//! code names only `tool_runtime::__private` paths. Also MCP's
//! `#[resource]` and `#[prompt]` (module `mcp`), re-exported by `tool-mcp`,
//! whose expansions name only `tool_mcp::__private`.
//!
//! Each attribute goes through four steps, a module each:
//!
//! 1. `item` reads the annotated item, leaving function bodies as tokens;
//! 2. `parse` turns it and the attribute's keys (`attr`, read by `meta`,
//!    with the doc comments read by `docs`) into the plain data of `model`;
//! 3. `validate` checks the model;
//! 4. `expand` emits code from the model alone, or, when `Errors` holds
//!    any, the errors beside stand-ins that keep the rest of the crate
//!    compiling.
//!
//! `stream!` and `try_stream!` (module `stream`) are function-like macros
//! that `tool_runtime`'s macros of the same names call with the runtime's
//! path.

mod attr;
mod docs;
mod errors;
mod expand;
mod item;
mod mcp;
mod meta;
mod model;
mod parse;
mod similar;
mod stream;
mod validate;

use proc_macro::TokenStream;

/// Makes the `#[tool]` methods of an impl block tools bound to a shared
/// instance. See `tool_runtime::toolset`.
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::toolset(args.into(), input.into()).into()
}

/// Turns a function into a tool an LLM can call. See `tool_runtime::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

/// Makes a function an MCP resource (or a URI template's resources). See
/// `tool_mcp::resource`.
#[cfg(feature = "mcp")]
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    mcp::resource(args.into(), input.into()).into()
}

/// Makes a function an MCP prompt. See `tool_mcp::prompt`.
#[cfg(feature = "mcp")]
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    mcp::prompt(args.into(), input.into()).into()
}

/// The body of `tool_runtime::stream!`: the first token tree is a group
/// holding the runtime's path.
#[doc(hidden)]
#[proc_macro]
pub fn __stream(input: TokenStream) -> TokenStream {
    stream::expand(input.into(), false).into()
}

/// The body of `tool_runtime::try_stream!`, as for `__stream`.
#[doc(hidden)]
#[proc_macro]
pub fn __try_stream(input: TokenStream) -> TokenStream {
    stream::expand(input.into(), true).into()
}
