//! Calling tools: the agent path (`Registry::invoke`, every failure becomes
//! an error result), the direct path (`Tool::call_json`,
//! `Registry::call_json`, errors propagate), argument errors, and the wire
//! shapes of `ToolUse` and `ToolResult`.

use examples::ScheduleMeetingTool;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_runtime::{
    Content, Registry, Tool, ToolContext, ToolError, ToolResult, ToolUse, spec::ArgError,
    spec::ArgErrorKind, spec::ToolErrorKind, spec::ToolStatus, tool,
};

/// Panics while running synchronously.
#[tool]
fn boom_sync(
    /// Put into the panic message
    reason: String,
) -> String {
    panic!("sync tool gave up: {reason}")
}

/// Panics after an await point.
#[tool]
async fn boom_async() -> String {
    tokio::task::yield_now().await;
    panic!("async tool gave up")
}

/// Reports the current time in a fixed city.
#[tool]
fn weather_now(
    /// The city
    city: String,
) -> String {
    format!("{city}: 18°C, clear")
}

/// Answers "pong".
#[tool]
fn ping() -> &'static str {
    "pong"
}

/// Fails on purpose.
#[tool]
fn always_fails(
    /// What to complain about
    about: String,
) -> Result<String, ToolError> {
    Err(ToolError::new(format!(
        "cannot handle {about}; try something else"
    )))
}

/// A seat class.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Cabin {
    /// The cheapest seats.
    Economy,
    /// More room.
    Business,
    /// The most room.
    First,
}

/// A booked flight.
#[derive(Debug, Serialize, JsonSchema)]
struct Booking {
    /// The booking reference.
    reference: String,
    /// Seats booked.
    passengers: u8,
    /// The class.
    cabin: Cabin,
}

/// Books a flight.
#[tool]
fn book_flight(
    /// Departure airport code
    origin: String,
    /// Arrival airport code
    destination: String,
    /// How many seats
    passengers: u8,
    /// Seat class
    cabin: Cabin,
    /// Return date, for a round trip
    return_date: Option<String>,
) -> Booking {
    Booking {
        reference: format!(
            "{origin}-{destination}{}",
            return_date.map(|d| format!("-{d}")).unwrap_or_default()
        ),
        passengers,
        cabin,
    }
}

fn registry() -> Registry {
    Registry::builder()
        .tool(BoomSyncTool)
        .tool(BoomAsyncTool)
        .tool(WeatherNowTool)
        .tool(AlwaysFailsTool)
        .tool(PingTool)
        .tool(BookFlightTool)
        .tool(ScheduleMeetingTool)
        .build()
        .expect("distinct tools")
}

async fn invoke(registry: &Registry, name: &str, input: Value) -> ToolResult {
    registry
        .invoke(ToolUse::new("tu-1", name, input), &ToolContext::new())
        .await
}

#[track_caller]
fn assert_error(result: &ToolResult, kind: ToolErrorKind, text: &str) {
    assert_eq!(result.status, ToolStatus::Error, "{result:?}");
    assert_eq!(result.error_kind, Some(kind), "{result:?}");
    assert_eq!(result.text_content(), text);
    assert_eq!(result.tool_use_id, "tu-1");
}

// ---------------------------------------------------------------------------
// Failures on the agent path
// ---------------------------------------------------------------------------

#[tokio::test]
async fn sync_panic_becomes_an_error_result_and_the_registry_keeps_serving() {
    let registry = registry();
    let result = invoke(&registry, "boom_sync", json!({"reason": "disk full"})).await;
    assert_error(
        &result,
        ToolErrorKind::Panicked,
        "tool boom_sync panicked: sync tool gave up: disk full",
    );

    let ok = invoke(&registry, "weather_now", json!({"city": "Oslo"})).await;
    assert!(ok.is_success(), "{ok:?}");
    assert_eq!(ok.text_content(), "Oslo: 18°C, clear");

    // The panicking tool itself still answers, with the same error.
    let again = invoke(&registry, "boom_sync", json!({"reason": "again"})).await;
    assert_error(
        &again,
        ToolErrorKind::Panicked,
        "tool boom_sync panicked: sync tool gave up: again",
    );
}

#[tokio::test]
async fn async_panic_becomes_an_error_result_and_the_registry_keeps_serving() {
    let registry = registry();
    let result = invoke(&registry, "boom_async", json!({})).await;
    assert_error(
        &result,
        ToolErrorKind::Panicked,
        "tool boom_async panicked: async tool gave up",
    );
    let ok = invoke(&registry, "weather_now", json!({"city": "Lima"})).await;
    assert_eq!(ok.text_content(), "Lima: 18°C, clear");
}

#[tokio::test]
async fn panics_on_the_direct_registry_path_are_errors_too() {
    let registry = registry();
    let ctx = ToolContext::new();
    let error = registry
        .call_json("boom_async", json!({}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Panicked);
    assert_eq!(
        error.message(),
        "tool boom_async panicked: async tool gave up"
    );
    let error = registry
        .call_json("boom_sync", json!({"reason": "x"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Panicked);
}

#[tokio::test]
async fn err_return_becomes_an_error_result() {
    let result = invoke(&registry(), "always_fails", json!({"about": "mondays"})).await;
    assert_error(
        &result,
        ToolErrorKind::Failed,
        "cannot handle mondays; try something else",
    );
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({
            "toolUseId": "tu-1",
            "status": "error",
            "content": [{"text": "cannot handle mondays; try something else"}]
        })
    );
}

#[tokio::test]
async fn unknown_tool_lists_the_tools_and_suggests_a_close_name() {
    let registry = registry();
    let all =
        "always_fails, book_flight, boom_async, boom_sync, ping, schedule_meeting, weather_now";

    let result = invoke(&registry, "wether_now", json!({"city": "Oslo"})).await;
    assert_error(
        &result,
        ToolErrorKind::UnknownTool,
        &format!(
            "unknown tool \"wether_now\"; did you mean \"weather_now\"?; available tools: {all}"
        ),
    );

    let result = invoke(&registry, "translate", json!({})).await;
    assert_error(
        &result,
        ToolErrorKind::UnknownTool,
        &format!("unknown tool \"translate\"; available tools: {all}"),
    );

    let empty = Registry::builder().build().unwrap();
    let result = invoke(&empty, "anything", json!({})).await;
    assert_error(
        &result,
        ToolErrorKind::UnknownTool,
        "unknown tool \"anything\"; no tools are available",
    );

    let error = registry
        .call_json("wether_now", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::UnknownTool);
    assert!(
        error.message().contains("did you mean \"weather_now\"?"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------
// Argument errors
// ---------------------------------------------------------------------------

const FOUR_MISTAKES: &str = "invalid arguments for book_flight: \
    passengers: expected an integer from 0 to 255, got \"two\"; \
    cabin: unknown variant \"premium\", expected one of \"economy\", \"business\", \"first\"; \
    origin: missing required field (a string); \
    retrun_date: unknown field, did you mean \"return_date\"?";

fn four_mistakes() -> Value {
    json!({
        "destination": "CDG",
        "passengers": "two",
        "cabin": "premium",
        "retrun_date": "2026-05-01"
    })
}

#[tokio::test]
async fn every_argument_mistake_is_reported_at_once() {
    let result = invoke(&registry(), "book_flight", four_mistakes()).await;
    assert_error(&result, ToolErrorKind::InvalidArguments, FOUR_MISTAKES);
    assert_eq!(result.content.len(), 1);
}

#[tokio::test]
async fn argument_errors_are_exposed_one_by_one() {
    let error = BookFlightTool
        .call_json(&four_mistakes(), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::InvalidArguments);
    assert_eq!(error.message(), FOUR_MISTAKES);
    assert_eq!(error.to_string(), FOUR_MISTAKES);
    let problems: Vec<(&str, ArgErrorKind)> = error
        .argument_errors()
        .iter()
        .map(|e| (e.field.as_str(), e.kind))
        .collect();
    assert_eq!(
        problems,
        [
            ("passengers", ArgErrorKind::WrongType),
            ("cabin", ArgErrorKind::InvalidValue),
            ("origin", ArgErrorKind::Missing),
            ("retrun_date", ArgErrorKind::Unknown),
        ]
    );
    let missing = &error.argument_errors()[2];
    assert_eq!(missing.message, "missing required field (a string)");
    assert_eq!(
        missing.to_string(),
        "origin: missing required field (a string)"
    );
    // Errors of other kinds carry no argument problems.
    assert!(ToolError::new("x").argument_errors().is_empty());
}

#[tokio::test]
async fn arguments_that_are_not_an_object() {
    let registry = registry();
    for (input, shown) in [
        (json!([1, 2]), "[1,2]"),
        (json!("x"), "\"x\""),
        (json!(42), "42"),
    ] {
        let result = invoke(&registry, "weather_now", input.clone()).await;
        assert_error(
            &result,
            ToolErrorKind::InvalidArguments,
            &format!(
                "invalid arguments for weather_now: the arguments must be a JSON object, got {shown}"
            ),
        );
        let error = WeatherNowTool
            .call_json(&input, &ToolContext::new())
            .await
            .unwrap_err();
        let problems = error.argument_errors();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].kind, ArgErrorKind::NotAnObject);
        assert_eq!(problems[0].field, "");
    }
}

#[tokio::test]
async fn null_arguments_are_an_empty_object() {
    let registry = registry();
    // A tool without required parameters runs.
    let result = invoke(&registry, "ping", Value::Null).await;
    assert_eq!(result.text_content(), "pong");
    assert!(result.is_success());
    // A tool with required parameters reports them missing, as for `{}`.
    let from_null = invoke(&registry, "weather_now", Value::Null).await;
    let from_empty = invoke(&registry, "weather_now", json!({})).await;
    assert_error(
        &from_null,
        ToolErrorKind::InvalidArguments,
        "invalid arguments for weather_now: city: missing required field (a string)",
    );
    assert_eq!(from_null, from_empty);
    // A tool use without `input` has null input.
    let tool_use: ToolUse =
        serde_json::from_value(json!({"toolUseId": "tu-1", "name": "weather_now"})).unwrap();
    assert_eq!(tool_use.input, Value::Null);
    let result = registry.invoke(tool_use, &ToolContext::new()).await;
    assert_eq!(result, from_empty);
}

#[tokio::test]
async fn nested_field_errors_name_the_path() {
    let input = json!({
        "title": "Sync",
        "slot": {"date": "2026-12-01", "start": "09:00", "minutes": -30},
        "attendees": [{"name": "Ada", "mail": "ada@example.com"}],
        "priority": "urgent"
    });
    let result = invoke(&registry(), "schedule_meeting", input.clone()).await;
    assert_error(
        &result,
        ToolErrorKind::InvalidArguments,
        "invalid arguments for schedule_meeting: \
         slot.minutes: expected an integer from 0 to 65535, got -30; \
         attendees[0].mail: unknown field, did you mean \"email\"?; \
         priority: unknown variant \"urgent\", expected one of \"low\", \"normal\", \"high\"",
    );

    let error = ScheduleMeetingTool
        .call_json(&input, &ToolContext::new())
        .await
        .unwrap_err();
    let problems: Vec<(&str, ArgErrorKind)> = error
        .argument_errors()
        .iter()
        .map(|e| (e.field.as_str(), e.kind))
        .collect();
    assert_eq!(
        problems,
        [
            ("slot.minutes", ArgErrorKind::InvalidValue),
            ("attendees[0].mail", ArgErrorKind::Unknown),
            ("priority", ArgErrorKind::InvalidValue),
        ]
    );
}

#[tokio::test]
async fn missing_nested_field_names_the_path() {
    let input = json!({
        "title": "Sync",
        "slot": {"date": "2026-12-01", "start": "09:00"},
        "attendees": [{"name": "Ada"}]
    });
    let result = invoke(&registry(), "schedule_meeting", input).await;
    assert_error(
        &result,
        ToolErrorKind::InvalidArguments,
        "invalid arguments for schedule_meeting: slot.minutes: missing required field",
    );
    let error = ScheduleMeetingTool
        .call_json(
            &json!({"title": "x", "slot": {"date": "d", "start": "s", "minutes": 1}, "attendees": [{}]}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.argument_errors(),
        [ArgError {
            field: "attendees[0].name".into(),
            kind: ArgErrorKind::Missing,
            message: "missing required field".into(),
        }]
    );
}

// ---------------------------------------------------------------------------
// The direct path
// ---------------------------------------------------------------------------

#[tokio::test]
async fn direct_path_returns_plain_values() {
    let ctx = ToolContext::new();
    let text = WeatherNowTool
        .call_json(&json!({"city": "Rome"}), &ctx)
        .await
        .unwrap();
    assert_eq!(text, json!("Rome: 18°C, clear"));

    let booking = BookFlightTool
        .call_json(
            &json!({"origin": "OSL", "destination": "CDG", "passengers": 2, "cabin": "first"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(
        booking,
        json!({"reference": "OSL-CDG", "passengers": 2, "cabin": "first"})
    );

    let registry = registry();
    let same = registry
        .call_json(
            "book_flight",
            json!({"origin": "OSL", "destination": "CDG", "passengers": 2, "cabin": "first"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(same, booking);

    // The agent path wraps the same value: JSON content for a struct.
    let result = registry
        .invoke(
            ToolUse::new(
                "tu-9",
                "book_flight",
                json!({"origin": "OSL", "destination": "CDG", "passengers": 2, "cabin": "first", "return_date": "2026-06-01"}),
            ),
            &ctx,
        )
        .await;
    assert_eq!(
        result.content,
        [Content::Json(
            json!({"reference": "OSL-CDG-2026-06-01", "passengers": 2, "cabin": "first"})
        )]
    );
}

#[tokio::test]
async fn direct_path_propagates_errors() {
    let ctx = ToolContext::new();
    let error = AlwaysFailsTool
        .call_json(&json!({"about": "fog"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Failed);
    assert_eq!(error.message(), "cannot handle fog; try something else");

    let error = registry()
        .call_json("weather_now", json!({"town": "Oslo"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::InvalidArguments);
    assert_eq!(
        error.message(),
        "invalid arguments for weather_now: city: missing required field (a string); \
         town: unknown field; expected one of \"city\""
    );

    // A boxed std error can carry a ToolError out of `?`.
    let boxed: Box<dyn std::error::Error + Send + Sync> = error.into();
    assert!(
        boxed
            .to_string()
            .starts_with("invalid arguments for weather_now")
    );
}

// ---------------------------------------------------------------------------
// Arguments as JSON text (`Tool::call_str`)
// ---------------------------------------------------------------------------

/// The plain value of a call with arguments as text.
async fn call_text(tool: &dyn Tool, input: &str) -> Result<Value, ToolError> {
    tool.call_str(input, &ToolContext::new())
        .await
        .and_then(|output| output.into_value())
}

#[tokio::test]
async fn text_arguments_give_what_value_arguments_give() {
    let input = json!({"origin": "OSL", "destination": "CDG", "passengers": 2, "cabin": "first", "return_date": "2026-06-01"});
    let from_value = BookFlightTool
        .call_json(&input, &ToolContext::new())
        .await
        .unwrap();
    let from_text = call_text(&BookFlightTool, &input.to_string())
        .await
        .unwrap();
    assert_eq!(from_text, from_value);
    assert_eq!(from_text["reference"], "OSL-CDG-2026-06-01");
    // Whitespace, key order and an explicit null for an optional parameter.
    let text = "\n { \"cabin\": \"economy\", \"passengers\": 1, \"return_date\": null,\n  \"destination\": \"LIS\", \"origin\": \"OSL\" } ";
    assert_eq!(
        call_text(&BookFlightTool, text).await.unwrap(),
        json!({"reference": "OSL-LIS", "passengers": 1, "cabin": "economy"})
    );
}

#[tokio::test]
async fn text_argument_mistakes_are_worded_as_for_values() {
    let error = call_text(&BookFlightTool, &four_mistakes().to_string())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::InvalidArguments);
    assert_eq!(error.message(), FOUR_MISTAKES);
    assert_eq!(error.argument_errors().len(), 4);

    let error = call_text(&WeatherNowTool, "[1, 2]").await.unwrap_err();
    assert_eq!(
        error.message(),
        "invalid arguments for weather_now: the arguments must be a JSON object, got [1,2]"
    );
    assert_eq!(error.argument_errors()[0].kind, ArgErrorKind::NotAnObject);
}

#[tokio::test]
async fn text_that_is_not_json_says_where_it_breaks() {
    for text in ["{\"city\": \"Rome\"", "{city: Rome}", "Rome"] {
        let error = call_text(&WeatherNowTool, text).await.unwrap_err();
        assert_eq!(error.kind(), ToolErrorKind::InvalidArguments, "{text}");
        let problems = error.argument_errors();
        assert_eq!(problems.len(), 1, "{text}");
        assert_eq!(problems[0].kind, ArgErrorKind::NotJson);
        assert_eq!(problems[0].field, "");
        assert!(
            error.message().starts_with(
                "invalid arguments for weather_now: the arguments are not valid JSON: "
            ),
            "{}",
            error.message()
        );
        assert!(
            error.message().contains("line 1 column"),
            "{}",
            error.message()
        );
    }
}

#[tokio::test]
async fn a_parameter_given_twice_in_text_takes_its_last_value() {
    // As a JSON value would hold it: the last of the duplicate keys wins.
    let text = r#"{"city": "Oslo", "city": "Rome"}"#;
    let from_value = WeatherNowTool
        .call_json(&serde_json::from_str(text).unwrap(), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(from_value, json!("Rome: 18°C, clear"));
    assert_eq!(call_text(&WeatherNowTool, text).await.unwrap(), from_value);
}

#[tokio::test]
async fn empty_or_null_text_is_an_empty_object() {
    for text in ["", "  ", "{}", "null"] {
        assert_eq!(
            call_text(&PingTool, text).await.unwrap(),
            json!("pong"),
            "{text:?}"
        );
    }
    let error = call_text(&WeatherNowTool, "").await.unwrap_err();
    assert_eq!(
        error.message(),
        "invalid arguments for weather_now: city: missing required field (a string)"
    );
}

#[tokio::test]
async fn async_and_failing_tools_take_text_too() {
    let error = call_text(&AlwaysFailsTool, r#"{"about": "fog"}"#)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Failed);
    assert_eq!(error.message(), "cannot handle fog; try something else");
    // The async tool's future is pending until polled, like `call`'s.
    let ctx = ToolContext::new();
    let future = BoomAsyncTool.call_str("{}", &ctx);
    assert!(!future.is_ready());
    // These tests build with the `text-args` feature: a sync tool's own
    // decoder from text has run by the time the future exists, where the
    // provided method (see `Echo` below) waits to be polled.
    assert!(PingTool.call_str("{}", &ctx).is_ready());
    assert!(!Echo.call_str("{}", &ctx).is_ready());
}

/// A tool written by hand (borrowing another tool's spec), which has the
/// provided `call_str`: it returns its arguments.
struct Echo;

impl Tool for Echo {
    fn spec(&self) -> &tool_runtime::ToolSpec {
        &PingTool::SPEC
    }

    fn call<'a>(
        &'a self,
        input: &'a Value,
        _ctx: &'a ToolContext,
    ) -> tool_runtime::spec::ToolFuture<'a> {
        tool_runtime::spec::ToolFuture::ready(Ok(tool_runtime::ToolOutput::Value(input.clone())))
    }
}

/// A tool written by hand that reads its call's context: it keeps the
/// provided `takes_context`, so a registry builds it one.
struct Whoami;

impl Tool for Whoami {
    fn spec(&self) -> &tool_runtime::ToolSpec {
        &PingTool::SPEC
    }

    fn call<'a>(
        &'a self,
        _input: &'a Value,
        ctx: &'a ToolContext,
    ) -> tool_runtime::spec::ToolFuture<'a> {
        let id = ctx.tool_use_id().unwrap_or("none").to_owned();
        tool_runtime::spec::ToolFuture::ready(Ok(tool_runtime::ToolOutput::Value(Value::String(
            id,
        ))))
    }
}

#[tokio::test]
async fn hand_written_tools_get_their_call_context_by_default() {
    assert!(Whoami.takes_context());
    assert!(!PingTool.takes_context());
    let registry = Registry::builder().tool(Whoami).build().unwrap();
    let result = registry
        .invoke(
            ToolUse::new("call-9", "ping", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(result.text_content(), "call-9");
}

#[tokio::test]
async fn hand_written_tools_take_text_through_a_value() {
    assert_eq!(
        call_text(&Echo, r#"{"a": [1, 2]}"#).await.unwrap(),
        json!({"a": [1, 2]})
    );
    assert_eq!(call_text(&Echo, " ").await.unwrap(), json!({}));
    let error = call_text(&Echo, "{").await.unwrap_err();
    assert_eq!(error.argument_errors()[0].kind, ArgErrorKind::NotJson);
}

// ---------------------------------------------------------------------------
// Wire shapes
// ---------------------------------------------------------------------------

#[test]
fn tool_result_serialises_to_the_converse_shape_and_back() {
    let cases = [
        (
            ToolResult::text("a", "hello"),
            json!({"toolUseId": "a", "status": "success", "content": [{"text": "hello"}]}),
        ),
        (
            ToolResult::json("b", json!({"n": [1, 2]})),
            json!({"toolUseId": "b", "status": "success", "content": [{"json": {"n": [1, 2]}}]}),
        ),
        (
            ToolResult::error("c", "went wrong"),
            json!({"toolUseId": "c", "status": "error", "content": [{"text": "went wrong"}]}),
        ),
        (
            ToolResult::success(
                "d",
                vec![Content::Text("two".into()), Content::Json(json!(2))],
            ),
            json!({"toolUseId": "d", "status": "success", "content": [{"text": "two"}, {"json": 2}]}),
        ),
        (
            ToolResult::success("e", Vec::new()),
            json!({"toolUseId": "e", "status": "success", "content": []}),
        ),
    ];
    for (result, expected) in cases {
        let value = serde_json::to_value(&result).unwrap();
        assert_eq!(value, expected);
        let text = serde_json::to_string(&result).unwrap();
        let back: ToolResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back, result);
    }
}

#[test]
fn error_kind_is_not_part_of_the_wire_shape() {
    let error = ToolError::with_kind(ToolErrorKind::MissingContext, "no user");
    let result = ToolResult::from_error("x", &error);
    assert_eq!(result.error_kind, Some(ToolErrorKind::MissingContext));
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(
        value,
        json!({"toolUseId": "x", "status": "error", "content": [{"text": "no user"}]})
    );
    let back: ToolResult = serde_json::from_value(value).unwrap();
    assert_eq!(back.error_kind, None);
    assert_eq!(
        (back.status, back.text_content()),
        (ToolStatus::Error, "no user".into())
    );
}

#[test]
fn tool_use_deserialises_from_both_id_spellings() {
    let expected = ToolUse::new("tu-7", "weather_now", json!({"city": "Oslo"}));
    let converse: ToolUse = serde_json::from_value(
        json!({"toolUseId": "tu-7", "name": "weather_now", "input": {"city": "Oslo"}}),
    )
    .unwrap();
    assert_eq!(converse, expected);
    let openai_like: ToolUse = serde_json::from_value(
        json!({"id": "tu-7", "name": "weather_now", "input": {"city": "Oslo"}}),
    )
    .unwrap();
    assert_eq!(openai_like, expected);
    assert_eq!(
        serde_json::to_value(&expected).unwrap(),
        json!({"toolUseId": "tu-7", "name": "weather_now", "input": {"city": "Oslo"}})
    );
    let missing_name = serde_json::from_value::<ToolUse>(json!({"id": "x", "input": {}}));
    assert!(missing_name.unwrap_err().to_string().contains("name"));
}

#[tokio::test]
async fn the_result_answers_the_tool_use_it_came_from() {
    let registry = registry();
    let ctx = ToolContext::new();
    for id in ["first", "second"] {
        let result = registry
            .invoke(
                ToolUse::new(id, "weather_now", json!({"city": "Bern"})),
                &ctx,
            )
            .await;
        assert_eq!(result.tool_use_id, id);
    }
}

#[tokio::test]
async fn struct_arguments_are_read_from_objects_only_in_both_paths() {
    use tool_runtime::Tool;
    let registry = Registry::builder()
        .tool(examples::ScheduleMeetingTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    // serde alone reads a struct's fields from an array; the schema says
    // object, and so does the decoder.
    for (args, expected) in [
        (
            json!({"title": "t", "slot": ["2025-03-14", "10:00", 30], "attendees": [["Ann"]]}),
            "invalid arguments for schedule_meeting: slot: expected an object, got an array; \
             attendees[0]: expected an object, got an array",
        ),
        (
            json!({"title": "t", "slot": [1, "a"], "attendees": [{"name": "Ann"}]}),
            "invalid arguments for schedule_meeting: slot: expected an object, got an array",
        ),
    ] {
        let result = registry
            .invoke(ToolUse::new("1", "schedule_meeting", args.clone()), &ctx)
            .await;
        assert!(result.is_error());
        assert_eq!(result.text_content(), expected, "value path");

        let error = examples::ScheduleMeetingTool
            .call_str(&args.to_string(), &ctx)
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), expected, "text path");
        let error = examples::ScheduleMeetingTool
            .call(&args, &ctx)
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), expected, "direct value path");
    }
}
