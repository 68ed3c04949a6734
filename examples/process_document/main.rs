//! Runs the `process_document` tool the way an agent loop would, printing
//! its progress, trace entries and partial outputs live as they arrive,
//! then the result and the call's record as JSON.
//!
//! ```text
//! cargo run -p examples --example process_document
//! ```

use std::io::Write;

use examples::documents::ProcessDocumentTool;
use serde_json::json;
use tool_runtime::{Registry, ToolContext, ToolEvent, ToolUse};

const DOCUMENT: &str = "\
# Quarterly platform review

## Reliability
Uptime was 99.97% across the quarter. Two incidents touched the billing \
service; both were resolved within the hour and neither lost data.

## Performance
Median request latency fell from 180ms to 120ms after the cache rollout. \
The cache now serves most catalogue reads.

## Costs
Compute spend rose 4% while traffic rose 11%, so the cost per request fell. \
Storage costs were flat.

## Next quarter
Move the billing service to the new cache and retire the old queue. \
Review incident runbooks with every on-call engineer.
";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().tool(ProcessDocumentTool).build()?;
    let tool_use = ToolUse::new(
        "doc-1",
        "process_document",
        json!({"text": DOCUMENT, "key_terms": 4, "pause_ms": 250}),
    );

    let mut events = registry.stream(tool_use, &ToolContext::new());
    let mut stdout = std::io::stdout();
    while let Some(event) = events.next_event().await {
        match event {
            ToolEvent::Progress { progress, message } => {
                writeln!(stdout, "[{:>3.0}%] {message}", progress * 100.0)?;
            }
            ToolEvent::Trace(entry) => {
                writeln!(stdout, "       trace  {:<9} {}", entry.step, entry.message)?;
            }
            ToolEvent::Partial { value } => {
                writeln!(stdout, "       partial {value}")?;
            }
            ToolEvent::Result(result) => {
                writeln!(
                    stdout,
                    "\nresult:\n{}",
                    serde_json::to_string_pretty(&result)?
                )?;
            }
            other => writeln!(stdout, "       {other:?}")?,
        }
        // Show each line as soon as it arrives, even when piped.
        stdout.flush()?;
    }
    writeln!(
        stdout,
        "\nrecord:\n{}",
        serde_json::to_string_pretty(&events.record())?
    )?;
    Ok(())
}
