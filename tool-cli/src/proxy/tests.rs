//! The proxy serves a reached server's prompts (prefixed), resources and
//! templates: the workspace's `conformance-server` example followed as a
//! registry file's entry would be, and served by tool-mcp's server to a
//! client speaking JSON-RPC on a pipe.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tool_mcp::client::{ImportOptions, McpClientOptions, McpServerConfig};
use tool_mcp::prompts::Prompts;
use tool_mcp::resources::Resources;
use tool_mcp::server::McpServer;
use tool_runtime::{Registry, registry::LiveRegistry};

use super::{Remote, follow};

/// The `conformance-server` example (`CONFORMANCE_SERVER`, else
/// target/debug/conformance-server, which `cargo test --workspace` builds).
fn conformance_server() -> McpServerConfig {
    let path = std::env::var_os("CONFORMANCE_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/debug/conformance-server")
        });
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p examples --bin conformance-server`",
        path.display()
    );
    McpServerConfig::stdio(path.to_string_lossy(), Vec::<String>::new())
}

/// A client of the served pipe: one request, its answer.
struct Pipe {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    id: u64,
    /// The methods of the notifications read so far.
    notified: Vec<String>,
}

impl Pipe {
    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    /// The answer to `method` with `params` (its notifications skipped).
    async fn ask(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
                .await
                .expect("an answer in time")
                .unwrap()
                .expect("the server answers");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
            if let Some(method) = message["method"].as_str() {
                self.notified.push(method.to_owned());
            }
        }
    }

    /// Reads until the notification `method` has come.
    async fn notified(&mut self, method: &str) {
        while !self.notified.iter().any(|seen| seen == method) {
            let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("{method} in time"))
                .unwrap()
                .expect("the server is there");
            let message: Value = serde_json::from_str(&line).unwrap();
            if let Some(method) = message["method"].as_str() {
                self.notified.push(method.to_owned());
            }
        }
    }
}

/// conformance-server followed as a registry file's entry (prefix
/// `conf_`), its offers joined, and served to a pipe that has opened its
/// session.
struct Proxied {
    following: super::Following,
    resources: Resources,
    prompts: Prompts,
    pipe: Pipe,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn proxied() -> Proxied {
    let remote = Remote {
        name: "conformance".into(),
        config: conformance_server(),
        client: McpClientOptions::default(),
        import: ImportOptions::new().with_prefix("conf_"),
        at: "tools.yaml:2:3".into(),
        sign_in: None,
    };
    let live = LiveRegistry::new(Registry::builder().build().unwrap());
    let following = follow(&live, &[remote]);
    let resources = Resources::builder().build().unwrap();
    let prompts = Prompts::builder().build().unwrap();
    following
        .content
        .serve_into(resources.clone(), prompts.clone());
    let mut changes = prompts.changes();
    tokio::time::timeout(Duration::from_secs(20), async {
        // Each entry joins in turn: the last ones the test uses.
        let joined = || {
            ["conf_test_prompt_with_arguments", "conf_test_simple_prompt"]
                .iter()
                .all(|name| prompts.get(name).is_some())
                && [
                    "test://static-text",
                    "test://static-binary",
                    "test://template/7/data",
                ]
                .iter()
                .all(|uri| resources.resolves(uri))
        };
        while !joined() {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("the server's prompts join");

    let server = McpServer::new(live)
        .with_resources(resources.clone())
        .with_prompts(prompts.clone());
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (reader, writer) = tokio::io::split(theirs);
    let serving = tokio::spawn(server.serve_io(reader, writer));
    let (reader, writer) = tokio::io::split(ours);
    let mut pipe = Pipe {
        lines: BufReader::new(reader).lines(),
        writer,
        id: 0,
        notified: Vec::new(),
    };
    let init = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    });
    let initialized = pipe.ask("initialize", init).await;
    assert!(initialized["result"]["capabilities"]["prompts"].is_object());
    pipe.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    Proxied {
        following,
        resources,
        prompts,
        pipe,
        serving,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_servers_prompts_and_resources_are_served() {
    let Proxied {
        following,
        resources,
        prompts,
        mut pipe,
        serving,
    } = proxied().await;

    // The prompts, prefixed; got and completed through the server.
    let listed = pipe.ask("prompts/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|prompt| prompt["name"].as_str())
        .collect();
    assert!(names.contains(&"conf_test_simple_prompt"), "{names:?}");
    assert!(!names.contains(&"test_simple_prompt"), "{names:?}");
    let got = pipe
        .ask(
            "prompts/get",
            json!({"name": "conf_test_prompt_with_arguments",
                   "arguments": {"arg1": "one", "arg2": "two"}}),
        )
        .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='one', arg2='two'",
        "{got}"
    );
    let completed = pipe
        .ask(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "conf_test_prompt_with_arguments"},
                   "argument": {"name": "arg1", "value": "par"}}),
        )
        .await;
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["paris", "park", "party"])
    );

    // The resources, at their own URIs: listed, read, read through a
    // template; a URI no server offers is not found.
    let listed = pipe.ask("resources/list", json!({})).await;
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .collect();
    assert!(uris.contains(&"test://static-text"), "{uris:?}");
    let read = pipe
        .ask("resources/read", json!({"uri": "test://static-text"}))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "This is the content of the static text resource.",
        "{read}"
    );
    let read = pipe
        .ask("resources/read", json!({"uri": "test://static-binary"}))
        .await;
    assert!(
        read["result"]["contents"][0]["blob"]
            .as_str()
            .is_some_and(|blob| blob.starts_with("iVBORw0KGgo")),
        "the PNG's base64: {read}"
    );
    let read = pipe
        .ask("resources/read", json!({"uri": "test://template/7/data"}))
        .await;
    let data: Value =
        serde_json::from_str(read["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(data["id"], "7");
    let missing = pipe
        .ask("resources/read", json!({"uri": "test://nowhere"}))
        .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["data"]["uri"], "test://nowhere");

    // The server's prompts change (its tool, through the proxy): the
    // proxy lists them again and tells its client.
    let called = pipe
        .ask(
            "tools/call",
            json!({"name": "conf_test_trigger_prompt_change", "arguments": {}}),
        )
        .await;
    assert!(called["result"].is_object(), "{called}");
    pipe.notified("notifications/prompts/list_changed").await;
    let mut changes = prompts.changes();
    tokio::time::timeout(Duration::from_secs(20), async {
        while prompts.get("conf_test_toggled_prompt").is_none() {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("the new prompt is served");

    // Stopping the servers takes their offers out.
    following.stop().await;
    assert!(prompts.get("conf_test_simple_prompt").is_none());
    assert!(!resources.resolves("test://static-text"));
    drop(pipe);
    let _ = serving.await;
}

/// Two servers offering the same resources and prompts: each server's
/// prompts are served under its prefix, and the resources once (the second
/// server's URIs and template are left out).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_servers_resources_of_the_same_uris_are_left_out() {
    let remote = |name: &str, prefix: &str| Remote {
        name: name.into(),
        config: conformance_server(),
        client: McpClientOptions::default(),
        import: ImportOptions::new().with_prefix(prefix),
        at: format!("tools.yaml:{name}"),
        sign_in: None,
    };
    let live = LiveRegistry::new(Registry::builder().build().unwrap());
    let following = follow(&live, &[remote("first", "a_"), remote("second", "b_")]);
    let resources = Resources::builder().build().unwrap();
    let prompts = Prompts::builder().build().unwrap();
    following
        .content
        .serve_into(resources.clone(), prompts.clone());
    let mut changes = prompts.changes();
    tokio::time::timeout(Duration::from_secs(20), async {
        while ["a_test_simple_prompt", "b_test_simple_prompt"]
            .iter()
            .any(|name| prompts.get(name).is_none())
        {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("both servers' prompts join");
    let a = prompts
        .list()
        .iter()
        .filter(|p| p.spec().name.starts_with("a_"))
        .count();
    let b = prompts
        .list()
        .iter()
        .filter(|p| p.spec().name.starts_with("b_"))
        .count();
    assert_eq!(a, b, "each server's prompts, under its prefix");
    let uris: Vec<String> = resources
        .list()
        .iter()
        .map(|resource| match &resource.spec().uri {
            tool_mcp::resources::ResourceUri::Fixed(uri) => uri.to_string(),
            tool_mcp::resources::ResourceUri::Template(template) => template.as_str().to_owned(),
        })
        .collect();
    let mut once = uris.clone();
    once.sort();
    once.dedup();
    assert_eq!(once.len(), uris.len(), "{uris:?}");
    assert!(uris.contains(&"test://static-text".to_owned()), "{uris:?}");
    assert!(
        uris.contains(&"test://template/{id}/data".to_owned()),
        "{uris:?}"
    );
    following.stop().await;
    assert!(resources.list().is_empty());
    assert!(prompts.list().is_empty());
}
