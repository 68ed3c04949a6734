//! `ToolTransform`: a tool re-exposed under a new name and description,
//! its arguments renamed, hidden with a fixed value, or given new defaults
//! and descriptions; through `Registry::invoke`, a provider's rendering, the
//! MCP server and registry files.

use std::time::Duration;

use futures_util::FutureExt;
use serde_json::{Value, json};
use tool_manifest::Manifest;
use tool_mcp::server::McpServer;
use tool_runtime::providers::Provider;
use tool_runtime::{
    Registry, Tool, ToolContext, ToolError, ToolUse, dynamic::DynamicTool, spec::ArgErrorKind,
    spec::ToolErrorKind, tool, transform::ArgTransform, transform::GivenValue,
    transform::ToolTransform, transform::TransformError,
};

/// Looks orders up.
#[tool(register = false, read_only, timeout = "5s")]
fn order_lookup(
    /// What to look for
    q: String,
    /// At most this many orders
    limit: u32,
    /// The unit of lengths
    #[tool(default = "cm".to_owned())]
    unit: String,
) -> String {
    format!("{q}|{limit}|{unit}")
}

/// Looks orders up as a customer service agent calls it.
fn find_order() -> tool_runtime::transform::TransformedTool {
    ToolTransform::new(OrderLookupTool)
        .name("find_order")
        .description("Finds a customer's order by what they say about it.")
        .arg(
            "q",
            ArgTransform::new()
                .rename("query")
                .description("The customer's own words"),
        )
        .arg("limit", ArgTransform::hidden(json!(10)))
        .arg("unit", ArgTransform::new().default(json!("m")))
        .build()
        .unwrap()
}

async fn invoke(registry: &Registry, name: &str, arguments: Value) -> tool_runtime::ToolResult {
    let call = ToolUse::new("call-1", name, arguments);
    registry.invoke(call, &ToolContext::new()).await
}

#[test]
fn the_schema_is_the_tools_own_rewritten() {
    let tool = find_order();
    let spec = tool.spec();
    assert_eq!(spec.name, "find_order");
    assert_eq!(
        spec.description,
        "Finds a customer's order by what they say about it."
    );
    let schema = spec.input_schema();
    let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["query", "unit"]);
    assert_eq!(
        schema["properties"]["query"]["description"],
        "The customer's own words"
    );
    assert_eq!(schema["properties"]["query"]["type"], "string");
    assert_eq!(schema["properties"]["unit"]["default"], "m");
    assert_eq!(
        schema["properties"]["unit"]["description"],
        "The unit of lengths"
    );
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(schema["additionalProperties"], false);
    // The other fields are the tool's own.
    assert_eq!(spec.annotations.read_only, Some(true));
    assert_eq!(spec.timeout, Some(Duration::from_secs(5)));
    assert_eq!(tool.inner().spec().name, "order_lookup");
}

#[tokio::test]
async fn a_call_renames_fills_hidden_values_and_defaults() {
    let registry = Registry::builder().tool(find_order()).build().unwrap();
    let ok = invoke(&registry, "find_order", json!({"query": "blue shoes"})).await;
    assert_eq!(ok.text_content(), "blue shoes|10|m");
    let given = invoke(
        &registry,
        "find_order",
        json!({"query": "hat", "unit": "in"}),
    )
    .await;
    assert_eq!(given.text_content(), "hat|10|in");
    // `null` for an argument with a default reads as absent.
    let null = invoke(
        &registry,
        "find_order",
        json!({"query": "hat", "unit": null}),
    )
    .await;
    assert_eq!(null.text_content(), "hat|10|m");
}

#[tokio::test]
async fn mistakes_are_reported_in_the_new_names() {
    let registry = Registry::builder().tool(find_order()).build().unwrap();
    let old_name = invoke(&registry, "find_order", json!({"q": "blue"})).await;
    assert_eq!(old_name.error_kind, Some(ToolErrorKind::InvalidArguments));
    assert_eq!(
        old_name.text_content(),
        "invalid arguments for find_order: q: unknown field, did you mean \"query\"?"
    );
    let missing = invoke(&registry, "find_order", json!({})).await;
    assert_eq!(
        missing.text_content(),
        "invalid arguments for find_order: query: missing required field (a string)"
    );
    let unknown = invoke(&registry, "find_order", json!({"query": "x", "colour": 1})).await;
    assert_eq!(
        unknown.text_content(),
        "invalid arguments for find_order: colour: unknown field; expected one of \"query\", \
         \"unit\""
    );
    // A wrong value is found by the tool, and named as the model knows it.
    let wrong = invoke(&registry, "find_order", json!({"query": 5})).await;
    assert_eq!(
        wrong.text_content(),
        "invalid arguments for find_order: query: expected a string, got 5"
    );
    // A hidden argument may not be set.
    let hidden = invoke(&registry, "find_order", json!({"query": "x", "limit": 500})).await;
    assert_eq!(
        hidden.text_content(),
        "invalid arguments for find_order: limit: the tool sets this argument itself; leave it out"
    );
    let error = find_order()
        .call(&json!({"query": "x", "limit": 500}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(error.argument_errors()[0].field, "limit");
    assert_eq!(error.argument_errors()[0].kind, ArgErrorKind::Unknown);
}

#[tokio::test]
async fn a_run_time_tool_is_transformed_alike_and_its_errors_renamed() {
    let convert = DynamicTool::builder(
        "convert",
        "Converts a length.",
        json!({
            "type": "object",
            "properties": {
                "v": {"type": "number", "description": "The value"},
                "to": {"enum": ["m", "ft"]},
                "precision": {"type": "integer", "minimum": 0}
            },
            "required": ["v", "to", "precision"],
            "additionalProperties": false
        }),
    )
    .handler(|args: Value, _ctx: &ToolContext| {
        Ok::<_, ToolError>(format!(
            "{} {} {}",
            args["v"], args["to"], args["precision"]
        ))
    })
    .build()
    .unwrap();
    let tool = ToolTransform::new(convert)
        .name("to_feet")
        .arg("v", ArgTransform::new().rename("metres"))
        .arg("to", ArgTransform::hidden(json!("ft")))
        .arg(
            "precision",
            ArgTransform::new().default(json!(2)).description("Digits"),
        )
        .build()
        .unwrap();
    assert_eq!(tool.spec().description, "Converts a length.");
    assert_eq!(tool.spec().input_schema()["required"], json!(["metres"]));
    let registry = Registry::builder().tool(tool).build().unwrap();
    let ok = invoke(&registry, "to_feet", json!({"metres": 3})).await;
    assert_eq!(ok.text_content(), "3 \"ft\" 2");
    let bad = invoke(
        &registry,
        "to_feet",
        json!({"metres": "three", "precision": -1}),
    )
    .await;
    assert!(
        bad.text_content()
            .starts_with("invalid arguments for to_feet: metres: "),
        "{}",
        bad.text_content()
    );
    let error = registry
        .get("to_feet")
        .unwrap()
        .call(
            &json!({"metres": "three", "precision": -1}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    let fields: Vec<&str> = error
        .argument_errors()
        .iter()
        .map(|problem| problem.field.as_str())
        .collect();
    assert_eq!(fields, ["metres", "precision"]);
}

#[test]
fn build_refuses_what_the_tool_does_not_have() {
    let unknown = ToolTransform::new(OrderLookupTool)
        .arg("limt", ArgTransform::new().description("How many"))
        .build()
        .unwrap_err();
    assert_eq!(
        unknown,
        TransformError::UnknownArgument {
            tool: "order_lookup".into(),
            argument: "limt".into(),
            suggestion: Some("limit".into()),
        }
    );
    assert_eq!(
        unknown.to_string(),
        "tool order_lookup has no argument \"limt\"; did you mean \"limit\"?"
    );
    let taken = ToolTransform::new(OrderLookupTool)
        .arg("q", ArgTransform::new().rename("unit"))
        .build()
        .unwrap_err();
    assert_eq!(
        taken,
        TransformError::NameTaken {
            tool: "order_lookup".into(),
            argument: "q".into(),
            name: "unit".into(),
        }
    );
    // Two names swapped take nothing from each other.
    let swapped = ToolTransform::new(OrderLookupTool)
        .arg("q", ArgTransform::new().rename("unit"))
        .arg("unit", ArgTransform::new().rename("q"))
        .build();
    assert!(swapped.is_ok());
    let hidden = ToolTransform::new(OrderLookupTool)
        .arg("q", ArgTransform::new().hide())
        .build()
        .unwrap_err();
    assert!(
        matches!(hidden, TransformError::HiddenRequired { ref argument, .. } if argument == "q")
    );
    // An optional argument may be hidden with no value: the tool's own
    // default applies.
    let optional = ToolTransform::new(OrderLookupTool)
        .arg("unit", ArgTransform::new().hide())
        .build()
        .unwrap();
    assert!(
        optional.spec().input_schema()["properties"]
            .get("unit")
            .is_none()
    );
    let bad_name = ToolTransform::new(OrderLookupTool)
        .name("find order")
        .build()
        .unwrap_err();
    assert!(matches!(bad_name, TransformError::InvalidName { .. }));
}

#[test]
fn a_provider_rendering_shows_the_new_names() {
    let registry = Registry::builder()
        .tool(OrderLookupTool)
        .tool(find_order())
        .build()
        .unwrap();
    let rendered = registry.render(Provider::OpenAiChat);
    let find = rendered
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["function"]["name"] == "find_order")
        .unwrap();
    assert_eq!(
        find["function"]["description"],
        "Finds a customer's order by what they say about it."
    );
    let parameters = &find["function"]["parameters"];
    assert_eq!(parameters["required"], json!(["query"]));
    assert!(parameters["properties"].get("q").is_none());
    assert!(parameters["properties"].get("limit").is_none());
    assert_eq!(parameters["properties"]["query"]["type"], "string");
}

#[tokio::test]
async fn a_tool_taken_from_a_registry_is_re_exposed() {
    let source = Registry::builder().tool(OrderLookupTool).build().unwrap();
    let shared = source.get_shared("order_lookup").unwrap();
    let tool = ToolTransform::shared(shared)
        .name("lookup_ten")
        .arg("limit", ArgTransform::hidden(json!(10)))
        .build()
        .unwrap();
    let registry = Registry::builder().tool(tool).build().unwrap();
    let result = invoke(&registry, "lookup_ten", json!({"q": "x"})).await;
    assert_eq!(result.text_content(), "x|10|cm");
    assert!(source.get_shared("nothing").is_none());
}

#[tokio::test]
async fn the_mcp_server_lists_and_calls_the_new_tool() {
    let registry = Registry::builder().tool(find_order()).build().unwrap();
    let listed = McpServer::new(registry.clone()).tools();
    assert_eq!(listed[0]["name"], "find_order");
    assert_eq!(listed[0]["inputSchema"]["required"], json!(["query"]));
    assert!(
        listed[0]["inputSchema"]["properties"]
            .get("limit")
            .is_none()
    );

    let answers = super::mcp::mcp_answers(
        registry,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "find_order", "arguments": {"query": "red"}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "find_order", "arguments": {"q": "red"}}}),
        ],
    )
    .await;
    let tools = &answers[0]["result"]["tools"];
    assert_eq!(tools[0]["name"], "find_order");
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["query"]["type"],
        "string"
    );
    let ok = &answers[1]["result"];
    assert_eq!(ok["isError"], false);
    assert_eq!(ok["content"][0]["text"], "red|10|m");
    let wrong = &answers[2]["result"];
    assert_eq!(wrong["isError"], true);
    assert_eq!(
        wrong["content"][0]["text"],
        "invalid arguments for find_order: q: unknown field, did you mean \"query\"?"
    );
}

/// The linked tool a registry file's transform starts from.
#[tool(register = false)]
fn weather(
    /// The city
    city: String,
    /// How many days
    days: u32,
    /// Celsius or fahrenheit
    unit: String,
) -> String {
    format!("{city} {days} {unit}")
}

const WEATHER: &[&dyn Tool] = &[&WeatherTool];

#[tokio::test]
async fn a_registry_file_declares_a_transform() {
    let text = "\
tools:
  - weather
  - name: forecast_here
    from: weather
    description: The forecast where the user lives.
    arguments:
      city: {hide: Oslo}
      days: {rename: how_many_days, description: Days ahead, default: 3}
      unit: {hide: celsius}
";
    let manifest = Manifest::parse("tools.yaml", text).unwrap();
    assert!(manifest.problems().is_empty(), "{:?}", manifest.problems());
    let registry = manifest
        .build_with(Registry::builder().catalog(WEATHER))
        .unwrap();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["forecast_here", "weather"]
    );
    let spec = registry.get("forecast_here").unwrap().spec();
    assert_eq!(spec.description, "The forecast where the user lives.");
    assert_eq!(
        spec.input_schema()["properties"]["how_many_days"]["description"],
        "Days ahead"
    );
    assert!(spec.input_schema().get("required").is_none());
    let result = invoke(&registry, "forecast_here", json!({"how_many_days": 2})).await;
    assert_eq!(result.text_content(), "Oslo 2 celsius");
    let result = invoke(&registry, "forecast_here", json!({})).await;
    assert_eq!(result.text_content(), "Oslo 3 celsius");
}

#[test]
fn a_registry_files_transform_mistakes_are_reported_where_they_are() {
    let text = "\
tools:
  - name: forecast_here
    from: weathr
  - name: forecast_there
    from: weather
    arguments:
      citty: {hide: Oslo}
      days: {rename: unit}
  - name: forecast_bad
    from: weather
    arguments:
      city: {rename: two words, colour: red}
";
    let manifest = Manifest::parse("tools.yaml", text).unwrap();
    let read: Vec<String> = manifest
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        read,
        [
            "12:33: unknown key \"colour\"; an argument has `rename`, `description`, `default` \
             and `hide`",
        ]
    );
    let error = manifest
        .build_with(Registry::builder().catalog(WEATHER))
        .unwrap_err();
    let problems: Vec<String> = error.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "3:11: no linked tool is named \"weathr\"; did you mean \"weather\"?",
            "7:7: cannot make tool \"forecast_there\": tool weather has no argument \"citty\"; \
             did you mean \"city\"?",
            "12:22: cannot make tool \"forecast_bad\": invalid name \"two words\": a tool or \
             argument name is 1 to 64 letters, digits, `_` or `-`",
            "12:33: unknown key \"colour\"; an argument has `rename`, `description`, `default` \
             and `hide`",
        ]
    );
}

/// A tool with an optional argument, for `hide: null`.
#[tool(register = false)]
fn greet(
    /// Who to greet
    name: String,
    /// How
    greeting: Option<String>,
) -> String {
    format!("{} {name}", greeting.unwrap_or_else(|| "hello".into()))
}

#[tokio::test]
async fn a_registry_file_hides_an_optional_argument_and_needs_from_for_a_transform() {
    const GREET: &[&dyn Tool] = &[&GreetTool];
    let text = "\
tools:
  - name: hello
    from: greet
    arguments:
      greeting: {hide: null}
      name: {description: Whom}
";
    let registry = Manifest::parse("tools.yaml", text)
        .unwrap()
        .build_with(Registry::builder().catalog(GREET))
        .unwrap();
    let schema = registry.get("hello").unwrap().spec().input_schema();
    assert_eq!(schema["properties"]["name"]["description"], "Whom");
    assert!(schema["properties"].get("greeting").is_none());
    let result = invoke(&registry, "hello", json!({"name": "Ada"})).await;
    assert_eq!(result.text_content(), "hello Ada");

    let text = "\
tools:
  - name: greet
    arguments:
      greeting: {hide: hi}
";
    let manifest = Manifest::parse("tools.yaml", text).unwrap();
    let problems: Vec<String> = manifest
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "3:5: `arguments` belongs to an entry that re-exposes another tool: add `from`, that \
          tool's name"
        ]
    );
}

/// Counts to `n`.
#[tool(register = false)]
fn count_to(
    /// How far
    n: u8,
    /// Between the numbers
    #[tool(default = ", ".to_owned())]
    separator: String,
) -> String {
    (1..=n)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(&separator)
}

#[test]
fn build_refuses_a_hidden_value_or_default_the_tool_would_refuse() {
    let hidden = ToolTransform::new(CountToTool)
        .arg("n", ArgTransform::hidden(json!(300)))
        .build()
        .unwrap_err();
    let TransformError::InvalidValue {
        tool,
        argument,
        value,
        problems,
        ..
    } = &hidden
    else {
        panic!("{hidden:?}");
    };
    assert_eq!((tool.as_str(), argument.as_str()), ("count_to", "n"));
    assert_eq!(*value, GivenValue::Hidden);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].field, "n");
    assert_eq!(
        problems[0].message,
        "expected an integer from 0 to 255, got 300"
    );
    assert_eq!(
        hidden.to_string(),
        "the hidden value of argument \"n\" of tool count_to is not a value the tool takes: \
         expected an integer from 0 to 255, got 300"
    );
    // A default of the wrong type would be published in the schema.
    let default = ToolTransform::new(CountToTool)
        .arg("separator", ArgTransform::new().default(json!(5)))
        .build()
        .unwrap_err();
    assert!(
        matches!(
            &default,
            TransformError::InvalidValue { argument, value: GivenValue::Default, problems, .. }
                if argument == "separator" && problems[0].message == "expected a string, got 5"
        ),
        "{default:?}"
    );
    // Values the tool takes build, and are given.
    let ten = ToolTransform::new(CountToTool)
        .name("count_to_three")
        .arg("n", ArgTransform::hidden(json!(3)))
        .arg("separator", ArgTransform::new().default(json!("-")))
        .build()
        .unwrap();
    let output = ten
        .call(&json!({}), &ToolContext::new())
        .now_or_never()
        .unwrap()
        .unwrap();
    assert_eq!(output.into_value().unwrap(), "1-2-3");
}

#[test]
fn a_registry_files_hidden_value_the_tool_would_refuse_is_reported_where_it_is() {
    const COUNT: &[&dyn Tool] = &[&CountToTool];
    let text = "\
tools:
  - name: count_far
    from: count_to
    arguments:
      n: {hide: 300}
  - name: count_odd
    from: count_to
    arguments:
      separator:
        description: Between
        default: [1]
";
    let manifest = Manifest::parse("tools.yaml", text).unwrap();
    assert!(manifest.problems().is_empty(), "{:?}", manifest.problems());
    let error = manifest
        .build_with(Registry::builder().catalog(COUNT))
        .unwrap_err();
    let problems: Vec<String> = error.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "5:17: cannot make tool \"count_far\": the hidden value of argument \"n\" of tool \
             count_to is not a value the tool takes: expected an integer from 0 to 255, got 300",
            "11:18: cannot make tool \"count_odd\": the default of argument \"separator\" of \
             tool count_to is not a value the tool takes: expected a string, got an array",
        ]
    );
}
