//! The benchmarked tools, written with `#[tool]`.

use std::time::Duration;

use tool_runtime::tool;

use crate::{Mode, search_body};

/// Searches the catalogue.
#[tool]
pub fn search(
    /// Words to look for
    query: String,
    /// Most results to return
    limit: u32,
    /// How words are matched
    mode: Mode,
) -> String {
    search_body(&query, limit, mode)
}

/// Looks a word up in a remote dictionary (simulated: it waits, then
/// answers).
#[tool]
pub async fn lookup(
    /// The word to look up
    word: String,
    /// How long the remote side takes, in microseconds; 0 yields to the
    /// scheduler once instead
    #[tool(default = 0)]
    delay_us: u64,
) -> String {
    lookup_body(word, delay_us).await
}

/// The body of [`lookup`], shared with the hand-written version the
/// concurrency harness compares it with.
pub async fn lookup_body(word: String, delay_us: u64) -> String {
    if delay_us == 0 {
        tokio::task::yield_now().await;
    } else {
        tokio::time::sleep(Duration::from_micros(delay_us)).await;
    }
    format!("{word}: a word")
}

/// [`search`] as a tool defined at run time: the same input schema, its
/// arguments validated against it with `jsonschema`, then read from the
/// JSON value by the closure.
pub fn search_dynamic() -> tool_runtime::dynamic::DynamicTool {
    tool_runtime::dynamic::DynamicTool::builder(
        "search_dynamic",
        "Searches the catalogue.",
        SearchTool::SPEC.input_schema().clone(),
    )
    .handler(|args, _ctx| {
        let query = args["query"].as_str().unwrap_or_default();
        let limit = args["limit"].as_u64().unwrap_or_default() as u32;
        let mode: Mode = serde_json::from_value(args["mode"].clone())
            .map_err(|error| tool_runtime::ToolError::new(error.to_string()))?;
        Ok::<_, tool_runtime::ToolError>(search_body(query, limit, mode))
    })
    .build()
    .expect("the schema of `search` is valid")
}
