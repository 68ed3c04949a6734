//! Every function shape `#[tool]` accepts: it compiles, the function stays a
//! plain function, the spec and schema say what a model must know, and a
//! call through the registry behaves as the signature promises.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_runtime::{
    Content, FromToolContext, Registry, Tool, ToolContext, ToolError, ToolResult, ToolUse,
    spec::ToolErrorKind, spec::ToolStatus, tool,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Runs one call of `tool` through a registry holding only it.
async fn invoke(tool: impl Tool, input: Value) -> ToolResult {
    invoke_with(tool, input, &ToolContext::new()).await
}

async fn invoke_with(tool: impl Tool, input: Value, ctx: &ToolContext) -> ToolResult {
    let name = tool.spec().name.clone();
    let registry = Registry::builder().tool(tool).build().expect("one tool");
    registry
        .invoke(ToolUse::new("call-1", name, input), ctx)
        .await
}

/// Asserts a successful result with exactly one text block and returns it.
#[track_caller]
fn text_of(result: &ToolResult) -> &str {
    assert_eq!(result.status, ToolStatus::Success, "{result:?}");
    assert_eq!(result.content.len(), 1, "{result:?}");
    result.content[0].as_text().expect("text content")
}

/// Asserts a successful result with exactly one JSON block and returns it.
#[track_caller]
fn json_of(result: &ToolResult) -> &Value {
    assert_eq!(result.status, ToolStatus::Success, "{result:?}");
    assert_eq!(result.content.len(), 1, "{result:?}");
    match &result.content[0] {
        Content::Json(value) => value,
        other => panic!("expected JSON content, got {other:?}"),
    }
}

/// Asserts an error result and returns its text.
#[track_caller]
fn error_of(result: &ToolResult) -> String {
    assert_eq!(result.status, ToolStatus::Error, "{result:?}");
    result.text_content()
}

/// Every path in `schema` where `title` is used as a keyword (a property
/// *named* `title` is fine).
fn title_keywords(schema: &Value, path: &str, found: &mut Vec<String>) {
    match schema {
        Value::Object(object) => {
            for (key, child) in object {
                if key == "title" {
                    found.push(path.to_owned());
                }
                if key == "properties" || key == "$defs" {
                    if let Value::Object(map) = child {
                        for (name, sub) in map {
                            title_keywords(sub, &format!("{path}/{key}/{name}"), found);
                        }
                    }
                } else {
                    title_keywords(child, &format!("{path}/{key}"), found);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                title_keywords(item, &format!("{path}/{i}"), found);
            }
        }
        _ => {}
    }
}

/// Follows a local `$ref` (`#/$defs/Name`) from `schema` within `root`.
fn resolve_ref<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(target) => target
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or_else(|| panic!("dangling $ref {target} in {root:#}")),
        None => schema,
    }
}

/// Checks the invariants every input schema must hold.
#[track_caller]
fn assert_clean_input_schema(schema: &Value) {
    assert_eq!(schema["type"], "object", "{schema:#}");
    assert!(schema["properties"].is_object(), "{schema:#}");
    assert!(schema["required"].is_array(), "{schema:#}");
    assert_eq!(schema["additionalProperties"], json!(false), "{schema:#}");
    assert!(schema.get("$schema").is_none(), "{schema:#}");
    let mut titles = Vec::new();
    title_keywords(schema, "", &mut titles);
    assert!(
        titles.is_empty(),
        "title keywords at {titles:?} in {schema:#}"
    );
}

// ---------------------------------------------------------------------------
// Sync and async
// ---------------------------------------------------------------------------

/// Adds two integers.
#[tool]
fn sync_add(
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
) -> i64 {
    a + b
}

/// Doubles a number, after yielding to the executor once.
#[tool]
async fn async_double(
    /// The number to double
    x: i32,
) -> i32 {
    tokio::task::yield_now().await;
    x * 2
}

#[tokio::test]
async fn sync_fn_is_a_tool_and_still_a_function() {
    assert_eq!(sync_add(2, 3), 5);
    let result = invoke(SyncAddTool, json!({"a": 40, "b": 2})).await;
    assert_eq!(result.tool_use_id, "call-1");
    assert_eq!(json_of(&result), &json!(42));

    // A sync tool has finished by the time `call` returns.
    let ctx = ToolContext::new();
    let input = json!({"a": 1, "b": 1});
    let future = SyncAddTool.call(&input, &ctx);
    assert!(future.is_ready());
    assert_eq!(future.await.unwrap().into_value().unwrap(), json!(2));
}

#[tokio::test]
async fn async_fn_is_a_tool_and_still_a_function() {
    assert_eq!(async_double(21).await, 42);
    let result = invoke(AsyncDoubleTool, json!({"x": -4})).await;
    assert_eq!(json_of(&result), &json!(-8));

    // An async tool runs only when polled.
    let ctx = ToolContext::new();
    let input = json!({"x": 5});
    let future = AsyncDoubleTool.call(&input, &ctx);
    assert!(!future.is_ready());
    assert_eq!(future.await.unwrap().into_value().unwrap(), json!(10));
}

// ---------------------------------------------------------------------------
// Visibility and modules
// ---------------------------------------------------------------------------

/// A public tool.
#[tool]
pub fn vis_public() -> &'static str {
    "public"
}

/// A crate-visible tool.
#[tool]
pub(crate) fn vis_crate() -> &'static str {
    "crate"
}

/// A private tool.
#[tool]
fn vis_private() -> &'static str {
    "private"
}

mod outer {
    pub mod inner {
        use tool_runtime::tool;

        /// Reverses a word.
        #[tool]
        pub fn reverse_word(
            /// The word to reverse
            word: String,
        ) -> String {
            word.chars().rev().collect()
        }

        /// A tool private to its module.
        #[tool]
        fn module_private() -> &'static str {
            "hidden"
        }

        pub fn call_module_private() -> &'static str {
            module_private()
        }

        /// The module-private tool, registered where its struct is visible.
        pub fn module_private_registry() -> tool_runtime::Registry {
            tool_runtime::Registry::builder()
                .tool(ModulePrivateTool)
                .build()
                .expect("one tool")
        }
    }
}

#[tokio::test]
async fn every_visibility_makes_a_tool() {
    assert_eq!(
        (vis_public(), vis_crate(), vis_private()),
        ("public", "crate", "private")
    );
    assert_eq!(text_of(&invoke(VisPublicTool, json!({})).await), "public");
    assert_eq!(text_of(&invoke(VisCrateTool, json!({})).await), "crate");
    assert_eq!(text_of(&invoke(VisPrivateTool, json!({})).await), "private");
}

#[tokio::test]
async fn tools_in_nested_modules() {
    use outer::inner::{ReverseWordTool, reverse_word};

    assert_eq!(reverse_word("abc".into()), "cba");
    assert_eq!(outer::inner::call_module_private(), "hidden");

    let spec = ReverseWordTool::SPEC;
    assert_eq!(spec.name, "reverse_word");
    assert_eq!(spec.location.module, "signatures::outer::inner");
    assert!(
        spec.location.file.ends_with("signatures.rs"),
        "{}",
        spec.location.file
    );
    assert!(spec.location.line > 0);

    let result = invoke(ReverseWordTool, json!({"word": "stressed"})).await;
    assert_eq!(text_of(&result), "desserts");
    // The struct of a module-private function is usable inside its module.
    let registry = outer::inner::module_private_registry();
    let result = registry
        .invoke(
            ToolUse::new("call-1", "module_private", Value::Null),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(text_of(&result), "hidden");
}

// ---------------------------------------------------------------------------
// Return types
// ---------------------------------------------------------------------------

/// Says hello.
#[tool]
fn no_params() -> String {
    "hello".to_owned()
}

#[tokio::test]
async fn no_parameters() {
    assert!(NoParamsTool::SPEC.params.is_empty());
    let schema = NoParamsTool::SPEC.input_schema();
    assert_clean_input_schema(schema);
    assert_eq!(schema["properties"], json!({}));
    assert_eq!(schema["required"], json!([]));
    assert!(schema.get("$defs").is_none());

    assert_eq!(text_of(&invoke(NoParamsTool, json!({})).await), "hello");
    assert_eq!(text_of(&invoke(NoParamsTool, Value::Null).await), "hello");
    let error = error_of(&invoke(NoParamsTool, json!({"x": 1})).await);
    assert_eq!(
        error,
        "invalid arguments for no_params: x: unknown field; this tool takes no arguments"
    );
}

static BUMPS: AtomicUsize = AtomicUsize::new(0);

/// Bumps a counter and returns nothing.
#[tool]
fn unit_return(
    /// How much to add
    by: usize,
) {
    BUMPS.fetch_add(by, Ordering::SeqCst);
}

#[tokio::test]
async fn unit_return_is_an_empty_success() {
    let before = BUMPS.load(Ordering::SeqCst);
    let result = invoke(UnitReturnTool, json!({"by": 5})).await;
    assert!(result.is_success());
    assert!(result.content.is_empty(), "{result:?}");
    assert_eq!(BUMPS.load(Ordering::SeqCst), before + 5);
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"toolUseId": "call-1", "status": "success", "content": []})
    );
    assert_eq!(UnitReturnTool::SPEC.output_schema(), None);

    let value = UnitReturnTool
        .call_json(&json!({"by": 1}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(value, Value::Null);
    unit_return(0);
}

/// Greets someone.
#[tool]
fn returns_string(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Names the answer.
#[tool]
fn returns_static_str() -> &'static str {
    "forty-two"
}

#[tokio::test]
async fn text_returns_are_text_content() {
    let result = invoke(ReturnsStringTool, json!({"name": "Ada"})).await;
    assert_eq!(text_of(&result), "Hello, Ada!");
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"toolUseId": "call-1", "status": "success", "content": [{"text": "Hello, Ada!"}]})
    );
    assert_eq!(
        text_of(&invoke(ReturnsStaticStrTool, json!({})).await),
        "forty-two"
    );
    assert_eq!(ReturnsStringTool::SPEC.output_schema(), None);
    assert_eq!(ReturnsStaticStrTool::SPEC.output_schema(), None);
}

/// A point on a plane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Point {
    /// Horizontal position.
    x: f64,
    /// Vertical position.
    y: f64,
}

/// Where a polygon ends up.
#[derive(Debug, Serialize, JsonSchema)]
struct Placement {
    /// The polygon's name.
    label: String,
    /// Its corners.
    corners: Vec<Point>,
}

/// Moves a point by an offset.
#[tool]
fn returns_struct(
    /// The point to move
    point: Point,
    /// How far to move it right
    dx: f64,
) -> Placement {
    Placement {
        label: "moved".into(),
        corners: vec![Point {
            x: point.x + dx,
            y: point.y,
        }],
    }
}

#[tokio::test]
async fn struct_return_is_json_content_with_an_output_schema() {
    let result = invoke(
        ReturnsStructTool,
        json!({"point": {"x": 1.0, "y": 2.0}, "dx": 0.5}),
    )
    .await;
    assert_eq!(
        json_of(&result),
        &json!({"label": "moved", "corners": [{"x": 1.5, "y": 2.0}]})
    );

    let output = ReturnsStructTool::SPEC
        .output_schema()
        .expect("a JsonSchema struct has an output schema");
    let root = resolve_ref(output, output);
    assert_eq!(root["type"], "object");
    assert_eq!(root["description"], "Where a polygon ends up.");
    assert_eq!(root["required"], json!(["label", "corners"]));
    assert_eq!(
        root["properties"]["label"]["description"],
        "The polygon's name."
    );
    assert_eq!(
        root["properties"]["corners"]["items"]["$ref"],
        "#/$defs/Point"
    );
    assert_eq!(
        output["$defs"]["Point"]["properties"]["x"]["type"],
        "number"
    );
    assert!(output.get("$schema").is_none());
    let mut titles = Vec::new();
    title_keywords(output, "", &mut titles);
    assert!(titles.is_empty(), "{titles:?} in {output:#}");

    // The direct path gives the struct's JSON.
    let value = ReturnsStructTool
        .call_json(
            &json!({"point": {"x": 0, "y": 0}, "dx": 2}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        value,
        json!({"label": "moved", "corners": [{"x": 2.0, "y": 0.0}]})
    );
}

#[test]
fn struct_output_schema_is_the_object_itself() {
    let output = ReturnsStructTool::SPEC.output_schema().unwrap();
    assert!(output.get("$ref").is_none(), "{output:#}");
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["label", "corners"]));
    let defs: Vec<&String> = output["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["Point"]);
}

// ---------------------------------------------------------------------------
// Result returns
// ---------------------------------------------------------------------------

/// Divides with a ToolError on zero.
#[tool]
fn result_tool_error(
    /// Dividend
    a: u32,
    /// Divisor
    b: u32,
) -> Result<u32, ToolError> {
    if b == 0 {
        return Err(ToolError::new(
            "b must not be zero; pick a positive divisor",
        ));
    }
    Ok(a / b)
}

/// Divides with a String error on zero.
#[tool]
fn result_string_error(
    /// Dividend
    a: u32,
    /// Divisor
    b: u32,
) -> Result<u32, String> {
    a.checked_div(b)
        .ok_or_else(|| format!("cannot divide {a} by zero"))
}

/// An error that is only `Display`, not `std::error::Error`.
#[derive(Debug)]
struct Overdrawn {
    short_by: u32,
}

impl fmt::Display for Overdrawn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the account is short by {} cents", self.short_by)
    }
}

/// Withdraws from a balance of 100 cents.
#[tool]
fn result_custom_error(
    /// Cents to withdraw
    cents: u32,
) -> Result<u32, Overdrawn> {
    100u32.checked_sub(cents).ok_or_else(|| Overdrawn {
        short_by: cents - 100,
    })
}

/// Pretends to read a file.
#[tool]
fn result_io(
    /// The path to read
    path: String,
) -> std::io::Result<String> {
    if path == "/etc/motd" {
        Ok("welcome".into())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no such file: {path}"),
        ))
    }
}

#[tokio::test]
async fn result_with_tool_error() {
    assert_eq!(result_tool_error(9, 3).unwrap(), 3);
    assert_eq!(
        json_of(&invoke(ResultToolErrorTool, json!({"a": 9, "b": 3})).await),
        &json!(3)
    );
    let result = invoke(ResultToolErrorTool, json!({"a": 9, "b": 0})).await;
    assert_eq!(
        error_of(&result),
        "b must not be zero; pick a positive divisor"
    );
    assert_eq!(result.error_kind, Some(ToolErrorKind::Failed));
    // The Ok type's schema is the output schema.
    assert_eq!(
        ResultToolErrorTool::SPEC.output_schema().unwrap()["type"],
        "integer"
    );
}

#[tokio::test]
async fn result_with_string_error() {
    assert_eq!(
        result_string_error(1, 0).unwrap_err(),
        "cannot divide 1 by zero"
    );
    assert_eq!(
        json_of(&invoke(ResultStringErrorTool, json!({"a": 8, "b": 2})).await),
        &json!(4)
    );
    let result = invoke(ResultStringErrorTool, json!({"a": 7, "b": 0})).await;
    assert_eq!(error_of(&result), "cannot divide 7 by zero");
    assert_eq!(result.error_kind, Some(ToolErrorKind::Failed));
}

#[tokio::test]
async fn result_with_display_error() {
    assert_eq!(result_custom_error(130).unwrap_err().short_by, 30);
    assert_eq!(
        json_of(&invoke(ResultCustomErrorTool, json!({"cents": 40})).await),
        &json!(60)
    );
    let result = invoke(ResultCustomErrorTool, json!({"cents": 130})).await;
    assert_eq!(error_of(&result), "the account is short by 30 cents");
}

#[tokio::test]
async fn io_result() {
    assert!(result_io("/nope".into()).is_err());
    assert_eq!(
        text_of(&invoke(ResultIoTool, json!({"path": "/etc/motd"})).await),
        "welcome"
    );
    let result = invoke(ResultIoTool, json!({"path": "/nope"})).await;
    assert_eq!(error_of(&result), "no such file: /nope");
    assert_eq!(result.error_kind, Some(ToolErrorKind::Failed));
    assert_eq!(ResultIoTool::SPEC.output_schema(), None);
}

/// Builds its own result.
#[tool]
fn returns_tool_result(
    /// Whether to report a failure
    fail: bool,
) -> ToolResult {
    if fail {
        ToolResult::error("ignored-id", "the sensor is offline; try again in a minute")
    } else {
        ToolResult::success(
            "ignored-id",
            vec![
                Content::Text("two readings".into()),
                Content::Json(json!({"celsius": [20.5, 21.0]})),
            ],
        )
    }
}

#[tokio::test]
async fn tool_result_return_gives_full_control() {
    assert!(returns_tool_result(true).is_error());

    let ok = invoke(ReturnsToolResultTool, json!({"fail": false})).await;
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({
            "toolUseId": "call-1",
            "status": "success",
            "content": [{"text": "two readings"}, {"json": {"celsius": [20.5, 21.0]}}]
        })
    );

    let failed = invoke(ReturnsToolResultTool, json!({"fail": true})).await;
    // The registry puts in the real tool use id.
    assert_eq!(failed.tool_use_id, "call-1");
    assert_eq!(failed.status, ToolStatus::Error);
    assert_eq!(
        failed.text_content(),
        "the sensor is offline; try again in a minute"
    );

    // The direct path: several blocks become an array, an error result an Err.
    let ctx = ToolContext::new();
    let value = ReturnsToolResultTool
        .call_json(&json!({"fail": false}), &ctx)
        .await
        .unwrap();
    assert_eq!(value, json!(["two readings", {"celsius": [20.5, 21.0]}]));
    let error = ReturnsToolResultTool
        .call_json(&json!({"fail": true}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Failed);
    assert_eq!(
        error.message(),
        "the sensor is offline; try again in a minute"
    );
}

// ---------------------------------------------------------------------------
// Injected parameters
// ---------------------------------------------------------------------------

/// Reports what it knows about the call.
#[tool]
fn ctx_by_ref(
    /// A word to echo
    word: String,
    ctx: &ToolContext,
) -> String {
    format!(
        "{word} id={} tool={} user={}",
        ctx.tool_use_id().unwrap_or("-"),
        ctx.tool_name().unwrap_or("-"),
        ctx.state()
            .get("user")
            .and_then(Value::as_str)
            .unwrap_or("-"),
    )
}

/// Reports the raw input, from an owned context.
#[tool]
async fn ctx_by_value(ctx: ToolContext, n: u8) -> String {
    tokio::task::yield_now().await;
    format!("n={n} input={}", ctx.input())
}

#[tokio::test]
async fn context_parameters_are_injected_not_in_the_schema() {
    for spec in [CtxByRefTool::SPEC, CtxByValueTool::SPEC] {
        let names: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
        assert!(!names.contains(&"ctx"), "{names:?}");
        assert!(spec.input_schema()["properties"].get("ctx").is_none());
    }

    let plain = ctx_by_ref("hi".into(), &ToolContext::new());
    assert_eq!(plain, "hi id=- tool=- user=-");

    let ctx = ToolContext::new().with_state("user", json!("ada"));
    let result = invoke_with(CtxByRefTool, json!({"word": "hi"}), &ctx).await;
    assert_eq!(text_of(&result), "hi id=call-1 tool=ctx_by_ref user=ada");

    let result = invoke(CtxByValueTool, json!({"n": 7})).await;
    assert_eq!(text_of(&result), r#"n=7 input={"n":7}"#);
    assert_eq!(ctx_by_value(ToolContext::new(), 1).await, "n=1 input=null");
}

/// The caller's locale, taken from the invocation state.
#[derive(Debug, PartialEq)]
struct Locale(String);

impl FromToolContext<'_> for Locale {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.state()
            .get("locale")
            .and_then(Value::as_str)
            .map(|locale| Locale(locale.to_owned()))
            .ok_or_else(|| {
                ToolError::with_kind(
                    ToolErrorKind::MissingContext,
                    "no locale in the invocation state: the caller must set \"locale\"",
                )
            })
    }
}

/// A value borrowed from the context for the call's duration.
struct Tenant<'a>(&'a str);

impl<'a> FromToolContext<'a> for Tenant<'a> {
    fn from_tool_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Tenant(
            ctx.state()
                .get("tenant")
                .and_then(Value::as_str)
                .unwrap_or("default"),
        ))
    }
}

/// Greets someone in the caller's locale.
#[tool]
fn greet_localized(
    /// Who to greet
    name: String,
    #[tool(inject)] locale: Locale,
    #[tool(inject)] tenant: Tenant<'_>,
) -> String {
    let greeting = if locale.0 == "fr" { "Bonjour" } else { "Hello" };
    format!("{greeting}, {name} ({})", tenant.0)
}

#[tokio::test]
async fn custom_extractor_with_inject() {
    let spec = GreetLocalizedTool::SPEC;
    assert_eq!(spec.params.len(), 1);
    assert_eq!(spec.params[0].name, "name");
    assert_eq!(
        spec.input_schema()["properties"],
        json!({"name": {"type": "string", "description": "Who to greet"}})
    );

    assert_eq!(
        greet_localized("Ada".into(), Locale("fr".into()), Tenant("acme")),
        "Bonjour, Ada (acme)"
    );

    let ctx = ToolContext::new()
        .with_state("locale", json!("fr"))
        .with_state("tenant", json!("acme"));
    let result = invoke_with(GreetLocalizedTool, json!({"name": "Ada"}), &ctx).await;
    assert_eq!(text_of(&result), "Bonjour, Ada (acme)");
}

#[tokio::test]
async fn failing_extractor_gives_an_error_result() {
    let result = invoke(GreetLocalizedTool, json!({"name": "Ada"})).await;
    assert_eq!(
        error_of(&result),
        "no locale in the invocation state: the caller must set \"locale\""
    );
    assert_eq!(result.error_kind, Some(ToolErrorKind::MissingContext));

    let error = GreetLocalizedTool
        .call_json(&json!({"name": "Ada"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::MissingContext);

    // Arguments are checked before anything is injected.
    let result = invoke(GreetLocalizedTool, json!({})).await;
    assert_eq!(
        error_of(&result),
        "invalid arguments for greet_localized: name: missing required field (a string)"
    );
}

// ---------------------------------------------------------------------------
// Optional and defaulted parameters
// ---------------------------------------------------------------------------

/// Describes an optional nickname and limit.
#[tool]
fn optional_param(
    /// A nickname, if there is one
    nickname: Option<String>,
    /// An upper bound, if any
    limit: Option<u8>,
) -> String {
    format!("{nickname:?} {limit:?}")
}

#[tokio::test]
async fn option_params_are_optional_and_plain_in_the_schema() {
    let spec = OptionalParamTool::SPEC;
    assert!(spec.params.iter().all(|p| !p.required));
    assert!(spec.params.iter().all(|p| p.default.is_none()));

    let schema = spec.input_schema();
    assert_clean_input_schema(schema);
    assert_eq!(schema["required"], json!([]));
    // `Option<T>` is rendered as T: leaving the field out means None.
    assert_eq!(
        schema["properties"]["nickname"],
        json!({"type": "string", "description": "A nickname, if there is one"})
    );
    assert_eq!(schema["properties"]["limit"]["type"], "integer");
    assert_eq!(schema["properties"]["limit"]["minimum"], 0);
    assert_eq!(schema["properties"]["limit"]["maximum"], 255);

    assert_eq!(
        text_of(&invoke(OptionalParamTool, json!({})).await),
        "None None"
    );
    assert_eq!(
        text_of(&invoke(OptionalParamTool, json!({"nickname": null, "limit": null})).await),
        "None None"
    );
    assert_eq!(
        text_of(&invoke(OptionalParamTool, json!({"nickname": "Bob", "limit": 9})).await),
        r#"Some("Bob") Some(9)"#
    );
    assert_eq!(
        error_of(&invoke(OptionalParamTool, json!({"limit": 300})).await),
        "invalid arguments for optional_param: limit: expected an integer from 0 to 255, got 300"
    );
    assert_eq!(optional_param(None, Some(1)), "None Some(1)");
}

/// Lists prices.
#[tool]
fn defaults(
    /// How many items
    #[tool(default = 3)]
    count: u32,
    /// Labels to attach
    #[tool(default)]
    tags: Vec<String>,
    /// Currency code
    #[tool(default = "EUR")]
    currency: String,
    /// Whether to round
    #[tool(default = true)]
    round: bool,
) -> String {
    format!("{count} [{}] {currency} {round}", tags.join(","))
}

#[tokio::test]
async fn defaults_in_spec_schema_and_calls() {
    let spec = DefaultsTool::SPEC;
    let summary: Vec<(&str, bool, Option<&str>)> = spec
        .params
        .iter()
        .map(|p| (p.name, p.required, p.default))
        .collect();
    assert_eq!(
        summary,
        [
            ("count", false, Some("3")),
            ("tags", false, Some("Default::default()")),
            ("currency", false, Some("\"EUR\"")),
            ("round", false, Some("true")),
        ]
    );

    let schema = spec.input_schema();
    assert_clean_input_schema(schema);
    assert_eq!(schema["required"], json!([]));
    assert_eq!(schema["properties"]["count"]["default"], json!(3));
    assert_eq!(schema["properties"]["tags"]["default"], json!([]));
    assert_eq!(
        schema["properties"]["currency"],
        json!({"type": "string", "description": "Currency code", "default": "EUR"})
    );
    assert_eq!(schema["properties"]["round"]["default"], json!(true));

    assert_eq!(
        text_of(&invoke(DefaultsTool, json!({})).await),
        "3 [] EUR true"
    );
    assert_eq!(
        text_of(
            &invoke(
                DefaultsTool,
                json!({"count": 5, "tags": ["a", "b"], "currency": "USD", "round": false})
            )
            .await
        ),
        "5 [a,b] USD false"
    );
    // An explicit null means "use the default", as for a missing field.
    assert_eq!(
        text_of(
            &invoke(
                DefaultsTool,
                json!({"count": null, "tags": null, "currency": null, "round": null})
            )
            .await
        ),
        "3 [] EUR true"
    );
    assert_eq!(
        error_of(&invoke(DefaultsTool, json!({"count": "five"})).await),
        r#"invalid arguments for defaults: count: expected an integer from 0 to 4294967295, got "five""#
    );
    assert_eq!(defaults(1, vec![], "GBP".into(), false), "1 [] GBP false");
}

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

/// Formats a user record.
#[tool]
fn renamed_param(
    /// The user's login name
    #[tool(rename = "userName")]
    user_name: String,
    /// The record kind
    r#type: String,
) -> String {
    format!("{user_name}/{type}", type = r#type)
}

#[tokio::test]
async fn rename_and_raw_identifiers() {
    let spec = RenamedParamTool::SPEC;
    let names: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
    assert_eq!(names, ["userName", "type"]);
    let schema = spec.input_schema();
    assert_clean_input_schema(schema);
    assert_eq!(schema["required"], json!(["userName", "type"]));
    assert_eq!(
        schema["properties"]["userName"]["description"],
        "The user's login name"
    );
    assert!(schema["properties"].get("user_name").is_none());
    assert!(schema["properties"].get("r#type").is_none());

    let result = invoke(
        RenamedParamTool,
        json!({"userName": "ada", "type": "admin"}),
    )
    .await;
    assert_eq!(text_of(&result), "ada/admin");

    // The Rust name is not accepted as a key.
    let error = error_of(&invoke(RenamedParamTool, json!({"user_name": "ada", "type": "x"})).await);
    assert!(
        error.starts_with("invalid arguments for renamed_param: user_name: unknown field"),
        "{error}"
    );
    assert_eq!(renamed_param("a".into(), "b".into()), "a/b");
}

/// A keyword as a function name.
#[tool]
fn r#match(
    /// The pattern to match
    pattern: String,
) -> bool {
    pattern == "*"
}

#[tokio::test]
async fn raw_identifier_function_name() {
    assert_eq!(MatchTool::SPEC.name, "match");
    assert!(r#match("*".into()));
    assert_eq!(
        json_of(&invoke(MatchTool, json!({"pattern": "*"})).await),
        &json!(true)
    );
}

/// This doc comment is replaced by the attribute.
#[tool(
    name = "lookup_word",
    description = "Looks a word up in the dictionary."
)]
fn overridden(
    /// The word to look up
    word: String,
) -> String {
    format!("{word}: a word")
}

#[tokio::test]
async fn name_and_description_overrides() {
    let spec = OverriddenTool::SPEC;
    assert_eq!(spec.name, "lookup_word");
    assert_eq!(spec.description, "Looks a word up in the dictionary.");
    let result = invoke(OverriddenTool, json!({"word": "tool"})).await;
    assert_eq!(text_of(&result), "tool: a word");
    assert_eq!(overridden("x".into()), "x: a word");
    // The tool is found by its new name only.
    let registry = Registry::builder().tool(OverriddenTool).build().unwrap();
    assert!(registry.contains("lookup_word"));
    assert!(!registry.contains("overridden"));
}

// ---------------------------------------------------------------------------
// Descriptions
// ---------------------------------------------------------------------------

/// Search the catalogue for books.
///
/// Matches titles and authors, ignoring case. See [`Point`] for nothing.
///
/// ```
/// let code_is_not_for_the_model = true;
/// ```
///
/// # Arguments
///
/// * `query` - Loses to the parameter's own doc comment
/// * `limit` - How many results to return,
///   at most 50
/// - page: Which page of results
/// - sort: Loses to the attribute
///
/// # Examples
///
/// Call it with a query:
///
/// ```
/// search_catalogue("dune".into(), 10, 1, None, None);
/// ```
///
/// # Errors
///
/// Never fails.
#[tool]
fn search_catalogue(
    /// What to look for
    query: String,
    #[tool(default = 10)] limit: u32,
    #[tool(default = 1)] page: u32,
    /// Loses to the attribute too
    #[tool(description = "Sort order: \"title\" or \"year\"")]
    sort: Option<String>,
    undocumented: Option<bool>,
) -> String {
    format!("{query} {limit} {page} {sort:?} {undocumented:?}")
}

#[test]
fn parameter_description_precedence() {
    let spec = SearchCatalogueTool::SPEC;
    let described: Vec<(&str, &str)> = spec
        .params
        .iter()
        .map(|p| (p.name, p.description))
        .collect();
    assert_eq!(
        described,
        [
            ("query", "What to look for"),
            ("limit", "How many results to return, at most 50"),
            ("page", "Which page of results"),
            ("sort", "Sort order: \"title\" or \"year\""),
            ("undocumented", ""),
        ]
    );
    let properties = &spec.input_schema()["properties"];
    assert_eq!(
        properties["limit"]["description"],
        "How many results to return, at most 50"
    );
    assert_eq!(
        properties["sort"]["description"],
        "Sort order: \"title\" or \"year\""
    );
    // No description at all: no `description` keyword.
    assert_eq!(properties["undocumented"], json!({"type": "boolean"}));
}

#[test]
fn description_leaves_out_rust_only_sections_and_code() {
    let description = SearchCatalogueTool::SPEC.description;
    assert!(
        description.starts_with("Search the catalogue for books."),
        "{description}"
    );
    // Intra-doc links lose their brackets.
    assert!(
        description
            .ends_with("Matches titles and authors, ignoring case. See `Point` for nothing."),
        "{description}"
    );
    for left_out in [
        "```",
        "code_is_not_for_the_model",
        "# Arguments",
        "Loses to",
        "How many results",
        "# Examples",
        "Call it with a query",
        "# Errors",
        "Never fails",
    ] {
        assert!(
            !description.contains(left_out),
            "{left_out:?} in {description:?}"
        );
    }
    assert_eq!(
        search_catalogue("dune".into(), 1, 2, None, Some(true)),
        "dune 1 2 None Some(true)"
    );
}

#[test]
fn description_keeps_paragraph_breaks() {
    assert_eq!(
        SearchCatalogueTool::SPEC.description,
        "Search the catalogue for books.\n\n\
         Matches titles and authors, ignoring case. See `Point` for nothing."
    );
}

/// Summarises a text.
///
/// Keeps the first sentence of each paragraph.
///
/// # Limits
///
/// Texts over 10 kB are cut.
///
/// # Panics
///
/// Never.
#[tool]
fn summarise(
    /// The text to summarise
    text: String,
) -> String {
    text.split(". ").next().unwrap_or_default().to_owned()
}

#[test]
fn description_keeps_other_headings() {
    let description = SummariseTool::SPEC.description;
    let lines: Vec<&str> = description.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines,
        [
            "Summarises a text.",
            "Keeps the first sentence of each paragraph.",
            "# Limits",
            "Texts over 10 kB are cut.",
        ]
    );
    assert_eq!(summarise("A. B".into()), "A");
}

#[test]
fn description_keeps_blank_lines_around_headings() {
    assert_eq!(
        SummariseTool::SPEC.description,
        "Summarises a text.\n\nKeeps the first sentence of each paragraph.\n\n\
         # Limits\n\nTexts over 10 kB are cut."
    );
}

// ---------------------------------------------------------------------------
// Schemas of nested types
// ---------------------------------------------------------------------------

/// How a parcel travels.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Shipping {
    /// Three to five days.
    Standard,
    /// Next day.
    Express,
}

/// A postal address.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Address {
    /// Street and number.
    street: String,
    /// The city.
    city: String,
    /// The postcode, when known.
    #[serde(default)]
    postcode: Option<String>,
}

/// Ships a parcel.
#[tool]
fn ship_parcel(
    /// What the label says
    title: String,
    /// Where it goes
    to: Address,
    /// How fast
    shipping: Shipping,
    /// Other addresses to notify
    #[tool(default)]
    copies: Vec<Address>,
) -> String {
    format!(
        "{title} to {}, {} ({:?}, postcode {:?}) +{}",
        to.street,
        to.city,
        shipping,
        to.postcode,
        copies.len()
    )
}

#[tokio::test]
async fn nested_types_live_under_defs() {
    let schema = ShipParcelTool::SPEC.input_schema();
    assert_clean_input_schema(schema);
    assert_eq!(schema["required"], json!(["title", "to", "shipping"]));
    // A parameter named `title` is a property, not a stripped keyword.
    assert_eq!(
        schema["properties"]["title"],
        json!({"type": "string", "description": "What the label says"})
    );
    assert_eq!(schema["properties"]["to"]["$ref"], "#/$defs/Address");
    assert_eq!(schema["properties"]["to"]["description"], "Where it goes");
    assert_eq!(schema["properties"]["shipping"]["$ref"], "#/$defs/Shipping");
    assert_eq!(
        schema["properties"]["copies"]["items"]["$ref"],
        "#/$defs/Address"
    );
    // `Address` does not implement `Serialize`, so its default cannot be
    // shown; the parameter is still optional.
    assert!(schema["properties"]["copies"].get("default").is_none());
    assert!(!ShipParcelTool::SPEC.param("copies").unwrap().required);

    let address = &schema["$defs"]["Address"];
    assert_eq!(address["type"], "object");
    assert_eq!(address["required"], json!(["street", "city"]));
    assert_eq!(address["additionalProperties"], json!(false));
    assert_eq!(address["properties"]["city"]["description"], "The city.");
    // Inside a nested struct an `Option` field is rendered by schemars.
    assert!(address["properties"]["postcode"].is_object());

    let shipping = serde_json::to_string(&schema["$defs"]["Shipping"]).unwrap();
    assert!(
        shipping.contains("\"standard\"") && shipping.contains("\"express\""),
        "{shipping}"
    );

    let result = invoke(
        ShipParcelTool,
        json!({"title": "Books", "to": {"street": "1 Main St", "city": "Oslo"}, "shipping": "express"}),
    )
    .await;
    assert_eq!(
        text_of(&result),
        "Books to 1 Main St, Oslo (Express, postcode None) +0"
    );
}

#[test]
fn specs_list_params_in_declaration_order_without_injected_ones() {
    let spec = CtxByValueTool::SPEC;
    assert_eq!(spec.name, "ctx_by_value");
    assert_eq!(
        spec.description,
        "Reports the raw input, from an owned context."
    );
    assert_eq!(spec.params.len(), 1);
    let n = spec.param("n").expect("n");
    assert_eq!(
        (n.name, n.description, n.required, n.default),
        ("n", "", true, None)
    );
    assert!(spec.param("ctx").is_none());

    let spec = SyncAddTool::SPEC;
    let params: Vec<(&str, &str, bool)> = spec
        .params
        .iter()
        .map(|p| (p.name, p.description, p.required))
        .collect();
    assert_eq!(
        params,
        [
            ("a", "The first addend", true),
            ("b", "The second addend", true)
        ]
    );
    assert_eq!(
        spec.input_schema(),
        &json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first addend"},
                "b": {"type": "integer", "description": "The second addend"}
            },
            "required": ["a", "b"],
            "additionalProperties": false
        })
    );
    // The schema is built once and cached.
    assert!(std::ptr::eq(
        spec.input_schema(),
        SyncAddTool::SPEC.input_schema()
    ));
}
