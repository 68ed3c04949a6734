//! `tool_mcp::client::McpClient` against real MCP servers: the reference
//! server `@modelcontextprotocol/server-everything` (Node, over stdio and
//! over streamable HTTP) and a small server written with the official
//! Python SDK (tests/mcp/python_server.py).
//!
//! Node and the npm packages come from `tests/mcp/node.sh`, the Python SDK
//! from `tests/mcp/venv.sh`; both are idempotent and run once per test
//! binary. When either cannot be set up the tests fail: they do not skip.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use tool_mcp::client::{
    ImportOptions, McpClient, McpClientErrorKind, McpClientOptions, McpLimits, McpProtocol,
    McpServerConfig,
};
use tool_runtime::{
    Content, Registry, State, ToolContext, ToolError, ToolEvent, ToolOutput, ToolResult, ToolUse,
    context::CancellationToken, registry::LiveRegistry, spec::ToolErrorKind, tool,
};

// ---------------------------------------------------------------- set-up

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tool-mcp sits in the workspace")
}

/// Runs one of the tests/mcp set-up scripts and reads the `KEY=value`
/// lines it prints.
fn run_setup(script: &str) -> Vec<(String, String)> {
    let output = Command::new("bash")
        .arg(root().join("tests/mcp").join(script))
        .current_dir(root())
        .output()
        .unwrap_or_else(|error| panic!("could not run tests/mcp/{script}: {error}"));
    assert!(
        output.status.success(),
        "tests/mcp/{script} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once('='))
        // `printf %q` quotes only paths with unusual characters.
        .map(|(key, value)| (key.to_owned(), value.trim_matches('\'').to_owned()))
        .collect()
}

fn value_of(pairs: &[(String, String)], key: &str) -> PathBuf {
    let value = pairs
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("the set-up script printed no {key}"));
    let path = PathBuf::from(&value.1);
    assert!(path.exists(), "{key}={} does not exist", path.display());
    path
}

/// Node and the everything server's entry point.
fn node() -> &'static (PathBuf, PathBuf) {
    static NODE: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    NODE.get_or_init(|| {
        let pairs = run_setup("node.sh");
        let node = value_of(&pairs, "MCP_NODE");
        let modules = value_of(&pairs, "MCP_NODE_MODULES");
        let everything = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
        assert!(everything.exists(), "{} is missing", everything.display());
        (node, everything)
    })
}

/// The virtual environment's Python, with the official MCP SDK.
fn python() -> &'static PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| value_of(&run_setup("venv.sh"), "MCP_PYTHON"))
}

fn everything_stdio() -> McpServerConfig {
    let (node, everything) = node();
    McpServerConfig::stdio(
        node.to_string_lossy(),
        [everything.to_string_lossy().into_owned(), "stdio".into()],
    )
}

fn python_server() -> McpServerConfig {
    let script = root().join("tests/mcp/python_server.py");
    McpServerConfig::stdio(
        python().to_string_lossy(),
        [script.to_string_lossy().into_owned()],
    )
}

/// The everything server over streamable HTTP on a free port; killed when
/// dropped.
struct HttpEverything {
    child: std::process::Child,
    url: String,
}

impl HttpEverything {
    async fn start() -> Self {
        let (node, everything) = node();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(node)
            .arg(everything)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("node starts");
        wait_for_port(port).await;
        HttpEverything {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl HttpEverything {
    /// Starts the server again on the same port (after it was killed).
    async fn restart(&mut self) {
        let (node, everything) = node();
        let port: u16 = self
            .url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap();
        self.child = Command::new(node)
            .arg(everything)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("node starts");
        wait_for_port(port).await;
    }
}

/// Waits until something listens on `port` (30 s at most).
async fn wait_for_port(port: u16) {
    let started = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the everything server did not listen on port {port} within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(output: ToolOutput) -> String {
    output.into_result("t").text_content()
}

// ------------------------------------------------- registry-side helpers

/// Calls `tool` on the MCP client in the registry's state with `args`, so
/// that the call runs inside a registry call (progress, cancellation).
#[tool]
async fn remote(
    /// The remote tool
    tool: String,
    /// Its arguments
    args: Value,
    client: State<McpClient>,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    Ok(client.call(&tool, args, ctx).await?)
}

/// The events of one registry call through `remote`: the progress
/// fractions and the result.
async fn remote_call(client: &McpClient, tool: &str, args: Value) -> (Vec<f64>, ToolResult) {
    let registry = Registry::builder()
        .tool(RemoteTool)
        .state(client.clone())
        .build()
        .expect("registry");
    let call = ToolUse::new("r1", "remote", json!({"tool": tool, "args": args}));
    let mut events = registry.stream(call, &ToolContext::new());
    let mut progress = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            ToolEvent::Progress { progress: p, .. } => progress.push(p),
            ToolEvent::Result(result) => return (progress, result),
            _ => {}
        }
    }
    panic!("the call ended without a result");
}

// ----------------------------------------------------------------- tests

#[test]
fn config_takes_the_shapes_hosts_write() {
    let stdio: McpServerConfig = serde_json::from_value(json!({
        "command": "npx", "args": ["-y", "server"], "env": {"A": "1"}
    }))
    .unwrap();
    assert_eq!(
        stdio,
        McpServerConfig::stdio("npx", ["-y", "server"]).with_env("A", "1")
    );
    let typed: McpServerConfig =
        serde_json::from_value(json!({"type": "stdio", "command": "srv"})).unwrap();
    assert_eq!(typed, McpServerConfig::stdio("srv", Vec::<String>::new()));
    let http: McpServerConfig = serde_json::from_value(json!({
        "type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}
    }))
    .unwrap();
    assert_eq!(
        http,
        McpServerConfig::http("https://example.com/mcp").with_header("Authorization", "Bearer x")
    );

    let error = |value: Value| {
        serde_json::from_value::<McpServerConfig>(value)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(json!({"command": "x", "cwd": "/"})),
        "unknown key `cwd` in an MCP server's configuration: a stdio server takes `command`, \
         `args` and `env`; an HTTP server takes `url` and `headers`; either may say `type`"
    );
    assert!(error(json!({"args": []})).contains("needs `command`"));
    assert!(error(json!({"command": "x", "url": "y"})).contains("both `command` and `url`"));
    assert!(error(json!({"url": "y", "env": {}})).contains("`env` in an MCP server's"));
    assert!(error(json!({"type": "sse", "url": "y"})).contains("unsupported `type` `sse`"));
    assert!(error(json!({"command": 3})).contains("expected a string"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_lists_and_calls() {
    let client = McpClient::connect("everything", everything_stdio())
        .await
        .expect("connects");
    let tools = client.list_tools().await.expect("lists");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    for name in [
        "echo",
        "get-sum",
        "trigger-long-running-operation",
        "get-tiny-image",
    ] {
        assert!(names.contains(&name), "{name} is not in {names:?}");
    }
    let echo = tools.iter().find(|tool| tool.name == "echo").unwrap();
    assert_eq!(echo.title.as_deref(), Some("Echo Tool"));
    assert_eq!(echo.description, "Echoes back the input string");
    assert_eq!(echo.annotations.read_only, Some(true));
    assert_eq!(echo.input_schema["required"], json!(["message"]));
    assert_eq!(client.cached_tools().len(), tools.len());

    let ctx = ToolContext::new();
    let output = client.call("echo", json!({"message": "hi"}), &ctx).await;
    assert_eq!(text(output.unwrap()), "Echo: hi");
    let output = client.call("get-sum", json!({"a": 2, "b": 3}), &ctx).await;
    assert_eq!(text(output.unwrap()), "The sum of 2 and 3 is 5.");

    // An image arrives as an image: its type and its PNG bytes.
    let result = client
        .call("get-tiny-image", json!({}), &ctx)
        .await
        .unwrap()
        .into_result("t");
    let image = result
        .content
        .iter()
        .find_map(|part| match part {
            Content::Image(image) => Some(image),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no image in {result:?}"));
    assert_eq!(image.mime_type(), "image/png");
    assert!(image.to_bytes().starts_with(b"\x89PNG\r\n"), "{image:?}");
    assert!(
        result.text_content().contains("[image/png image, "),
        "{}",
        result.text_content()
    );

    // Structured content is the JSON value.
    if names.contains(&"get-structured-content") {
        let output = client
            .call(
                "get-structured-content",
                json!({"location": "New York"}),
                &ctx,
            )
            .await
            .unwrap();
        assert!(
            matches!(output, ToolOutput::Value(Value::Object(_))),
            "{output:?}"
        );
    }

    // The server's refusal of an unknown tool: an error result.
    let output = client.call("no-such-tool", json!({}), &ctx).await.unwrap();
    let result = output.into_result("t");
    assert!(result.is_error());
    assert!(result.text_content().contains("no-such-tool"), "{result:?}");
    // Arguments that are not an object: an error naming the server.
    let error = client.call("echo", json!([1]), &ctx).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "MCP server `everything`: the arguments of `echo` must be a JSON object, not [1]"
    );
    let result = client
        .invoke(ToolUse::new("i1", "get-sum", json!({"a": 1, "b": 1})), &ctx)
        .await;
    assert_eq!(result.tool_use_id, "i1");
    assert_eq!(result.text_content(), "The sum of 1 and 1 is 2.");
    client.close().await;
    let error = client
        .call("echo", json!({"message": "x"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::Closed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_progress_and_cancellation() {
    let client = McpClient::connect("everything", everything_stdio())
        .await
        .expect("connects");

    // Progress reaches the registry call's events.
    let (progress, result) = remote_call(
        &client,
        "trigger-long-running-operation",
        json!({"duration": 1, "steps": 4}),
    )
    .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        result.text_content(),
        "Long running operation completed. Duration: 1 seconds, Steps: 4."
    );
    assert_eq!(progress, vec![0.25, 0.5, 0.75, 1.0]);

    // Cancelled midway: a cancelled error, soon.
    let token = CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let cancel = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        token.cancel();
    });
    let started = Instant::now();
    let error = client
        .call(
            "trigger-long-running-operation",
            json!({"duration": 10, "steps": 10}),
            &ctx,
        )
        .await
        .unwrap_err();
    cancel.await.unwrap();
    assert_eq!(error.kind(), McpClientErrorKind::Cancelled);
    assert_eq!(
        error.to_string(),
        "MCP server `everything`: the call to `trigger-long-running-operation` was cancelled"
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    // The server keeps working, on the same process.
    let output = client
        .call(
            "echo",
            json!({"message": "still here"}),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(text(output.unwrap()), "Echo: still here");
    assert_eq!(client.restarts(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_fails_its_call_and_is_restarted() {
    let client = McpClient::connect("everything", everything_stdio())
        .await
        .expect("connects");
    let pid = client.process_id().expect("a process id");
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call(
                    "trigger-long-running-operation",
                    json!({"duration": 20, "steps": 4}),
                    &ToolContext::new(),
                )
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = Instant::now();
    let error = slow.await.unwrap().unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "the call hung");
    assert_eq!(error.kind(), McpClientErrorKind::Closed);
    assert!(
        error
            .to_string()
            .starts_with("MCP server `everything`: the connection closed during the call"),
        "{error}"
    );

    // The next call waits for the restart and succeeds.
    let output = client
        .call("echo", json!({"message": "again"}), &ToolContext::new())
        .await;
    assert_eq!(text(output.unwrap()), "Echo: again");
    assert_eq!(client.restarts(), 1);
    assert_ne!(client.process_id(), Some(pid));

    // The same through the registry: an error result naming the server.
    let pid = client.process_id().unwrap();
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            remote_call(
                &client,
                "trigger-long-running-operation",
                json!({"duration": 20, "steps": 4}),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    let (_, result) = slow.await.unwrap();
    assert!(result.is_error());
    assert!(
        result
            .text_content()
            .starts_with("MCP server `everything`: "),
        "{result:?}"
    );
    let (_, result) = remote_call(&client, "echo", json!({"message": "back"})).await;
    assert_eq!(result.text_content(), "Echo: back");

    // Killed while idle: a call made once the client has noticed waits for
    // the restart.
    let pid = client.process_id().unwrap();
    Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    let started = Instant::now();
    while client.is_connected() && client.restarts() == 2 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the exit went unnoticed"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let output = client
        .call("echo", json!({"message": "once more"}), &ToolContext::new())
        .await;
    assert_eq!(text(output.unwrap()), "Echo: once more");
    assert_eq!(client.restarts(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http() {
    let server = HttpEverything::start().await;
    let client = McpClient::connect("everything-http", McpServerConfig::http(&server.url))
        .await
        .expect("connects");
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    assert!(names.iter().any(|name| name == "echo"), "{names:?}");
    assert_eq!(client.process_id(), None);

    let ctx = ToolContext::new();
    let output = client
        .call("echo", json!({"message": "over http"}), &ctx)
        .await;
    assert_eq!(text(output.unwrap()), "Echo: over http");
    let output = client
        .call("get-sum", json!({"a": 20, "b": 22}), &ctx)
        .await;
    assert_eq!(text(output.unwrap()), "The sum of 20 and 22 is 42.");

    let (progress, result) = remote_call(
        &client,
        "trigger-long-running-operation",
        json!({"duration": 1, "steps": 2}),
    )
    .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(progress, vec![0.5, 1.0]);

    let token = CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        token.cancel();
    });
    let error = client
        .call(
            "trigger-long-running-operation",
            json!({"duration": 10, "steps": 5}),
            &ctx,
        )
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::Cancelled);
    let output = client
        .call("echo", json!({"message": "after"}), &ToolContext::new())
        .await;
    assert_eq!(text(output.unwrap()), "Echo: after");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_sdk_server() {
    let config = python_server().with_env("TOOL_MCP_CLIENT_TEST", "from the config");
    let client = McpClient::connect("python", config)
        .await
        .expect("connects");
    let tools = client.cached_tools();
    let divide = tools.iter().find(|tool| tool.name == "divide").unwrap();
    assert_eq!(divide.output_schema.as_ref().unwrap()["type"], "object");

    let ctx = ToolContext::new();
    let output = client.call("add", json!({"a": 2, "b": 3}), &ctx).await;
    assert_eq!(text(output.unwrap()), "2 + 3 = 5");

    // Structured output.
    let output = client.call("divide", json!({"a": 7, "b": 2}), &ctx).await;
    assert_eq!(
        output.unwrap(),
        ToolOutput::Value(json!({"quotient": 3.5, "remainder": 1}))
    );

    // isError: an error result with the server's text.
    let output = client
        .call("divide", json!({"a": 7, "b": 0}), &ctx)
        .await
        .unwrap();
    let result = output.into_result("t");
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "Error executing tool divide: cannot divide 7 by zero"
    );

    // The environment of the config reaches the server.
    let output = client
        .call("env", json!({"name": "TOOL_MCP_CLIENT_TEST"}), &ctx)
        .await;
    assert_eq!(text(output.unwrap()), "from the config");

    // Progress with a total and a message.
    let (progress, result) =
        remote_call(&client, "slow_count", json!({"steps": 3, "delay": 0.05})).await;
    assert_eq!(result.text_content(), "counted to 3");
    assert_eq!(progress.len(), 3);
    assert!((progress[0] - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!(progress[2], 1.0);

    // A tool added at run time: the list is refreshed and the watch fires.
    let mut watch = client.watch_tools();
    watch.borrow_and_update();
    let output = client
        .call("register_tool", json!({"name": "late_tool"}), &ctx)
        .await;
    assert_eq!(text(output.unwrap()), "registered late_tool");
    tokio::time::timeout(Duration::from_secs(10), watch.changed())
        .await
        .expect("the tool list changes")
        .unwrap();
    assert!(watch.borrow().iter().any(|tool| tool.name == "late_tool"));
    let output = client.call("late_tool", json!({}), &ctx).await;
    assert_eq!(text(output.unwrap()), "I am late_tool");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_time_limit_fails_and_the_server_stays() {
    let options = McpClientOptions::default().with_call_timeout(Duration::from_millis(800));
    let client = McpClient::connect_with("python", python_server(), options)
        .await
        .expect("connects");
    let started = Instant::now();
    let error = client
        .call(
            "slow_count",
            json!({"steps": 10, "delay": 0.5}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    // Well before the tool's own 5 s: the limit ended the call.
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(error.kind(), McpClientErrorKind::TimedOut);
    assert_eq!(
        error.to_string(),
        "MCP server `python`: `slow_count` did not answer within 800ms"
    );
    // The server still answers. The same 800 ms limit holds this call, and a
    // loaded machine may keep the Python server past it, so a call that
    // times out is made again: one that fails otherwise, or never
    // answers, fails the test.
    let mut output = None;
    for _ in 0..10 {
        match client
            .call("add", json!({"a": 1, "b": 2}), &ToolContext::new())
            .await
        {
            Err(error) if error.kind() == McpClientErrorKind::TimedOut => continue,
            other => {
                output = Some(other);
                break;
            }
        }
    }
    let output = output.expect("the server answers `add` within ten tries");
    assert_eq!(text(output.unwrap()), "1 + 2 = 3");
    // It answered the ping after the time-out: not restarted.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(client.restarts(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_an_error_naming_it() {
    let error = McpClient::connect(
        "missing",
        McpServerConfig::stdio("/nonexistent/mcp-server", Vec::<String>::new()),
    )
    .await
    .unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::Connect);
    assert!(
        error
            .to_string()
            .starts_with("MCP server `missing`: could not start `/nonexistent/mcp-server`"),
        "{error}"
    );

    let crashing = McpServerConfig::stdio(
        python().to_string_lossy(),
        [
            "-c",
            "import sys; print('boom: no configuration', file=sys.stderr); sys.exit(3)",
        ],
    );
    let error = McpClient::connect("crashing", crashing).await.unwrap_err();
    let message = error.to_string();
    assert!(message.starts_with("MCP server `crashing`: "), "{message}");
    assert!(message.contains("boom: no configuration"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imported_tools_work_through_the_registry() {
    let everything = McpClient::connect("everything", everything_stdio())
        .await
        .expect("connects");
    let options = ImportOptions::new()
        .with_prefix("everything_")
        .with_alias("echo", "say")
        .with_only(["echo", "get-sum", "trigger-long-running-operation"]);
    let tools = everything.tools(&options);
    let mut names: Vec<String> = tools
        .iter()
        .map(|tool| tool_runtime::Tool::spec(tool).name.to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "everything_echo",
            "everything_get-sum",
            "everything_trigger-long-running-operation"
        ]
    );
    let python = McpClient::connect("python", python_server())
        .await
        .expect("connects");
    let mut builder = Registry::builder();
    for tool in tools
        .into_iter()
        .chain(python.tools(&ImportOptions::new().with_prefix("py_")))
    {
        builder = builder.tool(tool);
    }
    let registry = builder.build().expect("registry");
    let spec = registry.resolve("everything_echo").unwrap().spec();
    assert_eq!(spec.title.as_deref(), Some("Echo Tool"));
    assert_eq!(spec.annotations.read_only, Some(true));

    let ctx = ToolContext::new();
    let invoke = |name: &str, input: Value| {
        let call = ToolUse::new("c1", name, input);
        let registry = registry.clone();
        let ctx = ctx.clone();
        async move { registry.invoke(call, &ctx).await }
    };
    let result = invoke("everything_echo", json!({"message": "hi"})).await;
    assert_eq!(result.text_content(), "Echo: hi");
    assert_eq!(result.tool_use_id, "c1");
    let result = invoke("say", json!({"message": "by alias"})).await;
    assert_eq!(result.text_content(), "Echo: by alias");
    let result = invoke("everything_get-sum", json!({"a": 40, "b": 2})).await;
    assert_eq!(result.text_content(), "The sum of 40 and 2 is 42.");

    // The registry checks the arguments against the remote schema first.
    let result = invoke("everything_get-sum", json!({"a": "two"})).await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::InvalidArguments));
    assert!(
        result
            .text_content()
            .starts_with("invalid arguments for everything_get-sum: "),
        "{result:?}"
    );

    // Structured output and isError from the Python server.
    let result = invoke("py_divide", json!({"a": 9, "b": 4})).await;
    assert_eq!(
        result.content,
        vec![Content::Json(json!({"quotient": 2.25, "remainder": 1}))]
    );
    let result = invoke("py_divide", json!({"a": 9, "b": 0})).await;
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "Error executing tool divide: cannot divide 9 by zero"
    );

    // Progress streams out of the registry call.
    let call = ToolUse::new(
        "c2",
        "everything_trigger-long-running-operation",
        json!({"duration": 1, "steps": 2}),
    );
    let mut events = registry.stream(call, &ctx);
    let mut progress = Vec::new();
    let mut result = None;
    while let Some(event) = events.next().await {
        match event {
            ToolEvent::Progress { progress: p, .. } => progress.push(p),
            ToolEvent::Result(r) => result = Some(r),
            _ => {}
        }
    }
    assert!(result.unwrap().is_success());
    assert_eq!(progress, vec![0.5, 1.0]);

    // A registry call cancelled midway: a cancelled result, and the server
    // still answers.
    let token = CancellationToken::new();
    let cancellable = ToolContext::new().with_cancellation(token.clone());
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        token.cancel();
    });
    let started = Instant::now();
    let call = ToolUse::new(
        "c3",
        "everything_trigger-long-running-operation",
        json!({"duration": 10, "steps": 10}),
    );
    let result = registry.invoke(call, &cancellable).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled));
    let result = invoke("everything_echo", json!({"message": "still"})).await;
    assert_eq!(result.text_content(), "Echo: still");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_registry_follows_the_servers_tool_list() {
    let python = McpClient::connect("python", python_server())
        .await
        .expect("connects");
    let live = LiveRegistry::new(Registry::builder().build().unwrap());
    // A local tool with the name one of the server's tools will take: it
    // stays, and the server's is left out.
    let local = tool_runtime::dynamic::DynamicTool::builder(
        "py_divide",
        "A local tool.",
        json!({"type": "object", "properties": {}}),
    )
    .handler(|_, _| Ok::<_, tool_runtime::ToolError>("local divide"))
    .build()
    .unwrap();
    live.insert(local).unwrap();
    let mut changes = live.subscribe();
    let following = python
        .sync_into(live.clone(), ImportOptions::new().with_prefix("py_"))
        .expect("imports");
    assert!(live.snapshot().contains("py_add"));
    let kept = live
        .snapshot()
        .invoke(
            ToolUse::new("0", "py_divide", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(kept.text_content(), "local divide");
    assert!(changes.has_changed().unwrap());
    changes.borrow_and_update();

    // The server adds a tool and says so: the registry gets it.
    let ctx = ToolContext::new();
    let call = ToolUse::new("1", "py_register_tool", json!({"name": "fresh"}));
    let result = live.snapshot().invoke(call, &ctx).await;
    assert_eq!(result.text_content(), "registered fresh");
    tokio::time::timeout(Duration::from_secs(10), async {
        while !live.snapshot().contains("py_fresh") {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("the registry gets the new tool");
    let result = live
        .snapshot()
        .invoke(ToolUse::new("2", "py_fresh", json!({})), &ctx)
        .await;
    assert_eq!(result.text_content(), "I am fresh");
    assert!(live.snapshot().contains("py_add"));

    // Importing the same tools again takes over none of them.
    let version = live.version();
    let again = python
        .sync_into(live.clone(), ImportOptions::new().with_prefix("py_"))
        .expect("imports nothing new");
    assert!(live.snapshot().contains("py_add"));
    assert!(live.version() <= version + 1);
    again.abort();
    following.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_killed_midway_fails_the_call_and_is_reached_again() {
    let mut server = HttpEverything::start().await;
    let client = McpClient::connect("everything-http", McpServerConfig::http(&server.url))
        .await
        .expect("connects");
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call(
                    "trigger-long-running-operation",
                    json!({"duration": 20, "steps": 4}),
                    &ToolContext::new(),
                )
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let started = Instant::now();
    let error = slow.await.unwrap().unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the call took {:?}",
        started.elapsed()
    );
    assert_eq!(error.kind(), McpClientErrorKind::Closed);
    assert!(
        error
            .to_string()
            .starts_with("MCP server `everything-http`: the connection closed during the call"),
        "{error}"
    );

    // While it is down, calls fail soon, naming the server.
    let started = Instant::now();
    let error = client
        .call("echo", json!({"message": "x"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        error
            .to_string()
            .starts_with("MCP server `everything-http`: "),
        "{error}"
    );

    // Back on the same port: a later call succeeds.
    server.restart().await;
    let started = Instant::now();
    loop {
        match client
            .call("echo", json!({"message": "back"}), &ToolContext::new())
            .await
        {
            Ok(output) => {
                assert_eq!(text(output), "Echo: back");
                break;
            }
            Err(error) => {
                assert!(
                    error
                        .to_string()
                        .starts_with("MCP server `everything-http`: "),
                    "{error}"
                );
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "not reached again: {error}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    assert!(client.restarts() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_hears_of_cancelled_calls() {
    let client = McpClient::connect("python", python_server())
        .await
        .expect("connects");
    let cancelled_on_the_server = || async {
        let output = client
            .call("cancelled", json!({}), &ToolContext::new())
            .await
            .unwrap();
        text(output)
    };
    let wait_until_recorded = |label: &'static str| async move {
        let started = Instant::now();
        loop {
            let recorded = cancelled_on_the_server().await;
            if recorded.split(',').any(|seen| seen == label) {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the server did not see `{label}` cancelled: {recorded:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };

    // The caller's token.
    let token = CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let error = client
        .call("wait_forever", json!({"label": "by-token"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::Cancelled);
    wait_until_recorded("by-token").await;

    // A caller that stops waiting (drops the call's future).
    let abandoned = tokio::time::timeout(
        Duration::from_millis(300),
        client.call(
            "wait_forever",
            json!({"label": "dropped"}),
            &ToolContext::new(),
        ),
    )
    .await;
    assert!(abandoned.is_err());
    wait_until_recorded("dropped").await;

    // A registry call that runs out of time.
    let mut builder = Registry::builder().default_timeout(Duration::from_millis(300));
    for tool in client.tools(&ImportOptions::new().with_only(["wait_forever"])) {
        builder = builder.tool(tool);
    }
    let registry = builder.build().unwrap();
    let call = ToolUse::new("t", "wait_forever", json!({"label": "timed-out"}));
    let result = registry.invoke(call, &ToolContext::new()).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::TimedOut));
    wait_until_recorded("timed-out").await;

    // The client's own time limit.
    let quick = McpClient::connect_with(
        "python",
        python_server(),
        McpClientOptions::default().with_call_timeout(Duration::from_millis(300)),
    )
    .await
    .unwrap();
    let error = quick
        .call(
            "wait_forever",
            json!({"label": "client-limit"}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::TimedOut);
    let started = Instant::now();
    loop {
        let recorded = text(
            quick
                .call("cancelled", json!({}), &ToolContext::new())
                .await
                .unwrap(),
        );
        if recorded.split(',').any(|seen| seen == "client-limit") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{recorded:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A proxy: a Python server's tools followed into a live registry that an
/// `McpServer` serves over HTTP, and a second client on that server sees
/// the list change when the Python server's does.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_followed_tools_passes_list_changes_on() {
    use tool_mcp::server::McpServer;

    let python = McpClient::connect("python", python_server())
        .await
        .expect("connects");
    let live = LiveRegistry::new(Registry::builder().build().unwrap());
    let following = python
        .sync_into(live.clone(), ImportOptions::new().with_prefix("py_"))
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(McpServer::new(live).serve_http(listener, shutdown.clone()));

    let proxy = McpClient::connect("proxy", McpServerConfig::http(&url))
        .await
        .expect("connects to the proxy");
    assert!(
        proxy
            .cached_tools()
            .iter()
            .any(|tool| tool.name == "py_add")
    );
    let output = proxy
        .call("py_add", json!({"a": 20, "b": 22}), &ToolContext::new())
        .await;
    assert_eq!(text(output.unwrap()), "20 + 22 = 42");

    let mut tools = proxy.watch_tools();
    tools.borrow_and_update();
    let output = proxy
        .call(
            "py_register_tool",
            json!({"name": "relayed"}),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(text(output.unwrap()), "registered relayed");
    tokio::time::timeout(Duration::from_secs(10), async {
        while !tools
            .borrow_and_update()
            .iter()
            .any(|tool| tool.name == "py_relayed")
        {
            tools.changed().await.unwrap();
        }
    })
    .await
    .expect("the proxy's client sees the new tool");
    let output = proxy
        .call("py_relayed", json!({}), &ToolContext::new())
        .await;
    assert_eq!(text(output.unwrap()), "I am relayed");

    proxy.close().await;
    following.abort();
    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

// ------------------------------------------- servers that send too much

/// `tests/mcp/misbehaving_server.py MODE`, run with the `python3` on
/// `PATH` (it needs the standard library alone).
fn misbehaving(mode: &str) -> McpServerConfig {
    let script = root().join("tests/mcp/misbehaving_server.py");
    McpServerConfig::stdio(
        "python3",
        [script.to_string_lossy().into_owned(), mode.into()],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limits_bound_what_a_server_sends() {
    let limits = McpLimits::default().with_max_result_bytes(1 << 20);
    let options = McpClientOptions::default().with_limits(limits);

    // A 100 MB result: refused once 1 MiB is read, the call failing at
    // once with the limit named; the connection goes on.
    let big = McpClient::connect_with("big", misbehaving("huge"), options.clone())
        .await
        .expect("the server starts");
    let ctx = ToolContext::new();
    for tool in ["huge", "huge_id_first"] {
        let started = Instant::now();
        let error = big.call(tool, json!({}), &ctx).await.unwrap_err();
        // A liveness bound, generous for a loaded machine: the error kind says the limit stopped the read.
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(error.kind(), McpClientErrorKind::Limit);
        assert_eq!(
            error.to_string(),
            format!(
                "MCP server `big`: the call to `{tool}` failed: its answer is larger than 1 MiB, \
                 the limit `max_result_bytes`; it was not read"
            )
        );
    }
    let echoed = big.call("echo", json!({"message": "on"}), &ctx).await;
    assert_eq!(text(echoed.expect("the echo answers")), "echo: on");
    big.close().await;

    // Too many tools: the listing is refused at the page that crosses the
    // limit.
    let options = options.with_limits(limits.with_max_tools(1500));
    let error = McpClient::connect_with("many", misbehaving("many"), options.clone())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::Limit);
    assert_eq!(
        error.to_string(),
        "MCP server `many`: it lists more than 1500 tools, the limit `max_tools`; \
         the listing stopped at page 2"
    );

    // A schema too deep: that tool is left out, with why.
    let deep = McpClient::connect_with("deep", misbehaving("deep"), options.clone())
        .await
        .expect("the server starts");
    let names: Vec<String> = deep
        .cached_tools()
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    assert_eq!(names, ["echo"]);
    assert_eq!(deep.left_out()[0].tool, "deep");
    assert_eq!(
        deep.left_out()[0].to_string(),
        "tool `deep` is left out: its input schema is nested deeper than 32 levels, \
         the limit `max_schema_depth`"
    );
    deep.close().await;

    // A server that never answers: the connect time limit.
    let started = Instant::now();
    let options = options.with_connect_timeout(Duration::from_millis(500));
    let error = McpClient::connect_with("hang", misbehaving("hang"), options)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::Connect);
    // Below the default connect time limit (10 s), generous for a loaded machine.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_alike_are_left_out_and_wrapped_scalars_unwrapped() {
    let names = McpClient::connect("names", misbehaving("names"))
        .await
        .expect("the server starts");
    let import = names.import(&ImportOptions::new());
    let left_out: Vec<String> = import.left_out.iter().map(ToString::to_string).collect();
    assert_eq!(
        left_out,
        [
            "tool `x.y` is left out: the tools `x.y` and `x_y` would both be named `x_y` here; \
             neither is offered",
            "tool `x_y` is left out: the tools `x.y` and `x_y` would both be named `x_y` here; \
             neither is offered",
        ]
    );
    let registry = import
        .tools
        .into_iter()
        .fold(Registry::builder(), |builder, tool| builder.tool(tool))
        .build()
        .expect("the tools make a registry");
    assert!(registry.resolve("x_y").is_none());
    let result = registry
        .invoke(ToolUse::new("1", "scalar", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "42");
    assert_eq!(
        registry.resolve("scalar").unwrap().spec().output_schema(),
        Some(&json!({"type": "integer"}))
    );

    // The server's own error text, escaped and cut short.
    let error = names
        .call("fails", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(
            "MCP server `names`: the call to `fails` failed: broken\\u{1b}[2J\\u{1b}]0;pwned\\u{7} zz"
        ),
        "{message}"
    );
    assert!(message.ends_with('…') && message.len() < 1000, "{message}");
    names.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_an_answer_over_the_limit_fails_its_call_at_once() {
    let server = HttpEverything::start().await;
    let limits = McpLimits::default().with_max_result_bytes(8000);
    let options = McpClientOptions::default().with_limits(limits);
    let client = McpClient::connect_with("ev", McpServerConfig::http(&server.url), options)
        .await
        .expect("the server answers");
    let ctx = ToolContext::new();
    let started = Instant::now();
    let long = "a".repeat(9000);
    let error = client
        .call("echo", json!({"message": long}), &ctx)
        .await
        .unwrap_err();
    // A liveness bound, generous for a loaded machine.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(
        error
            .to_string()
            .contains("more than 8000 bytes, the limit `max_result_bytes`"),
        "{error}"
    );
    // The client reaches the server again; a short answer comes through.
    let echoed = client.call("echo", json!({"message": "short"}), &ctx).await;
    assert_eq!(text(echoed.expect("the echo answers")), "Echo: short");
    client.close().await;
}

// ------------------------------------------------ the stateless revision

/// Says hello.
#[tool(register = false)]
fn hello() -> &'static str {
    "hello"
}

/// In the 2026-07-28 revision (`server/discover`, no session), a change of
/// the server's tools reaches the client through the `subscriptions/listen`
/// request it keeps open, over stdio's sibling transport, streamable HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discovering_client_follows_tool_changes_through_a_subscription() {
    use tool_mcp::server::McpServer;

    let live = LiveRegistry::new(Registry::builder().tool(RemoteTool).build().unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(McpServer::new(live.clone()).serve_http(listener, shutdown.clone()));

    let options = McpClientOptions::default().with_protocol(McpProtocol::Discover);
    let client = McpClient::connect_with("modern", McpServerConfig::http(&url), options)
        .await
        .expect("connects with server/discover");
    assert_eq!(client.protocol_version().as_deref(), Some("2026-07-28"));
    let mut tools = client.watch_tools();
    tools.borrow_and_update();

    live.insert(HelloTool).unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        while !tools
            .borrow_and_update()
            .iter()
            .any(|tool| tool.name == "hello")
        {
            tools.changed().await.unwrap();
        }
    })
    .await
    .expect("the new tool reaches the client");
    let output = client.call("hello", json!({}), &ToolContext::new()).await;
    assert_eq!(text(output.unwrap()), "hello");

    // Subscribed by now: a later change comes as a notification.
    assert!(live.remove("hello"));
    tokio::time::timeout(Duration::from_secs(10), async {
        while tools
            .borrow_and_update()
            .iter()
            .any(|tool| tool.name == "hello")
        {
            tools.changed().await.unwrap();
        }
    })
    .await
    .expect("the removal reaches the client");

    client.close().await;
    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

/// `auto` asks `server/discover` first; a server of the revisions with
/// sessions (`misbehaving_server.py`, which knows `initialize` only) refuses it, and the client falls back to the
/// `initialize` handshake. Pinned to 2026-07-28, the same server is refused
/// with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_falls_back_to_initialize_and_a_pinned_client_is_refused() {
    let options = McpClientOptions::default().with_protocol(McpProtocol::Auto);
    let client = McpClient::connect_with("legacy", misbehaving("deep"), options)
        .await
        .expect("falls back to initialize");
    let version = client.protocol_version().expect("connected");
    assert_ne!(version, "2026-07-28");
    let output = client
        .call("echo", json!({"message": "hi"}), &ToolContext::new())
        .await;
    assert_eq!(text(output.unwrap()), "echo: hi");
    client.close().await;

    let options = McpClientOptions::default().with_protocol(McpProtocol::Discover);
    let Err(error) = McpClient::connect_with("legacy", misbehaving("deep"), options).await else {
        panic!("a legacy server cannot be pinned to 2026-07-28");
    };
    assert_eq!(error.kind(), McpClientErrorKind::Connect, "{error}");
}

// ------------------------------------------------------ calls as tasks

/// Sleeps `ms` milliseconds, then echoes `text`: its calls may run as
/// tasks.
#[tool(register = false, task)]
async fn slow_echo(text: String, ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    text
}

/// Panics: as a task, it fails.
#[tool(register = false, task)]
fn falls_over() -> String {
    panic!("fell over")
}

/// Adds two numbers; its calls never run as tasks.
#[tool(register = false)]
fn plus(a: i64, b: i64) -> i64 {
    a + b
}

/// Our own server over streamable HTTP on a loopback port, serving the task
/// tools with `tasks` (or none): its URL, and what stops it.
async fn task_server(
    tasks: Option<tool_tasks::Tasks>,
) -> (
    String,
    CancellationToken,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    use tool_mcp::server::McpServer;

    let registry = Registry::builder()
        .tool(SlowEchoTool)
        .tool(FallsOverTool)
        .tool(PlusTool)
        .build()
        .unwrap();
    let mut server = McpServer::new(registry);
    if let Some(tasks) = tasks {
        server = server.with_tasks(tasks);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(server.serve_http(listener, shutdown.clone()));
    (url, shutdown, serving)
}

/// Our client calls tools of our own server as tasks, in both eras: the
/// call comes back at once as a working task, `get_task` reads it,
/// `task_result` waits for its result, `cancel_task` stops one, a failed
/// task's error and a cancelled task come back as errors of their kind, a
/// tool whose calls never run as tasks answers in the request, and the
/// client's plain calls stay plain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_calls_our_servers_tools_as_tasks() {
    use tool_mcp::client::{McpProtocol, McpTaskCall};
    use tool_tasks::{TaskOptions, TaskStatus, Tasks};

    let options = TaskOptions::default().with_poll_interval(Duration::from_millis(10));
    let (url, shutdown, serving) =
        task_server(Some(Tasks::in_memory().with_options(options))).await;
    for protocol in [McpProtocol::Initialize, McpProtocol::Discover] {
        let options = McpClientOptions::default().with_protocol(protocol);
        let client = McpClient::connect_with("own", McpServerConfig::http(&url), options)
            .await
            .expect("connects");
        let ctx = ToolContext::new();

        let args = json!({"text": "hi", "ms": 50});
        let Ok(McpTaskCall::Task(task)) = client.call_as_task("slow_echo", args.clone()).await
        else {
            panic!("{protocol:?}: the call becomes a task");
        };
        assert_eq!(task.status, TaskStatus::Working, "{protocol:?}");
        assert_eq!(task.id.len(), 32);
        assert_eq!(task.poll_interval, Some(Duration::from_millis(10)));
        assert_eq!(task.ttl, Some(Duration::from_secs(3600)));
        assert!(task.result.is_none() && task.error.is_none());
        let read = client.get_task(&task.id).await.expect("the task is read");
        assert_eq!(read.id, task.id);
        let result = client.task_result(&task.id, &ctx).await;
        assert_eq!(
            text(result.expect("the task's result")),
            "hi",
            "{protocol:?}"
        );
        let done = client.get_task(&task.id).await.unwrap();
        assert_eq!(done.status, TaskStatus::Completed);
        assert_eq!(text(done.result.expect("a completed task's result")), "hi");

        // Cancelled: the wait ends with the task cancelled.
        let args = json!({"text": "never", "ms": 60_000});
        let Ok(McpTaskCall::Task(long)) = client.call_as_task("slow_echo", args).await else {
            panic!("{protocol:?}: the long call becomes a task");
        };
        client
            .cancel_task(&long.id)
            .await
            .expect("cancel is acknowledged");
        let cancelled = client.wait_task(&long.id, &ctx).await.unwrap();
        assert_eq!(cancelled.status, TaskStatus::Cancelled, "{protocol:?}");
        let error = client.task_result(&long.id, &ctx).await.unwrap_err();
        assert_eq!(error.kind(), McpClientErrorKind::Cancelled, "{error}");

        // Failed: the server's error, as a protocol error.
        let Ok(McpTaskCall::Task(failing)) = client.call_as_task("falls_over", json!({})).await
        else {
            panic!("{protocol:?}: the panicking call becomes a task");
        };
        let failed = client.wait_task(&failing.id, &ctx).await.unwrap();
        assert_eq!(failed.status, TaskStatus::Failed);
        assert_eq!(failed.error.as_ref().map(|e| e.code), Some(-32603));
        let error = client.task_result(&failing.id, &ctx).await.unwrap_err();
        assert_eq!(error.kind(), McpClientErrorKind::Protocol, "{error}");
        assert!(error.to_string().contains("failed"), "{error}");

        // The server decides: a tool whose calls never run as tasks
        // answers in the request.
        let answered = client.call_as_task("plus", json!({"a": 2, "b": 3})).await;
        let Ok(McpTaskCall::Done(output)) = answered else {
            panic!("{protocol:?}: answered in the request: {answered:?}");
        };
        let called = client.call("plus", json!({"a": 2, "b": 3}), &ctx).await;
        assert_eq!(output, called.unwrap(), "as `call` gives it");
        // A plain call of a task tool stays a plain call.
        let plain = client.call("slow_echo", json!({"text": "plain", "ms": 0}), &ctx);
        assert_eq!(text(plain.await.expect("a plain call")), "plain");

        // Answers to a task that waits for none are acknowledged (and
        // ignored); an unknown task is the server's error.
        let answers = json!({"nothing": {"action": "decline"}});
        let answers = answers.as_object().unwrap().clone();
        client
            .update_task(&task.id, answers)
            .await
            .expect("acknowledged");
        let unknown = client.get_task("no-such-task").await.unwrap_err();
        assert_eq!(unknown.kind(), McpClientErrorKind::Protocol, "{unknown}");
        assert!(unknown.to_string().contains("no task"), "{unknown}");
        let stopped = CancellationToken::new();
        stopped.cancel();
        let waiting = client
            .wait_task(&long.id, &ToolContext::new().with_cancellation(stopped))
            .await;
        assert_eq!(waiting.unwrap_err().kind(), McpClientErrorKind::Cancelled);
        client.close().await;
    }
    shutdown.cancel();
    serving.await.unwrap().unwrap();

    // A server that serves no tasks: the call is refused before it is sent.
    let (url, shutdown, serving) = task_server(None).await;
    let client = McpClient::connect("plain", McpServerConfig::http(&url))
        .await
        .unwrap();
    let refused = client
        .call_as_task("slow_echo", json!({"text": "x", "ms": 0}))
        .await;
    let error = refused.unwrap_err();
    assert_eq!(error.kind(), McpClientErrorKind::Protocol, "{error}");
    assert!(error.to_string().contains("serves no tasks"), "{error}");
    client.close().await;
    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

// ------------------------------------------- the server asks the caller

/// Asks the caller's name, then greets them.
#[tool(register = false)]
async fn greet_asked(ctx: &ToolContext) -> Result<String, ToolError> {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let answer = ctx.elicit_with_schema("Your name?", schema).await?;
    Ok(match answer {
        tool_runtime::context::Elicitation::Accepted(answer) => {
            format!("hello {}", answer["name"].as_str().unwrap_or("?"))
        }
        other => format!("no name: {}", other.action()),
    })
}

/// The caller's user: answers the one question it expects (`message`)
/// with `answer`, and counts how often it was asked.
struct User {
    message: &'static str,
    answer: Value,
    asked: std::sync::atomic::AtomicUsize,
}

impl User {
    fn new(message: &'static str, answer: Value) -> Self {
        Self {
            message,
            answer,
            asked: Default::default(),
        }
    }

    fn asked(&self) -> usize {
        self.asked.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl tool_runtime::context::ClientRequests for User {
    fn sample(
        &self,
        _: tool_runtime::context::SamplingRequest,
    ) -> tool_runtime::context::ClientFuture<'_, tool_runtime::context::SamplingResponse> {
        Box::pin(async { Err(ToolError::new("no model here")) })
    }

    fn elicit(
        &self,
        request: tool_runtime::context::ElicitationRequest,
    ) -> tool_runtime::context::ClientFuture<'_, tool_runtime::context::Elicitation<Value>> {
        assert_eq!(request.message, self.message);
        self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let answer = self.answer.clone();
        Box::pin(async { Ok(tool_runtime::context::Elicitation::Accepted(answer)) })
    }
}

/// What a server asks while its tool runs goes to the caller, through the
/// call's context: in the `initialize` era as a request on the call's
/// stream, in 2026-07-28 as an `input_required` result the client answers
/// by calling again. A call whose context has no client to ask fails,
/// saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_server_asks_during_a_call_goes_to_the_caller() {
    use std::sync::Arc;
    use tool_mcp::server::McpServer;

    let registry = Registry::builder().tool(GreetAskedTool).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(McpServer::new(registry).serve_http(listener, shutdown.clone()));

    for protocol in [McpProtocol::Initialize, McpProtocol::Discover] {
        let options = McpClientOptions::default()
            .with_protocol(protocol)
            .with_forward_requests(true);
        let client = McpClient::connect_with("asking", McpServerConfig::http(&url), options)
            .await
            .expect("connects");
        let ada = Arc::new(User::new("Your name?", json!({"name": "Ada"})));
        let ctx = ToolContext::new().with_client(ada.clone());
        let output = client.call("greet_asked", json!({}), &ctx).await;
        assert_eq!(text(output.expect("answered")), "hello Ada", "{protocol:?}");
        assert_eq!(ada.asked(), 1);

        // Nobody to ask: the call fails (2026-07-28), or the tool hears
        // that its question was refused (initialize).
        let outcome = client
            .call("greet_asked", json!({}), &ToolContext::new())
            .await;
        let said = match outcome {
            Ok(output) => output.into_result("c").text_content(),
            Err(error) => error.to_string(),
        };
        assert!(said.contains("no client to ask"), "{protocol:?}: {said}");
        client.close().await;
    }
    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

// ------------------------------------------- resources, prompts, completion

/// The workspace's `conformance-server` example (`CONFORMANCE_SERVER`, else
/// target/debug/conformance-server, which `cargo test --workspace` builds).
fn conformance_server() -> McpServerConfig {
    let path = std::env::var_os("CONFORMANCE_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/debug/conformance-server"));
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p examples --bin conformance-server`",
        path.display()
    );
    McpServerConfig::stdio(path.to_string_lossy(), Vec::<String>::new())
}

/// The conformance server over streamable HTTP, on the port it chose (as
/// it says on stderr); killed when dropped.
struct HttpConformance {
    child: std::process::Child,
    url: String,
}

impl HttpConformance {
    fn start() -> Self {
        use std::io::BufRead;
        let McpServerConfig::Stdio { command, .. } = conformance_server() else {
            unreachable!("a command")
        };
        let mut child = Command::new(command)
            .args(["--http", "127.0.0.1:0"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("conformance-server starts");
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr
            .read_line(&mut line)
            .expect("it says where it listens");
        let url = line
            .trim()
            .strip_prefix("conformance-server: ")
            .unwrap_or_else(|| panic!("its address, not {line:?}"))
            .to_owned();
        HttpConformance { child, url }
    }
}

impl Drop for HttpConformance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The conformance server over stdio and over HTTP, each in both eras.
fn conformance_connections(http: &HttpConformance) -> Vec<(McpServerConfig, McpProtocol)> {
    let configs = [conformance_server(), McpServerConfig::http(&http.url)];
    configs
        .into_iter()
        .flat_map(|config| {
            [McpProtocol::Initialize, McpProtocol::Discover]
                .map(|protocol| (config.clone(), protocol))
        })
        .collect()
}

/// The conformance server's resources through the client, over stdio and
/// HTTP in both eras:
/// listed (fixed ones and templates), read as text, as bytes and through a
/// template, a template's variable completed, and an unknown URI refused
/// with the server's words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_resources_are_listed_read_and_completed() {
    use tool_mcp::resources::Body;

    let http = HttpConformance::start();
    for (config, protocol) in conformance_connections(&http) {
        let protocol = (protocol, config.describe());
        let options = McpClientOptions::default().with_protocol(protocol.0);
        let client = McpClient::connect_with("conformance", config, options)
            .await
            .expect("connects");
        let resources = client.list_resources().await.expect("listed");
        let text_resource = resources
            .iter()
            .find(|resource| resource.uri == "test://static-text")
            .unwrap_or_else(|| panic!("{protocol:?}: {resources:?}"));
        assert_eq!(text_resource.name, "static-text");
        assert_eq!(text_resource.mime_type.as_deref(), Some("text/plain"));
        assert_eq!(
            text_resource.description.as_deref(),
            Some("A static text resource")
        );
        let templates = client.list_resource_templates().await.expect("listed");
        let template = templates
            .iter()
            .find(|template| template.name == "template-data")
            .unwrap_or_else(|| panic!("{protocol:?}: {templates:?}"));
        assert_eq!(template.uri_template, "test://template/{id}/data");

        let ctx = ToolContext::new();
        let read = client
            .read_resource("test://static-text", &ctx)
            .await
            .expect("read");
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].uri, "test://static-text");
        assert_eq!(
            read[0].body,
            Body::Text("This is the content of the static text resource.".into())
        );
        let binary = client
            .read_resource("test://static-binary", &ctx)
            .await
            .expect("read");
        let Body::Blob(bytes) = &binary[0].body else {
            panic!("{protocol:?}: a blob, not {:?}", binary[0].body);
        };
        assert_eq!(
            &bytes[..8],
            b"\x89PNG\r\n\x1a\n",
            "the PNG's bytes, decoded"
        );
        assert_eq!(binary[0].mime_type.as_deref(), Some("image/png"));
        let data = client
            .read_resource("test://template/42/data", &ctx)
            .await
            .expect("read through the template");
        let Body::Text(json) = &data[0].body else {
            panic!("text")
        };
        let json: Value = serde_json::from_str(json).unwrap();
        assert_eq!(json["id"], "42");

        let completion = client
            .complete_resource(
                "test://template/{id}/data",
                "id",
                "4",
                &Default::default(),
                &ctx,
            )
            .await
            .expect("completed");
        assert!(completion.values.is_empty(), "no completer: {completion:?}");

        let error = client
            .read_resource("test://nowhere", &ctx)
            .await
            .expect_err("not found");
        assert_eq!(error.kind(), McpClientErrorKind::Protocol, "{error}");
        assert!(
            error.to_string().contains("Resource not found"),
            "{protocol:?}: {error}"
        );
        client.close().await;
    }
}

/// The conformance server's prompts through the client, over stdio and
/// HTTP in both eras:
/// listed with their arguments, got with arguments (text, an image, an
/// embedded resource), an argument completed, a missing argument and an
/// unknown prompt refused; a prompt that asks the caller first is answered
/// through the context's client (in 2026-07-28 by `input_required`); and a
/// change of the prompts reaches `watch_content`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_prompts_are_listed_got_and_completed() {
    use std::sync::Arc;
    use tool_mcp::prompts::PromptArguments;

    let http = HttpConformance::start();
    for (config, protocol) in conformance_connections(&http) {
        let protocol = (protocol, config.describe());
        let options = McpClientOptions::default()
            .with_protocol(protocol.0)
            .with_forward_requests(true);
        let client = McpClient::connect_with("conformance", config, options)
            .await
            .expect("connects");
        let prompts = client.list_prompts().await.expect("listed");
        let with_arguments = prompts
            .iter()
            .find(|prompt| prompt.name == "test_prompt_with_arguments")
            .unwrap_or_else(|| panic!("{protocol:?}: {prompts:?}"));
        let arguments: Vec<(&str, bool)> = with_arguments
            .arguments
            .iter()
            .map(|argument| (argument.name.as_ref(), argument.required))
            .collect();
        assert_eq!(arguments, [("arg1", true), ("arg2", true)]);

        let ctx = ToolContext::new();
        let mut given = PromptArguments::new();
        given.insert("arg1", "one");
        given.insert("arg2", "two");
        let got = client
            .get_prompt("test_prompt_with_arguments", &given, &ctx)
            .await
            .expect("got");
        assert_eq!(got.messages.len(), 1);
        assert_eq!(
            got.messages[0].content,
            Content::Text("Prompt with arguments: arg1='one', arg2='two'".into())
        );
        let image = client
            .get_prompt("test_prompt_with_image", &PromptArguments::new(), &ctx)
            .await
            .expect("got");
        assert!(
            matches!(image.messages[0].content, Content::Image(_)),
            "{:?}",
            image.messages[0].content
        );
        let mut uri = PromptArguments::new();
        uri.insert("resourceUri", "test://embedded");
        let embedded = client
            .get_prompt("test_prompt_with_embedded_resource", &uri, &ctx)
            .await
            .expect("got");
        let Content::Resource(resource) = &embedded.messages[0].content else {
            panic!("an embedded resource: {:?}", embedded.messages[0].content);
        };
        assert_eq!(resource.uri, "test://embedded");

        let completion = client
            .complete_prompt(
                "test_prompt_with_arguments",
                "arg1",
                "par",
                &Default::default(),
                &ctx,
            )
            .await
            .expect("completed");
        assert_eq!(completion.values, ["paris", "park", "party"]);

        let mut half = PromptArguments::new();
        half.insert("arg1", "one");
        let error = client
            .get_prompt("test_prompt_with_arguments", &half, &ctx)
            .await
            .expect_err("arg2 is required");
        assert_eq!(error.kind(), McpClientErrorKind::Protocol, "{error}");
        assert!(error.to_string().contains("arg2"), "{error}");
        let error = client
            .get_prompt("no_such_prompt", &PromptArguments::new(), &ctx)
            .await
            .expect_err("unknown");
        assert!(error.to_string().contains("Prompt not found"), "{error}");

        let asked = Arc::new(User::new(
            "What context should the prompt use?",
            json!({"context": "tests"}),
        ));
        let ctx = ToolContext::new().with_client(asked.clone());
        let got = client
            .get_prompt(
                "test_input_required_result_prompt",
                &PromptArguments::new(),
                &ctx,
            )
            .await
            .expect("answered through the context's client");
        assert_eq!(
            got.messages[0].content,
            Content::Text("Prompt with context: tests".into()),
            "{protocol:?}"
        );
        assert_eq!(asked.asked(), 1);

        // The server's word that its prompts changed reaches the watch.
        let mut changes = client.watch_content();
        changes.borrow_and_update();
        let toggled = |prompts: &[tool_mcp::client::McpPrompt]| {
            prompts
                .iter()
                .any(|prompt| prompt.name == "test_toggled_prompt")
        };
        let before = toggled(&client.list_prompts().await.unwrap());
        client
            .call("test_trigger_prompt_change", json!({}), &ToolContext::new())
            .await
            .expect("the prompts change");
        tokio::time::timeout(Duration::from_secs(10), changes.changed())
            .await
            .unwrap_or_else(|_| panic!("{protocol:?}: the change is told"))
            .unwrap();
        assert_ne!(toggled(&client.list_prompts().await.unwrap()), before);
        client.close().await;
    }
}

/// The lists of resources, templates and prompts are bounded as the tool
/// list is: one over its count limit is refused, naming the limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_of_resources_and_prompts_over_their_limits_are_refused() {
    let limits = McpLimits::default()
        .with_max_prompts(2)
        .with_max_resources(1)
        .with_max_resource_templates(1);
    let options = McpClientOptions::default().with_limits(limits);
    let client = McpClient::connect_with("conformance", conformance_server(), options)
        .await
        .expect("connects");
    let error = client.list_prompts().await.expect_err("over max_prompts");
    assert_eq!(error.kind(), McpClientErrorKind::Limit, "{error}");
    assert!(error.to_string().contains("`max_prompts`"), "{error}");
    let error = client
        .list_resources()
        .await
        .expect_err("over max_resources");
    assert_eq!(error.kind(), McpClientErrorKind::Limit, "{error}");
    assert!(error.to_string().contains("`max_resources`"), "{error}");
    // One template: within its limit.
    assert_eq!(client.list_resource_templates().await.unwrap().len(), 1);
    client.close().await;
}
