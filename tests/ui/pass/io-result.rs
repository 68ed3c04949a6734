use tool_runtime::{ToolContext, tool};

/// Reads a file as text.
#[tool]
fn read_text(
    /// Path of the file to read
    path: String,
    ctx: &ToolContext,
) -> std::io::Result<String> {
    let _ = ctx.tool_use_id();
    std::fs::read_to_string(path)
}

/// Reads a file as text, asynchronously.
#[tool(description = "Reads a file as text, asynchronously.")]
async fn read_text_async(path: String) -> std::io::Result<String> {
    std::fs::read_to_string(path)
}

fn main() {
    assert!(read_text("/nonexistent/file".to_owned(), &ToolContext::new()).is_err());
    let _ = read_text_async;
    assert_eq!(ReadTextTool::SPEC.params.len(), 1);
    assert_eq!(
        ReadTextAsyncTool::SPEC.description,
        "Reads a file as text, asynchronously."
    );
}
