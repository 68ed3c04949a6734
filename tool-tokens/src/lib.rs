//! What a registry's tool definitions and a tool's results cost in a
//! model's context, counted with a real tokenizer: OpenAI's `o200k_base`
//! (the encoding of GPT-4o, GPT-4.1, o-series and GPT-5 models), through
//! `tiktoken-rs`.
//!
//! - [`count`]: the tokens of a text.
//! - [`O200kBase`]: the same count as a registry's
//!   [`TokenCounter`], for result limits
//!   in tokens (`#[tool(result_limit = "2000 tokens")]`,
//!   [`ResultLimit::Tokens`](tool_runtime_core::limits::ResultLimit::Tokens)). A
//!   registry counts those as its builder's
//!   [`token_counter`](tool_runtime_core::RegistryBuilder::token_counter)
//!   says, and without one estimates a text of `n` bytes at `n / 4`
//!   tokens ([`ByteEstimate`](tool_runtime_core::limits::ByteEstimate)).
//! - [`report`] and [`check_budget`]: every definition a registry offers
//!   is sent with every request, so a registry that grows past a few dozen
//!   tools pays for all of them on each turn. [`report`] counts each
//!   definition in a provider's format and the whole set as the request
//!   carries it; [`check_budget`] says when the set passes a budget.
//!   `toolbox schema --tokens` prints the same table.
//!
//! Other providers' tokenizers differ (Anthropic and Google do not publish
//! theirs); `o200k_base` counts are a close guide to their cost, not their
//! bill.
//!
//! With `tool-runtime = "0.1"` and `tool-tokens = "0.1"` in `Cargo.toml`:
//!
//! ```
//! use tool_runtime::{Provider, Registry, limits::ResultLimit, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! assert_eq!(tool_tokens::count("hello world"), 2);
//!
//! // Result limits in tokens (here the registry's, for every tool)
//! // count o200k_base tokens.
//! let limited = Registry::builder()
//!     .tool(AddTool)
//!     .result_limit(ResultLimit::Tokens(2_000))
//!     .token_counter(tool_tokens::O200kBase)
//!     .build()?;
//! assert_eq!(limited.token_counter().count("hello world"), 2);
//!
//! // What the definitions cost.
//! let registry = Registry::builder().tool(AddTool).build()?;
//! let report = tool_tokens::report(&registry, Provider::OpenAiChat);
//! assert_eq!(report.tools[0].0, "add");
//! assert!(report.total > 20 && report.total < 200, "{}", report.total);
//! assert!(tool_tokens::check_budget(&registry, Provider::OpenAiChat, 10_000).is_ok());
//! let over = tool_tokens::check_budget(&registry, Provider::OpenAiChat, 5).unwrap_err();
//! assert!(over.to_string().contains("over the budget of 5"));
//! # Ok::<(), tool_runtime::registry::RegistryError>(())
//! ```

#![warn(missing_docs)]

mod report;

pub use report::{OverBudget, TokenReport, check_budget, report};

use tool_runtime_core::limits::TokenCounter;

/// The tokens `text` takes in `o200k_base`.
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

/// OpenAI's `o200k_base` encoding as a registry's
/// [`TokenCounter`]: result limits in tokens
/// ([`ResultLimit::Tokens`](tool_runtime_core::limits::ResultLimit::Tokens)) count
/// real tokens, as [`count`] does, rather than estimate them from bytes.
///
/// ```
/// use tool_runtime::Registry;
///
/// let registry = Registry::builder()
///     .token_counter(tool_tokens::O200kBase)
///     .build()?;
/// # Ok::<(), tool_runtime::registry::RegistryError>(())
/// ```
///
/// The encoding's vocabulary is read once, on the first count, and shared
/// by every counter after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct O200kBase;

impl TokenCounter for O200kBase {
    fn count(&self, text: &str) -> usize {
        count(text)
    }
}
