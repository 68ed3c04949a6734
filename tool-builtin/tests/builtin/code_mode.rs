//! `code_mode`: real scripts calling tools through the bridge. Each test
//! runs in `python_exec`'s sandbox where the kernel allows its namespaces
//! and without it otherwise, saying so; skipped, with a notice, where no
//! Python 3 is installed.

mod backpressure;
mod sandboxed;
mod signatures;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tool_builtin::code_mode::CodeMode;
use tool_runtime::{
    Registry, ToolContext, ToolError, ToolUse, context::Approval, context::Approver, tool,
};

fn have_python() -> bool {
    crate::have_python("code_mode")
}

/// Converts a length between metres, kilometres and miles.
#[tool(register = false)]
fn convert_length(
    /// The length to convert.
    value: f64,
    /// The unit it is in: "m", "km" or "mile".
    from: String,
    /// The unit wanted.
    #[tool(default = "m")]
    to: String,
) -> Result<Value, ToolError> {
    let metres = |unit: &str| match unit {
        "m" => Ok(1.0),
        "km" => Ok(1000.0),
        "mile" => Ok(1609.344),
        other => Err(ToolError::new(format!("unknown unit {other:?}"))),
    };
    let result = value * metres(&from)? / metres(&to)?;
    Ok(json!({"value": result, "unit": to}))
}

/// Shouts: a tool whose name is one of Python's built-ins.
#[tool(register = false)]
fn compile(text: String) -> String {
    text.to_uppercase()
}

/// A long text, longer than the model may see of it.
#[tool(register = false, result_limit = "200")]
fn long_text(lines: usize) -> String {
    (0..lines).map(|i| format!("line {i}\n")).collect()
}

/// Deletes a file (needs approval).
#[tool(register = false, needs_approval)]
fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

/// Waits a little, then greets.
#[tool(register = false)]
async fn slow_greeting(name: String) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    format!("hello {name}")
}

/// Counts to `n`.
#[tool(register = false)]
fn count_to(n: u32) -> impl tool_runtime::events::Stream<Item = u32> {
    tool_runtime::stream! {
        for i in 1..=n {
            tokio::task::yield_now().await;
            yield i;
        }
    }
}

/// Sleeps for `ms` milliseconds and says how many calls sleep at once.
#[tool(register = false)]
async fn nap(ms: u64, #[tool(inject)] running: tool_runtime::State<Arc<Running>>) -> usize {
    let now = running.0.fetch_add(1, Ordering::SeqCst) + 1;
    running.1.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    running.0.fetch_sub(1, Ordering::SeqCst);
    now
}

/// How many `nap`s run now, and the most that ran at once.
#[derive(Default)]
struct Running(AtomicUsize, AtomicUsize);

fn tools() -> (Registry, Arc<Running>) {
    let running = Arc::new(Running::default());
    let registry = Registry::builder()
        .tool(ConvertLengthTool)
        .tool(DeleteFileTool)
        .tool(SlowGreetingTool)
        .tool(CountToTool)
        .tool(NapTool)
        .tool(CompileTool)
        .tool(LongTextTool)
        .state(Arc::clone(&running))
        .approver(Approver::new(|request| {
            if request.input["path"]
                .as_str()
                .is_some_and(|path| path.starts_with("/tmp/"))
            {
                Approval::Approve
            } else {
                Approval::reject("only files under /tmp/ may be deleted")
            }
        }))
        .build()
        .expect("the test tools");
    (registry, running)
}

/// Whether scripts run in the sandbox here: where this process may create
/// user, PID, mount and network namespaces (tried in a child, which then
/// runs `true`).
fn sandboxed() -> bool {
    #[cfg(target_os = "linux")]
    let allowed = crate::namespaces().is_ok();
    #[cfg(not(target_os = "linux"))]
    let allowed = false;
    if allowed {
        eprintln!("code_mode test: scripts run in python_exec's sandbox");
    } else {
        eprintln!(
            "code_mode test: this process may not create namespaces: scripts run without the sandbox"
        );
    }
    allowed
}

/// Runs `script` through a registry that offers `code_mode` made by
/// `make`, as the call "cm"; the run's JSON.
async fn run(make: impl FnOnce(CodeMode) -> CodeMode, script: &str) -> Value {
    let (tools, _) = tools();
    run_with(make(CodeMode::new(tools)), script).await
}

async fn run_with(code_mode: CodeMode, script: &str) -> Value {
    let tool = code_mode
        .sandbox(sandboxed())
        .build()
        .expect("the code_mode tool");
    let outer = Registry::builder().tool(tool).build().unwrap();
    let result = outer
        .invoke(
            ToolUse::new("cm", "code_mode", json!({"script": script})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{}", result.text_content());
    let run: Value = serde_json::from_str(&result.text_content()).unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&run).unwrap());
    run
}

#[tokio::test(flavor = "multi_thread")]
async fn a_script_calls_tools_in_a_loop_and_combines_their_results() {
    if !have_python() {
        return;
    }
    let script = r#"
total = 0.0
for value, unit in [(1, "km"), (2, "mile"), (500, "m")]:
    total += convert_length(value=value, from_=unit)["value"]
print(round(total, 3))
"#;
    let run = run(|c| c, script).await;
    assert_eq!(run["stdout"], "4718.688\n", "{run}");
    assert_eq!(run["exit_code"], 0);
    let calls = run["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 3);
    // Each call is its own record, its id and parent the script's call.
    let mut ids: Vec<&str> = calls
        .iter()
        .map(|call| call["id"].as_str().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, ["cm.1", "cm.2", "cm.3"]);
    for call in calls {
        assert_eq!(call["parent"], "cm");
        assert_eq!(call["tool"], "convert_length");
        assert_eq!(call["status"], "completed");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_validation_error_is_caught_in_python() {
    if !have_python() {
        return;
    }
    let script = r#"
try:
    convert_length(value="far", from_="m")
except ToolCallError as error:
    print("caught", error.kind, error.tool)
print(convert_length(2, "km", to="m")["value"])
"#;
    let run = run(|c| c, script).await;
    assert_eq!(
        run["stdout"], "caught invalid_arguments convert_length\n2000.0\n",
        "{run}"
    );
    assert_eq!(run["calls"][0]["status"], "failed");
    assert_eq!(run["calls"][0]["error_kind"], "invalid_arguments");
}

#[tokio::test(flavor = "multi_thread")]
async fn approval_is_asked_for_each_call() {
    if !have_python() {
        return;
    }
    let script = r#"
print(delete_file("/tmp/x"))
try:
    delete_file(path="/etc/passwd")
except ToolCallError as error:
    print(error.kind, "|", error)
"#;
    let run = run(|c| c, script).await;
    assert_eq!(
        run["stdout"],
        "deleted /tmp/x\nnot_approved | the call to delete_file was rejected: only files under /tmp/ may be deleted\n",
        "{run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_outside_the_allowlist_does_not_exist_in_the_script() {
    if !have_python() {
        return;
    }
    let (tools, _) = tools();
    let code_mode = CodeMode::new(tools).tools(["convert_length"]);
    let tool = code_mode.clone().build().unwrap();
    let signatures: Vec<String> = tool.signatures().collect();
    assert_eq!(signatures.len(), 1);
    let spec = tool_runtime::Tool::spec(&tool);
    assert!(!spec.description.contains("delete_file"));
    // The script's own limit (30 s by default) comes before the call's.
    assert_eq!(spec.timeout, Some(Duration::from_secs(35)));
    let script = r#"
try:
    delete_file(path="/tmp/x")
except NameError as error:
    print("NameError:", error)
"#;
    let run = run_with(code_mode, script).await;
    assert_eq!(
        run["stdout"], "NameError: name 'delete_file' is not defined\n",
        "{run}"
    );
    assert_eq!(run["calls"], json!([]));
    // Nor can the raw socket reach it.
    let error = CodeMode::new(tools_only())
        .tools(["nope"])
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("\"nope\""), "{error}");
}

fn tools_only() -> Registry {
    tools().0
}

#[tokio::test(flavor = "multi_thread")]
async fn the_time_limit_stops_the_script() {
    if !have_python() {
        return;
    }
    let script = "import time\nprint('started', flush=True)\nwhile True:\n    time.sleep(0.05)\n";
    let started = std::time::Instant::now();
    let run = run(|c| c.timeout(Duration::from_millis(800)), script).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(run["limit"], "timeout", "{run}");
    assert_eq!(run["killed"], true);
    assert_eq!(run["stdout"], "started\n");
    assert!(run["error"].as_str().unwrap().contains("800 ms"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_call_limit_fails_later_calls() {
    if !have_python() {
        return;
    }
    let script = r#"
done = 0
for i in range(5):
    try:
        convert_length(value=i, from_="m")
        done += 1
    except ToolCallError as error:
        print(error.kind, error)
        break
print("done", done)
"#;
    let run = run(|c| c.max_calls(3), script).await;
    assert_eq!(
        run["stdout"], "limit this script may make at most 3 tool calls\ndone 3\n",
        "{run}"
    );
    assert_eq!(run["limit"], "calls");
    assert_eq!(run["calls"].as_array().unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn async_and_streaming_tools_answer_the_script() {
    if !have_python() {
        return;
    }
    let script = "print(slow_greeting('ada'))\nprint(count_to(n=3))\nprint(compile(text='ok'))\nprint(len(long_text(lines=100).splitlines()))\n";
    let run = run(|c| c, script).await;
    assert_eq!(run["stdout"], "hello ada\n3\nOK\n100\n", "{run}");
    // The model would see a cut text; the script read the whole.
    let direct = tools_only()
        .invoke(
            ToolUse::new("x", "long_text", json!({"lines": 100})),
            &ToolContext::new(),
        )
        .await;
    assert!(direct.full_result.is_some() && direct.text_content().len() <= 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_from_threads_run_at_most_the_limit_at_once() {
    if !have_python() {
        return;
    }
    let (tools, running) = tools();
    let script = r#"
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(6) as pool:
    seen = list(pool.map(lambda _: nap(ms=150), range(6)))
print(len(seen), max(seen))
"#;
    let run = run_with(CodeMode::new(tools).max_concurrent_calls(2), script).await;
    assert_eq!(run["exit_code"], 0, "{run}");
    assert_eq!(run["stdout"], "6 2\n", "{run}");
    assert_eq!(running.1.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_uncaught_error_shows_the_script_line() {
    if !have_python() {
        return;
    }
    let run = run(|c| c, "x = 1\nconvert_length(value=1, from_='parsec')\n").await;
    assert_eq!(run["exit_code"], 1, "{run}");
    let stderr = run["stderr"].as_str().unwrap();
    assert!(stderr.contains("File \"<script>\", line 2"), "{stderr}");
    assert!(
        stderr.contains("ToolCallError: unknown unit \"parsec\""),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_on_the_socket_gets_error_replies() {
    if !have_python() {
        return;
    }
    // The script writes to the bridge's socket itself, bypassing the
    // functions: lines that are no request, and an over-long one.
    let script = r#"
import json
b = globals()["convert_length"].__globals__["_bridge"]
b._socket.sendall(b"not json\n" + b"x" * 5000 + b"\n")
print(b.request({"tool": "delete_file", "arguments": {"path": "/tmp/a"}}, "t")["ok"])
print(b.request({"tool": "python_exec", "arguments": {}}, "t")["kind"])
print(convert_length(1, "km")["value"])
try:
    convert_length(value=1, from_="x" * 2000)
except ToolCallError as error:
    print(error.kind, error)
"#;
    let (tools, _) = tools();
    let code_mode = CodeMode::new(tools)
        .tools(["convert_length", "delete_file"])
        .options(tool_builtin::code_mode::CodeModeOptions {
            tools: Some(vec!["convert_length".into(), "delete_file".into()]),
            max_request_bytes: 1000,
            ..Default::default()
        });
    let run = run_with(code_mode, script).await;
    assert_eq!(
        run["stdout"],
        "True\nunknown_tool\n1000.0\nlimit the request is 2074 bytes of JSON, more than the limit of 1000\n",
        "{run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn large_registries_offer_search_tools() {
    if !have_python() {
        return;
    }
    let (tools, _) = tools();
    let options = tool_builtin::code_mode::CodeModeOptions {
        search_threshold: 2,
        shown_tools: 1,
        ..Default::default()
    };
    let code_mode = CodeMode::new(tools).options(options);
    let tool = code_mode.clone().build().unwrap();
    let description = &tool_runtime::Tool::spec(&tool).description;
    assert!(description.contains("def search_tools("), "{description}");
    // One tool shown, and search_tools.
    assert_eq!(description.matches("\ndef ").count(), 2, "{description}");
    let script = "found = search_tools('convert a length between units', limit=1)\nprint(found[0]['name'])\n";
    let run = run_with(code_mode, script).await;
    assert_eq!(run["stdout"], "convert_length\n", "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn scripts_run_without_the_sandbox_too() {
    if !have_python() {
        return;
    }
    eprintln!("code_mode test: this script runs without the sandbox");
    let tool = CodeMode::new(tools_only()).sandbox(false).build().unwrap();
    let outer = Registry::builder().tool(tool).build().unwrap();
    let script = "print(convert_length(value=3, from_='km')['value'], slow_greeting(name='bo'))";
    let result = outer
        .invoke(
            ToolUse::new("plain", "code_mode", json!({"script": script})),
            &ToolContext::new(),
        )
        .await;
    let run: Value = serde_json::from_str(&result.text_content()).unwrap();
    assert_eq!(run["stdout"], "3000.0 hello bo\n", "{run}");
    assert_eq!(run["calls"][0]["id"], "plain.1");
}

/// Writes a note, for callers granted `notes:write`.
#[tool(register = false, scopes("notes:write"))]
fn write_note(text: String) -> String {
    text
}

#[tokio::test]
async fn code_mode_needs_every_scope_its_tools_need() {
    use tool_runtime::context::Caller;
    use tool_runtime::{Tool, spec::ToolErrorKind};

    let registry = Registry::builder()
        .tool(ConvertLengthTool)
        .tool(WriteNoteTool)
        .require_scopes("convert_length", ["units", "notes:write"])
        .build()
        .unwrap();
    let tool = CodeMode::new(registry).build().unwrap();
    assert_eq!(*tool.spec().scopes, ["units", "notes:write"]);
    let outer = Registry::builder().tool(tool).build().unwrap();
    let caller = |scopes: &[&str]| {
        let caller = Caller::new("ada").with_scopes(scopes.iter().copied());
        ToolContext::new().with_caller(caller)
    };
    // A caller lacking one is not offered code mode, and cannot call it:
    // refused before any script runs.
    let narrow = caller(&["notes:write"]);
    assert_eq!(outer.specs_for(&narrow).count(), 0);
    let script = json!({"script": "print(write_note(text='hi'))"});
    let result = outer
        .invoke(ToolUse::new("1", "code_mode", script), &narrow)
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::InsufficientScope));
    assert!(result.text_content().contains("\"units\""), "{result:?}");
    let broad = caller(&["units", "notes:write"]);
    assert_eq!(outer.specs_for(&broad).count(), 1);
}

/// Records each span's tool name and parent: the spans of the calls a
/// script makes are children of the `code_mode` call's span.
mod spans {
    use std::sync::{Arc, Mutex};

    use tracing::Subscriber;
    use tracing::span::{Attributes, Id};
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::Context;
    use tracing_subscriber::registry::LookupSpan;

    /// A span's id, its tool (`gen_ai.tool.name`) and its parent's id.
    pub type Seen = (u64, String, Option<u64>);

    /// Makes every callsite interesting to every thread, whichever test
    /// reaches it first: a process-wide subscriber, then the cached
    /// interests rebuilt.
    ///
    /// tracing caches a callsite's interest when the callsite is first
    /// reached. While a single subscriber is registered (this test's,
    /// scoped to its thread), another test's thread that reaches a callsite
    /// first asks only its own default, which is none, and the callsite is
    /// cached as never enabled, for this test's thread too. A global
    /// subscriber interested in everything is always asked as well.
    pub fn interest_in_every_callsite() {
        static GLOBAL: std::sync::Once = std::sync::Once::new();
        GLOBAL.call_once(|| {
            tracing::subscriber::set_global_default(tracing_subscriber::registry())
                .expect("no other global subscriber in this test binary");
        });
        tracing::callsite::rebuild_interest_cache();
    }

    /// Each span seen.
    #[derive(Clone, Default)]
    pub struct Spans(pub Arc<Mutex<Vec<Seen>>>);

    struct ToolName(String);

    impl tracing::field::Visit for ToolName {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            if field.name() == "gen_ai.tool.name" {
                self.0 = format!("{value:?}");
            }
        }
    }

    impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
        fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
            let parent = ctx
                .span(id)
                .and_then(|span| span.parent())
                .map(|parent| parent.id().into_u64());
            let mut name = ToolName(String::new());
            attributes.record(&mut name);
            self.0.lock().unwrap().push((id.into_u64(), name.0, parent));
        }
    }
}

#[test]
fn the_spans_of_a_scripts_calls_are_children_of_its_span() {
    if !have_python() {
        return;
    }
    use tracing_subscriber::layer::SubscriberExt;
    spans::interest_in_every_callsite();
    let spans = spans::Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _default = tracing::subscriber::set_default(subscriber);
    // One thread: the subscriber above is this thread's.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let script = "convert_length(value=1, from_='km')\nprint(slow_greeting(name='x'))";
    let run = runtime.block_on(run(|c| c, script));
    assert_eq!(run["stdout"], "hello x\n", "{run}");
    let spans = spans.0.lock().unwrap();
    let script_span = spans
        .iter()
        .find(|(_, tool, _)| tool == "code_mode")
        .expect("the code_mode call's span")
        .0;
    for tool in ["convert_length", "slow_greeting"] {
        let (_, _, parent) = spans
            .iter()
            .find(|(_, name, _)| name == tool)
            .unwrap_or_else(|| panic!("no span for {tool}"));
        assert_eq!(*parent, Some(script_span), "{tool}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_scripts_record_traces_each_call() {
    if !have_python() {
        return;
    }
    let tool = CodeMode::new(tools_only())
        .sandbox(sandboxed())
        .build()
        .unwrap();
    let outer = Registry::builder().tool(tool).build().unwrap();
    let script = "convert_length(value=1, from_='km')\ntry:\n    delete_file(path='/etc/x')\nexcept ToolCallError:\n    pass\n";
    let (result, record) = outer
        .invoke_recorded(
            ToolUse::new("rec", "code_mode", json!({"script": script})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{}", result.text_content());
    let calls: Vec<(&str, &str)> = record
        .trace
        .iter()
        .map(|entry| (entry.step.as_str(), entry.message.as_str()))
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].0, "tool_call");
    assert!(
        calls[0].1.starts_with("rec.1 convert_length completed in "),
        "{calls:?}"
    );
    assert!(
        calls[1].1.starts_with("rec.2 delete_file failed in "),
        "{calls:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_the_call_stops_the_script() {
    if !have_python() {
        return;
    }
    eprintln!("code_mode test: this script runs without the sandbox, to be seen from here");
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let script = format!(
        "import os, time\nopen({:?}, 'w').write(str(os.getpid()))\nwhile True:\n    convert_length(value=1, from_='m')\n    time.sleep(0.01)\n",
        pid_file.display().to_string()
    );
    let tool = CodeMode::new(tools_only())
        .max_calls(100_000)
        .build()
        .unwrap();
    let outer = Registry::builder().tool(tool).build().unwrap();
    let token = tool_runtime::context::CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let started = std::time::Instant::now();
    let call = outer.invoke(
        ToolUse::new("c", "code_mode", json!({"script": script})),
        &ctx,
    );
    let cancel = async {
        while !pid_file.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel);
    assert_eq!(
        result.error_kind,
        Some(tool_runtime::spec::ToolErrorKind::Cancelled)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
    let gone = (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(10));
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid, 0) != 0 }
    });
    assert!(gone, "the script's process {pid} outlived the call");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_records_of_a_scripts_calls_name_its_call_as_parent() {
    if !have_python() {
        return;
    }
    let tool = CodeMode::new(tools_only())
        .sandbox(sandboxed())
        .build()
        .unwrap();
    let outer = Registry::builder().tool(tool).build().unwrap();
    let script = "convert_length(value=1, from_='km')\nconvert_length(value=2, from_='mile')\n";
    let (result, record) = outer
        .invoke_recorded(
            ToolUse::new("outer", "code_mode", json!({"script": script})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{}", result.text_content());
    // The code_mode call itself was made with a context of no call.
    assert_eq!(record.parent, None);
    assert!(
        serde_json::to_value(&record)
            .unwrap()
            .get("parent")
            .is_none()
    );
    // Each call the script made was made with the code_mode call's context,
    // and its record says so.
    let run: Value = serde_json::from_str(&result.text_content()).unwrap();
    let calls = run["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{run}");
    for call in calls {
        assert_eq!(call["parent"], "outer", "{run}");
    }
    // A call made directly has no parent.
    let (_, direct) = tools_only()
        .invoke_recorded(
            ToolUse::new("d", "convert_length", json!({"value": 1, "from": "km"})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(direct.parent, None);
}

#[test]
fn a_registry_builder_offers_code_mode_in_place_of_its_tools_or_beside_them() {
    use tool_builtin::code_mode::{CodeModeExt, CodeModeOffer, CodeModeOptions};
    let builder = Registry::builder()
        .tool(ConvertLengthTool)
        .tool(CompileTool);
    let options = CodeModeOptions {
        max_calls: 3,
        ..CodeModeOptions::default()
    };
    let in_place = builder
        .clone()
        .code_mode(options.clone(), CodeModeOffer::InPlace)
        .unwrap();
    assert_eq!(in_place.names().collect::<Vec<_>>(), ["code_mode"]);
    let description = &in_place.get("code_mode").unwrap().spec().description;
    assert!(
        description.contains("Limits: 3 tool calls"),
        "{description}"
    );
    assert!(description.contains("def convert_length("), "{description}");

    let beside = builder
        .clone()
        .code_mode(options, CodeModeOffer::Beside)
        .unwrap();
    let mut names: Vec<_> = beside.names().collect();
    names.sort_unstable();
    assert_eq!(names, ["code_mode", "compile", "convert_length"]);

    let refused = CodeModeOptions {
        max_calls: 0,
        ..CodeModeOptions::default()
    };
    let error = builder
        .code_mode(refused, CodeModeOffer::InPlace)
        .unwrap_err();
    assert_eq!(error.to_string(), "code mode: max_calls must be at least 1");
}

#[test]
fn a_registry_files_code_mode_section_is_read_with_its_mistakes_placed() {
    use tool_builtin::code_mode::{CodeModeOffer, CodeModeSection};
    use tool_manifest::Manifest;
    let text = "tools: []\ncode_mode:\n  offer: beside\n  max_calls: 3\n  tools: [convert_length]\n  python: {sandbox: true}\n";
    let manifest = Manifest::parse_with("tools.yaml", text, &[&CodeModeSection]).unwrap();
    assert!(manifest.problems().is_empty(), "{:?}", manifest.problems());
    let setting = manifest
        .section::<CodeModeSection>()
        .unwrap()
        .as_ref()
        .unwrap();
    assert_eq!(setting.offer, CodeModeOffer::Beside);
    assert_eq!(setting.options.max_calls, 3);
    assert_eq!(setting.options.max_concurrent_calls, 4);
    assert!(setting.options.python.sandbox);
    assert_eq!(
        setting.options.tools.as_deref(),
        Some(&["convert_length".to_owned()][..])
    );

    // Each mistake at its line and column, all at once.
    let text = "tools: []\ncode_mode:\n  max_calls: lots\n  offer: aside\n  max_cals: 3\n";
    let manifest = Manifest::parse_with("tools.yaml", text, &[&CodeModeSection]).unwrap();
    let problems: Vec<String> = manifest
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].starts_with("3:14: `code_mode`: invalid type"),
        "{problems:?}"
    );
    assert!(
        problems[1].starts_with("4:10: `offer` is `in_place`"),
        "{problems:?}"
    );
    assert!(
        problems[2].starts_with("5:3: `code_mode`: unknown field `max_cals`"),
        "{problems:?}"
    );
    assert_eq!(manifest.section::<CodeModeSection>(), Some(&None));

    // The section's schema is inline, with the options and `offer`.
    let schema = tool_manifest::Section::schema(&CodeModeSection);
    assert!(schema.get("$defs").is_none(), "{schema}");
    let offer = schema["properties"]["offer"].to_string();
    assert!(
        offer.contains("\"in_place\"") && offer.contains("\"beside\""),
        "{offer}"
    );
    assert_eq!(
        schema["properties"]["python"]["properties"]["sandbox"]["type"],
        "boolean"
    );
}

/// Calls `convert_length` with its own call's context; answers with that
/// call's record's parent.
#[tool(register = false)]
async fn relay(ctx: &ToolContext) -> String {
    let (_, record) = tools_only()
        .invoke_recorded(
            ToolUse::new("inner", "convert_length", json!({"value": 1, "from": "km"})),
            ctx,
        )
        .await;
    format!("{:?}", record.parent)
}

#[tokio::test]
async fn any_call_made_with_a_running_calls_context_is_its_child() {
    let outer = Registry::builder().tool(RelayTool).build().unwrap();
    let result = outer
        .invoke(ToolUse::new("r1", "relay", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), r#"Some("r1")"#);
}
