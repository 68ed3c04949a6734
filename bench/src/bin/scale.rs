//! Registry scale in a fresh process: how long the global registry of the
//! generated tools takes to build on first use, how long the first
//! rendering of every input schema takes, and how much memory each holds.
//!
//! `cargo run --release -p bench --bin scale -- [--runs N] [--json]`
//!
//! First-use figures can only be taken once per process, so the harness
//! runs itself `N` times (default 5) and reports the median of each figure.
//! With `--json` it prints one JSON object instead of a table.

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use bench::alloc::Counting;
use serde_json::{Value, json};
use tool_runtime::Registry;
use tool_runtime::providers::Provider;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// One fresh-process measurement.
fn measure_once() -> Value {
    // Make sure the sample tools' crate is linked and nothing lazy is left
    // in the allocator counters from start-up.
    black_box(bench::SCALE_TOOLS);
    let start = ALLOC.snapshot();

    let t = Instant::now();
    let registry = Registry::global();
    let first_use_ns = t.elapsed().as_nanos();
    let after_registry = ALLOC.snapshot();

    let t = Instant::now();
    let rendered = registry
        .specs()
        .map(|spec| spec.input_schema())
        .filter(|schema| schema.is_object())
        .count();
    let schemas_first_ns = t.elapsed().as_nanos();
    let after_schemas = ALLOC.snapshot();
    assert_eq!(rendered, registry.len(), "every schema is an object");

    let t = Instant::now();
    let again = registry
        .specs()
        .map(|spec| black_box(spec.input_schema()))
        .filter(|schema| schema.is_object())
        .count();
    let schemas_cached_ns = t.elapsed().as_nanos();
    assert_eq!(again, rendered);

    // What one provider's request needs: every definition in its shape,
    // rendered once and cached by the registry.
    let mut provider_figures = serde_json::Map::new();
    for provider in [Provider::Anthropic, Provider::OpenAiStrict] {
        let before = ALLOC.snapshot();
        let t = Instant::now();
        let rendered = registry.render(provider);
        let first_ns = t.elapsed().as_nanos();
        let after = ALLOC.snapshot();
        let t = Instant::now();
        black_box(registry.render(provider));
        let cached_ns = t.elapsed().as_nanos();
        let key = provider.name().replace('-', "_");
        provider_figures.insert(format!("render_{key}_first_ns"), json!(first_ns as u64));
        provider_figures.insert(format!("render_{key}_cached_ns"), json!(cached_ns as u64));
        provider_figures.insert(
            format!("render_{key}_live_bytes"),
            json!(after.live_bytes - before.live_bytes),
        );
        provider_figures.insert(
            format!("render_{key}_text_bytes"),
            json!(rendered.to_string().len()),
        );
    }

    let schema_text_bytes: usize = registry
        .specs()
        .map(|spec| spec.input_schema().to_string().len())
        .sum();

    let names: Vec<&str> = registry.names().collect();
    let t = Instant::now();
    let found = names.iter().filter(|name| registry.contains(name)).count();
    let lookup_all_ns = t.elapsed().as_nanos();
    assert_eq!(found, names.len());

    let mut figures = json!({
        "tools": registry.len(),
        "first_use_ns": first_use_ns as u64,
        "registry_live_bytes": after_registry.live_bytes - start.live_bytes,
        "registry_allocations": after_registry.allocations - start.allocations,
        "schemas_first_ns": schemas_first_ns as u64,
        "schemas_live_bytes": after_schemas.live_bytes - after_registry.live_bytes,
        "schemas_allocations": after_schemas.allocations - after_registry.allocations,
        "schemas_cached_ns": schemas_cached_ns as u64,
        "schema_text_bytes": schema_text_bytes,
        "lookup_ns_per_name": (lookup_all_ns as f64 / names.len() as f64),
    });
    if let Value::Object(map) = &mut figures {
        map.extend(provider_figures);
    }
    figures
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--once") {
        println!("{}", measure_once());
        return;
    }
    let runs = match args.iter().position(|a| a == "--runs") {
        Some(i) => args
            .get(i + 1)
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| {
                eprintln!("--runs takes a positive number");
                std::process::exit(2)
            }),
        None => 5,
    };
    let as_json = args.iter().any(|a| a == "--json");

    let exe = std::env::current_exe().expect("the harness knows its own path");
    let samples: Vec<Value> = (0..runs)
        .map(|_| {
            let output = Command::new(&exe)
                .arg("--once")
                .output()
                .expect("the harness can run itself");
            assert!(
                output.status.success(),
                "a measurement run failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            serde_json::from_slice(&output.stdout).expect("a measurement prints JSON")
        })
        .collect();

    let keys: Vec<String> = samples[0]
        .as_object()
        .expect("a measurement is an object")
        .keys()
        .cloned()
        .collect();
    let mut summary = serde_json::Map::new();
    for key in &keys {
        let mut values: Vec<f64> = samples
            .iter()
            .map(|s| s[key.as_str()].as_f64().expect("numbers"))
            .collect();
        summary.insert(key.clone(), json!(median(&mut values)));
    }
    summary.insert("runs".to_owned(), json!(runs));
    let summary = Value::Object(summary);
    if as_json {
        println!("{summary}");
        return;
    }
    let get = |key: &str| summary[key].as_f64().unwrap_or_default();
    println!(
        "registry of {} tools, median of {runs} fresh processes",
        get("tools")
    );
    println!("| measure | value |");
    println!("| --- | --- |");
    println!(
        "| global registry, first use | {:.2} ms |",
        get("first_use_ns") / 1e6
    );
    println!(
        "| memory held by the registry | {:.1} KiB |",
        get("registry_live_bytes") / 1024.0
    );
    println!(
        "| all input schemas, first rendering | {:.2} ms |",
        get("schemas_first_ns") / 1e6
    );
    println!(
        "| memory held by the cached schemas | {:.1} KiB |",
        get("schemas_live_bytes") / 1024.0
    );
    println!(
        "| all input schemas, cached | {:.1} µs |",
        get("schemas_cached_ns") / 1e3
    );
    println!(
        "| schemas as JSON text | {:.1} KiB |",
        get("schema_text_bytes") / 1024.0
    );
    println!("| name lookup | {:.1} ns |", get("lookup_ns_per_name"));
    for provider in [Provider::Anthropic, Provider::OpenAiStrict] {
        let key = provider.name().replace('-', "_");
        println!(
            "| {} tool definitions, first rendering | {:.2} ms, {:.1} KiB held |",
            provider.name(),
            get(&format!("render_{key}_first_ns")) / 1e6,
            get(&format!("render_{key}_live_bytes")) / 1024.0
        );
    }
}
