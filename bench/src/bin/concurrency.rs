//! Many concurrent calls of an async tool on a multi-threaded tokio runtime:
//! throughput and latency percentiles, through `Registry::invoke` and
//! through the same tool written by hand.
//!
//! `cargo run --release -p bench --bin concurrency -- [--calls N] [--rounds R] [--json]`
//!
//! Each round spawns `N` tasks (default 10,000) that wait behind a closed
//! gate, opens the gate, and waits for all of them to run their call of
//! `lookup`; spawning is not measured. The harness runs `R` rounds (default
//! 10) after one warm-up round. Two workloads: the tool yields to the
//! scheduler once (pure overhead), or waits 1 ms (an I/O-bound tool).
//!
//! Throughput is calls divided by the time from the gate opening to the
//! last call finishing. Latency is measured per call from the gate opening
//! to the end of the call, so it includes queueing behind the rest of the
//! burst; "service time" is from the task passing the gate to the end of
//! the call.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bench::floor;
use bench::sample::LookupTool;
use serde_json::{Value, json};
use tokio::sync::RwLock;
use tokio::task::JoinSet;
use tool_runtime::{Registry, ToolContext, ToolUse};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    Floor,
    Invoke,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Floor => "hand-written",
            Path::Invoke => "Registry::invoke",
        }
    }
}

struct Shared {
    registry: Registry,
    ctx: ToolContext,
}

/// One call after the gate opens; returns (latency from the opening,
/// service time from the task's start to the end of the call).
async fn one_call(
    shared: &Shared,
    path: Path,
    input: Value,
    gate: &RwLock<Option<Instant>>,
) -> (Duration, Duration) {
    let opened = gate.read().await.expect("the gate records when it opened");
    let start = Instant::now();
    let ok = match path {
        Path::Floor => floor::lookup_value(&input).await.is_ok(),
        Path::Invoke => {
            let call = ToolUse::new("call", "lookup", input);
            shared.registry.invoke(call, &shared.ctx).await.is_success()
        }
    };
    assert!(ok, "every call succeeds");
    let end = Instant::now();
    (end - opened, end - start)
}

struct Round {
    wall: Duration,
    latencies: Vec<Duration>,
    service: Vec<Duration>,
}

/// Spawns `calls` tasks that wait behind a closed gate, opens it, and
/// waits for all of them: spawning is not part of what is measured.
async fn round(shared: &Arc<Shared>, path: Path, calls: usize, delay_us: u64) -> Round {
    let input = json!({"word": "ferris", "delay_us": delay_us});
    let gate = Arc::new(RwLock::new(None));
    let mut closed = gate.write().await;
    let mut tasks = JoinSet::new();
    for _ in 0..calls {
        let shared = Arc::clone(shared);
        let gate = Arc::clone(&gate);
        let input = input.clone();
        tasks.spawn(async move { one_call(&shared, path, input, &gate).await });
    }
    let opened = Instant::now();
    *closed = Some(opened);
    drop(closed);
    let mut latencies = Vec::with_capacity(calls);
    let mut service = Vec::with_capacity(calls);
    let mut last = opened;
    while let Some(joined) = tasks.join_next().await {
        let (latency, time) = joined.expect("no call panics");
        last = last.max(opened + latency);
        latencies.push(latency);
        service.push(time);
    }
    Round {
        wall: last - opened,
        latencies,
        service,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn number_after(args: &[String], flag: &str, default: usize) -> usize {
    match args.iter().position(|a| a == flag) {
        Some(i) => args
            .get(i + 1)
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| {
                eprintln!("{flag} takes a positive number");
                std::process::exit(2)
            }),
        None => default,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let calls = number_after(&args, "--calls", 10_000);
    let rounds = number_after(&args, "--rounds", 10);
    let as_json = args.iter().any(|a| a == "--json");

    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a runtime");
    let shared = Arc::new(Shared {
        registry: Registry::builder()
            .tool(LookupTool)
            .build()
            .expect("one tool"),
        ctx: ToolContext::new(),
    });

    let mut rows = Vec::new();
    for delay_us in [0u64, 1000] {
        for path in [Path::Floor, Path::Invoke] {
            let result = runtime.block_on(async {
                round(&shared, path, calls, delay_us).await;
                let mut wall = Duration::ZERO;
                let mut latencies = Vec::with_capacity(calls * rounds);
                let mut service = Vec::with_capacity(calls * rounds);
                for _ in 0..rounds {
                    let r = round(&shared, path, calls, delay_us).await;
                    wall += r.wall;
                    latencies.extend(r.latencies);
                    service.extend(r.service);
                }
                (wall, latencies, service)
            });
            let (wall, mut latencies, mut service) = result;
            latencies.sort_unstable();
            service.sort_unstable();
            let total = (calls * rounds) as f64;
            rows.push(json!({
                "workload": if delay_us == 0 { "yield once" } else { "wait 1 ms" },
                "delay_us": delay_us,
                "path": path.name(),
                "calls_per_round": calls,
                "rounds": rounds,
                "workers": workers,
                "throughput_per_s": total / wall.as_secs_f64(),
                "latency_p50_us": percentile(&latencies, 50.0).as_secs_f64() * 1e6,
                "latency_p99_us": percentile(&latencies, 99.0).as_secs_f64() * 1e6,
                "latency_max_us": percentile(&latencies, 100.0).as_secs_f64() * 1e6,
                "service_p50_us": percentile(&service, 50.0).as_secs_f64() * 1e6,
                "service_p99_us": percentile(&service, 99.0).as_secs_f64() * 1e6,
            }));
        }
    }

    if as_json {
        println!("{}", Value::Array(rows));
        return;
    }
    println!("{calls} concurrent calls per round, {rounds} rounds, {workers} worker threads");
    println!(
        "| workload | path | calls/s | latency p50 | latency p99 | service p50 | service p99 |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for row in &rows {
        let f = |key: &str| row[key].as_f64().unwrap_or_default();
        println!(
            "| {} | {} | {:.0} | {:.0} µs | {:.0} µs | {:.1} µs | {:.1} µs |",
            row["workload"].as_str().unwrap_or_default(),
            row["path"].as_str().unwrap_or_default(),
            f("throughput_per_s"),
            f("latency_p50_us"),
            f("latency_p99_us"),
            f("service_p50_us"),
            f("service_p99_us"),
        );
    }
}
