//! Under the sandbox, what a script calls stays in the sandbox:
//! `python_exec` runs its code there too, and the tools that reach an open
//! world are not offered unless the deployer names them.

use std::net::TcpListener;

use serde_json::{Value, json};
use tool_builtin::code_mode::{CodeMode, CodeModeTool};
use tool_runtime::{Registry, ToolContext, ToolUse, registry::Linked};

const BUILTINS: [&str; 7] = [
    "calculator",
    "current_time",
    "file_list",
    "file_read",
    "file_write",
    "http_request",
    "python_exec",
];

/// Every built-in tool, configured as a careless deployer might: the file
/// tools in `root`, `http_request` allowed to reach `port` on the
/// loopback address, and `python_exec` told not to use the sandbox.
fn builtins(root: &std::path::Path, port: u16) -> Registry {
    let files = json!({"root": root, "create_root": true});
    Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named(BUILTINS))
        .configure("file_list", files.clone())
        .configure("file_read", files.clone())
        .configure("file_write", files)
        .configure(
            "http_request",
            json!({"allowed_hosts": [format!("127.0.0.1:{port}")], "timeout_ms": 3000}),
        )
        .configure("python_exec", json!({"sandbox": false}))
        .config_from_env(false)
        .build()
        .expect("the built-in tools")
}

/// Whether the sandbox can be made here; says why not when it cannot.
fn sandbox_allowed() -> bool {
    #[cfg(target_os = "linux")]
    {
        crate::namespaces()
            .map_err(|reason| eprintln!("{reason}: skipping this sandbox test"))
            .is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        eprintln!("no Linux namespaces here: skipping this sandbox test");
        false
    }
}

/// The names of the functions a script of `tool` may call.
fn offered(tool: &CodeModeTool) -> Vec<String> {
    tool.signatures()
        .map(|signature| {
            let name = signature.strip_prefix("def ").unwrap_or_default();
            name[..name.find('(').unwrap_or(0)].to_owned()
        })
        .collect()
}

/// What the script runs in `python_exec` (and itself): connect to the
/// listener, and count the processes in sight.
const PROBE: &str = r#"
import json, os, socket
seen = {"pids": len([p for p in os.listdir("/proc") if p.isdigit()])}
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
    seen["net"] = "connected"
except OSError as error:
    seen["net"] = str(error)
print(json.dumps(seen))
"#;

/// Calls every tool it is offered, whatever it is: each answer (or error)
/// by tool, and what the script and `python_exec` saw.
const SCRIPT: &str = r#"
import json
probe = PROBE
exec(probe.replace("print(", "result = ("))
seen = {"script": json.loads(result)}
calls = {
    "calculator": lambda: calculator(expression="6 * 7"),
    "current_time": lambda: current_time(),
    "file_write": lambda: file_write(path="a.txt", content="x"),
    "file_read": lambda: file_read(path="a.txt"),
    "file_list": lambda: file_list(),
    "python_exec": lambda: json.loads(python_exec(code=probe)["stdout"]),
    "http_request": lambda: http_request(url="http://127.0.0.1:PORT/"),
}
assert set(OFFERED) <= set(calls), OFFERED
for name in [name for name in calls if name in OFFERED]:
    try:
        seen[name] = calls[name]()
    except ToolCallError as error:
        seen[name] = {"error": str(error)}
print(json.dumps(seen, default=str))
"#;

async fn run(tool: CodeModeTool, port: u16) -> Value {
    let offered = offered(&tool);
    let script = SCRIPT
        .replace("PROBE", &format!("{:?}", PROBE))
        .replace("OFFERED", &json!(offered).to_string())
        .replace("PORT", &port.to_string());
    let outer = Registry::builder().tool(tool).build().unwrap();
    let result = outer
        .invoke(
            ToolUse::new("sb", "code_mode", json!({"script": script})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{}", result.text_content());
    let run: Value = serde_json::from_str(&result.text_content()).unwrap();
    let stdout = run["stdout"].as_str().unwrap_or_default();
    serde_json::from_str(stdout).unwrap_or_else(|error| panic!("{error}: {run}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_scripts_tools_reach_no_network_and_see_no_other_process() {
    if !crate::have_python("code_mode") || !sandbox_allowed() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = tempfile::tempdir().unwrap();
    let tool = CodeMode::new(builtins(root.path(), port))
        .sandbox(true)
        .build()
        .unwrap();
    let offered = offered(&tool);
    let seen = run(tool, port).await;
    eprintln!("{seen:#}");
    // Every offered tool answered.
    for name in [
        "calculator",
        "current_time",
        "file_write",
        "file_read",
        "file_list",
    ] {
        assert!(seen[name].get("error").is_none(), "{name}: {seen}");
    }
    for who in ["script", "python_exec"] {
        let net = seen[who]["net"].as_str().unwrap();
        assert_ne!(
            net, "connected",
            "{who} reached the loopback listener: {seen}"
        );
        let pids = seen[who]["pids"].as_u64().unwrap();
        assert!(pids <= 5, "{who} sees {pids} processes: {seen}");
    }
    // Nothing connected to the listener.
    match listener.accept() {
        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener accepted a connection: {other:?}"),
    }
    // http_request reaches an open world from the agent's process: it is
    // not offered. python_exec is, and runs in the sandbox.
    assert_eq!(
        offered,
        [
            "calculator",
            "current_time",
            "file_list",
            "file_read",
            "file_write",
            "python_exec"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deployer_may_offer_an_open_world_tool_to_a_sandboxed_script() {
    if !crate::have_python("code_mode") || !sandbox_allowed() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = tempfile::tempdir().unwrap();
    // Named in the allowlist alone, it is refused, saying why.
    let error = CodeMode::new(builtins(root.path(), port))
        .tools(["calculator", "http_request"])
        .sandbox(true)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("\"http_request\"") && error.contains("open_world_tools"),
        "{error}"
    );
    // Named in open_world_tools, it is offered, and runs outside.
    let tool = CodeMode::new(builtins(root.path(), port))
        .tools(["http_request"])
        .open_world_tools(["http_request"])
        .sandbox(true)
        .build()
        .unwrap();
    assert_eq!(offered(&tool), ["http_request"]);
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0; 1024];
        let _ = std::io::Read::read(&mut stream, &mut request);
        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok";
        std::io::Write::write_all(&mut stream, answer).unwrap();
    });
    let seen = run(tool, port).await;
    server.join().unwrap();
    assert_eq!(seen["http_request"]["status"], 200, "{seen}");
    // Naming a tool the registry lacks is a mistake.
    let error = CodeMode::new(builtins(root.path(), port))
        .open_world_tools(["fetch"])
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("\"fetch\""), "{error}");
}
