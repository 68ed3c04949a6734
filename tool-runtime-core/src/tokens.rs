//! What a registry's tool definitions cost in a model's context, counted
//! with a real tokenizer: OpenAI's `o200k_base` (the encoding of GPT-4o,
//! GPT-4.1, o-series and GPT-5 models), through `tiktoken-rs`. Feature
//! `tokens`.
//!
//! Every definition offered is sent with every request: a registry that
//! grows past a few dozen tools pays for all of them on each turn.
//! [`report`] counts each tool's definition in a provider's format and the
//! whole set as the request carries it; [`check_budget`] says when the set
//! passes a budget. `toolbox schema --tokens` prints the same table.
//!
//! Other providers' tokenizers differ (Anthropic and Google do not publish
//! theirs); `o200k_base` counts are a close guide to their cost, not their
//! bill.
//!
//! ```
//! use tool_runtime::{Provider, Registry, tokens, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! assert_eq!(tokens::count("hello world"), 2);
//! let registry = Registry::builder().tool(AddTool).build()?;
//! let report = tokens::report(&registry, Provider::OpenAiChat);
//! assert_eq!(report.tools[0].0, "add");
//! assert!(report.total > 20 && report.total < 200, "{}", report.total);
//! assert!(tokens::check_budget(&registry, Provider::OpenAiChat, 10_000).is_ok());
//! let over = tokens::check_budget(&registry, Provider::OpenAiChat, 5).unwrap_err();
//! assert!(over.to_string().contains("over the budget of 5"));
//! # Ok::<(), tool_runtime::RegistryError>(())
//! ```

use std::fmt;

use serde_json::Value;

use crate::Provider;
use crate::providers;
use crate::registry::Registry;

/// The tokens `text` takes in `o200k_base`.
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

/// The tokens of a registry's tool definitions in one format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenReport {
    /// The format counted.
    pub format: Provider,
    /// Each tool offered, by name, and the tokens of its own definition,
    /// in the registry's order.
    pub tools: Vec<(String, usize)>,
    /// The tokens of the whole set as a request carries it (the format's
    /// array or object, as compact JSON; XML as text).
    pub total: usize,
}

/// The tokens each tool of `registry` costs in `format`, and the whole set.
pub fn report(registry: &Registry, format: Provider) -> TokenReport {
    let whole = registry.render(format);
    let entries: Option<&Vec<Value>> = match whole {
        Value::Array(items) => Some(items),
        Value::Object(object) => object.values().find_map(Value::as_array),
        _ => None,
    };
    let tools = registry
        .specs()
        .enumerate()
        .map(|(at, spec)| {
            let entry = match entries.and_then(|items| items.get(at)) {
                Some(entry) => entry.clone(),
                None => providers::render_tool(format, spec),
            };
            (spec.name.to_string(), count(&text_of(&entry)))
        })
        .collect();
    TokenReport {
        format,
        tools,
        total: count(&text_of(whole)),
    }
}

/// JSON as compact text, text as itself.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The report, or an error when the set passes `limit` tokens.
pub fn check_budget(
    registry: &Registry,
    format: Provider,
    limit: usize,
) -> Result<TokenReport, OverBudget> {
    let report = report(registry, format);
    if report.total <= limit {
        return Ok(report);
    }
    Err(OverBudget { report, limit })
}

/// A tool set larger than its token budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// What was counted.
    pub report: TokenReport,
    /// The budget it passed.
    pub limit: usize,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = &self.report;
        write!(
            f,
            "the {} tool definitions take {} tokens ({}), over the budget of {}",
            report.tools.len(),
            report.total,
            report.format,
            self.limit
        )?;
        let mut largest: Vec<&(String, usize)> = report.tools.iter().collect();
        largest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let named: Vec<String> = largest
            .iter()
            .take(3)
            .map(|(name, tokens)| format!("{name} ({tokens})"))
            .collect();
        if !named.is_empty() {
            write!(f, "; the largest: {}", named.join(", "))?;
        }
        write!(f, "; offer fewer tools, or defer some behind tool search")
    }
}

impl std::error::Error for OverBudget {}
