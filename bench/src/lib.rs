//! Benchmarks of the tool runtime: what a call costs next to hand-written
//! code and next to other Rust tool libraries, how a registry of a thousand
//! tools behaves, and how calls scale across threads.
//!
//! The pieces every benchmark shares live here:
//!
//! - [`sample`]: the benchmarked tool, `search(query, limit, mode)`, written
//!   with `#[tool]`, and an async tool for the concurrency harness.
//! - [`floor`]: the same tool written by hand with serde, the floor every
//!   other path is compared with.
//! - `peers` (feature `peers`): the same tool written with `rmcp`'s and
//!   `rig-core`'s macros.
//! - A thousand generated `#[tool]` functions (see `build.rs`), registered
//!   globally, for the registry-scale measurements.
//! - [`alloc`]: an allocator wrapper that counts bytes, for memory figures.
//!
//! The suites: `cargo bench -p bench` (criterion, `benches/runtime.rs`),
//! `cargo run --release -p bench --bin scale`, `cargo run --release -p bench
//! --bin concurrency`; `scripts/perf-report.sh` runs them all and writes
//! `docs/performance.md`.

use std::future::Future;

use futures_util::FutureExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod alloc;
pub mod catalog;
pub mod floor;
pub mod fuzz;
#[cfg(feature = "peers")]
pub mod peers;
pub mod sample;

/// The generated tools; nothing outside refers to them by name, they are
/// reached through the global registry.
mod scale {
    use tool_runtime::tool;

    use crate::Level;

    include!(concat!(env!("OUT_DIR"), "/scale_tools.rs"));
}

/// How many tools `build.rs` generated for the scale measurements.
pub const SCALE_TOOLS: usize = scale::COUNT;

/// The name of the `i`th generated tool.
pub fn scale_tool_name(i: usize) -> String {
    format!("scale_tool_{i:04}")
}

/// How the search matches words: the enum parameter of the benchmarked tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The words as given.
    Exact,
    /// Words starting with the given ones.
    Prefix,
    /// Words close to the given ones.
    Fuzzy,
}

/// A detail level, the enum some generated tools take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// One line.
    Brief,
    /// Everything.
    Full,
}

/// The body every version of the benchmarked tool runs: one small
/// allocation, as a real tool's result would have.
pub fn search_body(query: &str, limit: u32, mode: Mode) -> String {
    format!("{limit} {mode:?} matches for \"{query}\"")
}

/// Valid arguments of the benchmarked tool, as a model sends them.
pub const VALID_ARGS: &str = r#"{"query":"rust tool calling","limit":5,"mode":"fuzzy"}"#;

/// Arguments with four mistakes at once: `query` has the wrong type,
/// `limit` is missing, `mode` is not a variant, and `verbose` is unknown.
pub const INVALID_ARGS: &str = r#"{"query":5,"mode":"fuzy","verbose":true}"#;

/// A whole tool use (Bedrock / Strands shape) around `args`.
pub fn tool_use_json(args: &str) -> String {
    format!(r#"{{"toolUseId":"tooluse_8f2a","name":"search","input":{args}}}"#)
}

/// The result every version of the tool must produce for [`VALID_ARGS`].
pub fn expected_output() -> String {
    search_body("rust tool calling", 5, Mode::Fuzzy)
}

/// Runs a future that finishes without waiting (a sync tool behind an async
/// signature), without an executor.
///
/// # Panics
///
/// When the future does wait: the benchmark would then measure the wrong
/// thing.
pub fn complete<F: Future>(future: F) -> F::Output {
    future
        .now_or_never()
        .expect("a sync tool call finishes on its first poll")
}
