//! A [`tool_runtime::Registry`]'s tools used from the Rust LLM clients
//! people already have, and one agent-loop turn over every provider format
//! tool-runtime renders.
//!
//! - [`answer`] (no feature): a model response in any provider's JSON in,
//!   every tool call in it run concurrently under the registry's limits,
//!   and the messages to append to the conversation out, in order ([`Turn`]).
//! - `rig` (feature `rig`): the registry's tools as rig `DynamicTool`s, for
//!   `AgentBuilder::dynamic_tools` or a `ToolSet`.
//! - `async_openai` (feature `async-openai`): tool definitions for chat
//!   completions and the Responses API as async-openai's request types, the
//!   tool calls of its chat messages and responses run, and their results as
//!   its tool messages and `function_call_output` items.
//! - `genai` (feature `genai`): genai `Tool`s from the registry, its
//!   `ToolCall`s run, and `ToolResponse`s from the results.
//!
//! No feature is on by default, so a crate compiles only the clients it
//! names. Whatever the client, a call goes through
//! [`Registry::invoke`](tool_runtime::Registry::invoke) or
//! [`Registry::invoke_all`](tool_runtime::Registry::invoke_all): every
//! argument problem is reported to the model at once, a panic, a time limit
//! or a refused approval is an error result the model reads, and tools the
//! registry renders strict (`#[tool(strict)]`, or a registry built with
//! `.strict(true)`) are offered with tool-runtime's own strict schema, their
//! arguments read back from the strict form. Arguments that are not JSON at
//! all are answered as an error result for that call alone, and the other
//! calls still run.
//!
//! The guide, with a section per client and the build cost of each feature,
//! is `docs/adapters.md`; each client has an example in `examples/` that runs
//! a whole agent loop against a stand-in for the provider on 127.0.0.1.

#![warn(missing_docs)]

mod calls;
mod turn;

#[cfg(feature = "async-openai")]
pub mod async_openai;
#[cfg(feature = "genai")]
pub mod genai;
#[cfg(feature = "rig")]
pub mod rig;

pub use turn::{Turn, answer};

// The guide: its snippets are doctests of this crate, whose dev-dependencies
// have the clients (not of the `tests` crate, like the other pages: see
// Cargo.toml).
#[doc = include_str!("../../docs/adapters.md")]
#[cfg(doctest)]
pub struct Guide;
