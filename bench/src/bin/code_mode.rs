//! What code mode saves and what it costs, over the task "convert three
//! lengths, compare them, schedule a meeting about the longest" with the
//! `examples` crate's tools (as `examples/code_mode/main.rs` runs it):
//!
//! - the tokens of the definitions offered: every example tool, against the
//!   one `code_mode` tool over the same tools (`tool-tokens`, in
//!   Anthropic's format);
//! - the model's round trips: a scripted model calling the tools one turn
//!   per dependent step, against one script, and the tokens of the results
//!   the model reads either way;
//! - the wall time of one call through the bridge against a direct
//!   `Registry::invoke` of the same tool: the median of `ROUNDS` runs of a
//!   script of `CALLS` calls, less the median of an empty script, divided by
//!   `CALLS`; without and (where namespaces are allowed) with the sandbox.
//!
//! ```sh
//! cargo run --release -p bench --bin code_mode -- [ROUNDS] [CALLS]
//! ```
//!
//! Defaults: 7 rounds of 500 calls. It needs Python 3 (`python3` on PATH).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tool_builtin::code_mode::CodeMode;
use tool_runtime::{Provider, Registry, ToolContext, ToolUse, registry::Linked};
use tool_tokens as tokens;

// The example tools register themselves when their crate is linked.
use examples as _;

/// The script a model writes for the task: three conversions, the longest
/// found in Python, one meeting.
const SCRIPT: &str = r#"
metres = {}
for value, unit in [(3, "mile"), (5000, "metre"), (16000, "foot")]:
    text = convert_length(value=value, from_=unit, to="metre")
    metres[f"{value} {unit}"] = float(text.split(" = ")[1].split()[0])
longest = max(metres, key=metres.get)
meeting = schedule_meeting(
    title=f"Plan the {longest} route",
    slot={"date": "2026-03-14", "start": "10:00", "minutes": 30},
    attendees=[{"name": "Ada"}, {"name": "Grace"}],
    priority="high",
)
print(longest, meeting["id"])
"#;

/// One step of the task: its tool (none for a step the model does in its
/// head) and the steps whose results it needs.
struct Step {
    name: &'static str,
    tool: Option<&'static str>,
    needs: &'static [usize],
}

/// The task's dependency structure. The three conversions need nothing;
/// comparing needs all three; the meeting needs the comparison.
const TASK: [Step; 5] = [
    Step {
        name: "convert 3 mile",
        tool: Some("convert_length"),
        needs: &[],
    },
    Step {
        name: "convert 5000 metre",
        tool: Some("convert_length"),
        needs: &[],
    },
    Step {
        name: "convert 16000 foot",
        tool: Some("convert_length"),
        needs: &[],
    },
    Step {
        name: "compare",
        tool: None,
        needs: &[0, 1, 2],
    },
    Step {
        name: "schedule the meeting",
        tool: Some("schedule_meeting"),
        needs: &[3],
    },
];

/// The model turns a scripted model needs with plain tool calls: a turn
/// asks for every tool call whose inputs it has read (parallel calls in
/// one turn), a step without a tool is done in the turn that follows the
/// results it needs, and one last turn reads the last results and answers.
fn plain_turns() -> usize {
    // The turn in which each step's result is known to the model.
    let mut known = [0usize; TASK.len()];
    for (i, step) in TASK.iter().enumerate() {
        let ready = step.needs.iter().map(|&n| known[n]).max().unwrap_or(0);
        known[i] = match step.tool {
            // Asked in turn `ready + 1`, read in the turn after.
            Some(_) => ready + 1,
            // Thought through in the turn that read its inputs.
            None => ready,
        };
        let _ = step.name;
    }
    // The turns that ask for calls, and the one that answers.
    known.iter().copied().max().unwrap_or(0) + 1
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn run(registry: &Registry, script: &str) -> Value {
    let call = ToolUse::new("c", "code_mode", json!({"script": script}));
    let result = tokio::runtime::Handle::current()
        .block_on(async { registry.invoke(call, &ToolContext::new()).await });
    serde_json::from_str(&result.text_content()).unwrap_or(Value::Null)
}

/// The median wall time of `rounds` runs of `script`.
fn timed(registry: &Registry, script: &str, rounds: usize) -> Option<Duration> {
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        let run = run(registry, script);
        times.push(start.elapsed());
        if run["exit_code"] != 0 {
            eprintln!("the script failed: {run}");
            return None;
        }
    }
    Some(median(times))
}

/// The median per-call time of `calls` direct calls of `convert_length`.
async fn direct(tools: &Registry, calls: usize, rounds: usize) -> Duration {
    let ctx = ToolContext::new();
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for n in 0..calls {
            let arguments = json!({"value": n, "from": "mile", "to": "metre"});
            let result = tools
                .invoke(ToolUse::new("c", "convert_length", arguments), &ctx)
                .await;
            assert!(!result.is_error(), "{}", result.text_content());
        }
        times.push(start.elapsed() / calls as u32);
    }
    median(times)
}

fn tools() -> Registry {
    Registry::builder()
        .linked(Linked::crates(["examples"]))
        // `search` without its key is left out, as toolbox leaves it out.
        .leave_out_unconfigured(true)
        .build()
        .expect("the example tools form a registry")
}

fn code_mode(sandbox: bool) -> Registry {
    let tool = CodeMode::new(tools())
        .max_calls(100_000)
        .sandbox(sandbox)
        .build()
        .expect("code mode over the example tools");
    Registry::builder().tool(tool).build().unwrap()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(7);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(500);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _entered = runtime.enter();
    let tools = tools();
    let plain = code_mode(false);

    // (a) The definitions offered.
    let all = tokens::report(&tools, Provider::Anthropic);
    let one = tokens::report(&plain, Provider::Anthropic);
    println!("definitions offered (o200k_base tokens, Anthropic's format)");
    println!(
        "  {} example tools          {:>6}",
        all.tools.len(),
        all.total
    );
    println!("  code_mode alone            {:>6}", one.total);
    println!(
        "  code_mode / all tools      {:>6.2}",
        one.total as f64 / all.total as f64
    );

    // (b) Round trips, and the results the model reads.
    let turns = plain_turns();
    let calls_made = TASK.iter().filter(|step| step.tool.is_some()).count();
    let ctx = ToolContext::new();
    let mut read_plain = 0;
    let conversions = [(3, "mile"), (5000, "metre"), (16000, "foot")];
    for (value, unit) in conversions {
        let arguments = json!({"value": value, "from": unit, "to": "metre"});
        let result =
            runtime.block_on(tools.invoke(ToolUse::new("c", "convert_length", arguments), &ctx));
        read_plain += tokens::count(&result.text_content());
    }
    let meeting = json!({
        "title": "Plan the 3 mile route",
        "slot": {"date": "2026-03-14", "start": "10:00", "minutes": 30},
        "attendees": [{"name": "Ada"}, {"name": "Grace"}],
        "priority": "high",
    });
    let result =
        runtime.block_on(tools.invoke(ToolUse::new("c", "schedule_meeting", meeting), &ctx));
    read_plain += tokens::count(&result.text_content());
    let script_run = run(&plain, SCRIPT);
    assert_eq!(script_run["exit_code"], 0, "{script_run}");
    let read_script = tokens::count(&script_run.to_string());
    println!("\nthe task: {calls_made} tool calls");
    println!(
        "  model turns, plain calls   {turns:>6}  (3 conversions at once, the meeting, the answer)"
    );
    println!(
        "  model turns, one script    {:>6}  (the script, the answer)",
        2
    );
    println!("  results read, plain (tok)  {read_plain:>6}");
    println!(
        "  results read, script (tok) {read_script:>6}  (the whole run: output and the calls' list)"
    );

    // (c) Time per call.
    let direct = runtime.block_on(direct(&tools, calls, rounds));
    let many = format!(
        "for n in range({calls}):\n    convert_length(value=n, from_='mile', to='metre')\n"
    );
    println!("\ntime per call ({rounds} rounds, {calls} calls a script; median)");
    println!("  direct Registry::invoke    {:>9.1?}", direct);
    for (mode, sandbox) in [("plain", false), ("sandbox", true)] {
        let registry = if sandbox {
            code_mode(true)
        } else {
            code_mode(false)
        };
        let Some(empty) = timed(&registry, "pass", rounds) else {
            println!("  {mode}: not available here");
            continue;
        };
        let Some(full) = timed(&registry, &many, rounds) else {
            println!("  {mode}: not available here");
            continue;
        };
        let per_call = full.saturating_sub(empty) / calls as u32;
        println!(
            "  {mode:<8} empty script {:>9.1?}, per call {:>9.1?}  ({:.0}x direct)",
            empty,
            per_call,
            per_call.as_secs_f64() / direct.as_secs_f64()
        );
    }
}
