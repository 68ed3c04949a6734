//! Every return and parameter shape `#[resource]` takes.

use tool_mcp::resource;
use tool_mcp::resources::{Contents, ResourceError, Resources};
use tool_runtime::context::State;
use tool_runtime::ToolContext;

/// A text.
#[resource("test://static", mime = "text/plain", title = "Static", name = "static")]
fn static_text() -> &'static str {
    "text"
}

/// Bytes, for the user first, cached by every client for a minute.
#[resource(
    "test://bytes",
    size = 1,
    audience = ["user", "assistant"],
    priority = 1,
    cache = "public",
    ttl = "60s"
)]
async fn bytes() -> Vec<u8> {
    vec![1]
}

/// Contents.
#[resource(uri = "test://contents", register = false)]
fn contents() -> Contents {
    Contents::text("test://contents", "text/plain", "x")
}

/// Many contents, read with the context.
#[resource("test://items/{id}/parts{?part}")]
async fn parts(id: u64, part: Option<String>, ctx: &ToolContext) -> Result<Vec<Contents>, ResourceError> {
    let _ = (part, ctx);
    Ok(vec![Contents::text(format!("test://items/{id}/parts"), "text/plain", "x")])
}

/// A path, with an error of any kind.
#[resource("file:///{+path}", mime = "text/markdown", audience = "assistant", priority = 0.25, cache = "private")]
fn file(#[resource(name = "path")] file_path: &str, counter: State<u32>) -> Result<String, std::io::Error> {
    let _ = counter;
    Ok(file_path.to_owned())
}

fn main() {
    let _ = Resources::builder().resource(ContentsResource).resource(StaticTextResource);
    let _ = (BytesResource, PartsResource, FileResource);
}
