//! Two tools for trying what a server does around a call, which `toolbox`
//! offers beside the others (they are not linked into the global
//! registry: `register = false`):
//!
//! - `sample_text` returns as many bytes of text as asked, to see a result
//!   cut to a result limit (`toolbox serve --result-limit 8KB`) and read
//!   whole with `read_result`;
//! - `confirm` asks the client to confirm an action (elicitation), and says
//!   what it answered: a request to the client during a call, or in MCP's
//!   stateless revision an `input_required` round and its `requestState`.

use serde_json::json;
use tool_runtime::context::{Elicitation, ElicitationRequest};
use tool_runtime::{ToolContext, ToolError, tool};

/// The most bytes `sample_text` returns: 1 MiB.
pub const MAX_SAMPLE_BYTES: u64 = 1 << 20;

/// Return `bytes` bytes of sample text: numbered lines of a pangram, the
/// last one cut to fit.
///
/// For trying result limits: a result over the server's limit reaches the
/// model cut, with a marker naming the handle `read_result` reads it by.
///
/// ```
/// let text = examples::serving::sample_text(100);
/// assert_eq!(text.len(), 100);
/// assert!(text.starts_with("line 1: the quick brown fox"));
/// ```
#[tool(register = false, read_only = true)]
pub fn sample_text(
    /// How many bytes of text, from 1 to 1,048,576
    #[tool(range(min = 1, max = 1048576))]
    bytes: u64,
) -> String {
    let wanted = bytes.min(MAX_SAMPLE_BYTES) as usize;
    let mut text = String::with_capacity(wanted + 80);
    let mut line = 1;
    while text.len() < wanted {
        text.push_str(&format!(
            "line {line}: the quick brown fox jumps over the lazy dog\n"
        ));
        line += 1;
    }
    // ASCII throughout: any byte is a character boundary.
    text.truncate(wanted);
    text
}

/// Ask the user to confirm an action, and say what they answered.
///
/// The client is asked (MCP elicitation) for a yes or no on `action`; the
/// result is "confirmed: ACTION", "not confirmed: ACTION", or the client's
/// "decline" or "cancel". A client that cannot be asked gets an error.
#[tool(register = false, read_only = true)]
pub async fn confirm(
    /// The action to confirm, as the user will read it
    #[tool(length(min = 1, max = 200))]
    action: String,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {"confirmed": {"type": "boolean", "title": "Confirm"}},
        "required": ["confirmed"],
    });
    let request = ElicitationRequest::new(format!("Confirm: {action}?"), schema).named("confirm");
    Ok(match ctx.elicit_request(request).await? {
        Elicitation::Accepted(content) if content["confirmed"] == true => {
            format!("confirmed: {action}")
        }
        Elicitation::Accepted(_) => format!("not confirmed: {action}"),
        other => other.action().to_owned(),
    })
}
