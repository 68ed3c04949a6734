//! Every return and parameter shape `#[prompt]` takes.

use tool_mcp::prompt;
use tool_mcp::prompts::{GetPrompt, PromptError, PromptMessage, Prompts};
use tool_runtime::ToolContext;

/// One message.
#[prompt]
fn simple() -> &'static str {
    "simple"
}

/// Messages, with arguments of every kind.
#[prompt(name = "with_arguments", title = "With arguments")]
async fn arguments(
    /// Some text
    text: String,
    borrowed: &str,
    count: Option<u32>,
    #[prompt(name = "resourceUri", complete = uris)] uri: Option<String>,
    ctx: &ToolContext,
) -> Vec<PromptMessage> {
    let _ = (count, uri, ctx);
    vec![PromptMessage::user(text), PromptMessage::assistant(borrowed)]
}

fn uris(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

/// A whole result, or an error.
#[prompt(register = false)]
fn whole(ctx: ToolContext) -> Result<GetPrompt, PromptError> {
    let _ = ctx;
    Ok(GetPrompt::new(Vec::new()).with_description("none"))
}

/// An error of any kind.
#[prompt]
fn fallible() -> Result<PromptMessage, String> {
    Err("no".into())
}

fn main() {
    let _ = Prompts::builder().prompt(WholePrompt).build();
    let _ = (SimplePrompt, ArgumentsPrompt, FalliblePrompt);
}
