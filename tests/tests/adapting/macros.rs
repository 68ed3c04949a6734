//! The `#[tool]` keys that adapt a tool to its caller: the spec fields each
//! sets, and the argument transforms, through `Registry::invoke` and the
//! text path; versions and sequential calls written with the attribute,
//! through a provider's calls and renderings; transforms over MCP.

use std::borrow::Cow;

use serde_json::{Value, json};
use tool_runtime::providers::Provider;
use tool_runtime::{
    Registry, Tool, ToolContext, ToolSpec, ToolUse, format::DescriptionFormat, format::ToolFormat,
    limits::ResultLimit, spec::ArgErrorKind, tool, toolset,
};

/// Converts a length, in its second version.
#[tool(
    register = false,
    version = "2.1.0-beta.1+build.7",
    deprecated = "use convert_length_v3",
    requires(env = "LENGTH_TABLES", env = ["A", "B"], program = "units", feature = "search"),
    sequential,
    result_limit = "64KB"
)]
fn convert_length_v2(metres: f64) -> f64 {
    metres * 3.28
}

#[test]
fn each_key_sets_its_spec_field() {
    let spec = &ConvertLengthV2Tool::SPEC;
    assert_eq!(spec.version.as_deref(), Some("2.1.0-beta.1+build.7"));
    assert_eq!(spec.deprecated.as_deref(), Some("use convert_length_v3"));
    let env: Vec<&str> = spec.requires.env.iter().map(|e| e.as_ref()).collect();
    assert_eq!(env, ["LENGTH_TABLES", "A", "B"]);
    let programs: Vec<&str> = spec.requires.programs.iter().map(|p| p.as_ref()).collect();
    assert_eq!(programs, ["units"]);
    assert_eq!(spec.requires.features.len(), 1);
    assert_eq!(spec.requires.features[0].name, "search");
    // The tests crate has no feature of that name.
    assert!(!spec.requires.features[0].built);
    assert!(spec.sequential);
    assert_eq!(spec.result_limit, Some(ResultLimit::Bytes(65536)));
    assert!(spec.formatter.is_none());
}

/// Counts words.
#[tool(register = false, result_limit = "2000 tokens", deprecated)]
fn count_words(text: String) -> usize {
    text.split_whitespace().count()
}

/// Reads a file.
#[tool(register = false, result_limit = "1 MiB")]
fn read_file(path: String) -> String {
    path
}

/// Lists nothing.
#[tool(register = false)]
fn plain() -> String {
    String::new()
}

#[test]
fn limits_in_every_unit_and_a_bare_deprecation() {
    let spec = &CountWordsTool::SPEC;
    assert_eq!(spec.result_limit, Some(ResultLimit::Tokens(2000)));
    assert_eq!(spec.deprecated.as_deref(), Some("deprecated"));
    assert_eq!(
        ReadFileTool::SPEC.result_limit,
        Some(ResultLimit::Bytes(1024 * 1024))
    );
    let spec = &PlainTool::SPEC;
    assert!(spec.version.is_none() && spec.deprecated.is_none());
    assert!(spec.requires.is_empty() && !spec.sequential && spec.result_limit.is_none());
}

/// Rust's own `#[deprecated]` marks the spec; the key wins when both are
/// written. The expansion's call of the function warns no one (the tests
/// crate denies no warnings, but `cargo clippy -D warnings` runs on it).
mod rust_deprecated {
    use super::*;

    /// Converts a temperature.
    #[deprecated(since = "0.2.0", note = "use convert_temperature_v2")]
    #[tool(register = false)]
    pub fn convert_temperature(celsius: f64) -> f64 {
        celsius * 1.8 + 32.0
    }

    /// Converts a weight.
    #[deprecated = "use convert_weight_v2"]
    #[tool(register = false)]
    pub fn convert_weight(kg: f64) -> f64 {
        kg * 2.2
    }

    /// Converts a volume.
    #[deprecated]
    #[tool(register = false, deprecated = "use convert_volume_v2")]
    pub fn convert_volume(litres: f64) -> f64 {
        litres
    }

    /// Converts a speed.
    #[deprecated]
    #[tool(register = false)]
    pub fn convert_speed(kmh: f64) -> f64 {
        kmh
    }
}

#[tokio::test]
async fn rust_deprecated_marks_the_spec() {
    use rust_deprecated::*;
    assert_eq!(
        ConvertTemperatureTool::SPEC.deprecated.as_deref(),
        Some("use convert_temperature_v2")
    );
    assert_eq!(
        ConvertWeightTool::SPEC.deprecated.as_deref(),
        Some("use convert_weight_v2")
    );
    assert_eq!(
        ConvertVolumeTool::SPEC.deprecated.as_deref(),
        Some("use convert_volume_v2")
    );
    assert_eq!(
        ConvertSpeedTool::SPEC.deprecated.as_deref(),
        Some("deprecated")
    );
    // The tool still runs.
    let value = ConvertTemperatureTool
        .call_json(&json!({"celsius": 100.0}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(value, json!(212.0));
}

/// A formatter of its own.
struct Terse;

impl ToolFormat for Terse {
    fn describe(&self, spec: &ToolSpec, _format: DescriptionFormat) -> Option<String> {
        Some(format!("{}: terse", spec.name))
    }
}

static TERSE_STATIC: Terse = Terse;

/// Looks a word up.
#[tool(register = false, format = Terse)]
fn lookup(word: String) -> String {
    word
}

/// Looks a word up, formatted through a `static`.
#[tool(register = false, format = TERSE_STATIC)]
fn lookup_static(word: String) -> String {
    word
}

#[test]
fn format_names_the_formatter() {
    for spec in [&LookupTool::SPEC, &LookupStaticTool::SPEC] {
        let formatter = spec.formatter.as_ref().expect("a formatter");
        assert_eq!(
            formatter.get().describe(spec, DescriptionFormat::Text),
            Some(format!("{}: terse", spec.name))
        );
    }
}

/// The keys on a `#[toolset]` method.
struct Converter;

#[toolset]
impl Converter {
    /// Converts an area.
    #[tool(
        version = "1.0.0",
        deprecated = "use area_v2",
        sequential,
        result_limit = "10 KB"
    )]
    fn area(&self, #[tool(transform = trim_lower)] unit: String) -> String {
        unit
    }
}

#[tokio::test]
async fn toolset_methods_take_the_keys() {
    let spec = &ConverterAreaTool::SPEC;
    assert_eq!(spec.version.as_deref(), Some("1.0.0"));
    assert_eq!(spec.deprecated.as_deref(), Some("use area_v2"));
    assert!(spec.sequential);
    assert_eq!(spec.result_limit, Some(ResultLimit::Bytes(10 * 1024)));
    let registry = Registry::builder()
        .toolset(std::sync::Arc::new(Converter))
        .build()
        .unwrap();
    let result = registry
        .invoke(
            ToolUse::new("1", "area", json!({"unit": "  M2 "})),
            &ToolContext::new(),
        )
        .await;
    assert!(!result.is_error(), "{}", result.text_content());
    assert_eq!(result.text_content(), "m2");
}

// Transforms of parameters.

fn trim_lower(text: String) -> String {
    text.trim().to_lowercase()
}

fn feet_to_metres(feet: f64) -> f64 {
    feet * 0.3048
}

fn known_city(city: String) -> Result<String, String> {
    match city.trim() {
        "" => Err("give a city name".to_owned()),
        "Atlantis" => Err(format!("no weather is kept for {city}")),
        city => Ok(city.to_owned()),
    }
}

/// Files a report.
#[tool(register = false)]
fn file_report(
    #[tool(transform = trim_lower)] category: String,
    #[tool(transform = feet_to_metres, range(max = 100))] height: f64,
    #[tool(transform = known_city, length(max = 6))] city: Option<String>,
    #[tool(transform = trim_lower, length(min = 2, max = 4))] code: String,
    floors: u32,
) -> String {
    format!("{category} {height:.2} {city:?} {code} {floors}")
}

fn registry() -> Registry {
    Registry::builder()
        .tool(FileReportTool)
        .tool(LegacyTool)
        .build()
        .unwrap()
}

async fn invoke(name: &str, args: Value) -> tool_runtime::ToolResult {
    registry()
        .invoke(ToolUse::new("1", name, args), &ToolContext::new())
        .await
}

#[tokio::test]
async fn parameter_transforms_run_before_the_body() {
    let result = invoke(
        "file_report",
        json!({"category": "  Noise ", "height": 10.0, "city": " Paris ", "code": " AB ", "floors": 3}),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text_content());
    assert_eq!(result.text_content(), "noise 3.05 Some(\"Paris\") ab 3");
    // An absent `Option` is not transformed.
    let result = invoke(
        "file_report",
        json!({"category": "x", "height": 1.0, "code": "abc", "floors": 1}),
    )
    .await;
    assert_eq!(result.text_content(), "x 0.30 None abc 1");
}

#[tokio::test]
async fn constraints_see_the_transformed_value() {
    // 300 feet is 91.44 metres: within `range(max = 100)`. Untransformed,
    // 300 would be out of range; " AB " would be 4 characters, within
    // `length(2, 4)` untransformed but "  ABCDE  " trims to 5.
    let result = invoke(
        "file_report",
        json!({"category": "x", "height": 300.0, "code": "  ABCD  ", "floors": 1}),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text_content());
    assert_eq!(result.text_content(), "x 91.44 None abcd 1");
    let result = invoke(
        "file_report",
        json!({"category": "x", "height": 400.0, "code": "  ABCDE  ", "floors": 1}),
    )
    .await;
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "invalid arguments for file_report: height: must be at most 100, got 121.92; \
         code: must have from 2 to 4 characters, got 5"
    );
}

#[tokio::test]
async fn a_refusal_is_reported_with_the_other_problems() {
    // A type error elsewhere: the arguments do not decode.
    let result = invoke(
        "file_report",
        json!({"category": "x", "height": 1.0, "city": "Atlantis", "code": "ab", "floors": "three"}),
    )
    .await;
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "invalid arguments for file_report: city: no weather is kept for Atlantis; \
         floors: expected an integer from 0 to 4294967295, got \"three\""
    );
    // The arguments decode; a refusal and a constraint problem of another
    // parameter. "Atlantis" is also longer than `length(max = 6)`: a
    // refused value is not checked further.
    let error = FileReportTool
        .call_json(
            &json!({"category": "x", "height": 500.0, "city": "Atlantis", "code": "ab", "floors": 1}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        "invalid arguments for file_report: height: must be at most 100, got 152.4; \
         city: no weather is kept for Atlantis"
    );
    assert!(
        error
            .argument_errors()
            .iter()
            .all(|e| e.kind == ArgErrorKind::InvalidValue)
    );
}

#[tokio::test]
async fn text_arguments_are_transformed_too() {
    let ctx = ToolContext::new();
    let output = FileReportTool
        .call_str(
            r#"{"category": " A ", "height": 10, "code": "XY", "floors": 2}"#,
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(output.into_value().unwrap(), json!("a 3.05 None xy 2"));
    let error = FileReportTool
        .call_str(
            r#"{"category": "a", "height": 1, "city": "", "code": "xy", "floors": 2}"#,
            &ctx,
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        "invalid arguments for file_report: city: give a city name"
    );
}

// The transform of the whole argument object.

fn rename_legacy(mut args: Value) -> Result<Value, String> {
    let Some(object) = args.as_object_mut() else {
        return Ok(args);
    };
    if let Some(old) = object.remove("len") {
        if object.contains_key("length_m") {
            return Err("give `length_m` only; `len` is its old name".to_owned());
        }
        let metres = old.as_f64().map(|cm| cm / 100.0).unwrap_or_default();
        object.insert("length_m".to_owned(), json!(metres));
    }
    Ok(args)
}

/// Measures something, taking its legacy argument too.
#[tool(register = false, transform = rename_legacy)]
fn legacy(
    #[tool(range(min = 0))] length_m: f64,
    #[tool(transform = trim_lower)] unit: String,
) -> String {
    format!("{length_m} {unit}")
}

#[tokio::test]
async fn the_function_transform_rewrites_the_arguments() {
    let result = invoke("legacy", json!({"len": 250, "unit": " M "})).await;
    assert!(!result.is_error(), "{}", result.text_content());
    assert_eq!(result.text_content(), "2.5 m");
    let result = invoke("legacy", json!({"length_m": 1.5, "unit": "m"})).await;
    assert_eq!(result.text_content(), "1.5 m");
    let result = invoke("legacy", json!({"len": 1, "length_m": 1.5, "unit": "m"})).await;
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "invalid arguments for legacy: give `length_m` only; `len` is its old name"
    );
    // Through text.
    let output = LegacyTool
        .call_str(r#"{"len": 50, "unit": "CM"}"#, &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(output.into_value().unwrap(), json!("0.5 cm"));
    let error = LegacyTool
        .call_str(r#"{"len": -100, "unit": "m"}"#, &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.kind(),
        tool_runtime::spec::ToolErrorKind::InvalidArguments
    );
    assert_eq!(
        error.message(),
        "invalid arguments for legacy: length_m: must be at least 0, got -1.0"
    );
}

#[test]
fn cow_fields_are_borrowed() {
    // The macro's fields are `'static` borrows, not allocations.
    assert!(matches!(
        ConvertLengthV2Tool::SPEC.version,
        Some(Cow::Borrowed(_))
    ));
}

/// Converts metres to feet, in its first version.
#[tool(register = false, name = "to_feet", version = "1.0.0")]
fn to_feet_v1(metres: f64) -> String {
    format!("v1 {:.1}", metres * 3.28)
}

/// Converts metres to feet, in its second version.
#[tool(register = false, name = "to_feet", version = "2.0.0")]
fn to_feet_v2(metres: f64) -> String {
    format!("v2 {:.2}", metres * 3.2808)
}

/// Converts metres to feet, in a third version withdrawn for a bug.
#[tool(
    register = false,
    name = "to_feet",
    version = "3.0.0",
    deprecated = "rounds wrongly; use 2.0.0"
)]
fn to_feet_v3(metres: f64) -> String {
    format!("v3 {}", metres.round())
}

/// What the cache tools did, in order.
type Log = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// Clears the whole cache.
#[tool(register = false, sequential)]
async fn clear_cache(log: tool_runtime::State<Log>) -> &'static str {
    log.lock().unwrap().push("clear start".into());
    tokio::task::yield_now().await;
    log.lock().unwrap().push("clear end".into());
    "cleared"
}

/// Reads one cache entry.
#[tool(register = false)]
async fn read_cache(key: String, log: tool_runtime::State<Log>) -> String {
    log.lock().unwrap().push(format!("{key} start"));
    for _ in 0..3 {
        tokio::task::yield_now().await;
    }
    log.lock().unwrap().push(format!("{key} end"));
    key
}

#[tokio::test]
async fn versions_written_with_the_attribute_are_offered_and_called_by_version() {
    let registry = Registry::builder()
        .tool(ToFeetV1Tool)
        .tool(ToFeetV2Tool)
        .tool(ToFeetV3Tool)
        .build()
        .unwrap();
    // One definition per name: the newest that is not deprecated.
    let rendered = registry.render(Provider::OpenAiChat);
    let names: Vec<&str> = rendered
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["to_feet"]);
    let ctx = ToolContext::new();
    let args = json!({"metres": 10.0});
    let offered = registry
        .invoke(ToolUse::new("1", "to_feet", args.clone()), &ctx)
        .await;
    assert_eq!(offered.text_content(), "v2 32.81");
    let (old, record) = registry
        .invoke_recorded(ToolUse::new("2", "to_feet@3.0.0", args.clone()), &ctx)
        .await;
    assert_eq!(old.text_content(), "v3 10");
    assert!(
        record.warnings.iter().any(|w| w.contains("rounds wrongly")),
        "{:?}",
        record.warnings
    );
    let unknown = registry
        .invoke(ToolUse::new("3", "to_feet@9.9.9", args), &ctx)
        .await;
    assert!(unknown.is_error());
    assert!(
        unknown.text_content().contains("1.0.0") && unknown.text_content().contains("2.0.0"),
        "{}",
        unknown.text_content()
    );
}

#[tokio::test]
async fn a_sequential_tool_from_the_attribute_is_a_barrier_among_a_models_parallel_calls() {
    let log: Log = std::sync::Arc::default();
    let registry = Registry::builder()
        .tool(ClearCacheTool)
        .tool(ReadCacheTool)
        .state(std::sync::Arc::clone(&log))
        .build()
        .unwrap();
    // A model's turn with four parallel calls, as OpenAI's Chat Completions
    // sends them.
    let call = |id: &str, name: &str, arguments: Value| {
        json!({"id": id, "type": "function",
            "function": {"name": name, "arguments": arguments.to_string()}})
    };
    let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        call("a", "read_cache", json!({"key": "a"})),
        call("b", "read_cache", json!({"key": "b"})),
        call("c", "clear_cache", json!({})),
        call("d", "read_cache", json!({"key": "d"})),
    ]}}]});
    let calls = tool_runtime::providers::parse_tool_calls(Provider::OpenAiChat, &response).unwrap();
    let results = registry
        .invoke_all(calls.clone(), &ToolContext::new())
        .await;
    let log = log.lock().unwrap().clone();
    let at = |entry: &str| log.iter().position(|e| e == entry).unwrap();
    // a and b overlap; the clear runs alone between them and d.
    assert!(at("b start") < at("a end"), "{log:?}");
    assert!(at("clear start") > at("a end").max(at("b end")), "{log:?}");
    assert!(at("d start") > at("clear end"), "{log:?}");
    let rendered = registry.render_results(Provider::OpenAiChat, calls.iter().zip(&results));
    let contents: Vec<&str> = rendered
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["a", "b", "cleared", "d"]);
}

#[tokio::test]
async fn a_transformed_parameter_is_served_over_mcp_with_its_schema_as_written() {
    let listed = tool_mcp::server::McpServer::new(registry()).tools();
    let report = listed
        .iter()
        .find(|tool| tool["name"] == "file_report")
        .unwrap();
    assert_eq!(
        report["inputSchema"]["properties"]["code"]["maxLength"], 4,
        "{report}"
    );
    let answers = super::mcp::mcp_answers(
        registry(),
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "file_report",
                "arguments": {"category": " Noise ", "height": 10.0, "code": " AB ", "floors": 3}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "file_report",
                "arguments": {"category": "x", "height": 400.0, "code": "ab", "floors": 1}}}),
        ],
    )
    .await;
    let ok = &answers[0]["result"];
    assert_eq!(ok["isError"], false, "{ok}");
    assert_eq!(ok["content"][0]["text"], "noise 3.05 None ab 3");
    let refused = &answers[1]["result"];
    assert_eq!(refused["isError"], true);
    assert_eq!(
        refused["content"][0]["text"],
        "invalid arguments for file_report: height: must be at most 100, got 121.92"
    );
}
