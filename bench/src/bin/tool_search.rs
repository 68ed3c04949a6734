//! Tool search over a thousand tools: latency percentiles of many timed
//! searches, top-3 accuracy on the query fixture, and the tokens a request
//! carries with deferred loading against every tool sent.
//!
//! `cargo run --release -p bench --bin tool_search [rounds]`

use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde::Deserialize;
use serde_json::json;
use tool_runtime::providers::Provider;
use tool_runtime::search::{ToolIndex, found_names};
use tool_runtime::{Registry, ToolContext, ToolUse};
use tool_tokens::count;

/// The tools the deferred registry offers with every request.
const ALWAYS: &[&str] = &[
    "weather_get_forecast",
    "calendar_schedule_meeting",
    "gmail_send_message",
];

#[derive(Deserialize)]
struct Query {
    query: String,
    expect: String,
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("rounds: a number"))
        .unwrap_or(300);
    let queries: Vec<Query> = serde_json::from_str(include_str!(
        "../../../tests/fixtures/tool-search/queries.json"
    ))
    .expect("the query fixture");

    let started = Instant::now();
    let deferred = bench::catalog::registry(ALWAYS);
    let build = started.elapsed();
    let search = deferred
        .search_tool()
        .expect("a deferred registry has search_tools");
    let started = Instant::now();
    let index = ToolIndex::new(deferred.specs());
    let index_build = started.elapsed();
    println!(
        "tools: {} (+ search_tools); queries: {}; rounds: {rounds}",
        bench::catalog::COUNT,
        queries.len()
    );
    println!(
        "registry build with the search index: {build:.2?}; ToolIndex::new alone: {index_build:.2?}"
    );

    // Accuracy, through the registry as a model's call goes.
    let ctx = ToolContext::new();
    let mut top1 = 0;
    let mut top3 = 0;
    for (i, q) in queries.iter().enumerate() {
        let call = ToolUse::new(
            i.to_string(),
            "search_tools",
            json!({"query": q.query, "limit": 3}),
        );
        let result = deferred
            .invoke(call, &ctx)
            .now_or_never()
            .expect("a sync tool");
        let found = found_names(&result);
        top1 += usize::from(found.first() == Some(&q.expect));
        top3 += usize::from(found.contains(&q.expect));
    }
    println!(
        "accuracy: top-1 {top1}/{n}, top-3 {top3}/{n}",
        n = queries.len()
    );

    // Latency: every query, `rounds` times, each timed alone.
    let measure = |label: &str, run: &dyn Fn(&str)| {
        for q in &queries {
            run(&q.query); // warm-up
        }
        let mut times: Vec<Duration> = Vec::with_capacity(rounds * queries.len());
        for _ in 0..rounds {
            for q in &queries {
                let started = Instant::now();
                run(&q.query);
                times.push(started.elapsed());
            }
        }
        times.sort_unstable();
        let at = |p: f64| times[((times.len() as f64 * p).ceil() as usize).min(times.len()) - 1];
        let mean = times.iter().sum::<Duration>() / times.len() as u32;
        println!(
            "{label}: n={} mean {mean:.2?} p50 {:.2?} p99 {:.2?} max {:.2?}",
            times.len(),
            at(0.50),
            at(0.99),
            times[times.len() - 1]
        );
    };
    measure("ToolIndex::search, limit 5", &|q| {
        std::hint::black_box(index.search(q, 5));
    });
    measure(
        "SearchTool::search, limit 5 (the JSON the model reads)",
        &|q| {
            std::hint::black_box(search.search(q, 5, false));
        },
    );
    measure(
        "registry.invoke(search_tools), limit 5, definitions",
        &|q| {
            let call = ToolUse::new(
                "t",
                "search_tools",
                json!({"query": q, "include_definitions": true}),
            );
            std::hint::black_box(deferred.invoke(call, &ctx).now_or_never());
        },
    );

    // Tokens per request: every tool against the offered ones.
    let all = bench::catalog::registry(&[]);
    let tokens = |registry: &Registry, provider: Provider| {
        count(&serde_json::to_string(registry.render(provider)).unwrap())
    };
    println!("tokens per request (o200k_base, of the rendered JSON):");
    println!("| provider | every tool | deferred loading | ratio |");
    for provider in [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Bedrock,
        Provider::Gemini,
        Provider::Mcp,
    ] {
        let (full, offered) = (tokens(&all, provider), tokens(&deferred, provider));
        println!(
            "| {provider} | {full} | {offered} | {:.3} ({:.0}x fewer) |",
            offered as f64 / full as f64,
            full as f64 / offered as f64
        );
    }
    // What the model reads where the provider searches itself, by its docs:
    // Anthropic leaves deferred tools out of the context; the Responses API
    // still shows a deferred function's name and description.
    let context = |provider: Provider| -> usize {
        let tools = deferred.render(provider).as_array().expect("a tools array");
        tools
            .iter()
            .map(|tool| match (tool.get("defer_loading"), provider) {
                (None, _) => count(&tool.to_string()),
                (Some(_), Provider::OpenAiResponses) => count(
                    &json!({"name": tool["name"], "description": tool["description"]}).to_string(),
                ),
                (Some(_), _) => 0,
            })
            .sum()
    };
    println!("in the model's context where the provider searches (estimate, o200k_base):");
    for provider in [Provider::Anthropic, Provider::OpenAiResponses] {
        let full = tokens(&all, provider);
        let offered = context(provider);
        println!(
            "| {provider} | {full} | {offered} | {:.3} ({:.0}x fewer) |",
            offered as f64 / full as f64,
            full as f64 / offered as f64
        );
    }
    let result = count(&search.search("refund a card payment", 5, false).to_string());
    let with_definitions = count(&search.search("refund a card payment", 5, true).to_string());
    println!(
        "one search_tools result, 5 tools: {result} tokens; with definitions: {with_definitions}"
    );
}
