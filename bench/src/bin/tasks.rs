//! What running a call as a task costs over a plain call: the same tool
//! called with `Registry::invoke`, and started with `Tasks::start`
//! then read with `Tasks::get` until it has ended, in memory
//! (`MemoryTaskStore`) and in Redis (`RedisTaskStore`, a `redis-server` of
//! the run's own on a loopback port, from `tests/mcp/redis.sh`).
//!
//! ```sh
//! cargo run --release -p bench --bin tasks -- [ROUNDS] [CALLS]
//! ```
//!
//! Each round runs the three one after another, `CALLS` calls each (default
//! 2,000; a fifth of that in Redis), one at a time; the median of each
//! one's per-round mean is reported, with the ratios.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tool_runtime::{Registry, ToolContext, ToolUse, tool};
use tool_tasks::{MemoryTaskStore, RedisTaskStore, TaskOptions, Tasks};

#[path = "../../../tests/support/redis.rs"]
mod redis;

/// Adds two numbers.
#[tool(register = false)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Per-call time of `calls` plain calls.
async fn plain(registry: &Registry, calls: usize) -> Duration {
    let ctx = ToolContext::new();
    let start = Instant::now();
    for n in 0..calls {
        let call = ToolUse::new("c", "add", json!({"a": n, "b": 1}));
        let result = registry.invoke(call, &ctx).await;
        assert!(!result.is_error());
    }
    start.elapsed() / calls as u32
}

/// Per-call time of `calls` tasks: started, then read until ended.
async fn tasked(registry: &Registry, tasks: &Tasks, calls: usize) -> Duration {
    let ctx = ToolContext::new();
    let start = Instant::now();
    for n in 0..calls {
        let call = ToolUse::new("", "add", json!({"a": n, "b": 1}));
        let task = tasks.start(registry, call, &ctx).await.unwrap();
        loop {
            let read = tasks.get(&task.id).await.unwrap().unwrap();
            if read.is_terminal() {
                assert!(!read.result().unwrap().is_error());
                break;
            }
            tokio::task::yield_now().await;
        }
    }
    start.elapsed() / calls as u32
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let registry = Registry::builder().tool(AddTool).build().unwrap();
    let options = TaskOptions::default().with_heartbeat(Duration::from_secs(5));
    let memory = Tasks::new(MemoryTaskStore::new()).with_options(options.clone());
    let server = redis::Redis::start();
    let store = RedisTaskStore::connect(&server.url).await.unwrap();
    let in_redis = Tasks::shared(Arc::new(store)).with_options(options);
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        a.push(plain(&registry, calls).await);
        b.push(tasked(&registry, &memory, calls).await);
        c.push(tasked(&registry, &in_redis, (calls / 5).max(1)).await);
    }
    let (a, b, c) = (median(a), median(b), median(c));
    let ratio = |x: Duration, y: Duration| x.as_secs_f64() / y.as_secs_f64();
    println!(
        "{rounds} rounds, {calls} calls a round ({} in Redis), median per call:",
        calls / 5
    );
    println!("| path | per call | over a plain call |");
    println!("| --- | ---: | ---: |");
    println!("| `Registry::invoke` | {a:.2?} | 1.00x |");
    println!(
        "| task in memory: start, get until ended | {b:.2?} | {:.1}x |",
        ratio(b, a)
    );
    println!(
        "| task in Redis: start, get until ended | {c:.2?} | {:.1}x |",
        ratio(c, a)
    );
    println!("Redis over memory: {:.1}x", ratio(c, b));
}
