//! Tool search over the thousand generated tools (`bench::catalog`):
//! building the index, and one search. Percentiles are the `tool_search`
//! binary's (`cargo run --release -p bench --bin tool_search`).

use criterion::{Criterion, criterion_group, criterion_main};
use tool_runtime::search::ToolIndex;

fn tool_search(c: &mut Criterion) {
    let registry = bench::catalog::registry(&["weather_get_forecast"]);
    let search = registry
        .search_tool()
        .expect("a deferred registry has search_tools");
    let mut group = c.benchmark_group("tool_search");
    group.bench_function("ToolIndex::new over 1000 tools", |b| {
        b.iter(|| ToolIndex::new(registry.specs()))
    });
    group.bench_function("search, a short query", |b| {
        b.iter(|| {
            search
                .index()
                .search(std::hint::black_box("refund a card payment"), 5)
        })
    });
    group.bench_function("search, a long query", |b| {
        let query =
            "schedule a meeting with the design team next Tuesday afternoon in the large room";
        b.iter(|| search.index().search(std::hint::black_box(query), 5))
    });
    group.bench_function("search_tools result with definitions", |b| {
        b.iter(|| search.search(std::hint::black_box("restart the crashed pod"), 5, true))
    });
    group.finish();
}

criterion_group!(benches, tool_search);
criterion_main!(benches);
