//! Runs one call path in a loop, for a profiler: nothing else happens in
//! the process, so a profile of it is a profile of the path.
//!
//! `profile PATH [ITERATIONS]`, PATH one of `floor_str`, `floor_value`,
//! `floor_tool_use` (the hand-written dispatch of a parsed tool use),
//! `call_json`, `call_str` (arguments as text), `registry_call_json`,
//! `invoke`, `invoke_cancellable` (with a context whose caller kept its
//! cancellation token, so every call reads it), `invoke_ctx` (the same tool
//! reading its context, so the call makes it one), `invoke_str`, `invalid`,
//! and for the async tool `lookup` (yielding once, on a current-thread
//! runtime) `floor_async` and `invoke_async`; `invoke_dynamic` calls a
//! `DynamicTool` with `search`'s schema and body, its arguments validated
//! against the schema and read from the JSON value;
//! `clone_value`, `clone_tool_use` and `clone_lookup_use` measure the input
//! copies that `registry_call_json`, `floor_tool_use`, the `invoke*` paths
//! and `invoke_async` make each iteration.
//!
//! ```sh
//! CARGO_PROFILE_RELEASE_DEBUG=true cargo build --release -p bench --bin profile
//! valgrind --tool=callgrind target/release/profile invoke 20000
//! callgrind_annotate --inclusive=yes callgrind.out.<pid>
//! ```

use std::hint::black_box;

use bench::sample::{LookupTool, SearchTool};
use bench::{INVALID_ARGS, Mode, VALID_ARGS, complete, floor, search_body, tool_use_json};
use serde_json::{Value, json};
use tool_runtime::{Registry, Tool, ToolContext, ToolUse, tool};

/// Searches the catalogue, as `search` does, but reads its call's context:
/// a registry call of it makes the call a context of its own.
#[tool]
fn search_ctx(
    /// Words to look for
    query: String,
    /// Most results to return
    limit: u32,
    /// How words are matched
    mode: Mode,
    ctx: &ToolContext,
) -> String {
    debug_assert!(ctx.tool_use_id().is_some());
    search_body(&query, limit, mode)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map(String::as_str).unwrap_or("invoke");
    let iterations: usize = match args.get(1).map(|n| n.parse()) {
        None => 100_000,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("ITERATIONS must be a number");
            std::process::exit(2)
        }
    };
    let registry = Registry::builder()
        .tool(SearchTool)
        .tool(SearchCtxTool)
        .tool(bench::sample::search_dynamic())
        .build()
        .expect("three tools");
    let ctx = ToolContext::new();
    // A caller that kept its token to cancel with.
    let cancellable = ToolContext::new();
    let _handle = cancellable.cancellation_token().clone();
    let value: Value = serde_json::from_str(VALID_ARGS).expect("valid JSON");
    let use_text = tool_use_json(VALID_ARGS);
    let tool_use: ToolUse = serde_json::from_str(&use_text).expect("a tool use");
    let ctx_use = ToolUse {
        name: "search_ctx".to_owned(),
        ..tool_use.clone()
    };
    let dynamic_use = ToolUse {
        name: "search_dynamic".to_owned(),
        ..tool_use.clone()
    };
    let invalid_text = tool_use_json(INVALID_ARGS);
    // The async tool `lookup`, yielding once, on a current-thread runtime.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let async_registry = Registry::builder()
        .tool(LookupTool)
        .build()
        .expect("one tool");
    let lookup_input = json!({"word": "ferris"});
    let lookup_use = ToolUse::new("call", "lookup", lookup_input.clone());

    let mut ok = 0usize;
    for _ in 0..iterations {
        let success = match path {
            // What the paths below spend preparing their input, to subtract.
            "clone_value" => black_box(value.clone()).is_object(),
            "clone_tool_use" => black_box(tool_use.clone()).input.is_object(),
            "clone_lookup_use" => black_box(lookup_use.clone()).input.is_object(),
            "floor_str" => floor::call_str(black_box(VALID_ARGS)).is_ok(),
            "floor_value" => floor::call_value(black_box(&value)).is_ok(),
            "floor_tool_use" => floor::invoke_owned(black_box(tool_use.clone())).is_success(),
            "call_json" => complete(SearchTool.call_json(black_box(&value), &ctx)).is_ok(),
            "call_str" => complete(SearchTool.call_str(black_box(VALID_ARGS), &ctx)).is_ok(),
            "registry_call_json" => {
                complete(registry.call_json("search", black_box(value.clone()), &ctx)).is_ok()
            }
            "invoke" => complete(registry.invoke(black_box(tool_use.clone()), &ctx)).is_success(),
            "invoke_cancellable" => {
                complete(registry.invoke(black_box(tool_use.clone()), &cancellable)).is_success()
            }
            "invoke_ctx" => {
                complete(registry.invoke(black_box(ctx_use.clone()), &ctx)).is_success()
            }
            "invoke_dynamic" => {
                complete(registry.invoke(black_box(dynamic_use.clone()), &ctx)).is_success()
            }
            "invoke_str" => {
                let call: ToolUse = serde_json::from_str(black_box(&use_text)).expect("a tool use");
                complete(registry.invoke(call, &ctx)).is_success()
            }
            "floor_async" => runtime
                .block_on(floor::lookup_value(black_box(&lookup_input)))
                .is_ok(),
            "invoke_async" => runtime
                .block_on(async_registry.invoke(black_box(lookup_use.clone()), &ctx))
                .is_success(),
            // Tool definitions rendered afresh (a registry caches its own).
            "render" => tool_runtime::providers::render_tools(
                tool_runtime::Provider::OpenAiChat,
                black_box(&registry).specs(),
            )
            .is_array(),
            "invalid" => {
                let call: ToolUse =
                    serde_json::from_str(black_box(&invalid_text)).expect("a tool use");
                complete(registry.invoke(call, &ctx)).is_error()
            }
            other => {
                eprintln!(
                    "unknown path {other}; expected floor_str, floor_value, floor_tool_use, call_json, call_str, \
                     registry_call_json, invoke, invoke_cancellable, invoke_ctx, invoke_dynamic, invoke_str, invalid, floor_async, \
                     invoke_async, render, clone_value, clone_tool_use or clone_lookup_use"
                );
                std::process::exit(2)
            }
        };
        ok += usize::from(success);
    }
    assert_eq!(ok, iterations, "every call gave the expected outcome");
    println!("{path}: {iterations} calls");
}
