//! Streaming tools: what runs a stream a tool returns.

use serde_json::Value;

use crate::{ToolContext, ToolError, ToolOutput};

/// Drives a streaming tool: each item is reported as partial output as it
/// arrives, and the last one is the result. An item that converts to an
/// error ends the call with that error; an empty stream gives an empty
/// result.
pub async fn drive_stream<S, F>(
    stream: S,
    ctx: &ToolContext,
    mut convert: F,
) -> Result<ToolOutput, ToolError>
where
    S: futures_core::Stream,
    F: FnMut(S::Item) -> Result<ToolOutput, ToolError>,
{
    let mut stream = std::pin::pin!(stream);
    let mut last = None;
    while let Some(item) =
        std::future::poll_fn(|cx| futures_core::Stream::poll_next(stream.as_mut(), cx)).await
    {
        let output = convert(item)?;
        ctx.report_partial(&output);
        last = Some(output);
    }
    Ok(last.unwrap_or(ToolOutput::Value(Value::Null)))
}
