//! OpenAI strict mode: strict tools, the registry-wide switch, tools that
//! cannot be strict, and `null` arguments at run time.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::providers::{self, Provider};
use tool_runtime::{
    Registry, ToolContext, ToolUse, registry::RegistryProblem, schema::strict, tool,
};

/// An order's state.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Not yet shipped.
    Open,
    /// On its way.
    Shipped,
}

/// A range of dates.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Window {
    /// First day, `YYYY-MM-DD`.
    pub from: String,
    /// Last day; open-ended when absent.
    pub to: Option<String>,
}

/// Narrower searches.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Filters {
    /// Smallest order total.
    pub min_total: Option<f64>,
    /// Tags every order must have.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Find a customer's orders.
#[tool(strict)]
fn find_orders(
    /// The customer's id
    customer: String,
    /// Most orders to return
    #[tool(default = 20)]
    limit: u32,
    /// Only orders in this state
    status: Option<Status>,
    /// Only orders placed in this window
    window: Option<Window>,
    /// More filters
    filters: Filters,
) -> String {
    format!("{customer} limit={limit} status={status:?} window={window:?} filters={filters:?}")
}

/// Label a record.
#[tool(strict)]
fn label_record(
    /// The record
    id: String,
    /// Labels by name
    labels: HashMap<String, String>,
) -> String {
    format!("{id}: {} labels", labels.len())
}

/// Mark a point.
#[tool(strict)]
fn mark_point(
    /// The point, as a pair
    at: (f64, f64),
) -> String {
    format!("{at:?}")
}

/// Store a document.
#[tool]
fn store_document(
    /// The document, any JSON
    payload: Value,
) -> String {
    payload.to_string()
}

fn rendered_parameters(registry: &Registry, provider: Provider, name: &str) -> Value {
    let tools = registry.render(provider).as_array().unwrap();
    let tool = tools
        .iter()
        .find(|tool| tool["function"]["name"] == name || tool["name"] == name)
        .unwrap();
    match provider {
        Provider::OpenAiResponses => tool.clone(),
        _ => tool["function"].clone(),
    }
}

#[test]
fn a_strict_tool_renders_strict_for_openai() {
    let registry = Registry::builder().tool(FindOrdersTool).build().unwrap();
    assert!(!registry.is_strict());
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let function = rendered_parameters(&registry, provider, "find_orders");
        assert_eq!(function["strict"], json!(true), "{provider}");
        let parameters = &function["parameters"];
        assert_eq!(strict::check(parameters), Vec::new());
        assert_eq!(
            parameters["required"],
            json!(["customer", "limit", "status", "window", "filters"])
        );
        assert_eq!(
            parameters["properties"]["limit"]["type"],
            json!(["integer", "null"])
        );
        assert!(parameters["properties"]["limit"].get("default").is_none());
        let filters = &parameters["properties"]["filters"];
        assert_eq!(filters["description"], "More filters");
        assert_eq!(filters["additionalProperties"], json!(false));
        assert_eq!(filters["required"], json!(["min_total", "tags"]));
        // `tags` has a serde default but does not accept null: required, not nullable.
        assert_eq!(filters["properties"]["tags"]["type"], "array");
    }
}

#[tokio::test]
async fn nulls_for_optional_and_defaulted_parameters_read_as_absent() {
    let registry = Registry::builder().tool(FindOrdersTool).build().unwrap();
    let function = rendered_parameters(&registry, Provider::OpenAiChat, "find_orders");
    let input = json!({
        "customer": "c-1",
        "limit": null,
        "status": null,
        "window": {"from": "2026-01-01", "to": null},
        "filters": {"min_total": null, "tags": []}
    });
    // What strict mode lets the model send fits the strict schema...
    let validator = jsonschema::draft202012::new(&function["parameters"]).unwrap();
    assert!(
        validator.is_valid(&input),
        "{:?}",
        validator
            .iter_errors(&input)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    );
    // ...and the tool reads every null as absent.
    let result = registry
        .invoke(ToolUse::new("1", "find_orders", input), &ToolContext::new())
        .await;
    assert!(result.is_success(), "{}", result.text_content());
    assert_eq!(
        result.text_content(),
        "c-1 limit=20 status=None window=Some(Window { from: \"2026-01-01\", to: None }) \
         filters=Filters { min_total: None, tags: [] }"
    );

    let input = json!({
        "customer": "c-2", "limit": 5, "status": "shipped", "window": null,
        "filters": {"min_total": 9.5, "tags": ["gift"]}
    });
    assert!(validator.is_valid(&input));
    let result = registry
        .invoke(ToolUse::new("2", "find_orders", input), &ToolContext::new())
        .await;
    assert_eq!(
        result.text_content(),
        "c-2 limit=5 status=Some(Shipped) window=None filters=Filters { min_total: Some(9.5), tags: [\"gift\"] }"
    );
}

#[tokio::test]
async fn example_tools_take_nulls_in_strict_mode() {
    let registry = Registry::builder()
        .tool(examples::ScheduleMeetingTool)
        .tool(examples::WeatherForecastTool)
        .strict(true)
        .build()
        .unwrap();
    assert!(registry.is_strict());
    let tools = registry.render(Provider::OpenAiChat).as_array().unwrap();
    assert!(
        tools
            .iter()
            .all(|tool| tool["function"]["strict"] == json!(true))
    );
    let responses = registry
        .render(Provider::OpenAiResponses)
        .as_array()
        .unwrap();
    assert!(responses.iter().all(|tool| tool["strict"] == json!(true)));

    let input = json!({
        "title": "Sync",
        "slot": {"date": "2026-12-01", "start": "09:00", "minutes": 15},
        "attendees": [{"name": "Ada", "email": null}],
        "priority": null
    });
    let function = rendered_parameters(&registry, Provider::OpenAiChat, "schedule_meeting");
    assert!(jsonschema::draft202012::is_valid(
        &function["parameters"],
        &input
    ));
    let result = registry
        .invoke(
            ToolUse::new("1", "schedule_meeting", input),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{}", result.text_content());
    let meeting: Value = serde_json::from_str(&result.text_content()).unwrap();
    assert_eq!(meeting["priority"], "normal");
    assert_eq!(meeting["attendees"], json!([{"name": "Ada"}]));

    let result = registry
        .invoke(
            ToolUse::new(
                "2",
                "weather_forecast",
                json!({"city": "Oslo", "days": null, "unit": null}),
            ),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(
        result.text_content().lines().count(),
        3,
        "{}",
        result.text_content()
    );
}

#[test]
fn a_strict_tool_that_cannot_be_strict_is_a_build_error() {
    let error = Registry::builder()
        .tool(MarkPointTool)
        .tool(FindOrdersTool)
        .build()
        .unwrap_err();
    let [RegistryProblem::NotStrict { name, violations }] = error.problems() else {
        panic!("{:?}", error.problems());
    };
    assert_eq!(*name, "mark_point");
    let shown: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        ["/properties/at/prefixItems: tuples (prefixItems) cannot be expressed in strict mode"]
    );
    assert_eq!(
        error.to_string(),
        "tool \"mark_point\" asks for strict mode, but its schema cannot be expressed strictly: \
         /properties/at/prefixItems: tuples (prefixItems) cannot be expressed in strict mode"
    );
    // The global registry holds every linked tool, this one included.
    let global = Registry::try_global().unwrap_err();
    assert!(global.problems().iter().any(|problem| matches!(
        problem,
        RegistryProblem::NotStrict { name, .. } if name == "mark_point"
    )));
}

#[tokio::test]
async fn a_free_form_map_is_a_list_of_key_value_objects_in_strict_mode() {
    let registry = Registry::builder().tool(LabelRecordTool).build().unwrap();
    let parameters =
        rendered_parameters(&registry, Provider::OpenAiChat, "label_record")["parameters"].clone();
    assert!(strict::check(&parameters).is_empty(), "{parameters:#}");
    assert_eq!(
        parameters["properties"]["labels"],
        json!({
            "type": "array",
            "description": "Labels by name",
            "items": {
                "type": "object",
                "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                "required": ["key", "value"],
                "additionalProperties": false
            }
        })
    );
    // The strict form of the call is turned back into the map it stands for.
    let call =
        json!({"id": "r1", "labels": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}]});
    let result = registry
        .invoke(ToolUse::new("1", "label_record", call), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "r1: 2 labels");
    // A list in any other shape is reported as the ordinary schema words it.
    let result = registry
        .invoke(
            ToolUse::new("2", "label_record", json!({"id": "r1", "labels": [1]})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "invalid arguments for label_record: labels: expected an object, got an array"
    );
}

#[tokio::test]
async fn the_registry_wide_switch_makes_values_of_any_type_json_text() {
    let registry = Registry::builder()
        .tool(StoreDocumentTool)
        .tool(FindOrdersTool)
        .strict(true)
        .build()
        .unwrap();
    let parameters =
        rendered_parameters(&registry, Provider::OpenAiChat, "store_document")["parameters"]
            .clone();
    assert!(strict::check(&parameters).is_empty(), "{parameters:#}");
    assert_eq!(
        parameters["properties"]["payload"],
        json!({"type": "string", "description": "The document, any JSON (Write the value as JSON text.)"})
    );
    let call = json!({"payload": "{\"a\": [1, 2]}"});
    let result = registry
        .invoke(
            ToolUse::new("1", "store_document", call),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(result.text_content(), r#"{"a":[1,2]}"#);

    // Without the switch the same tool is not strict: its argument is any
    // value, and text stays text.
    let registry = Registry::builder().tool(StoreDocumentTool).build().unwrap();
    let call = json!({"payload": "{\"a\": 1}"});
    let result = registry
        .invoke(
            ToolUse::new("2", "store_document", call),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(result.text_content(), r#""{\"a\": 1}""#);
    // Forcing strict mode on it for one rendering gives the strict form.
    let tool = providers::render_tool(Provider::OpenAiStrict, &StoreDocumentTool::SPEC);
    assert_eq!(tool["function"]["strict"], json!(true));
    assert_eq!(registry.render(Provider::OpenAiStrict)[0], tool);
}

#[test]
fn the_checker_explains_the_ordinary_schema() {
    let shown: Vec<String> = strict::check(FindOrdersTool::SPEC.input_schema())
        .iter()
        .map(ToString::to_string)
        .collect();
    for expected in [
        "/required: must list \"limit\"",
        "/required: must list \"status\"",
        "/properties/limit/default: default is not supported in strict mode",
        "/properties/filters: $ref cannot have sibling keywords in strict mode (found description)",
        "/$defs/Filters/required: must list \"min_total\"",
    ] {
        assert!(
            shown.iter().any(|line| line == expected),
            "{expected} not in {shown:#?}"
        );
    }
}
