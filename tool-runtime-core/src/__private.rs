//! What `tool-runtime` builds on that is not this crate's public API: the
//! pieces of argument decoding, configuration and schema building that the
//! code `#[tool]` generates reaches through `tool_runtime::__private`. It
//! may change in any release.

pub use crate::context::client::{elicitation_schema, read_answer};
pub use crate::registry::Registration;
pub use crate::schema::boolean_schema;
pub use crate::spec::args::{
    ArgSeed, CheckError, check, check_constraints, decode, decode_str, parse_text,
};
pub use crate::spec::config::{ConfigSpec, ConfigValue, decode as decode_config};
pub use crate::spec::constraints::{Constraints, Literal};
pub use crate::spec::tool_spec::UNSET;
pub use crate::stream::{GeneratorStream, channel as stream_channel, next as stream_next};

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

/// Adds a parameter's constraints, as JSON Schema keywords, to its schema.
pub fn annotate(constraints: &Constraints, schema: &mut serde_json::Map<String, Value>) {
    constraints.annotate(schema);
}
