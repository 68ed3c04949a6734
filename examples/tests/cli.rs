//! The `toolbox` binary (`tool_cli` over the example tools), run as
//! a user runs it: arguments in, stdout, stderr and the exit code out.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

const TOOLBOX: &str = env!("CARGO_BIN_EXE_toolbox");

#[path = "cli/own_client.rs"]
mod own_client;
#[path = "cli/serve_auth.rs"]
mod serve_auth;
#[path = "cli/serve_http.rs"]
mod serve_http;
#[path = "cli/synopsis.rs"]
mod synopsis;
#[path = "cli/tasks.rs"]
mod tasks;

/// The command, with no `TOOL_*` configuration from the caller's
/// environment (the `search` tool is left out unless its key is set).
fn toolbox(args: &[&str]) -> Command {
    let mut command = Command::new(TOOLBOX);
    command.args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("TOOL_") {
            command.env_remove(key);
        }
    }
    command
}

fn run(args: &[&str]) -> Output {
    toolbox(args).output().expect("toolbox runs")
}

fn run_with_key(args: &[&str]) -> Output {
    toolbox(args)
        .env("TOOL_SEARCH_API_KEY", "secret-key-123")
        .output()
        .expect("toolbox runs")
}

fn run_with_stdin(args: &[&str], input: &str) -> Output {
    let mut child = toolbox(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolbox starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("stdin takes the input");
    child.wait_with_output().expect("toolbox ends")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("toolbox exits with a code")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("stdout is not JSON ({error}): {}", stdout(output)))
}

fn search_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("search")
}

#[test]
fn list_prints_a_table_of_the_tools() {
    let output = run(&["list"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["NAME", "SOURCE", "DESCRIPTION", "PARAMETERS"]);
    let convert = lines
        .iter()
        .find(|line| line.starts_with("convert_length "))
        .expect("a convert_length row");
    assert!(convert.contains("Convert a length from one unit to another."));
    // A linked tool's source is the module that defines it.
    assert_eq!(
        convert.split_whitespace().nth(1),
        Some("examples"),
        "{convert}"
    );
    assert!(convert.ends_with("value, from, to"), "{convert}");
    let weather = lines
        .iter()
        .find(|line| line.starts_with("weather_forecast "))
        .expect("a weather_forecast row");
    assert!(weather.ends_with("city, days?, unit?"), "{weather}");
    // Every row starts with a name, in name order.
    let names: Vec<&str> = lines[1..]
        .iter()
        .map(|line| line.split_whitespace().next().unwrap_or_default())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}

#[test]
fn list_marks_deprecated_tools_and_list_all_shows_withheld_ones() {
    let output = run(&["list"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let row = text
        .lines()
        .find(|line| line.starts_with("miles_to_km "))
        .expect("a miles_to_km row");
    assert!(row.contains("[deprecated: use convert_length]"), "{row}");
    let listed = json_out(&run(&["list", "--json"]));
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "miles_to_km")
        .expect("miles_to_km listed");
    assert_eq!(entry["deprecated"], "use convert_length");
    // A deprecated tool stays callable.
    let called = run(&["call", "miles_to_km", "--args", r#"{"miles": 1}"#]);
    assert_eq!(code(&called), 0, "{}", stderr(&called));

    // A registry file's requirement that is not met withholds the tool:
    // `list` leaves it out, `list --all` shows it and what is missing.
    let (_dir, file) = registry_file(
        "tools:\n  - miles_to_km\n  - name: convert_length\n    requires:\n      \
         env: TOOLBOX_TEST_NEVER_SET\n",
    );
    let listed = run(&["--registry", &file, "list"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    assert!(
        !stdout(&listed).contains("convert_length "),
        "{}",
        stdout(&listed)
    );
    let all = run(&["--registry", &file, "list", "--all"]);
    assert_eq!(code(&all), 0, "{}", stderr(&all));
    let text = stdout(&all);
    let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["NAME", "SOURCE", "DESCRIPTION", "PARAMETERS", "STATUS"]
    );
    let row = text
        .lines()
        .find(|line| line.starts_with("convert_length "))
        .expect("a convert_length row");
    assert!(
        row.ends_with("withheld: environment variable TOOLBOX_TEST_NEVER_SET is not set"),
        "{row}"
    );
    let json = json_out(&run(&["--registry", &file, "list", "--all", "--json"]));
    let statuses: Vec<(&str, &str)> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                tool["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (
                "convert_length",
                "withheld: environment variable TOOLBOX_TEST_NEVER_SET is not set"
            ),
            ("miles_to_km", "offered"),
        ]
    );
    let call = run(&[
        "--registry",
        &file,
        "call",
        "convert_length",
        "--args",
        "{}",
    ]);
    assert_ne!(code(&call), 0);
}

#[test]
fn list_notes_tools_left_out_for_their_configuration() {
    let output = run(&["list"]);
    assert!(!stdout(&output).contains("search"));
    assert!(
        stderr(&output).contains("tool \"search\" needs a configuration: api_key"),
        "{}",
        stderr(&output)
    );

    let configured = run_with_key(&["list"]);
    assert!(
        stdout(&configured)
            .lines()
            .any(|line| line.starts_with("search "))
    );
    assert_eq!(stderr(&configured), "");
}

#[test]
fn list_json_describes_each_tool_for_programs() {
    let output = run_with_key(&["list", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let tools = json_out(&output);
    let tools = tools.as_array().expect("an array");
    let find = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap_or_else(|| panic!("{name} is listed"))
    };
    let convert = find("convert_length");
    let params: Vec<&Value> = convert["parameters"].as_array().unwrap().iter().collect();
    assert_eq!(
        params.iter().map(|p| &p["name"]).collect::<Vec<_>>(),
        ["value", "from", "to"]
    );
    assert_eq!(params[0]["type"], "number");
    assert!(params.iter().all(|p| p["required"] == true));
    assert_eq!(convert["configurable"], false);
    assert_eq!(convert["source"], "examples");

    let document = find("process_document");
    let key_terms = document["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "key_terms")
        .expect("key_terms");
    assert_eq!(key_terms["required"], false);
    assert_eq!(key_terms["default"], 5);
    assert_eq!(document["annotations"]["readOnlyHint"], true);

    let search = find("search");
    assert_eq!(search["configurable"], true);
    assert_eq!(search["aliases"], json!(["strands_tools.search"]));
}

#[test]
fn schema_prints_every_tool_in_each_provider_format() {
    let names = |output: &Output| -> usize {
        let value = json_out(output);
        match &value {
            Value::Array(items) => items.len(),
            Value::Object(object) => object
                .values()
                .find_map(Value::as_array)
                .map_or(0, Vec::len),
            _ => 0,
        }
    };
    let listed = json_out(&run(&["list", "--json"]))
        .as_array()
        .map_or(0, Vec::len);
    assert!(listed >= 5);

    let openai = run(&["schema", "--format", "openai"]);
    assert_eq!(code(&openai), 0);
    assert_eq!(names(&openai), listed);
    assert_eq!(json_out(&openai)[0]["type"], "function");

    // Every tool is strict, `http_request` (free-form headers, a body of
    // any JSON) included.
    let strict = json_out(&run(&["schema", "--format", "openai-strict"]));
    let strict = strict.as_array().unwrap();
    assert_eq!(strict.len(), listed);
    for tool in strict {
        assert_eq!(
            tool["function"]["strict"], true,
            "{}",
            tool["function"]["name"]
        );
    }
    assert!(
        strict
            .iter()
            .any(|tool| tool["function"]["name"] == "http_request")
    );

    let responses = json_out(&run(&["schema", "--format", "responses"]));
    assert_eq!(responses[0]["type"], "function");
    assert!(responses[0]["name"].is_string());

    let anthropic = json_out(&run(&["schema", "--format", "anthropic"]));
    assert!(anthropic[0]["input_schema"].is_object());

    let bedrock = run(&["schema", "--format", "bedrock"]);
    assert_eq!(names(&bedrock), listed);
    assert!(json_out(&bedrock)["tools"][0]["toolSpec"]["inputSchema"]["json"].is_object());

    let gemini = run(&["schema", "--format", "gemini"]);
    assert_eq!(names(&gemini), listed);
    assert!(json_out(&gemini)["functionDeclarations"].is_array());

    let mcp = run(&["schema", "--format", "mcp"]);
    assert_eq!(names(&mcp), listed);
    assert!(json_out(&mcp)["tools"][0]["inputSchema"].is_object());

    // The default format is MCP.
    assert_eq!(json_out(&run(&["schema"])), json_out(&mcp));

    let xml = stdout(&run(&["schema", "--format", "xml"]));
    assert!(xml.starts_with("<tools>"), "{xml}");
    assert_eq!(xml.matches("<tool name=").count(), listed);
}

#[test]
fn schema_of_one_tool_is_its_entry_of_the_whole() {
    for format in ["openai", "anthropic", "bedrock", "gemini", "mcp"] {
        let one = json_out(&run(&["schema", "convert_length", "--format", format]));
        let all = json_out(&run(&["schema", "--format", format]));
        let entries = match &all {
            Value::Array(items) => items.clone(),
            Value::Object(object) => object.values().find_map(Value::as_array).unwrap().clone(),
            other => panic!("{format}: unexpected {other}"),
        };
        assert!(entries.contains(&one), "{format}: {one}");
        assert!(one.to_string().contains("convert_length"));
    }
    let xml = stdout(&run(&["schema", "convert_length", "--format", "xml"]));
    assert!(xml.starts_with("<tool name=\"convert_length\">"), "{xml}");
}

#[test]
fn schema_rejects_unknown_formats_and_tools() {
    let format = run(&["schema", "--format", "cohere"]);
    assert_eq!(code(&format), 2);
    assert!(stderr(&format).contains("expected one of openai, openai-strict"));

    let tool = run(&["schema", "convert_lenght"]);
    assert_eq!(code(&tool), 2);
    assert!(stderr(&tool).contains("did you mean \"convert_length\""));
    assert_eq!(stdout(&tool), "");
}

#[test]
fn call_prints_the_result_as_json() {
    let output = run(&[
        "call",
        "convert_length",
        "--args",
        r#"{"value":1,"from":"mile","to":"kilometre"}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        json_out(&output),
        json!({"toolUseId": "cli-1", "status": "success", "content": [{"text": "1 mile = 1.6093 kilometre"}]})
    );
}

#[test]
fn call_reads_arguments_from_stdin_and_from_a_file() {
    let piped = run_with_stdin(
        &["call", "convert_length", "--args", "-"],
        r#"{"value": 3, "from": "foot", "to": "metre"}"#,
    );
    assert_eq!(code(&piped), 0, "{}", stderr(&piped));
    assert_eq!(
        json_out(&piped)["content"][0]["text"],
        "3 foot = 0.9144 metre"
    );

    let dir = std::env::temp_dir().join(format!("toolbox-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("args.json");
    std::fs::write(&file, r#"{"value": 2, "from": "kilometre", "to": "metre"}"#).unwrap();
    let from_file = run(&[
        "call",
        "convert_length",
        "--args-file",
        file.to_str().unwrap(),
    ]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code(&from_file), 0, "{}", stderr(&from_file));
    assert_eq!(
        json_out(&from_file)["content"][0]["text"],
        "2 kilometre = 2000.0000 metre"
    );

    let missing = run(&[
        "call",
        "convert_length",
        "--args-file",
        "/no/such/args.json",
    ]);
    assert_eq!(code(&missing), 2);
    assert!(stderr(&missing).contains("cannot read the arguments file /no/such/args.json"));
}

#[test]
fn a_tool_error_exits_with_1_and_prints_the_error_result() {
    let output = run(&[
        "call",
        "schedule_meeting",
        "--args",
        r#"{"title":"Sync","slot":{"date":"2030-01-01","start":"09:00","minutes":30},"attendees":[]}"#,
    ]);
    assert_eq!(code(&output), 1);
    let result = json_out(&output);
    assert_eq!(result["status"], "error");
    assert_eq!(result["content"][0]["text"], "invite at least one attendee");
    assert!(stderr(&output).contains("error: invite at least one attendee"));
}

#[test]
fn invocation_state_reaches_the_tool() {
    let without = run(&["call", "account_balance"]);
    assert_eq!(code(&without), 1);

    let with = run(&[
        "call",
        "account_balance",
        "--state",
        r#"{"customer_id": "c-1042"}"#,
        "--args",
        r#"{"currency": "USD"}"#,
    ]);
    assert_eq!(code(&with), 0, "{}", stderr(&with));
    let text = json_out(&with)["content"][0]["text"].clone();
    assert!(text.as_str().unwrap().starts_with("c-1042: "), "{text}");
}

#[test]
fn bad_arguments_exit_with_2() {
    let not_json = run(&["call", "convert_length", "--args", r#"{"value": 1,"#]);
    assert_eq!(code(&not_json), 2);
    assert!(stderr(&not_json).contains("the arguments in --args are not valid JSON"));
    assert_eq!(stdout(&not_json), "");

    let not_object = run(&["call", "convert_length", "--args", "[1, 2]"]);
    assert_eq!(code(&not_object), 2);
    assert!(stderr(&not_object).contains("must be a JSON object, got an array"));

    // Valid JSON the tool rejects: the error result is printed too.
    let invalid = run(&[
        "call",
        "convert_length",
        "--args",
        r#"{"value": "far", "from": "mile", "to": "kilometre"}"#,
    ]);
    assert_eq!(code(&invalid), 2);
    assert_eq!(json_out(&invalid)["status"], "error");
    assert!(stderr(&invalid).contains("invalid arguments for convert_length: value"));

    let bad_state = run(&["call", "account_balance", "--state", "42"]);
    assert_eq!(code(&bad_state), 2);
    assert!(stderr(&bad_state).contains("the state in --state must be a JSON object"));

    let both = run(&["call", "convert_length", "--args", "{}", "--args-file", "x"]);
    assert_eq!(code(&both), 2);

    let bad_state = run(&["call", "account_balance", "--state", "{"]);
    assert_eq!(code(&bad_state), 2);
    assert!(
        stderr(&bad_state).contains("the state in --state is not valid JSON"),
        "{}",
        stderr(&bad_state)
    );
}

#[test]
fn argument_files_with_a_byte_order_mark_or_bad_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // A byte-order mark, as some editors write, is skipped.
    let with_bom = dir.path().join("bom.json");
    std::fs::write(
        &with_bom,
        b"\xEF\xBB\xBF{\"value\": 1, \"from\": \"mile\", \"to\": \"kilometre\"}",
    )
    .unwrap();
    let output = run(&[
        "call",
        "convert_length",
        "--args-file",
        with_bom.to_str().unwrap(),
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // Bytes that are not UTF-8: where they are.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, b"{\"value\": \"\xFF\"}").unwrap();
    let output = run(&[
        "call",
        "convert_length",
        "--args-file",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("are not valid UTF-8: the bytes at offset 11 are not UTF-8"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn tool_names_are_quoted_back_escaped_and_short() {
    let output = run(&["call", "calc\u{1b}[31mulator", "--args", "{}"]);
    assert_eq!(code(&output), 2);
    let message = stderr(&output);
    assert!(
        message.contains(r#"unknown tool "calc\u{1b}[31mulator""#),
        "{message}"
    );
    assert!(!message.contains('\u{1b}'), "{message}");
    let long = "n".repeat(100_000);
    let output = run(&["call", &long, "--args", "{}"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).len() < 2_000,
        "{} bytes",
        stderr(&output).len()
    );
}

#[test]
fn unknown_tools_and_subcommands_exit_with_2() {
    let tool = run(&["call", "convert_lenght", "--args", "{}"]);
    assert_eq!(code(&tool), 2);
    assert!(
        stderr(&tool).contains("unknown tool \"convert_lenght\"; did you mean \"convert_length\"?")
    );

    let left_out = run(&["call", "search", "--args", r#"{"query": "rust"}"#]);
    assert_eq!(code(&left_out), 2);
    assert!(stderr(&left_out).contains("left out of the registry"));

    assert_eq!(code(&run(&["frobnicate"])), 2);
    assert_eq!(code(&run(&[])), 2);
    assert_eq!(code(&run(&["list", "--jsn"])), 2);
    let help = run(&["--help"]);
    assert_eq!(code(&help), 0);
    assert!(stdout(&help).contains("Usage: toolbox"));
}

#[test]
fn progress_and_trace_lines_go_to_stderr() {
    let args = r##"{"text": "# Notes\n\n## One\nFirst part.\n\n## Two\nSecond part."}"##;
    let output = run(&["call", "process_document", "--args", args]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(json_out(&output)["status"], "success");
    let lines: Vec<String> = stderr(&output).lines().map(str::to_owned).collect();
    let progress: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("[progress"))
        .collect();
    assert_eq!(
        progress.first().map(|l| l.as_str()),
        Some("[progress   0%] splitting into sections")
    );
    assert_eq!(
        progress.last().map(|l| l.as_str()),
        Some("[progress 100%] done")
    );
    let split = lines.iter().position(|l| l.starts_with("[trace] split: "));
    let summarise = lines
        .iter()
        .position(|l| l.starts_with("[trace] summarise: "));
    assert!(
        split.is_some() && summarise.is_some() && split < summarise,
        "{lines:?}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("[partial] ")).count(),
        2
    );
    let logs: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("[debug] ") || l.starts_with("[notice] "))
        .collect();
    assert_eq!(logs.len(), 2, "{lines:?}");
    assert_eq!(logs[1], "[notice] \"Notes\": 2 section(s), 4 words");

    let quiet = run(&["call", "process_document", "--quiet", "--args", args]);
    assert_eq!(code(&quiet), 0);
    assert_eq!(stderr(&quiet), "");
}

#[test]
fn config_shows_schema_defaults_and_environment() {
    let output = run_with_key(&["config", "search", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let config = json_out(&output);
    assert_eq!(config["configurable"], true);
    assert_eq!(config["type"], "SearchConfig");
    assert_eq!(config["defaults"], json!({"max_results": 5}));
    assert_eq!(config["required"], json!(["api_key"]));
    assert_eq!(config["env_prefix"], "TOOL_SEARCH_");
    assert_eq!(config["configured"], json!(["api_key"]));
    assert_eq!(config["schema"]["properties"]["max_results"]["maximum"], 50);
    // A configuration may hold secrets: values are never printed.
    assert!(!stdout(&output).contains("secret-key-123"));

    let text = run_with_key(&["config", "search"]);
    assert_eq!(code(&text), 0);
    let text = stdout(&text);
    assert!(text.starts_with("search takes a configuration (SearchConfig)."));
    let row = text
        .lines()
        .find(|line| line.starts_with("max_results "))
        .expect("a max_results row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells[..5],
        [
            "max_results",
            "integer",
            "5",
            "no",
            "TOOL_SEARCH_MAX_RESULTS"
        ]
    );
    assert!(!text.contains("secret-key-123"));
}

#[test]
fn config_explains_a_tool_left_out_and_a_tool_without_one() {
    let left_out = run(&["config", "search"]);
    assert_eq!(code(&left_out), 0, "{}", stderr(&left_out));
    assert!(
        stdout(&left_out)
            .contains("Left out of this registry: tool \"search\" needs a configuration: api_key")
    );

    let none = run(&["config", "convert_length"]);
    assert_eq!(code(&none), 0);
    assert_eq!(stdout(&none), "convert_length takes no configuration.\n");
    let none = json_out(&run(&["config", "convert_length", "--json"]));
    assert_eq!(
        none,
        json!({"tool": "convert_length", "configurable": false})
    );

    assert_eq!(code(&run(&["config", "nothing_here"])), 2);
}

#[test]
fn a_registry_file_chooses_and_configures_the_tools() {
    let file = search_dir().join("tools.yaml");
    let file = file.to_str().unwrap();
    let listed = run_with_key(&["--registry", file, "list", "--json"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    let names: Vec<Value> = json_out(&listed)
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].clone())
        .collect();
    assert_eq!(names, [json!("convert_length"), json!("search")]);

    // The file's alias and its configuration (max_results: 3) apply.
    let found = run_with_key(&[
        "call",
        "find_docs",
        "--registry",
        file,
        "--args",
        r#"{"query": "rust"}"#,
    ]);
    assert_eq!(code(&found), 0, "{}", stderr(&found));
    let hits = json_out(&found)["content"][0]["json"].clone();
    assert_eq!(hits.as_array().map(Vec::len), Some(3), "{hits}");

    // Without the key, the file's registry cannot be built.
    let unconfigured = run(&["--registry", file, "list"]);
    assert_eq!(code(&unconfigured), 2);
    assert!(stderr(&unconfigured).contains("bad registry file"));
    assert!(stderr(&unconfigured).contains("api_key"));
}

#[test]
fn a_bad_registry_file_exits_with_2_and_every_mistake() {
    let file = search_dir().join("bad-tools.yaml");
    let output = run_with_key(&["--registry", file.to_str().unwrap(), "list"]);
    assert_eq!(code(&output), 2);
    let text = stderr(&output);
    assert!(
        text.contains("bad-tools.yaml:3:5: no linked tool is named \"convert_lenght\""),
        "{text}"
    );
    assert!(text.contains("unknown key \"aliasses\""), "{text}");
    assert_eq!(stdout(&output), "");

    let missing = run(&["--registry", "/no/such/tools.yaml", "list"]);
    assert_eq!(code(&missing), 2);
    assert!(stderr(&missing).contains("cannot read the file"));
}

#[test]
fn serve_over_http_refuses_other_addresses_than_loopback_by_default() {
    let output = run(&["serve", "--http", "0.0.0.0:0"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("--allow-anonymous"));
    let output = run(&["serve", "--http", "not-an-address"]);
    assert_eq!(code(&output), 2);
}

#[test]
fn serve_answers_mcp_on_stdio() {
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "cli-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "convert_length", "arguments": {"value": 1, "from": "mile", "to": "kilometre"}}}),
    ];
    let mut child = toolbox(&["serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("toolbox serve starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for message in &input {
        writeln!(stdin, "{message}").unwrap();
    }
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let line = lines.next().expect("an answer").expect("a line");
        answers.push(serde_json::from_str::<Value>(&line).expect("JSON"));
    }
    // Closing stdin ends the session and the process.
    drop(stdin);
    let status = child.wait().expect("toolbox serve ends");
    assert!(status.success());
    let init = answers
        .iter()
        .find(|a| a["id"] == 1)
        .expect("initialize answered");
    assert_eq!(init["result"]["serverInfo"]["name"], "toolbox");
    let call = answers
        .iter()
        .find(|a| a["id"] == 2)
        .expect("call answered");
    assert_eq!(
        call["result"],
        json!({"content": [{"type": "text", "text": "1 mile = 1.6093 kilometre"}], "isError": false})
    );
}

#[test]
fn serve_code_mode_offers_one_tool_that_runs_scripts() {
    let script = "lengths = [convert_length(value=v, from_='mile', to='kilometre') for v in (1, 2)]\nprint(len(lengths), lengths[1])";
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "cli-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "code_mode", "arguments": {"script": script}}}),
    ];
    let mut child = toolbox(&["serve", "--code-mode"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("toolbox serve starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for message in &input {
        writeln!(stdin, "{message}").unwrap();
    }
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let mut answers = Vec::new();
    while answers.len() < 3 {
        let line = lines.next().expect("an answer").expect("a line");
        answers.push(serde_json::from_str::<Value>(&line).expect("JSON"));
    }
    drop(stdin);
    assert!(child.wait().expect("toolbox serve ends").success());
    let answer = |id: i32| answers.iter().find(|a| a["id"] == id).expect("answered");
    let tools = answer(2)["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0]["name"], "code_mode");
    let description = tools[0]["description"].as_str().unwrap();
    assert!(description.contains("def convert_length("), "{description}");
    let run = &answer(3)["result"]["structuredContent"];
    assert_eq!(run["stdout"], "2 2 mile = 3.2187 kilometre\n", "{run}");
    assert_eq!(run["calls"].as_array().unwrap().len(), 2, "{run}");
}

#[test]
fn call_follows_a_registry_files_code_mode_section_as_serve_does() {
    let script =
        "for v in (1, 2, 3):\n    print(convert_length(value=v, from_='mile', to='kilometre'))";
    let args = json!({"script": script}).to_string();
    let call = |text: &str, tool: &str, args: &str| {
        let (_dir, file) = registry_file(text);
        run(&["--registry", &file, "call", tool, "--args", args])
    };
    let tools = "tools: [convert_length, calculator]\n";
    // In place, with the section's own limit of two calls.
    let in_place = format!("{tools}code_mode:\n  max_calls: 2\n");
    let output = call(&in_place, "code_mode", &args);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let run = &json_out(&output)["content"][0]["json"];
    assert_eq!(
        run["stdout"], "1 mile = 1.6093 kilometre\n2 mile = 3.2187 kilometre\n",
        "{run}"
    );
    assert_eq!(run["limit"], "calls", "{run}");
    // The file's tools are the script's only, as serve offers them.
    let direct = r#"{"value": 1, "from": "mile", "to": "kilometre"}"#;
    let output = call(&in_place, "convert_length", direct);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("unknown tool \"convert_length\""),
        "{}",
        stderr(&output)
    );
    // Beside: code_mode and the tools.
    let beside = format!("{tools}code_mode:\n  offer: beside\n");
    let output = call(&beside, "code_mode", &args);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let run = &json_out(&output)["content"][0]["json"];
    assert_eq!(run["calls"].as_array().unwrap().len(), 3, "{run}");
    assert_eq!(code(&call(&beside, "convert_length", direct)), 0);
    // A mistake in the section is the file's.
    let unknown = format!("{tools}code_mode:\n  tools: [python_exec]\n");
    let output = call(&unknown, "code_mode", &args);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("\"python_exec\""),
        "{}",
        stderr(&output)
    );
}

#[test]
fn serve_sandbox_takes_a_registry_files_code_mode_section_and_needs_one() {
    // Without code mode, --sandbox has nothing to sandbox: a usage error.
    let output = run(&["serve", "--sandbox"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--code-mode"),
        "{}",
        stderr(&output)
    );
    // With a file's code_mode section, no --code-mode is needed.
    let (_dir, file) = registry_file("tools: [convert_length]\ncode_mode: {}\n");
    let mut child = toolbox(&["--registry", &file, "serve", "--sandbox"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("toolbox serve starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "cli-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let listed = loop {
        let line = lines.next().expect("an answer").expect("a line");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        if answer["id"] == 2 {
            break answer;
        }
    };
    drop(stdin);
    assert!(child.wait().expect("toolbox serve ends").success());
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["code_mode"], "{listed}");
}

#[test]
fn serve_help_says_what_a_sandboxed_script_may_call() {
    let output = run(&["serve", "--help"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let help = stdout(&output)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for words in [
        "python_exec runs its code in the sandbox too",
        "declares it reaches an open world (open_world: http_request",
        "is left out of the script, unless the registry file's code_mode section names it in open_world_tools",
    ] {
        assert!(help.contains(words), "{words:?} in {help}");
    }
}

#[test]
fn list_shows_the_builtin_tools() {
    let output = run(&["list"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let names: Vec<String> = stdout(&output)
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    for builtin in [
        "calculator",
        "current_time",
        "file_list",
        "file_read",
        "file_write",
        "http_request",
        "python_exec",
    ] {
        assert!(
            names.iter().any(|name| name == builtin),
            "{builtin} in {names:?}"
        );
    }
}

#[test]
fn call_python_exec_prints_its_output() {
    let output = run(&[
        "call",
        "python_exec",
        "--args",
        r#"{"code":"print(2**10)"}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let result = json_out(&output);
    assert_eq!(result["status"], "success", "{result}");
    let content = result["content"][0]["json"].clone();
    assert_eq!(content["stdout"], "1024\n", "{result}");
    assert_eq!(content["exit_code"], 0, "{result}");
}

#[test]
fn call_file_read_outside_the_root_is_refused() {
    let output = run(&["call", "file_read", "--args", r#"{"path":"../etc/passwd"}"#]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let result = json_out(&output);
    assert_eq!(result["status"], "error");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("refused path \"../etc/passwd\""), "{text}");
    assert!(!text.contains("root:x:"), "{text}");
}

// ------------------------------------------------ MCP servers (the proxy)

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("examples sits in the workspace")
}

/// Node and the entry point of the MCP reference server
/// (`@modelcontextprotocol/server-everything`), from `tests/mcp/node.sh`,
/// which installs them on its first run. When they cannot be set up the
/// tests fail: they do not skip.
fn everything() -> &'static (String, String) {
    static EVERYTHING: OnceLock<(String, String)> = OnceLock::new();
    EVERYTHING.get_or_init(|| {
        let output = Command::new("bash")
            .arg(workspace().join("tests/mcp/node.sh"))
            .current_dir(workspace())
            .output()
            .expect("tests/mcp/node.sh runs");
        assert!(
            output.status.success(),
            "tests/mcp/node.sh failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let printed = String::from_utf8_lossy(&output.stdout).into_owned();
        let value = |key: &str| -> PathBuf {
            let line = printed
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{key}=")))
                .unwrap_or_else(|| panic!("tests/mcp/node.sh printed no {key}: {printed}"));
            PathBuf::from(line.trim_matches('\''))
        };
        let node = value("MCP_NODE");
        let server =
            value("MCP_NODE_MODULES").join("@modelcontextprotocol/server-everything/dist/index.js");
        assert!(server.exists(), "{} is missing", server.display());
        (
            node.to_string_lossy().into_owned(),
            server.to_string_lossy().into_owned(),
        )
    })
}

/// A registry file in a scratch folder; the folder goes with the value.
fn registry_file(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let path = dir.path().join("tools.yaml");
    std::fs::write(&path, text).expect("the registry file is written");
    (dir, path.to_string_lossy().into_owned())
}

/// Two linked tools and server-everything over stdio, its tools' names
/// prefixed with `everything_`.
fn proxy_file() -> (tempfile::TempDir, String) {
    let (node, server) = everything();
    registry_file(&format!(
        "tools:\n  - convert_length\n  - calculator\nmcp_servers:\n  everything:\n    \
         command: {}\n    args: [{}, stdio]\n    prefix: everything_\n",
        json!(node),
        json!(server)
    ))
}

#[test]
fn list_shows_local_and_remote_tools_with_their_sources() {
    let (_dir, file) = proxy_file();
    let output = run(&["--registry", &file, "list"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["NAME", "SOURCE", "DESCRIPTION", "PARAMETERS"]);
    let source = |name: &str| {
        rows.iter()
            .find(|row| row[0] == name)
            .unwrap_or_else(|| panic!("{name} is listed:\n{text}"))[1]
    };
    assert_eq!(source("convert_length"), "examples");
    assert_eq!(source("calculator"), "tool_builtin::calculator");
    assert_eq!(source("everything_echo"), "mcp:everything");
    assert_eq!(source("everything_get-sum"), "mcp:everything");
    // The remote tools' parameters come from their input schemas.
    let echo = text
        .lines()
        .find(|line| line.starts_with("everything_echo "))
        .unwrap();
    assert!(echo.ends_with("  message"), "{echo}");
    // Only the tools the file names are local: no other linked tool.
    assert!(!text.contains("weather_forecast"), "{text}");

    let listed = json_out(&run(&["--registry", &file, "list", "--json"]));
    let tools = listed.as_array().expect("an array");
    let echo = tools
        .iter()
        .find(|tool| tool["name"] == "everything_echo")
        .expect("everything_echo in the JSON list");
    assert_eq!(echo["source"], "mcp:everything");
    assert_eq!(echo["parameters"][0]["name"], "message");
    assert_eq!(echo["parameters"][0]["required"], true);
    let convert = tools
        .iter()
        .find(|tool| tool["name"] == "convert_length")
        .expect("convert_length in the JSON list");
    assert_eq!(convert["source"], "examples");
}

#[test]
fn a_file_with_only_mcp_servers_offers_no_local_tool() {
    let (node, server) = everything();
    let (_dir, file) = registry_file(&format!(
        "mcp_servers:\n  everything:\n    command: {}\n    args: [{}, stdio]\n",
        json!(node),
        json!(server)
    ));
    let listed = run(&["--registry", &file, "list", "--json"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    let listed = json_out(&listed);
    let tools = listed.as_array().expect("an array");
    assert!(tools.iter().any(|tool| tool["name"] == "echo"));
    for tool in tools {
        assert_eq!(tool["source"], "mcp:everything", "{}", tool["name"]);
    }
}

#[test]
fn call_reaches_a_remote_tool_through_its_server() {
    let (_dir, file) = proxy_file();
    let output = run(&[
        "--registry",
        &file,
        "call",
        "everything_echo",
        "--args",
        r#"{"message": "hello through the proxy"}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        json_out(&output)["content"],
        json!([{"text": "Echo: hello through the proxy"}])
    );

    // The server's progress is shown as a local tool's is.
    let output = run(&[
        "--registry",
        &file,
        "call",
        "everything_trigger-long-running-operation",
        "--args",
        r#"{"duration": 0.4, "steps": 2}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let progress = stderr(&output);
    assert!(progress.contains("[progress  50%]"), "{progress}");
    assert!(progress.contains("[progress 100%]"), "{progress}");
    assert!(
        json_out(&output)["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Long running operation completed."),
        "{}",
        stdout(&output)
    );

    // Arguments the remote tool's schema rejects are a usage error.
    let output = run(&[
        "--registry",
        &file,
        "call",
        "everything_echo",
        "--args",
        r#"{"mesage": "hi"}"#,
    ]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(stderr(&output).contains("invalid arguments for everything_echo: message"));
}

#[test]
fn mistakes_in_mcp_servers_are_reported_at_their_place_all_at_once() {
    let (_dir, file) = registry_file(
        "tools:
  - convert_length
mcp_servers:
  everything:
    command: node
    cwd: /tmp
  both:
    command: node
    url: http://127.0.0.1:1/mcp
  wrong:
    command: node
    args: -y
",
    );
    let output = run(&["--registry", &file, "list"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let text = stderr(&output);
    assert!(
        text.contains(&format!(
            "{file}:6:5: MCP server \"everything\": unknown key `cwd`"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{file}:8:5: MCP server \"both\": an MCP server's configuration has both `command` and `url`"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{file}:12:5: MCP server \"wrong\": invalid type: string \"-y\", expected a sequence"
        )),
        "{text}"
    );
}

#[test]
fn a_server_that_cannot_be_reached_is_an_error_naming_it() {
    let (_dir, file) = registry_file(
        "tools: [convert_length]\nmcp_servers:\n  gone:\n    command: /no/such/mcp-server\n",
    );
    let output = run(&["--registry", &file, "list"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let text = stderr(&output);
    assert!(
        text.contains(&format!("error: {file}:3:3: MCP server `gone`: ")),
        "{text}"
    );
    assert!(text.contains("/no/such/mcp-server"), "{text}");

    // A local tool is called without the servers.
    let output = run(&[
        "--registry",
        &file,
        "call",
        "convert_length",
        "--args",
        r#"{"value": 1, "from": "mile", "to": "kilometre"}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
}

#[test]
fn two_servers_with_the_same_tool_names_need_a_prefix() {
    let (node, server) = everything();
    let entry = format!(
        "    command: {}\n    args: [{}, stdio]\n",
        json!(node),
        json!(server)
    );
    let (_dir, file) = registry_file(&format!("mcp_servers:\n  one:\n{entry}  two:\n{entry}"));
    let output = run(&["--registry", &file, "list"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains(&format!("{file}:5:3: MCP server \"two\"")),
        "{text}"
    );
    assert!(text.contains("prefix"), "{text}");
}

/// A child process killed when dropped.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_keeps_trying_a_server_and_announces_its_tools_once_it_answers() {
    let (node, server) = everything();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let (_dir, file) = registry_file(&format!(
        "tools: [convert_length]\nmcp_servers:\n  later:\n    url: http://127.0.0.1:{port}/mcp\n    prefix: later_\n"
    ));
    let mut child = toolbox(&["--registry", &file, "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolbox serve starts");
    let mut stdin = child.stdin.take().expect("stdin");
    // Lines from the server, read on a thread so a wait can time out.
    let (lines_tx, lines) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            let Ok(line) = line else { break };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                break;
            };
            if lines_tx.send(message).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let mut wait_for = |what: &dyn Fn(&Value) -> bool| -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let message = lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no such message from the proxy; seen: {seen:?}"));
            if what(&message) {
                return message;
            }
            seen.push(message);
        }
    };
    let send = |stdin: &mut std::process::ChildStdin, message: Value| {
        writeln!(stdin, "{message}").expect("the proxy reads its stdin");
    };
    let names = |answer: &Value| -> Vec<String> {
        answer["result"]["tools"]
            .as_array()
            .expect("a tool list")
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect()
    };

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "cli-test", "version": "1"}}}),
    );
    wait_for(&|message| message["id"] == 1);
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    // The server is not there yet: the local tool alone.
    assert_eq!(
        names(&wait_for(&|message| message["id"] == 2)),
        ["convert_length"]
    );

    let _server = Killed(
        Command::new(node)
            .arg(server)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("server-everything starts"),
    );
    wait_for(&|message| message["method"] == "notifications/tools/list_changed");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    );
    let listed = names(&wait_for(&|message| message["id"] == 3));
    assert!(listed.contains(&"convert_length".to_owned()), "{listed:?}");
    assert!(listed.contains(&"later_echo".to_owned()), "{listed:?}");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "later_echo", "arguments": {"message": "at last"}}}),
    );
    let answer = wait_for(&|message| message["id"] == 4);
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "Echo: at last"}])
    );

    drop(stdin);
    let output = child.wait_with_output().expect("toolbox serve ends");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        text.contains(&format!("warning: {file}:3:3: MCP server `later`: ")),
        "{text}"
    );
    assert!(
        text.contains("serving without the tools of MCP server \"later\" for now"),
        "{text}"
    );
    assert!(
        text.contains("MCP server \"later\" answered; its tools are served"),
        "{text}"
    );
}

#[test]
fn the_example_proxy_file_is_valid() {
    // A local tool's call starts no MCP server, so `npx` is not needed; the
    // whole file, its `mcp_servers` included, is checked first.
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("proxy/tools.yaml");
    let output = run(&[
        "--registry",
        file.to_str().unwrap(),
        "call",
        "convert_length",
        "--args",
        r#"{"value": 1, "from": "mile", "to": "kilometre"}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        json_out(&output)["content"][0]["text"],
        "1 mile = 1.6093 kilometre"
    );
}

#[test]
fn a_schema_lockfile_tells_breaking_changes_from_compatible_ones() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("tools.lock.json");
    let lock_arg = lock.to_str().unwrap();
    let written = run(&["schema", "--lock", lock_arg]);
    assert_eq!(code(&written), 0, "{}", stderr(&written));
    let locked: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    let entry = &locked["tools"]["convert_length"];
    assert_eq!(
        entry["input_schema"]["required"],
        json!(["value", "from", "to"])
    );
    assert_eq!(entry["rendered"]["name"], "convert_length", "{entry}");

    // Nothing changed.
    let same = run(&["schema", "--check", lock_arg]);
    assert_eq!(code(&same), 0, "{}", stdout(&same));
    assert!(
        stdout(&same).starts_with("no changes since"),
        "{}",
        stdout(&same)
    );

    // A compatible change: the lockfile's description of a tool differs.
    let mut edited = locked.clone();
    edited["tools"]["convert_length"]["description"] = json!("Older words.");
    std::fs::write(&lock, edited.to_string()).unwrap();
    let compatible = run(&["schema", "--check", lock_arg]);
    assert_eq!(code(&compatible), 0, "{}", stdout(&compatible));
    assert_eq!(
        stdout(&compatible).lines().next(),
        Some("compatible: convert_length: description changed")
    );

    // A breaking change: the tools now require a parameter the lockfile's
    // did not have.
    let schema = &mut edited["tools"]["convert_length"]["input_schema"];
    schema["properties"].as_object_mut().unwrap().remove("from");
    schema["required"] = json!(["value", "to"]);
    std::fs::write(&lock, edited.to_string()).unwrap();
    let breaking = run(&["schema", "--check", lock_arg]);
    assert_eq!(code(&breaking), 1, "{}", stdout(&breaking));
    let report = stdout(&breaking);
    assert_eq!(
        report.lines().next(),
        Some("breaking: convert_length: parameter `from` added as required"),
        "{report}"
    );
    assert!(
        report.contains("compatible: convert_length: description changed"),
        "{report}"
    );
    assert!(
        report.trim_end().ends_with("1 breaking, 1 compatible"),
        "{report}"
    );

    // A file that is no lockfile: a usage error.
    std::fs::write(&lock, "[1, 2]").unwrap();
    let unreadable = run(&["schema", "--check", lock_arg]);
    assert_eq!(code(&unreadable), 2, "{}", stderr(&unreadable));
}

#[test]
fn schema_tokens_prints_each_tools_cost_and_checks_a_budget() {
    let output = run(&["schema", "--tokens", "--format", "openai"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("TOOL"), "{text}");
    let rows: Vec<(String, usize)> = lines
        .clone()
        .take_while(|line| !line.starts_with("total:"))
        .map(|line| {
            let mut cells = line.split_whitespace();
            let name = cells.next().unwrap().to_owned();
            (name, cells.next().unwrap().parse().unwrap())
        })
        .collect();
    let listed = json_out(&run(&["list", "--json"]));
    assert_eq!(rows.len(), listed.as_array().unwrap().len(), "{text}");
    assert!(rows.iter().any(|(name, _)| name == "convert_length"));
    assert!(rows.iter().all(|(_, tokens)| *tokens > 20), "{text}");
    let sum: usize = rows.iter().map(|(_, tokens)| tokens).sum();
    let total: usize = text
        .lines()
        .last()
        .and_then(|line| line.strip_prefix("total: "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a total line");
    // The whole array: every definition, and its brackets and commas.
    assert!(
        total >= sum && total <= sum + rows.len() + 2,
        "{total} against {sum}"
    );

    let over = run(&["schema", "--tokens", "--budget", "100"]);
    assert_eq!(code(&over), 1);
    let message = stderr(&over);
    assert!(message.contains("over the budget of 100"), "{message}");
    assert!(message.contains("the largest: "), "{message}");
    let under = run(&["schema", "--tokens", "--budget", "1000000"]);
    assert_eq!(code(&under), 0, "{}", stderr(&under));
}

/// An HTTP server on the first of `addresses` that can be bound, answering
/// each request with the JSON `answer(path)` gives, and keeping each
/// request's line and headers.
struct Stub {
    url: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Stub {
    fn start(addresses: &[&str], answer: impl Fn(&str) -> String + Send + 'static) -> Stub {
        let listener = addresses
            .iter()
            .find_map(|address| TcpListener::bind(address).ok())
            .expect("a port on the loopback interface");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = String::new();
                let mut reader = BufReader::new(&stream);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    head.push_str(&line);
                }
                let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
                recorded.lock().unwrap().push(head);
                let body = answer(&path);
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Stub { url, seen }
    }

    /// The requests received: each one's request line and headers.
    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

#[test]
fn openapi_credentials_go_only_to_an_origin_the_registry_file_names() {
    const KEY: &str = "sk-secret-b41c2";
    // Another origin: 127.0.0.2 where it can be bound, else another port.
    let elsewhere = Stub::start(&["127.0.0.2:0", "127.0.0.1:0"], |_| {
        r#"{"item": 1}"#.to_owned()
    });
    let document = json!({
        "openapi": "3.1.0",
        "info": {"title": "Vendor", "version": "1"},
        "servers": [{"url": format!("{}/v1", elsewhere.url)}],
        "components": {"securitySchemes": {
            "vendor_key": {"type": "apiKey", "in": "header", "name": "x-api-key"}
        }},
        "security": [{"vendor_key": []}],
        "paths": {"/items/{id}": {"get": {
            "operationId": "getItem",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]
        }}}
    })
    .to_string();
    let home = Stub::start(&["127.0.0.1:0"], move |path| match path {
        "/openapi.json" => document.clone(),
        _ => "{}".to_owned(),
    });
    let entry = format!(
        "openapi:\n  vendor:\n    document: {}/openapi.json\n    \
         auth: {{vendor_key: \"${{VENDOR_KEY}}\"}}\n",
        home.url
    );
    let with_key = |file: &str, args: &[&str]| {
        let mut all = vec!["--registry", file];
        all.extend(args);
        toolbox(&all)
            .env("VENDOR_KEY", KEY)
            .output()
            .expect("toolbox runs")
    };

    // The document's server is at another origin: refused, at the file's
    // line and column, naming that origin; nothing reaches it.
    let (_dir, file) = registry_file(&entry);
    for args in [
        &["list"][..],
        &["call", "getItem", "--args", r#"{"id": "1"}"#],
    ] {
        let output = with_key(&file, args);
        assert_eq!(code(&output), 2, "{}", stderr(&output));
        let message = stderr(&output);
        assert!(
            message.contains(&format!("tools.yaml:3:15: OpenAPI \"vendor\": {}/openapi.json#/servers/0/url: the server {}/v1 is refused", home.url, elsewhere.url)),
            "{message}"
        );
        assert!(
            message.contains(&format!("add \"{}\" to `allowed_origins`", elsewhere.url)),
            "{message}"
        );
        assert!(!message.contains(KEY) && !stdout(&output).contains(KEY));
    }
    assert_eq!(elsewhere.seen(), Vec::<String>::new());

    // Allowed by the entry: listed with its target, and reached.
    let (_dir, file) = registry_file(&format!(
        "{entry}    allowed_origins: [\"{}\"]\n",
        elsewhere.url
    ));
    let output = with_key(&file, &["list"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let row = stdout(&output)
        .lines()
        .find(|line| line.starts_with("getItem "))
        .map(|line| {
            line.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .expect("getItem is listed");
    assert_eq!(row, format!("getItem openapi:vendor {}", elsewhere.url));
    let listed = json_out(&with_key(&file, &["list", "--json"]));
    assert_eq!(listed[0]["source"], "openapi:vendor");
    assert_eq!(listed[0]["origin"], json!(elsewhere.url));
    let output = with_key(&file, &["call", "getItem", "--args", r#"{"id": "1"}"#]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!stdout(&output).contains(KEY) && !stderr(&output).contains(KEY));
    let seen = elsewhere.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with("GET /v1/items/1 "), "{}", seen[0]);
    assert!(
        seen[0]
            .to_ascii_lowercase()
            .contains(&format!("x-api-key: {KEY}")),
        "{}",
        seen[0]
    );
    // The document's own origin served the document and nothing else.
    assert!(
        home.seen()
            .iter()
            .all(|head| head.starts_with("GET /openapi.json "))
    );
}

// ------------------------------------- upstream MCP servers that misbehave

/// A registry file entry for `tests/mcp/misbehaving_server.py MODE`, run
/// with the `python3` on `PATH` (the standard library alone), under `name`
/// with `name_` as its prefix; `more` are further lines of the entry.
fn misbehaving(name: &str, mode: &str, more: &str) -> String {
    let script = workspace().join("tests/mcp/misbehaving_server.py");
    format!(
        "  {name}:\n    command: python3\n    args: [{}, {mode}]\n    prefix: {name}_\n{more}",
        json!(script.to_string_lossy())
    )
}

/// `toolbox --registry FILE serve`, spoken to on stdio; its stdout
/// messages and its stderr lines read on threads, each line with the time
/// it came.
struct Served {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    messages: std::sync::mpsc::Receiver<Value>,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<(std::time::Instant, String)>>>,
    started: std::time::Instant,
    next_id: u64,
}

impl Served {
    fn start(file: &str) -> Self {
        let started = std::time::Instant::now();
        let mut child = toolbox(&["--registry", file, "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("toolbox serve starts");
        let (sender, messages) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
                let Ok(message) = serde_json::from_str::<Value>(&line.unwrap_or_default()) else {
                    break;
                };
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let lines = std::sync::Arc::clone(&stderr);
        let pipe = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(pipe)) {
                let Ok(line) = line else { break };
                lines
                    .lock()
                    .unwrap()
                    .push((std::time::Instant::now(), line));
            }
        });
        let stdin = child.stdin.take();
        Served {
            child,
            stdin,
            messages,
            stderr,
            started,
            next_id: 0,
        }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").expect("the proxy reads its stdin");
    }

    /// Sends a request; its answer and how long it took.
    fn request(&mut self, method: &str, params: Value) -> (Value, std::time::Duration) {
        self.next_id += 1;
        let id = self.next_id;
        let sent = std::time::Instant::now();
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = sent + std::time::Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} from the proxy"));
            if message["id"] == id {
                return (message, sent.elapsed());
            }
        }
    }

    fn initialize(&mut self) -> std::time::Duration {
        let (answer, took) = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "cli-test", "version": "1"}}),
        );
        assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        took
    }

    fn tool_names(&mut self) -> Vec<String> {
        let (answer, _) = self.request("tools/list", json!({}));
        answer["result"]["tools"]
            .as_array()
            .expect("a tool list")
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// The first stderr line with `text`, and when it came after the start;
    /// waits up to `wait` for it.
    fn stderr_line(&self, text: &str, wait: std::time::Duration) -> (String, std::time::Duration) {
        let deadline = std::time::Instant::now() + wait;
        loop {
            let found = self
                .stderr
                .lock()
                .unwrap()
                .iter()
                .find(|(_, line)| line.contains(text))
                .map(|(at, line)| (line.clone(), at.duration_since(self.started)));
            if let Some(found) = found {
                return found;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no line with {text:?} on the proxy's stderr: {:?}",
                self.stderr.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// The proxy's peak resident memory so far (`VmHWM`), in KiB.
    fn peak_memory_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the proxy's /proc status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a VmHWM line")
    }

    /// Closes stdin and waits for the proxy to exit.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("toolbox serve ends")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_answers_at_once_and_bounds_what_misbehaving_servers_send() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let pages = dir.path().join("pages.log");
    let (_file_dir, file) = registry_file(&format!(
        "tools: [convert_length]\nmcp_servers:\n{}{}{}{}",
        misbehaving("hang", "hang", "    connect_timeout_ms: 2000\n"),
        misbehaving("big", "huge", ""),
        misbehaving("deep", "deep", ""),
        misbehaving(
            "many",
            "many",
            &format!(
                "    env: {{MISBEHAVING_LOG: {}}}\n",
                json!(pages.to_string_lossy())
            )
        ),
    ));
    let mut proxy = Served::start(&file);

    // The proxy's own handshake and list wait for no server, not even one
    // that never answers (it is given 2 s).
    proxy.initialize();
    let answered = proxy.started.elapsed();
    assert!(
        answered < std::time::Duration::from_secs(1),
        "initialize took {answered:?}"
    );
    let (listed, took) = proxy.request("tools/list", json!({}));
    assert!(
        took < std::time::Duration::from_secs(1),
        "tools/list took {took:?}"
    );
    assert!(
        listed["result"]["tools"]
            .to_string()
            .contains("convert_length")
    );

    // The hanging server: a warning once its 2 s are up, not much later.
    let (line, at) = proxy.stderr_line("MCP server `hang`", std::time::Duration::from_secs(10));
    assert!(
        line.contains("did not complete the MCP handshake within 2s"),
        "{line}"
    );
    assert!(
        at >= std::time::Duration::from_secs(2) && at < std::time::Duration::from_secs(4),
        "the handshake's time limit was reported after {at:?}"
    );
    eprintln!("the hanging server was reported {at:?} after the start");

    // 200 pages of 1,000 tools: refused at the second page, which crosses
    // `max_tools`; no third page is asked for.
    let (line, at) = proxy.stderr_line("MCP server `many`", std::time::Duration::from_secs(10));
    assert!(
        line.contains(
            "it lists more than 1000 tools, the limit `max_tools`; the listing stopped at page 2"
        ),
        "{line}"
    );
    assert!(
        at < std::time::Duration::from_secs(3),
        "reported after {at:?}"
    );
    eprintln!("200 pages of tools were refused {at:?} after the start");
    let asked = std::fs::read_to_string(&pages).unwrap_or_default();
    assert!(asked.contains("tools/list 1"), "{asked}");
    assert!(!asked.contains("tools/list 2"), "{asked}");

    // A schema nested 100 levels: that tool is left out, the others served.
    let (line, at) = proxy.stderr_line("MCP server `deep`", std::time::Duration::from_secs(10));
    assert!(
        line.contains("tool `deep` is left out: its input schema is nested deeper than 32 levels, the limit `max_schema_depth`"),
        "{line}"
    );
    assert!(
        at < std::time::Duration::from_secs(3),
        "reported after {at:?}"
    );
    eprintln!("the deep schema was reported {at:?} after the start");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let names = loop {
        let names = proxy.tool_names();
        if names.contains(&"big_echo".to_owned()) && names.contains(&"deep_echo".to_owned()) {
            break names;
        }
        assert!(std::time::Instant::now() < deadline, "{names:?}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(
        !names
            .iter()
            .any(|name| name.starts_with("many_") || name.starts_with("hang_"))
    );
    assert!(!names.contains(&"deep_deep".to_owned()), "{names:?}");

    // 100 MB results, the id written last and first: each call fails at
    // once, naming the limit and the server; the server stays usable (the
    // echo after each waits for the rest of the result to be dropped).
    for tool in ["big_huge", "big_huge_id_first"] {
        let (answer, took) = proxy.request("tools/call", json!({"name": tool, "arguments": {}}));
        assert!(
            took < std::time::Duration::from_secs(2),
            "{tool} took {took:?}"
        );
        eprintln!("{tool} failed after {took:?}");
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.starts_with("MCP server `big`: the call to `")
                && text.contains("its answer is larger than 4 MiB, the limit `max_result_bytes`"),
            "{text}"
        );
        let (answer, _) = proxy.request(
            "tools/call",
            json!({"name": "big_echo", "arguments": {"message": "still here"}}),
        );
        assert_eq!(
            answer["result"]["content"][0]["text"], "echo: still here",
            "{answer}"
        );
    }

    // What it all cost the proxy at its peak.
    let peak = proxy.peak_memory_kib();
    assert!(
        peak < 100 * 1024,
        "the proxy's peak resident memory is {peak} KiB"
    );
    eprintln!(
        "the proxy's peak resident memory: {peak} KiB; initialize answered after {answered:?}"
    );
    assert!(proxy.finish().success());
}

#[test]
fn what_servers_say_is_escaped_and_names_alike_are_refused() {
    let (_dir, file) = registry_file(&format!(
        "mcp_servers:\n{}",
        misbehaving("names", "names", "")
    ));

    // Descriptions and parameter names reach the terminal escaped; `x.y`
    // and `x_y` would both be `names_x_y`: neither is offered, each named.
    let output = run(&["--registry", &file, "list"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let (out, err) = (stdout(&output), stderr(&output));
    for text in [&out, &err] {
        assert!(!text.contains(['\u{1b}', '\u{7}']), "{text:?}");
    }
    let ctl = out
        .lines()
        .find(|line| line.starts_with("names_ctl "))
        .unwrap_or_else(|| panic!("names_ctl is listed:\n{out}"));
    assert!(
        ctl.contains(r"Bad\u{1b}[31m red\u{7} text\u{1b}]0;title\u{7} here."),
        "{ctl}"
    );
    assert!(ctl.ends_with(r"p\u{1b}[2Jq?"), "{ctl}");
    assert!(!out.contains("names_x_y"), "{out}");
    for remote in ["x.y", "x_y"] {
        assert!(
            err.contains(&format!(
                "warning: {file}:2:3: MCP server `names`: tool `{remote}` is left out: \
                 the tools `x.y` and `x_y` would both be named `names_x_y` here; neither is offered"
            )),
            "{err}"
        );
    }

    // A remote error result, and a JSON-RPC error of 5,000 characters:
    // escaped on the terminal, and cut short.
    let output = run(&["--registry", &file, "call", "names_ctl"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(
        stderr(&output).contains(r"error: oops\u{1b}[31m red\u{7}"),
        "{}",
        stderr(&output)
    );
    let output = run(&["--registry", &file, "call", "names_fails"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let err = stderr(&output);
    let line = err
        .lines()
        .find(|line| line.starts_with("error: "))
        .unwrap_or_else(|| panic!("an error line: {err}"));
    assert!(
        line.starts_with(r"error: MCP server `names`: the call to `fails` failed: broken\u{1b}[2J\u{1b}]0;pwned\u{7} zzz"),
        "{line}"
    );
    assert!(line.ends_with('…') && line.len() < 1000, "{line}");
    assert!(!err.contains(['\u{1b}', '\u{7}']));

    // A scalar result wrapped as {"result": 42} is 42 to the model.
    let output = run(&["--registry", &file, "call", "names_scalar"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(json_out(&output)["content"], json!([{"json": 42}]));

    // Served again, it is wrapped once, as MCP wants.
    let mut proxy = Served::start(&file);
    proxy.initialize();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let tools = loop {
        let (answer, _) = proxy.request("tools/list", json!({}));
        let tools = answer["result"]["tools"].clone();
        if tools.to_string().contains("names_scalar") {
            break tools;
        }
        assert!(std::time::Instant::now() < deadline, "{tools}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let scalar = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "names_scalar")
        .unwrap();
    assert_eq!(
        scalar["outputSchema"],
        json!({"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]})
    );
    let (answer, _) = proxy.request(
        "tools/call",
        json!({"name": "names_scalar", "arguments": {}}),
    );
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"result": 42}),
        "{answer}"
    );
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "42"}])
    );
    assert!(proxy.finish().success());
}

/// A registry file's `protocol` chooses the revision the proxy speaks with
/// a server: `toolbox` proxies another `toolbox` in each, and a value it
/// does not know is refused at its key.
#[test]
fn an_mcp_servers_protocol_chooses_the_revision() {
    for protocol in ["\"2025-11-25\"", "\"2026-07-28\"", "auto"] {
        let (_dir, file) = registry_file(&format!(
            "mcp_servers:\n  inner:\n    command: {}\n    args: [serve]\n    prefix: inner_\n    protocol: {protocol}\n",
            json!(TOOLBOX)
        ));
        let output = run(&[
            "--registry",
            &file,
            "call",
            "inner_calculator",
            "--args",
            r#"{"expression":"6*7"}"#,
        ]);
        assert_eq!(code(&output), 0, "{protocol}: {}", stderr(&output));
        assert!(
            stdout(&output).contains("42"),
            "{protocol}: {}",
            stdout(&output)
        );
    }
    let (_dir, file) =
        registry_file("mcp_servers:\n  one:\n    command: python3\n    protocol: 2027\n");
    let output = run(&["--registry", &file, "list"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    let expected = "4:5: MCP server \"one\": `protocol` is \"2025-11-25\"";
    assert!(
        stderr(&output).contains(&format!("{file}:{expected}")),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_mcp_servers_limits_are_checked_with_the_rest_of_the_file() {
    let (_dir, file) = registry_file(
        "mcp_servers:
  one:
    command: python3
    max_tools: ten
    max_schema_depth: 100
    connect_timeout_ms: 0
    max_tool: 5
",
    );
    let output = run(&["--registry", &file, "list"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    let text = stderr(&output);
    for expected in [
        "4:5: MCP server \"one\": `max_tools` is a whole number of at least 1",
        "5:5: MCP server \"one\": `max_schema_depth` is at most 64",
        "6:5: MCP server \"one\": `connect_timeout_ms` is a whole number of milliseconds, at least 1",
        "7:5: MCP server \"one\": unknown key `max_tool` in an MCP server's configuration",
    ] {
        assert!(
            text.contains(&format!("{file}:{expected}")),
            "{expected}\n{text}"
        );
    }
    assert!(
        text.contains("may also have `prefix`, `connect_timeout_ms`, `max_tools`"),
        "{text}"
    );
}

/// `toolbox serve` over stdio as a proxy for conformance-server (its names
/// prefixed with `c_`): a session whose requests wait for their answers.
struct ProxySession {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    next_id: u64,
}

impl ProxySession {
    fn start(file: &str) -> Self {
        let mut child = toolbox(&["--registry", file, "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("toolbox serve starts");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut session = Self {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        session.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "cli-test", "version": "1"}}),
        );
        writeln!(
            session.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        session
    }

    /// The answer to `method` (its `result`, or its `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{message}").unwrap();
        loop {
            let line = self.lines.next().expect("an answer").expect("a line");
            let answer: Value = serde_json::from_str(&line).expect("JSON");
            if answer["id"] == id {
                return if answer.get("error").is_some() {
                    answer["error"].clone()
                } else {
                    answer["result"].clone()
                };
            }
        }
    }
}

impl Drop for ProxySession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_as_a_proxy_serves_its_servers_prompts_and_resources() {
    let (_dir, file) = registry_file(&format!(
        "mcp_servers:\n  conformance:\n    command: {}\n    prefix: c_\n",
        json!(env!("CARGO_BIN_EXE_conformance-server"))
    ));
    let mut session = ProxySession::start(&file);
    // The server's offers join as it answers: wait for its prompts (a
    // liveness bound, not a measure).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let prompts = loop {
        let listed = session.request("prompts/list", json!({}));
        let names: Vec<String> = listed["prompts"]
            .as_array()
            .map(|prompts| {
                prompts
                    .iter()
                    .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        if names.iter().any(|name| name == "c_test_simple_prompt") {
            break names;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no prompts came: {listed}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(
        prompts.iter().all(|name| name.starts_with("c_")),
        "{prompts:?}"
    );

    let got = session.request("prompts/get", json!({"name": "c_test_simple_prompt"}));
    assert_eq!(got["messages"][0]["role"], "user", "{got}");

    // Resources keep their URIs: read through the proxy from the server.
    let listed = session.request("resources/list", json!({}));
    assert!(
        listed["resources"]
            .as_array()
            .is_some_and(|list| list.iter().any(|r| r["uri"] == "test://static-text")),
        "{listed}"
    );
    let read = session.request("resources/read", json!({"uri": "test://static-text"}));
    assert_eq!(
        read["contents"][0]["text"], "This is the content of the static text resource.",
        "{read}"
    );
    let missing = session.request("resources/read", json!({"uri": "test://no-such-thing"}));
    assert_eq!(missing["code"], -32602, "{missing}");

    // The link a remote tool returns reads through the proxy too.
    let called = session.request(
        "tools/call",
        json!({"name": "c_test_resource_link", "arguments": {}}),
    );
    let uri = called["content"][0]["uri"]
        .as_str()
        .expect("a resource link")
        .to_owned();
    let read = session.request("resources/read", json!({"uri": uri}));
    assert!(read["contents"][0]["text"].is_string(), "{read}");
}
