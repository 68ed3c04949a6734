//! What a model sees of the example tools (snapshots of their specs), and
//! what the quickstart's tool uses produce through the global registry.
//!
//! Review a changed snapshot as a model would read it; accept it with
//! `INSTA_UPDATE=always cargo test -p tests --test snapshots` (or
//! `cargo insta review`).

use examples::{AccountBalanceTool, ConvertLengthTool, ScheduleMeetingTool, WeatherForecastTool};
use serde_json::{Value, json};
use tool_runtime::{
    Content, Registry, ToolContext, ToolResult, ToolSpec, ToolUse, registry::RegistryProblem,
    spec::ToolErrorKind, spec::ToolStatus,
};

/// The parts of a spec a model is shown.
fn model_view(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema(),
        "output_schema": spec.output_schema(),
    })
}

#[test]
fn weather_forecast_spec() {
    insta::assert_json_snapshot!("weather_forecast", model_view(&WeatherForecastTool::SPEC));
}

#[test]
fn convert_length_spec() {
    insta::assert_json_snapshot!("convert_length", model_view(&ConvertLengthTool::SPEC));
}

#[test]
fn schedule_meeting_spec() {
    insta::assert_json_snapshot!("schedule_meeting", model_view(&ScheduleMeetingTool::SPEC));
}

#[test]
fn account_balance_spec() {
    insta::assert_json_snapshot!("account_balance", model_view(&AccountBalanceTool::SPEC));
}

#[test]
fn the_global_registry_holds_the_example_tools_in_name_order() {
    let registry = Registry::global();
    let names: Vec<&str> = registry.names().collect();
    assert_eq!(
        names,
        [
            "account_balance",
            "convert_length",
            "process_document",
            "schedule_meeting",
            "weather_forecast"
        ]
    );
    // Built once: the same registry every time.
    assert!(std::ptr::eq(registry, Registry::global()));
    assert!(std::ptr::eq(
        registry,
        Registry::try_global().expect("no duplicate names")
    ));
    // The registered tools are the ones the example crate defines.
    for spec in [
        WeatherForecastTool::SPEC,
        ConvertLengthTool::SPEC,
        ScheduleMeetingTool::SPEC,
        AccountBalanceTool::SPEC,
    ] {
        let registered = registry.get(&spec.name).expect("registered").spec();
        assert_eq!(registered.location, spec.location);
        assert_eq!(registered.input_schema(), spec.input_schema());
    }
}

// ---------------------------------------------------------------------------
// The quickstart's tool uses
// ---------------------------------------------------------------------------

const TOOL_USES: &str = include_str!("../../examples/quickstart/tool_uses.json");

/// Runs every tool use of the quickstart with the context it uses.
async fn quickstart_results() -> Vec<ToolResult> {
    let ctx = ToolContext::new()
        .with_state("customer_id", json!("c-1042"))
        .with_state("preferred_unit", json!("celsius"));
    let tool_uses: Vec<ToolUse> = serde_json::from_str(TOOL_USES).expect("valid tool uses");
    let mut results = Vec::new();
    for tool_use in tool_uses {
        results.push(Registry::global().invoke(tool_use, &ctx).await);
    }
    results
}

/// The lines of a forecast, each checked to be `City, day N: sky, T°U`.
#[track_caller]
fn forecast_lines(result: &ToolResult, city: &str, symbol: &str) -> usize {
    assert_eq!(result.status, ToolStatus::Success, "{result:?}");
    let text = result.text_content();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let prefix = format!("{city}, day {}: ", i + 1);
        let rest = line
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{line:?} does not start with {prefix:?}"));
        let (sky, temperature) = rest.split_once(", ").expect("sky, temperature");
        assert!(
            ["sunny", "cloudy", "rainy", "windy", "snowy"].contains(&sky),
            "{line}"
        );
        let degrees = temperature
            .strip_suffix(symbol)
            .unwrap_or_else(|| panic!("{line:?} is not in {symbol}"));
        degrees
            .parse::<i32>()
            .unwrap_or_else(|_| panic!("{degrees:?} in {line:?} is not a number"));
    }
    lines.len()
}

#[tokio::test]
async fn quickstart_tool_uses_give_the_expected_results() {
    let results = quickstart_results().await;
    let ids: Vec<&str> = results.iter().map(|r| r.tool_use_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "call-1", "call-2", "call-3", "call-4", "call-5", "call-6", "call-7", "call-8",
            "call-9"
        ]
    );
    let statuses: Vec<ToolStatus> = results.iter().map(|r| r.status).collect();
    use ToolStatus::{Error, Success};
    assert_eq!(
        statuses,
        [
            Success, Success, Success, Success, Success, Error, Error, Error, Error
        ]
    );

    // call-1: two days in Celsius, from the caller's preferred unit.
    assert_eq!(forecast_lines(&results[0], "Paris", "°C"), 2);
    // call-2: `days: null` is the default of 3; the unit asked for wins.
    assert_eq!(forecast_lines(&results[1], "Oslo", "°F"), 3);

    // call-3: a sync tool returning text.
    assert_eq!(
        results[2].content,
        [Content::Text("5 kilometre = 3.1069 mile".into())]
    );

    // call-4: a struct return is JSON content; the default priority is
    // overridden, the attendee without email has none.
    assert_eq!(
        results[3].content,
        [Content::Json(json!({
            "id": "mtg-2026-12-01-1000",
            "title": "Quarterly planning",
            "slot": {"date": "2026-12-01", "start": "10:00", "minutes": 45},
            "attendees": [{"name": "Ada", "email": "ada@example.com"}, {"name": "Linus"}],
            "priority": "high"
        }))]
    );

    // call-5: the customer comes from the invocation state.
    let balance = results[4].text_content();
    let amount = balance
        .strip_prefix("c-1042: ")
        .and_then(|rest| rest.strip_suffix(" USD"))
        .unwrap_or_else(|| panic!("unexpected balance {balance:?}"));
    assert!(amount.parse::<f64>().is_ok_and(|a| a > 0.0), "{balance}");
    assert_eq!(
        amount.split_once('.').map(|(_, cents)| cents.len()),
        Some(2)
    );

    // call-6: three mistakes, one message, each naming its field.
    assert_eq!(results[5].error_kind, Some(ToolErrorKind::InvalidArguments));
    assert_eq!(
        results[5].text_content(),
        "invalid arguments for weather_forecast: \
         days: expected an integer from 0 to 4294967295, got \"three\"; \
         unit: unknown variant \"kelvin\", expected one of \"celsius\", \"fahrenheit\"; \
         cty: unknown field, did you mean \"city\"?"
    );

    // call-7: nested mistakes name their path.
    assert_eq!(results[6].error_kind, Some(ToolErrorKind::InvalidArguments));
    assert_eq!(
        results[6].text_content(),
        "invalid arguments for schedule_meeting: \
         slot.minutes: expected an integer from 0 to 65535, got -30; \
         attendees[0].mail: unknown field, did you mean \"email\"?"
    );

    // call-8: the tool's own check, returned as `Err`.
    assert_eq!(results[7].error_kind, Some(ToolErrorKind::Failed));
    assert_eq!(
        results[7].text_content(),
        "days must be from 1 to 14, got 40; ask for at most two weeks"
    );

    // call-9: a tool that does not exist.
    assert_eq!(results[8].error_kind, Some(ToolErrorKind::UnknownTool));
    assert_eq!(
        results[8].text_content(),
        "unknown tool \"get_weather\"; available tools: \
         account_balance, convert_length, process_document, schedule_meeting, weather_forecast"
    );
}

#[tokio::test]
async fn quickstart_results_are_deterministic() {
    let first = quickstart_results().await;
    let second = quickstart_results().await;
    assert_eq!(first, second);
}

#[test]
fn the_global_report_accounts_for_every_linked_tool() {
    let report = Registry::global_report();
    let linked: Vec<&str> = Registry::linked_specs().map(|spec| &*spec.name).collect();
    assert_eq!(report.linked, linked.len());
    assert!(linked.contains(&"search"), "{linked:?}");
    let global = Registry::global();
    assert_eq!(report.registered, global.len());
    let left_out: Vec<&str> = report
        .excluded
        .iter()
        .filter_map(|problem| match problem {
            RegistryProblem::InvalidConfig { tool, .. } => Some(tool.as_str()),
            _ => None,
        })
        .collect();
    // Every linked tool is either served or reported as left out.
    for name in &linked {
        assert!(
            global.get(name).is_some() != left_out.contains(name),
            "{name}: served {} and reported {}",
            global.get(name).is_some(),
            left_out.contains(name)
        );
    }
    // Without its API key in the environment, `search` is one of those left out.
    if std::env::var_os("TOOL_SEARCH_API_KEY").is_none() {
        assert!(left_out.contains(&"search"), "{:?}", report.excluded);
    }
}
