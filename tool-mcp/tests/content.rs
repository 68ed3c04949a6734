//! Resources, prompts and completion served by
//! `tool_mcp::server::McpServer`, at the protocol level: JSON-RPC messages
//! written to it over an in-memory pipe, one per line, as a stdio client
//! sends them, in both eras (a session of 2025-11-25, and requests of
//! 2026-07-28 that say their revision in `_meta`).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tool_mcp::prompts::{ArgumentSpec, PromptError, PromptMessage, PromptSpec, Prompts};
use tool_mcp::resources::{Contents, ResourceError, ResourceSpec, Resources, UriTemplate};
use tool_mcp::server::McpServer;
use tool_runtime::{
    Registry,
    content::Image,
    context::{Elicitation, ElicitationRequest},
};

#[path = "content/apps.rs"]
mod apps;
#[path = "content/completion.rs"]
mod completion;
#[path = "content/macros.rs"]
mod macros;
#[path = "content/prompts.rs"]
mod prompts;
#[path = "content/resources.rs"]
mod resources;
#[cfg(feature = "skills")]
#[path = "content/skills.rs"]
mod skills;

/// A 1x1 PNG's first bytes: enough for a blob.
const PNG: [u8; 8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/// The era a request is sent in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Era {
    /// A session of revision 2025-11-25, set up with `initialize`.
    Session,
    /// Revision 2026-07-28: each request names it in `_meta`.
    Stateless,
}

const ERAS: [Era; 2] = [Era::Session, Era::Stateless];

/// A client's end of the pipe.
struct Client {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    era: Era,
    next_id: i64,
}

impl Client {
    /// Starts `server` on one end of a pipe; in a session's era,
    /// initialises a session and returns its `initialize` result.
    async fn start(server: McpServer, era: Era) -> (Client, Value) {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(server.serve_io(server_read, server_write));
        let (read, writer) = tokio::io::split(client_end);
        let mut client = Client {
            writer,
            lines: BufReader::new(read).lines(),
            era,
            next_id: 100,
        };
        if era == Era::Stateless {
            let discover = client.request("server/discover", json!({})).await;
            return (client, discover);
        }
        client
            .send(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "test", "version": "1"}
                }}),
            )
            .await;
        let (init, _) = client.response(0).await;
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (client, init)
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message from the server; a hang guard, not a timing check.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server keeps the pipe open");
        serde_json::from_str(&line).unwrap()
    }

    /// The response to request `id`, and every message that came before it.
    async fn response(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&json!(id)) {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// Sends request `method` with `params` (with the revision's `_meta` in
    /// the stateless era, unless they have one) without waiting; its id.
    async fn send_request(&mut self, method: &str, mut params: Value) -> i64 {
        if self.era == Era::Stateless && params.get("_meta").is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Request `method` with `params`: its response (result or error).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(id).await.0
    }
}

/// The resources of these tests: a text, a blob, a template.
fn resources() -> Resources {
    Resources::builder()
        .text(
            ResourceSpec::fixed("test://static-text", "static-text")
                .with_description("A text")
                .with_mime_type("text/plain"),
            "This is the content of the static text resource.",
        )
        .blob(
            ResourceSpec::fixed("test://static-binary", "static-binary")
                .with_mime_type("image/png"),
            PNG,
        )
        .template(
            ResourceSpec::template(
                UriTemplate::parse("test://template/{id}/data").unwrap(),
                "template-data",
            )
            .with_mime_type("application/json"),
            |request| async move {
                let id = request.params.get("id").unwrap_or_default().to_owned();
                match id.as_str() {
                    "empty" => Ok(Vec::new()),
                    "broken" => Err(ResourceError::Failed("the store is down".into())),
                    _ => Ok(vec![Contents::text(
                        request.uri,
                        "application/json",
                        json!({"id": id, "templateTest": true}).to_string(),
                    )]),
                }
            },
        )
        .build()
        .unwrap()
}

/// The prompts of these tests.
fn prompts() -> Prompts {
    Prompts::builder()
        .prompt_fn(
            PromptSpec::new("simple").with_description("A simple prompt"),
            |_, _| async { Ok("This is a simple prompt for testing.") },
        )
        .prompt_fn(
            PromptSpec::new("with_arguments")
                .with_description("A prompt with arguments")
                .with_argument(
                    ArgumentSpec::required("arg1")
                        .with_description("First test argument")
                        .with_completions(["paris", "park", "party"]),
                )
                .with_argument(ArgumentSpec::optional("count")),
            |arguments, _| async move {
                let count = arguments.parse::<u32>("count")?.unwrap_or(1);
                let arg1 = arguments.require("arg1")?;
                Ok(format!("arg1='{arg1}' x{count}"))
            },
        )
        .prompt_fn(
            PromptSpec::new("with_image").with_description("Shows an image"),
            |_, _| async {
                Ok(vec![
                    PromptMessage::user(Image::png(PNG)),
                    PromptMessage::assistant("An image."),
                ])
            },
        )
        .prompt_fn(
            PromptSpec::new("asking").with_description("Asks the user first"),
            |_, ctx| async move {
                let schema = json!({"type": "object",
                    "properties": {"context": {"type": "string"}}, "required": ["context"]});
                let request =
                    ElicitationRequest::new("What context?", schema).named("user_context");
                let context = match ctx.elicit_request(request).await? {
                    Elicitation::Accepted(content) => content["context"].to_string(),
                    other => other.action().to_owned(),
                };
                Ok(format!("context: {context}"))
            },
        )
        .prompt_fn(
            PromptSpec::new("failing").with_description("Always fails"),
            |_, _| async { Err::<String, _>(PromptError::Failed("no luck".into())) },
        )
        .build()
        .unwrap()
}

/// A server with the tests' resources and prompts.
fn server() -> McpServer {
    McpServer::new(Registry::builder().build().unwrap())
        .with_resources(resources())
        .with_prompts(prompts())
}

/// A result without what the stateless revision adds; asserts it has
/// them in that era (and not in a session's), with caching hints when
/// `cached`.
fn plain(era: Era, response: &Value, cached: bool) -> Value {
    let mut result = response["result"].clone();
    assert!(result.is_object(), "a result: {response}");
    let fields = result.as_object_mut().unwrap();
    let result_type = fields.remove("resultType");
    let meta = fields.remove("_meta");
    let ttl = fields.remove("ttlMs");
    let scope = fields.remove("cacheScope");
    match era {
        Era::Session => {
            assert_eq!((result_type, meta, ttl, scope), (None, None, None, None));
        }
        Era::Stateless => {
            assert_eq!(result_type, Some(json!("complete")));
            assert!(meta.unwrap()["io.modelcontextprotocol/serverInfo"].is_object());
            assert_eq!(ttl.is_some(), cached, "ttlMs of {response}");
            assert_eq!(scope.is_some(), cached, "cacheScope of {response}");
        }
    }
    result
}

/// Asserts `response` is error `code` with `data`.
fn assert_error(response: &Value, code: i64, data: Value) {
    assert_eq!(response["error"]["code"], code, "{response}");
    assert_eq!(response["error"]["data"], data, "{response}");
}

#[tokio::test]
async fn capabilities_are_declared_only_for_what_is_served() {
    let bare = McpServer::new(Registry::builder().build().unwrap());
    let (_, init) = Client::start(bare.clone(), Era::Session).await;
    let capabilities = &init["result"]["capabilities"];
    assert!(capabilities.get("resources").is_none());
    assert!(capabilities.get("prompts").is_none());
    assert!(capabilities.get("completions").is_none());
    let (_, init) = Client::start(server(), Era::Session).await;
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
    assert_eq!(capabilities["completions"], json!({}));
    // Revision 2026-07-28 always declares prompts and resources (their
    // lists are empty without them); subscriptions go through
    // subscriptions/listen there.
    let (_, discover) = Client::start(bare, Era::Stateless).await;
    let capabilities = &discover["result"]["capabilities"];
    assert_eq!(capabilities["resources"], json!({}));
    assert_eq!(capabilities["prompts"], json!({}));
    assert!(capabilities.get("completions").is_none());
    let (_, discover) = Client::start(server(), Era::Stateless).await;
    let capabilities = &discover["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
    assert_eq!(capabilities["completions"], json!({}));
}

#[tokio::test]
async fn without_content_the_methods_are_not_found_in_a_session() {
    let bare = McpServer::new(Registry::builder().build().unwrap());
    let (mut client, _) = Client::start(bare, Era::Session).await;
    for method in [
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
    ] {
        let response = client
            .request(method, json!({"uri": "x://y", "name": "n"}))
            .await;
        assert_eq!(response["error"]["code"], -32601, "{method}: {response}");
    }
}

#[tokio::test]
async fn without_content_the_stateless_lists_are_empty_and_every_uri_unknown() {
    let bare = McpServer::new(Registry::builder().build().unwrap());
    let (mut client, _) = Client::start(bare, Era::Stateless).await;
    let list = client.request("prompts/list", json!({})).await;
    assert_eq!(plain(Era::Stateless, &list, true), json!({"prompts": []}));
    let list = client.request("resources/templates/list", json!({})).await;
    assert_eq!(
        plain(Era::Stateless, &list, true),
        json!({"resourceTemplates": []})
    );
    let read = client
        .request("resources/read", json!({"uri": "test://nothing"}))
        .await;
    assert_error(&read, -32602, json!({"uri": "test://nothing"}));
    let get = client.request("prompts/get", json!({"name": "any"})).await;
    assert_eq!(get["error"]["code"], -32601, "{get}");
}
