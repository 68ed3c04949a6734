//! A configured tool: `search` over a small built-in catalogue, with its
//! limits and API key fixed at setup time, apart from the arguments.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::config::Config;
use tool_runtime::{ToolError, tool};

/// How the `search` tool is set up.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchConfig {
    /// The most results one call may return, 1 to 50.
    #[serde(default = "default_max_results")]
    #[schemars(range(min = 1, max = 50))]
    pub max_results: u32,
    /// The search service's API key. Keep it out of files: set the
    /// `TOOL_SEARCH_API_KEY` environment variable.
    pub api_key: String,
}

fn default_max_results() -> u32 {
    5
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// Where it is.
    pub url: String,
}

const CATALOGUE: &[(&str, &str)] = &[
    (
        "Rust ownership explained",
        "https://docs.example/rust/ownership",
    ),
    ("Rust async book", "https://docs.example/rust/async"),
    ("Serde data model", "https://docs.example/serde/data-model"),
    ("JSON Schema reference", "https://docs.example/json-schema"),
    ("Tokio tutorial", "https://docs.example/tokio/tutorial"),
    (
        "Rust macros: the little book",
        "https://docs.example/rust/macros",
    ),
    ("Rust error handling", "https://docs.example/rust/errors"),
];

/// Search the documentation catalogue for pages whose title contains every
/// word of the query.
#[tool(config = SearchConfig, read_only, alias = "strands_tools.search")]
pub fn search(
    /// Words to look for, e.g. "rust async"
    #[tool(length(min = 1, max = 200))]
    query: String,
    /// How many results to return; at most the configured limit
    #[tool(range(min = 1, max = 50))]
    limit: Option<u32>,
    config: Config<SearchConfig>,
) -> Result<Vec<SearchHit>, ToolError> {
    if config.api_key.trim().is_empty() {
        return Err(ToolError::new(
            "the search service is not set up (no API key)",
        ));
    }
    let limit = limit.unwrap_or(config.max_results).min(config.max_results) as usize;
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    Ok(CATALOGUE
        .iter()
        .filter(|(title, _)| {
            let title = title.to_lowercase();
            words.iter().all(|word| title.contains(word.as_str()))
        })
        .take(limit)
        .map(|(title, url)| SearchHit {
            title: (*title).to_owned(),
            url: (*url).to_owned(),
        })
        .collect())
}
