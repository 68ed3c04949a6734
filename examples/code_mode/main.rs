//! Code mode with no model: a fixed script, as a model might write it,
//! converts three lengths, compares them, and schedules a meeting about the
//! longest, in one `code_mode` call. Prints the tool's description (what
//! the model would read), then the run: the script's output and its calls.
//!
//! ```sh
//! cargo run -p examples --example code_mode
//! ```
//!
//! It needs Python 3 (`python3` on PATH). The script runs in
//! `python_exec`'s sandbox when `CODE_MODE_SANDBOX=1`.

use serde_json::{Value, json};
use tool_builtin::code_mode::CodeMode;
use tool_runtime::{Registry, Tool, ToolContext, ToolUse};

/// The script: three conversions to metres, the longest found in Python,
/// and one meeting scheduled about it.
const SCRIPT: &str = r#"
lengths = [(3, "mile"), (5000, "metre"), (16000, "foot")]
metres = {}
for value, unit in lengths:
    # convert_length answers with text: "3 mile = 4828.0320 metre"
    text = convert_length(value=value, from_=unit, to="metre")
    metres[f"{value} {unit}"] = float(text.split(" = ")[1].split()[0])
for name, length in sorted(metres.items(), key=lambda item: item[1]):
    print(f"{name:>12} = {length:9.1f} m")
longest = max(metres, key=metres.get)
meeting = schedule_meeting(
    title=f"Plan the {longest} route",
    slot={"date": "2026-03-14", "start": "10:00", "minutes": 30},
    attendees=[{"name": "Ada"}, {"name": "Grace"}],
    priority="high",
)
print("scheduled", meeting["id"], "-", meeting["title"])
"#;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = Registry::builder()
        .tool(examples::ConvertLengthTool)
        .tool(examples::ScheduleMeetingTool)
        .build()?;
    let sandbox = std::env::var("CODE_MODE_SANDBOX").is_ok_and(|value| value == "1");
    let code_mode = CodeMode::new(tools)
        .max_calls(10)
        .sandbox(sandbox)
        .build()?;
    println!(
        "== the code_mode tool's description\n{}\n",
        code_mode.spec().description
    );

    let agent = Registry::builder().tool(code_mode).build()?;
    let call = ToolUse::new("demo", "code_mode", json!({"script": SCRIPT}));
    let result = agent.invoke(call, &ToolContext::new()).await;
    if result.is_error() {
        return Err(result.text_content().into());
    }
    let run: Value = serde_json::from_str(&result.text_content())?;
    println!(
        "== the script's output\n{}",
        run["stdout"].as_str().unwrap_or_default()
    );
    if let Some(stderr) = run["stderr"].as_str().filter(|text| !text.is_empty()) {
        println!("== its errors\n{stderr}");
    }
    println!("== its calls");
    for call in run["calls"].as_array().into_iter().flatten() {
        println!("{} {} {}", call["id"], call["tool"], call["status"]);
    }
    Ok(())
}
