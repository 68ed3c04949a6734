//! One tool definition, every provider: the example tools rendered for each
//! provider, provider responses parsed into calls, run, and answered.
//!
//! Fixtures under `tests/fixtures/<provider>/` are request and response
//! bodies in the shapes each provider documents.

use std::path::PathBuf;

// The built-in tools register themselves when their crate is linked.

use examples::search::SearchTool;
use examples::{
    AccountBalanceTool, Attendee, ConvertLengthTool, LengthUnit, Priority, ScheduleMeetingTool,
    TimeSlot, WeatherForecastTool,
};
use serde_json::{Value, json};
use tool_runtime::providers::{self, Provider, gemini, mcp, xml};
use tool_runtime::{Registry, ToolContext, ToolResult, ToolUse, registry::Linked, schema::strict};

fn registry() -> Registry {
    Registry::builder()
        .tool(WeatherForecastTool)
        .tool(ConvertLengthTool)
        .tool(ScheduleMeetingTool)
        .tool(AccountBalanceTool)
        .tool(SearchTool)
        .configure("search", json!({"api_key": "test-key"}))
        .config_from_env(false)
        .build()
        .expect("the example tools form a registry")
}

fn fixture(path: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn context() -> ToolContext {
    ToolContext::new().with_state("customer_id", json!("cust-42"))
}

async fn run(registry: &Registry, calls: &[ToolUse]) -> Vec<ToolResult> {
    let ctx = context();
    let mut results = Vec::new();
    for call in calls {
        results.push(registry.invoke(call.clone(), &ctx).await);
    }
    results
}

/// The JSON Schemas inside one rendered tool definition, with where they sit.
fn schemas_in(provider: Provider, tool: &Value) -> Vec<(&'static str, Value)> {
    let mut schemas = Vec::new();
    let mut take = |place: &'static str, value: Option<&Value>| {
        if let Some(value) = value {
            schemas.push((place, value.clone()));
        }
    };
    match provider {
        Provider::OpenAiChat | Provider::OpenAiStrict => {
            take("function.parameters", tool["function"].get("parameters"));
        }
        Provider::OpenAiResponses => take("parameters", tool.get("parameters")),
        Provider::Anthropic => take("input_schema", tool.get("input_schema")),
        Provider::Bedrock => take(
            "toolSpec.inputSchema.json",
            tool["toolSpec"]["inputSchema"].get("json"),
        ),
        Provider::Gemini => take("parameters", tool.get("parameters")),
        Provider::Mcp => {
            take("inputSchema", tool.get("inputSchema"));
            take("outputSchema", tool.get("outputSchema"));
        }
        _ => {}
    }
    schemas
}

/// The schema of the arguments in a rendered tool definition.
fn parameters_of(provider: Provider, tool: &Value) -> Value {
    schemas_in(provider, tool)
        .into_iter()
        .next()
        .map(|(_, schema)| schema)
        .unwrap_or_else(|| json!({"type": "object"}))
}

fn spec_named(registry: &Registry, name: &str) -> tool_runtime::ToolSpec {
    registry
        .get(name)
        .expect("a registered tool")
        .spec()
        .clone()
}

/// Asserts that every member `ours` has is one the documented `theirs` has
/// at the same place, with a value of the same JSON type (objects compared
/// member by member, arrays by their first elements). Members holding
/// schemas or arguments are compared by type only.
fn assert_documented(ours: &Value, theirs: &Value, path: &str) {
    const OPAQUE: &[&str] = &[
        "parameters",
        "input_schema",
        "json",
        "inputSchema",
        "outputSchema",
        "input",
        "args",
        "arguments",
        "structuredContent",
    ];
    match (ours, theirs) {
        (Value::Object(ours), Value::Object(theirs)) => {
            for (key, value) in ours {
                let Some(documented) = theirs.get(key) else {
                    panic!("{path}/{key} is not in the documented shape {theirs:?}");
                };
                if OPAQUE.contains(&key.as_str()) {
                    assert_eq!(kind(value), kind(documented), "{path}/{key}");
                } else {
                    assert_documented(value, documented, &format!("{path}/{key}"));
                }
            }
        }
        (Value::Array(ours), Value::Array(theirs)) => {
            if let (Some(ours), Some(theirs)) = (ours.first(), theirs.first()) {
                assert_documented(ours, theirs, &format!("{path}/0"));
            }
        }
        (ours, theirs) => assert_eq!(kind(ours), kind(theirs), "{path}"),
    }
}

/// Asserts both values are objects with the same member names.
fn assert_same_members(ours: &Value, theirs: &Value, what: &str) {
    let names = |value: &Value| -> Vec<String> {
        let mut names: Vec<String> = value
            .as_object()
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default();
        names.sort();
        names
    };
    assert_eq!(names(ours), names(theirs), "{what}");
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn assert_valid_arguments(schema: &Value, arguments: &Value, what: &str) {
    let validator = jsonschema::draft202012::new(schema)
        .unwrap_or_else(|error| panic!("{what}: the schema does not compile: {error}"));
    let errors: Vec<String> = validator
        .iter_errors(arguments)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: {arguments} does not match {schema}: {errors:?}"
    );
}

#[test]
fn every_rendered_schema_is_valid_json_schema() {
    let registry = registry();
    let mut checked = 0;
    for provider in Provider::ALL {
        for spec in registry.specs() {
            let tool = providers::render_tool(provider, spec);
            for (place, schema) in schemas_in(provider, &tool) {
                let what = format!("{provider} {} {place}", spec.name);
                if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
                    panic!("{what} is not a valid schema: {error}\n{schema:#}");
                }
                if let Err(error) = jsonschema::draft202012::new(&schema) {
                    panic!("{what} does not compile: {error}\n{schema:#}");
                }
                checked += 1;
            }
        }
    }
    // Seven JSON renderings of five tools, and two MCP output schemas.
    assert_eq!(checked, 7 * 5 + 2);
}

#[test]
fn strict_renderings_pass_the_strict_checker() {
    let registry = registry();
    let mut loosened = 0;
    for spec in registry.specs() {
        for (provider, tool) in [
            (
                Provider::OpenAiStrict,
                providers::render_tool(Provider::OpenAiStrict, spec),
            ),
            (
                Provider::OpenAiResponses,
                tool_runtime::providers::openai::responses_tool(spec, true),
            ),
        ] {
            let strict_flag = match provider {
                Provider::OpenAiStrict => &tool["function"]["strict"],
                _ => &tool["strict"],
            };
            assert_eq!(strict_flag, &json!(true), "{provider} {}", spec.name);
            let parameters = parameters_of(provider, &tool);
            assert_eq!(strict::check(&parameters), Vec::new(), "{}", spec.name);
            let properties = parameters["properties"].as_object().expect("properties");
            let required = parameters["required"].as_array().expect("required");
            assert_eq!(required.len(), properties.len(), "{}", spec.name);
        }
        // The ordinary schema is not strict wherever a parameter is optional.
        if spec.params.iter().any(|param| !param.required) {
            assert!(
                !strict::check(spec.input_schema()).is_empty(),
                "{}",
                spec.name
            );
            loosened += 1;
        }
    }
    assert_eq!(
        loosened, 4,
        "every example tool but convert_length has an optional parameter"
    );
}

#[test]
fn strict_schemas_take_null_for_optional_parameters_and_keep_their_order() {
    let registry = registry();
    let spec = spec_named(&registry, "weather_forecast");
    let schema = strict::strict_input_schema(&spec).unwrap();
    assert_eq!(schema["required"], json!(["city", "days", "unit"]));
    assert_eq!(
        schema["properties"]["days"]["type"],
        json!(["integer", "null"])
    );
    let nulls = json!({"city": "Paris", "days": null, "unit": null});
    assert_valid_arguments(&schema, &nulls, "strict weather_forecast");
    // The ordinary schema does not take them.
    let validator = jsonschema::draft202012::new(spec.input_schema()).unwrap();
    assert!(!validator.is_valid(&nulls));

    let spec = spec_named(&registry, "search");
    let schema = strict::strict_input_schema(&spec).unwrap();
    let query = &schema["properties"]["query"];
    assert!(
        query.get("minLength").is_none() && query.get("maxLength").is_none(),
        "{query}"
    );
    assert_eq!(schema["properties"]["limit"]["minimum"], json!(1));
}

/// Every place a keyword sits in a Gemini schema, for the checks below.
fn gemini_problems(schema: &Value, pointer: &str, problems: &mut Vec<String>) {
    const ALLOWED: &[&str] = &[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "anyOf",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "minProperties",
        "maxProperties",
        "example",
        "default",
        "propertyOrdering",
    ];
    let Some(object) = schema.as_object() else {
        problems.push(format!("{pointer}: not an object"));
        return;
    };
    for (key, value) in object {
        let at = format!("{pointer}/{key}");
        if !ALLOWED.contains(&key.as_str()) {
            problems.push(format!("{at}: not in Gemini's schema subset"));
        }
        match key.as_str() {
            "type" if !value.is_string() => problems.push(format!("{at}: not one type")),
            "enum"
                if !value
                    .as_array()
                    .is_some_and(|v| v.iter().all(Value::is_string)) =>
            {
                problems.push(format!("{at}: not strings"));
            }
            "format" => {
                let allowed = ["float", "double", "int32", "int64", "date-time", "enum"];
                if !value.as_str().is_some_and(|f| allowed.contains(&f)) {
                    problems.push(format!("{at}: format {value}"));
                }
            }
            "properties" => {
                let properties = value.as_object().expect("properties is an object");
                if properties.is_empty() {
                    problems.push(format!("{at}: empty"));
                }
                for (name, property) in properties {
                    gemini_problems(property, &format!("{at}/{name}"), problems);
                }
            }
            "items" => gemini_problems(value, &at, problems),
            "anyOf" => {
                for (i, branch) in value
                    .as_array()
                    .expect("anyOf is an array")
                    .iter()
                    .enumerate()
                {
                    gemini_problems(branch, &format!("{at}/{i}"), problems);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn gemini_renderings_stay_in_the_documented_subset() {
    let registry = registry();
    let rendered = registry.render(Provider::Gemini);
    let declarations = rendered["functionDeclarations"].as_array().unwrap();
    assert_eq!(declarations.len(), registry.len());
    let text = rendered.to_string();
    for keyword in [
        "$ref",
        "$defs",
        "additionalProperties",
        "oneOf",
        "const",
        "$schema",
    ] {
        assert!(
            !text.contains(&format!("\"{keyword}\"")),
            "{keyword} in {text}"
        );
    }
    for declaration in declarations {
        let mut problems = Vec::new();
        gemini_problems(&declaration["parameters"], "/parameters", &mut problems);
        assert_eq!(problems, Vec::<String>::new(), "{}", declaration["name"]);
    }
    // Parameters come in declaration order, not name order.
    let weather = declarations
        .iter()
        .find(|d| d["name"] == "weather_forecast")
        .unwrap();
    assert_eq!(
        weather["parameters"]["propertyOrdering"],
        json!(["city", "days", "unit"])
    );
    // The enum's documented variants became one string enum.
    let meeting = declarations
        .iter()
        .find(|d| d["name"] == "schedule_meeting")
        .unwrap();
    let priority = &meeting["parameters"]["properties"]["priority"];
    assert_eq!(priority["enum"], json!(["low", "normal", "high"]));
    assert_eq!(priority["default"], json!("normal"));
    let email = &meeting["parameters"]["properties"]["attendees"]["items"]["properties"]["email"];
    assert_eq!(email["nullable"], json!(true));
}

#[test]
fn renderings_snapshot() {
    let registry = registry();
    for provider in Provider::ALL {
        if provider == Provider::Xml {
            insta::assert_snapshot!("xml", registry.render_xml());
        } else {
            insta::assert_json_snapshot!(provider.name(), registry.render(provider));
        }
    }
}

#[test]
fn registry_renderings_are_cached_and_shared_by_clones() {
    let registry = registry();
    let first: *const Value = registry.render(Provider::Gemini);
    assert!(std::ptr::eq(first, registry.render(Provider::Gemini)));
    let clone = registry.clone();
    assert!(std::ptr::eq(first, clone.render(Provider::Gemini)));
    assert_eq!(
        registry.render(Provider::Gemini),
        &providers::render_tools(Provider::Gemini, registry.specs())
    );
    assert!(!std::ptr::eq(first, registry.render(Provider::Anthropic)));
}

#[test]
fn provider_names_read_back() {
    for provider in Provider::ALL {
        assert_eq!(provider.to_string().parse::<Provider>(), Ok(provider));
    }
    assert_eq!("OpenAI".parse::<Provider>(), Ok(Provider::OpenAiChat));
    let error = "claude".parse::<Provider>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown provider \"claude\"; expected one of openai, openai-strict, responses, \
         anthropic, bedrock, gemini, mcp, xml"
    );
}

#[test]
fn tool_definitions_have_the_documented_members() {
    let registry = registry();
    let cases = [
        (Provider::OpenAiChat, "openai/request.json", "/tools/0"),
        (
            Provider::OpenAiResponses,
            "responses/request.json",
            "/tools/0",
        ),
        (Provider::Anthropic, "anthropic/request.json", "/tools/0"),
        (
            Provider::Bedrock,
            "bedrock/request.json",
            "/toolConfig/tools/0",
        ),
        (
            Provider::Gemini,
            "gemini/request.json",
            "/tools/0/functionDeclarations/0",
        ),
        (
            Provider::Mcp,
            "mcp/tools_list.json",
            "/response/result/tools/0",
        ),
    ];
    for (provider, path, pointer) in cases {
        let documented = fixture(path).pointer(pointer).cloned().unwrap();
        let name = documented
            .pointer("/function/name")
            .or_else(|| documented.pointer("/toolSpec/name"))
            .or_else(|| documented.get("name"))
            .and_then(Value::as_str)
            .unwrap();
        let ours = providers::render_tool(provider, &spec_named(&registry, name));
        assert_documented(&ours, &documented, &format!("{provider}"));
        if provider != Provider::Mcp {
            // Optional MCP members (title, annotations) depend on the tool.
            assert_same_members(&ours, &documented, &format!("{provider} {name}"));
        }
    }

    // The whole-registry values go where the requests put them.
    let request = fixture("bedrock/request.json");
    assert_documented(
        registry.render(Provider::Bedrock),
        &request["toolConfig"],
        "toolConfig",
    );
    let request = fixture("gemini/request.json");
    assert_documented(
        registry.render(Provider::Gemini),
        &request["tools"][0],
        "tools/0",
    );
    let listed = fixture("mcp/tools_list.json");
    let response = mcp::response(
        &listed["request"]["id"],
        registry.render(Provider::Mcp).clone(),
    );
    assert_documented(&response, &listed["response"], "tools/list");
}

#[test]
fn mcp_tools_carry_output_schemas_and_stated_annotations() {
    let registry = registry();
    let tools = &registry.render(Provider::Mcp)["tools"];
    let find = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap()
            .clone()
    };
    let search = find("search");
    assert_eq!(search["annotations"], json!({"readOnlyHint": true}));
    assert!(search.get("title").is_none());
    let output = &search["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["result"]));
    assert_eq!(output["properties"]["result"]["type"], "array");
    assert!(output["$defs"]["SearchHit"].is_object(), "{output}");

    let meeting = find("schedule_meeting");
    assert_eq!(
        &meeting["outputSchema"],
        ScheduleMeetingTool::SPEC.output_schema().unwrap()
    );
    assert!(meeting.get("annotations").is_none());
    for text_tool in ["weather_forecast", "convert_length", "account_balance"] {
        assert!(find(text_tool).get("outputSchema").is_none(), "{text_tool}");
    }
}

#[tokio::test]
async fn openai_chat_round_trip() {
    let registry = registry();
    let calls = providers::parse_tool_calls(Provider::OpenAiChat, &fixture("openai/response.json"))
        .unwrap();
    assert_eq!(
        calls,
        [
            ToolUse::new(
                "call_8qty38dWZ7sG1Zq3TgDl6kY5",
                "weather_forecast",
                json!({"city": "Paris", "days": 2, "unit": null})
            ),
            ToolUse::new(
                "call_Qz1m3bA9kLx2P0vYc7TnR4eW",
                "convert_length",
                json!({"value": 5, "from": "kilometre", "to": "mile"})
            ),
        ]
    );
    // The model was given strict schemas: its arguments fit them.
    for call in &calls {
        let tool =
            providers::render_tool(Provider::OpenAiStrict, &spec_named(&registry, &call.name));
        assert_valid_arguments(&tool["function"]["parameters"], &call.input, &call.name);
    }
    let results = run(&registry, &calls).await;
    let weather = examples::weather_forecast("Paris".into(), 2, None, &ToolContext::new())
        .await
        .unwrap();
    let length = examples::convert_length(5.0, LengthUnit::Kilometre, LengthUnit::Mile);
    let messages = registry.render_results(Provider::OpenAiChat, calls.iter().zip(&results));
    assert_eq!(
        messages,
        json!([
            {"role": "tool", "tool_call_id": "call_8qty38dWZ7sG1Zq3TgDl6kY5", "content": weather},
            {"role": "tool", "tool_call_id": "call_Qz1m3bA9kLx2P0vYc7TnR4eW", "content": length},
        ])
    );
    let request = fixture("openai/request.json");
    for (ours, documented) in messages
        .as_array()
        .unwrap()
        .iter()
        .zip(&request["messages"].as_array().unwrap()[3..])
    {
        assert_documented(ours, documented, "tool message");
    }
    // A message or the tool_calls array alone parse the same.
    let message = &fixture("openai/response.json")["choices"][0]["message"];
    assert_eq!(
        providers::parse_tool_calls(Provider::OpenAiChat, message).unwrap(),
        calls
    );
    assert_eq!(
        providers::parse_tool_calls(Provider::OpenAiStrict, &message["tool_calls"]).unwrap(),
        calls
    );
}

#[tokio::test]
async fn openai_responses_round_trip() {
    let registry = registry();
    let response = fixture("responses/response.json");
    let calls = providers::parse_tool_calls(Provider::OpenAiResponses, &response).unwrap();
    assert_eq!(
        calls,
        [
            ToolUse::new(
                "call_unLAR8MvFNptuiZK6K6HCy5k",
                "convert_length",
                json!({"value": 26.2, "from": "mile", "to": "kilometre"})
            ),
            ToolUse::new(
                "call_mK3Q9vN2pR7sT1xW5yZ8aB4c",
                "account_balance",
                json!({"currency": "USD"})
            ),
        ]
    );
    for call in &calls {
        let tool = providers::render_tool(
            Provider::OpenAiResponses,
            &spec_named(&registry, &call.name),
        );
        assert_valid_arguments(&tool["parameters"], &call.input, &call.name);
    }
    let results = run(&registry, &calls).await;
    let length = examples::convert_length(26.2, LengthUnit::Mile, LengthUnit::Kilometre);
    let balance = examples::account_balance("USD".into(), &context())
        .await
        .unwrap();
    let items = registry.render_results(Provider::OpenAiResponses, calls.iter().zip(&results));
    assert_eq!(
        items,
        json!([
            {"type": "function_call_output", "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k", "output": length},
            {"type": "function_call_output", "call_id": "call_mK3Q9vN2pR7sT1xW5yZ8aB4c", "output": balance},
        ])
    );
    let request = fixture("responses/request.json");
    for (ours, documented) in items
        .as_array()
        .unwrap()
        .iter()
        .zip(&request["input"].as_array().unwrap()[3..])
    {
        assert_documented(ours, documented, "function_call_output");
    }
    assert_eq!(
        providers::parse_tool_calls(Provider::OpenAiResponses, &response["output"]).unwrap(),
        calls
    );
}

fn meeting(
    title: &str,
    date: &str,
    start: &str,
    minutes: u16,
    attendees: Vec<Attendee>,
    priority: Priority,
) -> Value {
    let slot = TimeSlot {
        date: date.into(),
        start: start.into(),
        minutes,
    };
    serde_json::to_value(
        examples::schedule_meeting(title.into(), slot, attendees, priority).unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn anthropic_round_trip_with_an_error_result() {
    let registry = registry();
    let response = fixture("anthropic/response.json");
    let calls = providers::parse_tool_calls(Provider::Anthropic, &response).unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("toolu_01A09q90qw90lq917835lq9", "schedule_meeting")
    );
    assert_eq!(calls[0].input, response["content"][1]["input"]);
    assert_eq!(
        calls[1],
        ToolUse::new(
            "toolu_01D7FLrfh4GYq7yT1ULFeyMV",
            "weather_forecast",
            json!({"city": "Rome", "days": 40})
        )
    );
    for call in &calls {
        let tool = providers::render_tool(Provider::Anthropic, &spec_named(&registry, &call.name));
        assert_valid_arguments(&tool["input_schema"], &call.input, &call.name);
    }
    let results = run(&registry, &calls).await;
    assert!(results[0].is_success() && results[1].is_error());
    let attendees = vec![
        Attendee {
            name: "Ada".into(),
            email: Some("ada@example.com".into()),
        },
        Attendee {
            name: "Linus".into(),
            email: None,
        },
    ];
    let expected = meeting(
        "Quarterly planning",
        "2026-12-01",
        "10:00",
        45,
        attendees,
        Priority::High,
    );
    let error_text = results[1].text_content();
    assert!(
        error_text.contains("days must be from 1 to 14, got 40"),
        "{error_text}"
    );
    let message = registry.render_results(Provider::Anthropic, calls.iter().zip(&results));
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
             "content": [{"type": "text", "text": expected.to_string()}]},
            {"type": "tool_result", "tool_use_id": "toolu_01D7FLrfh4GYq7yT1ULFeyMV",
             "content": [{"type": "text", "text": error_text}], "is_error": true},
        ]})
    );
    let request = fixture("anthropic/request.json");
    assert_documented(&message, &request["messages"][2], "user message");
    assert_documented(
        &message["content"][1],
        &request["messages"][2]["content"][1],
        "error block",
    );
}

#[tokio::test]
async fn bedrock_round_trip() {
    let registry = registry();
    let response = fixture("bedrock/response.json");
    let calls = providers::parse_tool_calls(Provider::Bedrock, &response).unwrap();
    assert_eq!(
        calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str()))
            .collect::<Vec<_>>(),
        [
            ("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "schedule_meeting"),
            ("tooluse_h3Yb5Tq8QX2vW1nLm0pR9s", "convert_length")
        ]
    );
    for call in &calls {
        let tool = providers::render_tool(Provider::Bedrock, &spec_named(&registry, &call.name));
        assert_valid_arguments(
            &tool["toolSpec"]["inputSchema"]["json"],
            &call.input,
            &call.name,
        );
    }
    let results = run(&registry, &calls).await;
    let attendees = vec![Attendee {
        name: "Grace".into(),
        email: None,
    }];
    let expected = meeting(
        "Sync",
        "2026-12-02",
        "09:30",
        30,
        attendees,
        Priority::Normal,
    );
    let length = examples::convert_length(100.0, LengthUnit::Foot, LengthUnit::Metre);
    let message = registry.render_results(Provider::Bedrock, calls.iter().zip(&results));
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "status": "success", "content": [{"json": expected}]}},
            {"toolResult": {"toolUseId": "tooluse_h3Yb5Tq8QX2vW1nLm0pR9s", "status": "success", "content": [{"text": length}]}},
        ]})
    );
    let request = fixture("bedrock/request.json");
    assert_documented(&message, &request["messages"][2], "user message");
    // The message and its content array parse the same.
    let inner = &response["output"]["message"];
    assert_eq!(
        providers::parse_tool_calls(Provider::Bedrock, inner).unwrap(),
        calls
    );
    assert_eq!(
        providers::parse_tool_calls(Provider::Bedrock, &inner["content"]).unwrap(),
        calls
    );
}

#[tokio::test]
async fn gemini_round_trip_with_generated_ids() {
    let registry = registry();
    let response = fixture("gemini/response.json");
    let calls = providers::parse_tool_calls(Provider::Gemini, &response).unwrap();
    assert_eq!(
        calls,
        [
            ToolUse::new(
                "gemini-call-0",
                "weather_forecast",
                json!({"city": "Oslo", "unit": "fahrenheit"})
            ),
            ToolUse::new(
                "gemini-call-1",
                "convert_length",
                json!({"value": 3, "from": "mile", "to": "kilometre"})
            ),
        ]
    );
    for call in &calls {
        let tool = providers::render_tool(Provider::Gemini, &spec_named(&registry, &call.name));
        assert_valid_arguments(&tool["parameters"], &call.input, &call.name);
    }
    let results = run(&registry, &calls).await;
    let weather = examples::weather_forecast(
        "Oslo".into(),
        3,
        Some(examples::Unit::Fahrenheit),
        &ToolContext::new(),
    )
    .await
    .unwrap();
    let length = examples::convert_length(3.0, LengthUnit::Mile, LengthUnit::Kilometre);
    let content = registry.render_results(Provider::Gemini, calls.iter().zip(&results));
    assert_eq!(
        content,
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "weather_forecast", "response": {"output": weather}}},
            {"functionResponse": {"name": "convert_length", "response": {"output": length}}},
        ]})
    );
    let request = fixture("gemini/request.json");
    assert_documented(&content, &request["contents"][2], "function responses");
    // Parsing twice gives the same ids.
    assert_eq!(
        providers::parse_tool_calls(Provider::Gemini, &response).unwrap(),
        calls
    );
}

#[tokio::test]
async fn gemini_ids_it_gave_are_sent_back_and_errors_use_the_error_key() {
    let registry = registry();
    let content = json!({"role": "model", "parts": [
        {"functionCall": {"id": "fc-9", "name": "weather_forecast", "args": {"city": "Rome", "days": 40}}}
    ]});
    let calls = providers::parse_tool_calls(Provider::Gemini, &content).unwrap();
    assert_eq!(calls[0].id, "fc-9");
    let results = run(&registry, &calls).await;
    let part = registry.render_result(Provider::Gemini, &calls[0], &results[0]);
    assert_eq!(
        part,
        json!({"functionResponse": {"id": "fc-9", "name": "weather_forecast",
            "response": {"error": results[0].text_content()}}})
    );
    // A call to a tool without parameters may come without args.
    let calls = providers::parse_tool_calls(
        Provider::Gemini,
        &json!([{"functionCall": {"name": "account_balance"}}]),
    )
    .unwrap();
    assert_eq!(
        calls,
        [ToolUse::new("gemini-call-0", "account_balance", json!({}))]
    );
    // So may a reply with no candidate content at all.
    let blocked = json!({"candidates": [{"finishReason": "SAFETY", "index": 0}]});
    assert_eq!(
        providers::parse_tool_calls(Provider::Gemini, &blocked).unwrap(),
        []
    );
}

#[tokio::test]
async fn mcp_round_trip_with_structured_content() {
    let registry = registry();
    let requests = fixture("mcp/tools_call.json");
    let calls = mcp::parse_requests(&requests).unwrap();
    assert_eq!(calls[0].request_id, json!(2));
    assert_eq!(calls[0].tool_use.id, "2");
    assert_eq!(calls[0].tool_use.name, "schedule_meeting");
    assert_eq!(calls[1].request_id, json!("req-3"));
    assert_eq!(
        calls[1].tool_use,
        ToolUse::new(
            "req-3",
            "search",
            json!({"query": "rust async", "limit": 5})
        )
    );
    assert_eq!(
        providers::parse_tool_calls(Provider::Mcp, &requests).unwrap(),
        calls.iter().map(|c| c.tool_use.clone()).collect::<Vec<_>>()
    );

    let uses: Vec<ToolUse> = calls.iter().map(|c| c.tool_use.clone()).collect();
    for call in &uses {
        let tool = providers::render_tool(Provider::Mcp, &spec_named(&registry, &call.name));
        assert_valid_arguments(&tool["inputSchema"], &call.input, &call.name);
    }
    let results = run(&registry, &uses).await;
    let responses: Vec<Value> = calls
        .iter()
        .zip(&results)
        .map(|(call, result)| {
            mcp::response(
                &call.request_id,
                registry.render_result(Provider::Mcp, &call.tool_use, result),
            )
        })
        .collect();

    let attendees = vec![Attendee {
        name: "Barbara".into(),
        email: Some("barbara@example.com".into()),
    }];
    let expected = meeting(
        "Design review",
        "2026-12-03",
        "14:00",
        60,
        attendees,
        Priority::Normal,
    );
    assert_eq!(
        responses[0],
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": expected.to_string()}],
            "structuredContent": expected,
            "isError": false
        }})
    );
    let documented = fixture("mcp/tools_call_results.json");
    assert_eq!(responses[1], documented[1]);
    assert_documented(&responses[0], &documented[0], "tools/call result");
    // The structured content fits the advertised output schema.
    for (call, response) in uses.iter().zip(&responses) {
        let tool = providers::render_tool(Provider::Mcp, &spec_named(&registry, &call.name));
        assert_valid_arguments(
            &tool["outputSchema"],
            &response["result"]["structuredContent"],
            &call.name,
        );
    }
}

#[tokio::test]
async fn mcp_results_without_output_schema_or_with_errors_have_no_structured_content() {
    let registry = registry();
    let calls = [
        ToolUse::new(
            "1",
            "convert_length",
            json!({"value": 1, "from": "metre", "to": "foot"}),
        ),
        ToolUse::new(
            "2",
            "schedule_meeting",
            json!({"title": "x", "slot": {"date": "bad", "start": "1", "minutes": 1}, "attendees": [{"name": "A"}]}),
        ),
        ToolUse::new("3", "nonexistent", json!({})),
    ];
    let results = run(&registry, &calls).await;
    let rendered: Vec<Value> = calls
        .iter()
        .zip(&results)
        .map(|(call, result)| registry.render_result(Provider::Mcp, call, result))
        .collect();
    assert_eq!(rendered[0]["isError"], json!(false));
    assert!(rendered[0].get("structuredContent").is_none());
    for error in &rendered[1..] {
        assert_eq!(error["isError"], json!(true), "{error}");
        assert!(error.get("structuredContent").is_none());
        assert_eq!(error["content"][0]["type"], "text");
    }
}

#[test]
fn malformed_responses_give_errors_that_point_at_the_problem() {
    let cases = [
        (Provider::OpenAiChat, "openai"),
        (Provider::OpenAiResponses, "responses"),
        (Provider::Anthropic, "anthropic"),
        (Provider::Bedrock, "bedrock"),
        (Provider::Gemini, "gemini"),
        (Provider::Mcp, "mcp"),
    ];
    let mut checked = 0;
    for (provider, directory) in cases {
        for case in fixture(&format!("{directory}/malformed.json"))
            .as_array()
            .unwrap()
        {
            let name = format!("{provider}: {}", case["case"]);
            let error = match providers::parse_tool_calls(provider, &case["body"]) {
                Ok(calls) => panic!("{name}: parsed as {calls:?}"),
                Err(error) => error,
            };
            assert_eq!(error.provider, provider, "{name}");
            assert_eq!(
                error.pointer,
                case["pointer"].as_str().unwrap(),
                "{name}: {error}"
            );
            let expected = case["message"].as_str().unwrap();
            assert!(error.message.starts_with(expected), "{name}: {error}");
            let shown = if error.pointer.is_empty() {
                "(root)"
            } else {
                &error.pointer
            };
            assert_eq!(
                error.to_string(),
                format!("{provider}: {shown}: {}", error.message)
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 31);
}

#[test]
fn plain_text_tool_calls_are_read_with_the_specs_and_the_provider_parser_says_where() {
    let answer = "<tool_call name=\"weather_forecast\">{\"city\": \"Oslo\"}</tool_call>";
    let error = providers::parse_tool_calls(Provider::Xml, &json!(answer)).unwrap_err();
    assert_eq!(error.provider, Provider::Xml);
    assert!(
        error.message.contains("Registry::parse_xml_calls"),
        "{error}"
    );
    // Where it points, the calls are read.
    let registry = Registry::builder()
        .tool(WeatherForecastTool)
        .build()
        .unwrap();
    let calls = registry.parse_xml_calls(answer).unwrap();
    assert_eq!(
        calls,
        [ToolUse::new(
            "call_1",
            "weather_forecast",
            json!({"city": "Oslo"})
        )]
    );
}

/// Every value reachable in `value`, each replaced in turn by each of a few
/// values of the wrong type.
fn mutations(value: &Value) -> Vec<Value> {
    const REPLACEMENTS: [fn() -> Value; 6] = [
        || Value::Null,
        || json!(0),
        || json!("x"),
        || json!("{\"a\":"),
        || json!([]),
        || json!({}),
    ];
    fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                for (key, child) in object {
                    pointers(
                        child,
                        format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    pointers(child, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }
    let mut all = Vec::new();
    pointers(value, String::new(), &mut all);
    let mut out = Vec::new();
    for pointer in all {
        for replacement in REPLACEMENTS {
            let mut mutated = value.clone();
            match mutated.pointer_mut(&pointer) {
                Some(slot) => *slot = replacement(),
                None => continue,
            }
            out.push(mutated);
        }
    }
    out
}

#[test]
fn mangled_responses_never_panic() {
    let cases = [
        (Provider::OpenAiChat, "openai/response.json"),
        (Provider::OpenAiResponses, "responses/response.json"),
        (Provider::Anthropic, "anthropic/response.json"),
        (Provider::Bedrock, "bedrock/response.json"),
        (Provider::Gemini, "gemini/response.json"),
        (Provider::Mcp, "mcp/tools_call.json"),
    ];
    let mut parsed = 0;
    let mut refused = 0;
    for (provider, path) in cases {
        for body in mutations(&fixture(path)) {
            match providers::parse_tool_calls(provider, &body) {
                Ok(calls) => {
                    assert!(calls.iter().all(|call| !call.id.is_empty()
                        && !call.name.is_empty()
                        && call.input.is_object()));
                    parsed += 1;
                }
                Err(error) => {
                    assert!(body.pointer(&error.pointer).is_some() || !error.message.is_empty());
                    refused += 1;
                }
            }
        }
    }
    assert!(
        parsed > 100 && refused > 100,
        "parsed {parsed}, refused {refused}"
    );
}

#[test]
fn xml_rendering_escapes_and_nests() {
    let registry = registry();
    let text = registry.render_xml();
    assert!(text.starts_with("<tools>\n") && text.ends_with("</tools>\n"));
    assert_eq!(text.matches("<tool name=").count(), registry.len());
    assert!(
        text.contains(
            r#"<arg name="city" type="string" required="true">City name, e.g. "Paris"</arg>"#
        ),
        "{text}"
    );
    assert!(text.contains(r#"<arg name="days" type="integer" required="false" default="3">"#));
    assert!(text.contains(r#"enum="celsius|fahrenheit""#));
    assert!(text.contains(r#"<arg name="attendees" type="array" required="true">"#));
    assert!(text.contains(r#"<items type="object">"#));
    assert_eq!(
        xml::escape_attribute("a \"b\" <c> & d"),
        "a &quot;b&quot; &lt;c&gt; &amp; d"
    );
    let call = ToolUse::new("c-1", "convert_length", json!({}));
    let result = ToolResult::error("c-1", "bad <unit> & more");
    assert_eq!(
        providers::render_result(Provider::Xml, &call, &result, None),
        json!(
            r#"<tool_result id="c-1" name="convert_length" status="error">bad &lt;unit&gt; &amp; more</tool_result>"#
        )
    );
}

#[test]
fn gemini_schema_conversion_is_reachable_on_its_own() {
    let spec = spec_named(&registry(), "convert_length");
    let converted = gemini::schema(spec.input_schema());
    assert_eq!(
        converted["properties"]["from"]["enum"],
        json!(["millimetre", "metre", "kilometre", "inch", "foot", "mile"])
    );
    // Formats outside JSON Schema's own (schemars' `double`) are gone
    // before any provider sees the schema.
    assert_eq!(converted["properties"]["value"]["type"], "number");
    assert!(converted["properties"]["value"].get("format").is_none());
}

/// The text of the block a `<!-- render: ... -->` marker in
/// `docs/providers.md` announces.
async fn doc_block(marker: &str) -> String {
    let registry = registry();
    let pretty = |value: &Value| serde_json::to_string_pretty(value).unwrap();
    let words: Vec<&str> = marker.split_whitespace().collect();
    match words.as_slice() {
        ["tool", provider, tool] => {
            let provider: Provider = provider.parse().unwrap();
            let rendered = providers::render_tool(provider, &spec_named(&registry, tool));
            match rendered {
                Value::String(text) => text.trim_end().to_owned(),
                other => pretty(&other),
            }
        }
        ["results", provider] => {
            let provider: Provider = provider.parse().unwrap();
            let (first, second) = match provider {
                Provider::Gemini => ("gemini-call-0", "gemini-call-1"),
                _ => ("call-1", "call-2"),
            };
            let success = match provider {
                Provider::Mcp => ToolUse::new(
                    "2",
                    "schedule_meeting",
                    json!({"title": "Sync", "slot": {"date": "2026-12-01", "start": "09:00", "minutes": 15}, "attendees": [{"name": "Ada"}]}),
                ),
                _ => ToolUse::new(
                    first,
                    "weather_forecast",
                    json!({"city": "Paris", "days": 2}),
                ),
            };
            let failure = ToolUse::new(
                second,
                "weather_forecast",
                json!({"city": "Paris", "days": 40}),
            );
            let calls = [success, failure];
            let results = run(&registry, &calls).await;
            match registry.render_results(provider, calls.iter().zip(&results)) {
                Value::String(text) => text,
                other => pretty(&other),
            }
        }
        ["check", tool] => strict::check(spec_named(&registry, tool).input_schema())
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        ["parse-error", directory] => {
            let cases = fixture(&format!("{directory}/malformed.json"));
            let provider: Provider = directory.parse().unwrap();
            providers::parse_tool_calls(provider, &cases[0]["body"])
                .unwrap_err()
                .to_string()
        }
        _ => panic!("unknown marker {marker:?}"),
    }
}

/// Each marker in the page, with the byte range of its block's content.
fn doc_blocks(page: &str) -> Vec<(String, std::ops::Range<usize>)> {
    const MARKER: &str = "<!-- render: ";
    let mut blocks = Vec::new();
    let mut from = 0;
    while let Some(found) = page[from..].find(MARKER) {
        let start = from + found + MARKER.len();
        let end = start + page[start..].find(" -->").expect("a closed marker");
        let marker = page[start..end].to_owned();
        let fence = end + page[end..].find("```").expect("a block after the marker");
        let content = fence + page[fence..].find('\n').expect("a fence line") + 1;
        let close = content + page[content..].find("```").expect("a closed block");
        blocks.push((marker, content..close));
        from = close + 3;
    }
    blocks
}

fn docs_page() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/providers.md")
}

#[tokio::test]
async fn docs_show_current_renderings() {
    let page = std::fs::read_to_string(docs_page()).unwrap();
    let blocks = doc_blocks(&page);
    assert!(blocks.len() >= 15, "{} blocks", blocks.len());
    for (marker, range) in blocks {
        let expected = doc_block(&marker).await;
        assert_eq!(
            page[range].trim_end(),
            expected,
            "docs/providers.md is out of date at {marker:?}: run \
             cargo test -p tests --test providers -- --ignored refresh_provider_docs"
        );
    }
}

/// Rewrites the generated blocks of `docs/providers.md`.
#[tokio::test]
#[ignore = "rewrites docs/providers.md; run it after changing a rendering"]
async fn refresh_provider_docs() {
    let path = docs_page();
    let mut page = std::fs::read_to_string(&path).unwrap();
    for (marker, range) in doc_blocks(&page).into_iter().rev() {
        let text = doc_block(&marker).await;
        page.replace_range(range, &format!("{text}\n"));
    }
    std::fs::write(&path, page).unwrap();
}

/// Check that the service answers.
#[tool_runtime::tool(title = "Ping", read_only, open_world = false)]
fn ping() -> &'static str {
    "pong"
}

#[tokio::test]
async fn a_tool_without_parameters_renders_for_every_provider() {
    let registry = Registry::builder().tool(PingTool).build().unwrap();
    let declaration = &registry.render(Provider::Gemini)["functionDeclarations"][0];
    assert_eq!(
        declaration,
        &json!({"name": "ping", "description": "Check that the service answers."})
    );
    let strict_tool = &registry.render(Provider::OpenAiStrict)[0]["function"];
    assert_eq!(strict_tool["strict"], json!(true));
    assert_eq!(
        strict_tool["parameters"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    assert!(
        registry
            .render_xml()
            .contains("<tool name=\"ping\" title=\"Ping\">")
    );
    assert!(registry.render_xml().contains("<arguments/>"));
    let tool = &registry.render(Provider::Mcp)["tools"][0];
    assert_eq!(tool["title"], "Ping");
    assert_eq!(
        tool["annotations"],
        json!({"title": "Ping", "readOnlyHint": true, "openWorldHint": false})
    );
    // OpenAI sends "" as the arguments of a call without parameters.
    let calls = providers::parse_tool_calls(
        Provider::OpenAiChat,
        &json!([{"id": "call_1", "type": "function", "function": {"name": "ping", "arguments": ""}}]),
    )
    .unwrap();
    assert_eq!(calls, [ToolUse::new("call_1", "ping", json!({}))]);
    let results = run(&registry, &calls).await;
    assert_eq!(
        registry.render_result(Provider::OpenAiResponses, &calls[0], &results[0]),
        json!({"type": "function_call_output", "call_id": "call_1", "output": "pong"})
    );
}

#[tokio::test]
async fn results_of_calls_made_by_alias_are_rendered_with_the_tool_spec() {
    let registry = Registry::builder()
        .tool(ScheduleMeetingTool)
        .alias("book_meeting", "schedule_meeting")
        .build()
        .expect("an alias of a registered tool");
    let args = json!({
        "title": "Design review",
        "slot": {"date": "2026-12-03", "start": "14:00", "minutes": 60},
        "attendees": [{"name": "Barbara"}]
    });
    let by_name = ToolUse::new("1", "schedule_meeting", args.clone());
    let by_alias = ToolUse::new("2", "book_meeting", args);
    let results = run(&registry, &[by_name.clone(), by_alias.clone()]).await;
    assert!(!results[1].is_error(), "{:?}", results[1]);
    let direct = registry.render_result(Provider::Mcp, &by_name, &results[0]);
    let aliased = registry.render_result(Provider::Mcp, &by_alias, &results[1]);
    assert!(direct.get("structuredContent").is_some(), "{direct}");
    assert_eq!(aliased["structuredContent"], direct["structuredContent"]);
    let batch = registry.render_results(Provider::Mcp, [(&by_alias, &results[1])]);
    assert!(batch.to_string().contains("structuredContent"), "{batch}");
}

/// Every example and built-in tool, as `toolbox` links them.
fn every_tool() -> Registry {
    Registry::builder()
        .linked(Linked::crates(["examples"]))
        .tools(tool_builtin::ALL)
        .configure("search", json!({"api_key": "test-key"}))
        .config_from_env(false)
        .build()
        .expect("the example and built-in tools form a registry")
}

/// The rendered tools of one provider's rendering, as a list.
fn rendered_tools(rendering: &Value) -> &Vec<Value> {
    rendering
        .as_array()
        .or_else(|| rendering.get("tools").and_then(Value::as_array))
        .or_else(|| {
            rendering
                .get("functionDeclarations")
                .and_then(Value::as_array)
        })
        .expect("a list of tools")
}

/// Every place in `value` where a schema sits that clients refuse: a
/// boolean sub-schema (but `additionalProperties: false`, which every
/// provider documents), or a `format` JSON Schema does not define.
fn schema_problems(value: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                let here = format!("{at}/{key}");
                match (key.as_str(), child) {
                    ("properties" | "$defs" | "definitions", Value::Object(members)) => {
                        for (name, schema) in members {
                            if schema.is_boolean() {
                                out.push(format!("{here}/{name}: boolean schema"));
                            }
                        }
                    }
                    ("items" | "not" | "contains" | "propertyNames", Value::Bool(_)) => {
                        out.push(format!("{here}: boolean schema"));
                    }
                    ("additionalProperties", Value::Bool(true)) => {
                        out.push(format!("{here}: boolean schema"));
                    }
                    ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(items))
                        if items.iter().any(Value::is_boolean) =>
                    {
                        out.push(format!("{here}: boolean schema"));
                    }
                    ("format", Value::String(format))
                        if !tool_runtime::schema::STANDARD_FORMATS.contains(&format.as_str()) =>
                    {
                        out.push(format!("{here}: format {format:?}"));
                    }
                    // Data, not schemas.
                    ("default" | "examples" | "const" | "enum", _) => continue,
                    _ => {}
                }
                schema_problems(child, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                schema_problems(item, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The schema of `slot` inside a parameters schema, following a `$ref`.
fn property<'a>(parameters: &'a Value, name: &str) -> &'a Value {
    let schema = &parameters["properties"][name];
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => parameters
            .pointer(reference.trim_start_matches('#'))
            .expect("a resolvable reference"),
        None => schema,
    }
}

fn keys(schema: &Value) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .map(|members| members.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn every_rendering_of_every_tool_is_one_every_client_accepts() {
    let registry = every_tool();
    assert!(registry.contains("http_request") && registry.contains("schedule_meeting"));
    for provider in Provider::ALL {
        let rendering = registry.render(provider);
        if provider == Provider::Xml {
            // Parameters appear in declaration order in the prompt text.
            let text = rendering.as_str().unwrap();
            for spec in registry.specs() {
                let block = &text[text.find(&format!("<tool name=\"{}\"", spec.name)).unwrap()..];
                let block = &block[..block.find("</tool>").unwrap()];
                let mut last = 0;
                for param in spec.params {
                    let at = block
                        .find(&format!("<arg name=\"{}\"", param.name))
                        .unwrap_or_else(|| panic!("{} not in {block}", param.name));
                    assert!(
                        at >= last,
                        "xml: {} out of order in {}",
                        param.name,
                        spec.name
                    );
                    last = at;
                }
            }
            continue;
        }
        let mut problems = Vec::new();
        schema_problems(rendering, "", &mut problems);
        assert!(problems.is_empty(), "{provider}: {problems:#?}");
        let tools = rendered_tools(rendering);
        assert_eq!(tools.len(), registry.len(), "{provider}");
        for (tool, spec) in tools.iter().zip(registry.specs()) {
            let parameters = parameters_of(provider, tool);
            let declared: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
            assert_eq!(keys(&parameters), declared, "{provider}: {}", spec.name);
            if let Some(order) = parameters.get("propertyOrdering") {
                assert_eq!(order, &json!(declared), "{provider}: {}", spec.name);
            }
        }
        let parameters = |name: &str| {
            parameters_of(
                provider,
                tools
                    .iter()
                    .find(|tool| tool.to_string().contains(&format!("\"{name}\"")))
                    .unwrap(),
            )
        };
        assert_eq!(
            keys(&parameters("convert_length")),
            ["value", "from", "to"],
            "{provider}"
        );
        let meeting = parameters("schedule_meeting");
        assert_eq!(
            keys(property(&meeting, "slot")),
            ["date", "start", "minutes"],
            "{provider}"
        );
    }
}

// ------------------------------------------------------ media in results

/// A result with text, an image, audio, an embedded PDF, an embedded text
/// resource and a resource link.
fn media_result() -> (ToolUse, ToolResult) {
    use tool_runtime::{
        Content, content::Audio, content::Image, content::Resource, content::ResourceLink,
    };
    let content = vec![
        Content::text("Here is the chart:"),
        Image::png([1u8, 2, 3]).into(),
        Audio::wav([0u8; 4]).into(),
        Resource::blob("file:///reports/q3 report.pdf", "application/pdf", [7u8]).into(),
        Resource::text("test://notes", "text/plain", "note").into(),
        ResourceLink::new("file:///big.csv", "big.csv")
            .with_mime_type("text/csv")
            .into(),
    ];
    let call = ToolUse::new("call-9", "chart", json!({}));
    (call, ToolResult::success("call-9", content))
}

#[test]
fn media_results_go_where_each_provider_accepts_them_and_as_text_elsewhere() {
    let (call, result) = media_result();
    let render = |provider| providers::render_result(provider, &call, &result, None);
    let audio = "[audio/wav audio, 4 bytes]";
    let notes = "[resource test://notes, text/plain]\nnote";
    let link = "[resource link: big.csv <file:///big.csv>, text/csv]";

    // MCP: every kind as its own block.
    assert_eq!(
        render(Provider::Mcp)["content"],
        json!([
            {"type": "text", "text": "Here is the chart:"},
            {"type": "image", "data": "AQID", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAAAA==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///reports/q3 report.pdf", "mimeType": "application/pdf", "blob": "Bw=="}},
            {"type": "resource", "resource": {"uri": "test://notes", "mimeType": "text/plain", "text": "note"}},
            {"type": "resource_link", "uri": "file:///big.csv", "name": "big.csv", "mimeType": "text/csv"},
        ])
    );
    // Anthropic: image and document blocks, the rest as text.
    assert_eq!(
        render(Provider::Anthropic)["content"],
        json!([
            {"type": "text", "text": "Here is the chart:"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}},
            {"type": "text", "text": audio},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "Bw=="}},
            {"type": "text", "text": notes},
            {"type": "text", "text": link},
        ])
    );
    // Bedrock: image and document blocks with their format, the rest as text.
    assert_eq!(
        render(Provider::Bedrock)["toolResult"]["content"],
        json!([
            {"text": "Here is the chart:"},
            {"image": {"format": "png", "source": {"bytes": "AQID"}}},
            {"text": audio},
            {"document": {"format": "pdf", "name": "q3 report", "source": {"bytes": "Bw=="}}},
            {"text": notes},
            {"text": link},
        ])
    );
    // OpenAI Responses: input items, images and files as data URLs.
    assert_eq!(
        render(Provider::OpenAiResponses)["output"],
        json!([
            {"type": "input_text", "text": "Here is the chart:"},
            {"type": "input_image", "image_url": "data:image/png;base64,AQID"},
            {"type": "input_text", "text": audio},
            {"type": "input_file", "filename": "q3 report.pdf", "file_data": "data:application/pdf;base64,Bw=="},
            {"type": "input_text", "text": notes},
            {"type": "input_text", "text": link},
        ])
    );
    // Gemini: image and PDF as inline data parts, the rest in the output.
    let response = &render(Provider::Gemini)["functionResponse"];
    assert_eq!(
        response["response"],
        json!({"output": ["Here is the chart:", audio, notes, link]})
    );
    assert_eq!(
        response["parts"],
        json!([
            {"inlineData": {"mimeType": "image/png", "data": "AQID"}},
            {"inlineData": {"mimeType": "application/pdf", "data": "Bw=="}},
        ])
    );
    // OpenAI Chat and XML: text only, every block's stand-in.
    let text = format!(
        "Here is the chart:\n[image/png image, 3 bytes]\n{audio}\n\
         [resource file:///reports/q3 report.pdf, application/pdf, 1 byte]\n{notes}\n{link}"
    );
    assert_eq!(render(Provider::OpenAiChat)["content"], json!(text));
    let xml = render(Provider::Xml);
    assert!(
        xml.as_str().unwrap().contains("[image/png image, 3 bytes]"),
        "{xml}"
    );
}

#[test]
fn text_only_results_render_as_before() {
    let call = ToolUse::new("c", "t", json!({}));
    let result = ToolResult::text("c", "plain");
    let responses = providers::render_result(Provider::OpenAiResponses, &call, &result, None);
    assert_eq!(responses["output"], json!("plain"));
    let gemini = providers::render_result(Provider::Gemini, &call, &result, None);
    assert!(
        gemini["functionResponse"].get("parts").is_none(),
        "{gemini}"
    );
}
