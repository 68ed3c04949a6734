//! What a registry's tool definitions cost in `o200k_base` tokens:
//! [`report`], and [`check_budget`] against a budget.
//!
//! A registry that defers tools (`RegistryBuilder::defer`) offers what
//! [`Registry::render`] sends: the counts leave out the deferred tools,
//! which reach the model only once a search finds them. For a provider
//! with a tool search of its own, whose request lists them flagged
//! `"defer_loading": true`, the provider's search tool is counted instead;
//! for the others, `search_tools`.

use std::fmt;

use serde_json::Value;

use tool_runtime_core::{Provider, Registry, ToolSpec, providers};

use crate::count;

/// The tokens of a registry's tool definitions in one format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenReport {
    /// The format counted.
    pub format: Provider,
    /// Each definition offered, by name, and the tokens of that definition
    /// alone, in the order the request carries them. A provider's own
    /// tool search, which a registry that defers tools offers in place of
    /// `search_tools`, is named by its `name` (Anthropic's
    /// `tool_search_tool_bm25`) or else its `type` (the Responses API's
    /// `tool_search`).
    pub tools: Vec<(String, usize)>,
    /// The tokens of the whole set as a request carries it (the format's
    /// array or object, as compact JSON; XML as text), deferred definitions
    /// left out.
    pub total: usize,
}

/// The tokens each definition `registry` offers costs in `format`, and the
/// whole set: the definitions of [`Registry::render`], less those it
/// flags `"defer_loading": true`.
pub fn report(registry: &Registry, format: Provider) -> TokenReport {
    let whole = registry.render(format);
    if let Value::String(text) = whole {
        // XML: one block of text, with a `<tool>` element for each tool
        // it offers; each element is counted alone.
        let tools = registry
            .specs()
            .filter(|spec| offered_in_full(registry, spec))
            .map(|spec| {
                let element = providers::render_tool(format, spec);
                (spec.name.to_string(), count(&text_of(&element)))
            })
            .collect();
        return TokenReport {
            format,
            tools,
            total: count(text),
        };
    }
    let offered = without_deferred(whole);
    let entries: &[Value] = match &offered {
        Value::Array(items) => items,
        Value::Object(object) => object
            .values()
            .find_map(Value::as_array)
            .map_or(&[], Vec::as_slice),
        _ => &[],
    };
    let tools = entries
        .iter()
        .map(|entry| (name_of(entry), count(&text_of(entry))))
        .collect();
    TokenReport {
        format,
        tools,
        total: count(&text_of(&offered)),
    }
}

/// Whether a request carries the definition of the tool with `spec` in
/// full where the provider has no tool search of its own: every tool but
/// the deferred ones.
fn offered_in_full(registry: &Registry, spec: &ToolSpec) -> bool {
    !registry.is_deferred(&spec.name)
}

/// A rendering (an array of definitions, or an object holding one) less
/// the definitions flagged `"defer_loading": true`.
fn without_deferred(rendering: &Value) -> Value {
    let deferred = |entry: &Value| entry.get("defer_loading") == Some(&Value::Bool(true));
    let keep = |items: &Vec<Value>| -> Value {
        Value::Array(items.iter().filter(|e| !deferred(e)).cloned().collect())
    };
    match rendering {
        Value::Array(items) => keep(items),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| match value {
                    Value::Array(items) => (key.clone(), keep(items)),
                    other => (key.clone(), other.clone()),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The name of one definition, in whichever format's shape: `name`
/// (Anthropic, Responses, Gemini, MCP), `function.name` (Chat
/// Completions), `toolSpec.name` (Bedrock), else its `type` (a provider's
/// own tool search).
fn name_of(entry: &Value) -> String {
    ["/name", "/function/name", "/toolSpec/name", "/type"]
        .iter()
        .find_map(|pointer| entry.pointer(pointer).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
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
