//! A script that floods the bridge with requests and never reads the
//! replies is held back: the agent stops reading its requests once
//! `max_unread_reply_bytes` of replies wait, rather than buffering them.
//!
//! The agent's memory is measured in a process of its own (this binary,
//! run again for the one ignored test), so that no other test's memory
//! (a panic's backtrace reads the binary's debug information) counts.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tool_builtin::code_mode::CodeMode;
use tool_runtime::{Registry, ToolContext, ToolUse};

/// Set in the process that runs [`flood_in_a_process_of_its_own`].
const RERUN: &str = "CODE_MODE_TEST_FLOOD";

/// This process's resident memory, in bytes (`VmRSS` of
/// `/proc/self/status`).
fn resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024)
}

/// Stops the bridge's reader thread (it waits for the lock the script
/// holds), then writes requests of 1 MB each, whose replies carry the
/// same 1 MB id, as fast as the socket takes them, until it is stopped.
const FLOOD: &str = r#"
import json
bridge = search_tools.__globals__["_bridge"]
bridge._cond.acquire()
line = (json.dumps({"id": "x" * 1000000, "tool": "no_such_tool"}) + "\n").encode()
print("flooding", flush=True)
while True:
    bridge._socket.sendall(line)
"#;

#[test]
fn a_script_that_never_reads_its_replies_is_held_back_not_buffered() {
    if !crate::have_python("code_mode") {
        return;
    }
    let name = "code_mode::backpressure::flood_in_a_process_of_its_own";
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([name, "--exact", "--ignored", "--nocapture"])
        .env(RERUN, "1")
        .output()
        .expect("the test binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("{text}");
    assert!(
        output.status.success() && text.contains("1 passed"),
        "{name} failed in its own process:\n{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "run by a_script_that_never_reads_its_replies_is_held_back_not_buffered"]
async fn flood_in_a_process_of_its_own() {
    if std::env::var_os(RERUN).is_none() {
        eprintln!("this test runs in a process of its own, started by another test");
        return;
    }
    let tools = Registry::builder()
        .tool(super::ConvertLengthTool)
        .build()
        .unwrap();
    // Long enough that replies buffered at the agent's pace (some MB a
    // second in a debug build) would pass the bound by far.
    let tool = CodeMode::new(tools)
        .timeout(Duration::from_secs(20))
        .sandbox(super::sandboxed())
        .build()
        .unwrap();
    let outer = Registry::builder().tool(tool).build().unwrap();

    let before = resident();
    let done = Arc::new(AtomicBool::new(false));
    let watching = Arc::clone(&done);
    let peak = std::thread::spawn(move || {
        let mut peak = resident();
        while !watching.load(Ordering::Relaxed) {
            peak = peak.max(resident());
            std::thread::sleep(Duration::from_millis(20));
        }
        peak
    });
    let result = outer
        .invoke(
            ToolUse::new("flood", "code_mode", json!({"script": FLOOD})),
            &ToolContext::new(),
        )
        .await;
    done.store(true, Ordering::Relaxed);
    let peak = peak.join().unwrap();
    let run: Value = serde_json::from_str(&result.text_content()).unwrap();
    assert_eq!(run["stdout"], "flooding\n", "{run}");
    assert_eq!(run["limit"], "timeout", "{run}");
    let grown = peak.saturating_sub(before);
    eprintln!(
        "code_mode flood: resident memory {} MB before, {} MB at most while flooding (+{} MB)",
        before >> 20,
        peak >> 20,
        grown >> 20
    );
    assert!(
        grown < 50 << 20,
        "the agent grew by {} MB while the script flooded it",
        grown >> 20
    );
}
