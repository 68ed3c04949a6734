//! Argument constraints: `range`, `length`, `pattern`, `one_of`, `validate`.

use serde_json::json;
use tool_runtime::{Registry, Tool, ToolContext, ToolUse, spec::ArgErrorKind, tool};

fn even(n: &u32) -> Result<(), String> {
    if n.is_multiple_of(2) {
        Ok(())
    } else {
        Err(format!("must be even, got {n}"))
    }
}

/// Books a table.
#[tool]
fn book_table(
    /// Guests, 1 to 12
    #[tool(range(min = 1, max = 12))]
    guests: u32,
    /// The name for the booking
    #[tool(length(2, 40), pattern = "^[A-Za-z ]+$")]
    name: String,
    /// Where to sit
    #[tool(one_of = ["inside", "terrace"])]
    area: Option<String>,
    /// Tags for the booking
    #[tool(length(max = 3))]
    #[tool(default)]
    tags: Vec<String>,
    /// Table size, an even number
    #[tool(validate = even, default = 2)]
    table: u32,
) -> String {
    format!("{guests} for {name} ({area:?}, {tags:?}, table {table})")
}

#[test]
fn constraints_appear_in_the_schema() {
    let schema = BookTableTool::SPEC.input_schema();
    let p = &schema["properties"];
    assert_eq!(p["guests"]["minimum"], 1);
    assert_eq!(p["guests"]["maximum"], 12);
    assert_eq!(p["name"]["minLength"], 2);
    assert_eq!(p["name"]["maxLength"], 40);
    assert_eq!(p["name"]["pattern"], "^[A-Za-z ]+$");
    assert_eq!(p["area"]["enum"], json!(["inside", "terrace"]));
    assert_eq!(p["tags"]["maxItems"], 3);
    assert!(p["tags"].get("maxLength").is_none());
}

#[tokio::test]
async fn valid_values_pass() {
    let value = BookTableTool
        .call_json(
            &json!({"guests": 4, "name": "Ada Lovelace", "area": "terrace"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        value,
        json!("4 for Ada Lovelace (Some(\"terrace\"), [], table 2)")
    );
}

#[tokio::test]
async fn every_violation_is_reported_with_type_errors() {
    let error = BookTableTool
        .call_json(
            &json!({
                "guests": 40,
                "name": "X1",
                "area": "roof",
                "tags": ["a", "b", "c", "d"],
                "table": 3,
                "extra": true
            }),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        "invalid arguments for book_table: guests: must be from 1 to 12, got 40; \
         name: must match the pattern \"^[A-Za-z ]+$\", got \"X1\"; \
         area: expected one of \"inside\", \"terrace\", got \"roof\"; \
         tags: must have at most 3 items, got 4; \
         table: must be even, got 3; \
         extra: unknown field; expected one of \"guests\", \"name\", \"area\", \"tags\", \"table\""
    );
    assert!(
        error
            .argument_errors()
            .iter()
            .filter(|e| e.field != "extra")
            .all(|e| e.kind == ArgErrorKind::InvalidValue)
    );
}

#[tokio::test]
async fn constraint_errors_on_the_fast_path_too() {
    // Types are all right, so the arguments decode; the bounds still hold.
    let registry = Registry::builder().tool(BookTableTool).build().unwrap();
    let result = registry
        .invoke(
            ToolUse::new("1", "book_table", json!({"guests": 0, "name": "Bo"})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "invalid arguments for book_table: guests: must be from 1 to 12, got 0"
    );
}

#[tokio::test]
async fn constraints_hold_for_text_arguments() {
    let ctx = ToolContext::new();
    let output = BookTableTool
        .call_str(
            r#"{"guests": 4, "name": "Ada Lovelace", "area": "terrace"}"#,
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(
        output.into_value().unwrap(),
        json!("4 for Ada Lovelace (Some(\"terrace\"), [], table 2)")
    );
    let error = BookTableTool
        .call_str(r#"{"guests": 0, "name": "Bo", "table": 3}"#, &ctx)
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        "invalid arguments for book_table: guests: must be from 1 to 12, got 0; \
         table: must be even, got 3"
    );
    let error = BookTableTool.call_str("{", &ctx).await.unwrap_err();
    assert_eq!(error.argument_errors()[0].kind, ArgErrorKind::NotJson);
}

#[tokio::test]
async fn null_optional_values_skip_their_constraints() {
    let value = BookTableTool
        .call_json(
            &json!({"guests": 2, "name": "Bo", "area": null}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(value, json!("2 for Bo (None, [], table 2)"));
}
