//! Tools defined at run time (`DynamicTool`) and registries that change
//! while they serve (`LiveRegistry`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tool_runtime::providers::Provider;
use tool_runtime::{
    Registry, Tool, ToolContext, ToolError, ToolUse, dynamic::DynamicTool,
    dynamic::DynamicToolError, registry::Linked, registry::LiveRegistry, registry::RegistryProblem,
    spec::ArgErrorKind, spec::ToolErrorKind, tool,
};

fn order_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "item": {"type": "string", "description": "What to order"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
            "size": {"enum": ["small", "large"]},
            "address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                "required": ["city"],
                "additionalProperties": false
            },
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}
        },
        "required": ["item", "quantity"],
        "additionalProperties": false
    })
}

fn order_tool() -> DynamicTool {
    DynamicTool::builder("place_order", "Places an order.", order_schema())
        .handler(|args: Value, _ctx: &ToolContext| {
            Ok::<_, ToolError>(format!(
                "{} x {}",
                args["quantity"],
                args["item"].as_str().unwrap()
            ))
        })
        .build()
        .unwrap()
}

async fn invoke(registry: &Registry, input: Value) -> tool_runtime::ToolResult {
    let name = registry.names().next().unwrap().to_owned();
    registry
        .invoke(ToolUse::new("call-1", name, input), &ToolContext::new())
        .await
}

#[tokio::test]
async fn every_problem_with_the_arguments_is_named_before_the_closure_runs() {
    let registry = Registry::builder().tool(order_tool()).build().unwrap();
    let result = invoke(
        &registry,
        json!({
            "quantity": 11,
            "size": "huge",
            "address": {"zip": "12a45", "country": "NL"},
            "tags": ["a", 5, "c"],
            "itme": "tea"
        }),
    )
    .await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::InvalidArguments));
    let text = result.text_content();
    for expected in [
        "quantity: expected a number of at most 10, got 11",
        "size: expected one of \"small\", \"large\", got \"huge\"",
        "address.zip: expected text matching \"^[0-9]{5}$\", got \"12a45\"",
        "address.city: missing required field (a string)",
        "address.country: unknown field; expected one of \"city\", \"zip\"",
        "tags[1]: expected a string, got 5",
        "tags: expected at most 2 items, got [\"a\",5,\"c\"]",
        "itme: unknown field, did you mean \"item\"?",
    ] {
        assert!(text.contains(expected), "{expected:?} not in {text}");
    }
    // The misspelt field is reported once, as unknown, not also as missing.
    assert!(!text.contains("item: missing"), "{text}");
}

#[tokio::test]
async fn problems_are_structured_like_those_of_macro_tools() {
    let tool = order_tool();
    let problems = tool.check(&json!({"item": 5}));
    let kinds: Vec<(&str, ArgErrorKind)> = problems
        .iter()
        .map(|p| (p.field.as_str(), p.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("item", ArgErrorKind::WrongType),
            ("quantity", ArgErrorKind::Missing)
        ]
    );
    let not_object = tool.check(&json!([1, 2]));
    assert_eq!(not_object[0].kind, ArgErrorKind::NotAnObject);
    assert_eq!(
        not_object[0].message,
        "the arguments must be a JSON object, got [1,2]"
    );
}

#[tokio::test]
async fn valid_arguments_reach_the_sync_and_the_async_closure() {
    let counted = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&counted);
    let lookup = DynamicTool::builder(
        "lookup",
        "Looks a word up.",
        json!({"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}),
    )
    .async_handler(move |args: Value, ctx: ToolContext| {
        let seen = Arc::clone(&seen);
        async move {
            tokio::task::yield_now().await;
            seen.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ToolError>(json!({
                "word": args["word"],
                "tool": ctx.tool_name(),
                "id": ctx.tool_use_id(),
            }))
        }
    })
    .build()
    .unwrap();
    let registry = Registry::builder()
        .tool(order_tool())
        .tool(lookup)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let ordered = registry
        .invoke(
            ToolUse::new("1", "place_order", json!({"item": "tea", "quantity": 2})),
            &ctx,
        )
        .await;
    assert_eq!(ordered.text_content(), "2 x tea");
    let looked_up = registry
        .call_json("lookup", json!({"word": "tool"}), &ctx)
        .await
        .unwrap();
    assert_eq!(
        looked_up,
        json!({"word": "tool", "tool": "lookup", "id": ""})
    );
    let bad = registry
        .invoke(ToolUse::new("2", "lookup", json!({})), &ctx)
        .await;
    assert_eq!(
        bad.text_content(),
        "invalid arguments for lookup: word: missing required field (a string)"
    );
    assert_eq!(counted.load(Ordering::SeqCst), 1);
}

#[test]
fn a_tool_that_cannot_be_built_says_why() {
    let bad_schema = DynamicTool::builder(
        "broken",
        "Has a broken schema.",
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": "three"}}}),
    )
    .handler(|_, _| Ok::<_, ToolError>("never"))
    .build()
    .unwrap_err();
    assert!(
        matches!(
            &bad_schema,
            DynamicToolError::InvalidSchema { which: "input", .. }
        ),
        "{bad_schema:?}"
    );
    let message = bad_schema.to_string();
    assert!(
        message.starts_with("tool broken: invalid input schema: ") && message.contains("three"),
        "{message}"
    );

    let not_object = DynamicTool::builder("listy", "Takes a list.", json!({"type": "array"}))
        .handler(|_, _| Ok::<_, ToolError>("never"))
        .build()
        .unwrap_err();
    assert_eq!(
        not_object.to_string(),
        "tool listy: invalid input schema: an input schema must describe an object (\"type\": \"object\")"
    );

    let bad_output = DynamicTool::builder("out", "Bad output.", json!({"type": "object"}))
        .output_schema(json!({"type": 12}))
        .handler(|_, _| Ok::<_, ToolError>("never"))
        .build()
        .unwrap_err();
    assert!(matches!(
        bad_output,
        DynamicToolError::InvalidSchema {
            which: "output",
            ..
        }
    ));

    let bad_name = DynamicTool::builder("no spaces allowed", "x", json!({"type": "object"}))
        .handler(|_, _| Ok::<_, ToolError>("never"))
        .build()
        .unwrap_err();
    assert_eq!(
        bad_name.to_string(),
        "invalid tool name \"no spaces allowed\": a name is 1 to 64 letters, digits, `_` or `-`"
    );

    let no_handler = DynamicTool::builder("idle", "x", json!({"type": "object"}))
        .build()
        .unwrap_err();
    assert_eq!(
        no_handler,
        DynamicToolError::NoHandler {
            tool: "idle".into()
        }
    );
}

#[tokio::test]
async fn a_problem_two_keywords_find_alike_is_named_once() {
    let tool = DynamicTool::builder(
        "find_hotel",
        "Finds a hotel.",
        json!({
            "type": "object",
            "properties": {
                "smoking_allowed": {"type": "string", "enum": ["True", "False", "dontcare"]},
                "stars": {"type": "integer", "enum": [3, 4, 5]}
            },
            "required": ["smoking_allowed"]
        }),
    )
    .handler(|_, _| Ok::<_, ToolError>("found"))
    .build()
    .unwrap();
    let problems = tool.check(&json!({"smoking_allowed": false, "stars": "five"}));
    let read: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        read,
        [
            "smoking_allowed: expected one of \"True\", \"False\", \"dontcare\", got false",
            "stars: expected one of 3, 4, 5, got \"five\"",
        ]
    );
    let registry = Registry::builder().tool(tool).build().unwrap();
    let result = invoke(&registry, json!({"smoking_allowed": false})).await;
    assert_eq!(
        result.text_content(),
        "invalid arguments for find_hotel: smoking_allowed: expected one of \"True\", \"False\", \
         \"dontcare\", got false"
    );
}

/// A run-time tool with `schema` as its input schema.
fn built(schema: Value) -> Result<DynamicTool, DynamicToolError> {
    DynamicTool::builder("lists", "Lists things.", schema)
        .handler(|_, _| Ok::<_, ToolError>("listed"))
        .build()
}

#[test]
fn a_schema_no_value_can_satisfy_is_refused_naming_the_keyword_and_where() {
    let error = built(json!({
        "type": "object",
        "properties": {
            "sort": {"type": "array", "items": {"type": "string"}, "enum": ["asc", "desc"]},
            "count": {"type": "integer", "enum": ["one", "two"]},
            "page": {"type": "integer", "minimum": 10, "maximum": 1},
            "code": {"type": "string", "minLength": 5, "maxLength": 3}
        },
        "required": ["sort", "id"],
        "additionalProperties": false
    }))
    .unwrap_err();
    let DynamicToolError::Unsatisfiable {
        tool,
        which,
        problems,
        ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!((tool.as_str(), *which), ("lists", "input"));
    let found: Vec<(&str, &str)> = problems
        .iter()
        .map(|p| (p.pointer.as_str(), p.keyword))
        .collect();
    assert_eq!(
        found,
        [
            ("/required", "required"),
            ("/properties/sort/enum", "enum"),
            ("/properties/count/enum", "enum"),
            ("/properties/page/minimum", "minimum"),
            ("/properties/code/minLength", "minLength"),
        ]
    );
    let message = error.to_string();
    assert!(
        message.starts_with(
            "tool lists: no value can satisfy a part of its input schema: /required: \
             `required` names \"id\", which `properties` does not have and \
             `additionalProperties: false` forbids; /properties/sort/enum: `enum` lists no \
             value of a type `type` allows (\"array\"): \"asc\", \"desc\";"
        ),
        "{message}"
    );
    // The output schema too.
    let output = DynamicTool::builder("out", "Answers.", json!({"type": "object"}))
        .output_schema(json!({"type": "number", "const": "many"}))
        .handler(|_, _| Ok::<_, ToolError>("1"))
        .build()
        .unwrap_err();
    assert!(
        matches!(&output, DynamicToolError::Unsatisfiable { which: "output", problems, .. }
            if problems[0].pointer == "/const"),
        "{output:?}"
    );
    // What some value satisfies builds: an enum value of the type beside
    // one that is not, bounds on one type of two.
    let fine = built(json!({
        "type": "object",
        "properties": {
            "size": {"type": "string", "enum": ["small", "large", null]},
            "n": {"type": ["integer", "string"], "minimum": 5, "maximum": 1},
            "gone": {"not": {}}
        },
        "required": ["size"],
        "additionalProperties": false
    }));
    assert!(fine.is_ok(), "{fine:?}");
}

/// The same shape as `place_order`'s two required fields, as a macro tool.
#[tool]
fn order_macro(
    /// What to order
    item: String,
    quantity: u8,
) -> String {
    format!("{quantity} x {item}")
}

#[test]
fn every_provider_renders_a_run_time_tool() {
    let tool = DynamicTool::builder(
        "place_order",
        "Places an order.",
        json!({
            "type": "object",
            "properties": {"item": {"type": "string", "description": "What to order"}},
            "required": ["item"],
            "additionalProperties": false
        }),
    )
    .title("Order")
    .output_schema(json!({"type": "object", "properties": {"id": {"type": "string"}}}))
    .annotations(tool_runtime::spec::ToolAnnotations {
        read_only: Some(false),
        ..tool_runtime::spec::ToolAnnotations::NONE
    })
    .handler(|_, _| Ok::<_, ToolError>(json!({"id": "o-1"})))
    .build()
    .unwrap();
    let registry = Registry::builder().tool(tool).build().unwrap();
    for provider in Provider::ALL {
        let rendered = registry.render(provider).to_string();
        assert!(rendered.contains("place_order"), "{provider:?}: {rendered}");
        assert!(
            rendered.contains("What to order"),
            "{provider:?}: {rendered}"
        );
    }
    let mcp = &registry.render(Provider::Mcp)["tools"][0];
    assert_eq!(mcp["title"], "Order");
    assert_eq!(mcp["annotations"]["readOnlyHint"], false);
    assert_eq!(mcp["outputSchema"]["properties"]["id"]["type"], "string");
    let strict = &registry.render(Provider::OpenAiStrict)["tools"]
        .as_array()
        .map(|tools| tools[0].clone())
        .unwrap_or_else(|| registry.render(Provider::OpenAiStrict)[0].clone());
    assert_eq!(strict["function"]["strict"], true, "{strict}");
    // A macro tool of the same shape renders the same input schema.
    let from_macro = OrderMacroTool::SPEC.input_schema()["properties"]["item"].clone();
    assert_eq!(
        registry.get("place_order").unwrap().spec().input_schema()["properties"]["item"],
        from_macro
    );
}

#[tokio::test]
async fn strict_mode_takes_a_run_time_tool_or_says_why_not() {
    let free_map = DynamicTool::builder(
        "tag",
        "Tags things.",
        json!({
            "type": "object",
            "properties": {"labels": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}},
            "required": ["labels"]
        }),
    )
    .handler(|args, _| Ok::<_, ToolError>(args["labels"].clone()))
    .build()
    .unwrap();
    let refused = Registry::builder()
        .strict(true)
        .tool(free_map.clone())
        .build()
        .unwrap_err();
    assert!(
        refused
            .problems()
            .iter()
            .any(|p| matches!(p, RegistryProblem::NotStrict { name, .. } if name == "tag")),
        "{refused}"
    );
    // Marked strict itself, and in a registry that is not.
    let marked = DynamicTool::builder(
        "tag",
        "Tags things.",
        json!({
            "type": "object",
            "properties": {"labels": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}},
            "required": ["labels"]
        }),
    )
    .strict(true)
    .handler(|args, _| Ok::<_, ToolError>(args["labels"].clone()))
    .build()
    .unwrap();
    assert!(Registry::builder().tool(marked).build().is_err());

    // A schema strict mode can take runs with strict-form arguments.
    let optional = DynamicTool::builder(
        "greet",
        "Greets someone.",
        json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "title": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": false
        }),
    )
    .handler(|args, _| {
        Ok::<_, ToolError>(format!(
            "hello {}{}",
            args.get("title")
                .and_then(Value::as_str)
                .map(|t| format!("{t} "))
                .unwrap_or_default(),
            args["name"].as_str().unwrap()
        ))
    })
    .build()
    .unwrap();
    let registry = Registry::builder()
        .strict(true)
        .tool(optional)
        .build()
        .unwrap();
    let result = registry
        .invoke(
            ToolUse::new("1", "greet", json!({"name": "Ada", "title": null})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(result.text_content(), "hello Ada");
}

/// A `#[tool]` function, to mix with run-time tools.
#[tool]
fn ping() -> &'static str {
    "pong"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_registry_gains_and_loses_tools_while_calls_run() {
    let live = LiveRegistry::new(Registry::builder().tool(PingTool).build().unwrap());
    let mut changes = live.subscribe();
    let callers: Vec<_> = (0..4)
        .map(|caller| {
            let live = live.clone();
            tokio::spawn(async move {
                let ctx = ToolContext::new();
                let mut answered = 0;
                for i in 0..300 {
                    let (name, args) = if i % 2 == 0 {
                        ("ping", json!({}))
                    } else {
                        ("echo", json!({"text": format!("{caller}-{i}")}))
                    };
                    let result = live
                        .snapshot()
                        .invoke(ToolUse::new(i.to_string(), name, args), &ctx)
                        .await;
                    if name == "ping" {
                        assert_eq!(result.text_content(), "pong");
                    } else if result.is_error() {
                        // Between a removal and the next insertion.
                        assert_eq!(result.error_kind, Some(ToolErrorKind::UnknownTool));
                    } else {
                        assert_eq!(result.text_content(), format!("{caller}-{i}"));
                    }
                    answered += 1;
                    tokio::task::yield_now().await;
                }
                answered
            })
        })
        .collect();
    let echo = || {
        DynamicTool::builder(
            "echo",
            "Echoes a text.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        )
        .handler(|args, _| Ok::<_, ToolError>(args["text"].clone()))
        .build()
        .unwrap()
    };
    for _ in 0..200 {
        live.insert(echo()).unwrap();
        tokio::task::yield_now().await;
        assert!(live.remove("echo"));
    }
    live.insert(echo()).unwrap();
    let mut answered = 0;
    for caller in callers {
        answered += caller.await.expect("no caller panicked");
    }
    assert_eq!(answered, 4 * 300);
    assert_eq!(live.version(), 401);
    assert!(changes.has_changed().unwrap());
    assert_eq!(*changes.borrow_and_update(), 401);
    // A change that would make the registry invalid is refused whole.
    let clash = DynamicTool::builder("other", "Clashes.", json!({"type": "object"}))
        .alias("ping")
        .handler(|_, _| Ok::<_, ToolError>("x"))
        .build()
        .unwrap();
    assert!(live.insert(clash).is_err());
    assert_eq!(live.version(), 401);
    assert_eq!(
        live.snapshot().names().collect::<Vec<_>>(),
        ["echo", "ping"]
    );
    assert!(!live.remove("nothing"));
}

#[tokio::test]
async fn a_snapshot_keeps_its_tools_after_they_change() {
    let live = LiveRegistry::new(Registry::builder().tool(PingTool).build().unwrap());
    let before = live.snapshot();
    assert!(live.remove("ping"));
    assert!(live.snapshot().is_empty());
    let result = before
        .invoke(ToolUse::new("1", "ping", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "pong");
    assert!(PingTool.spec().input_schema().is_object());
}

/// The tools of a catalogue, as a program reads them: every one made by
/// the same line of code.
fn catalogue(names: &[&str]) -> Vec<DynamicTool> {
    names
        .iter()
        .map(|name| {
            DynamicTool::builder(name.to_string(), "From the catalogue.", order_schema())
                .handler(|_, _| Ok::<_, ToolError>("ok"))
                .build()
                .unwrap()
        })
        .collect()
}

#[test]
fn two_run_time_tools_of_one_name_are_an_error_though_made_at_one_line() {
    let tools = catalogue(&["lookup", "refund", "lookup"]);
    let made_at = tools[0].spec().location;
    assert_eq!(tools[2].spec().location, made_at);
    let mut builder = Registry::builder();
    for tool in tools {
        builder = builder.tool(tool);
    }
    let error = builder.build().unwrap_err();
    assert_eq!(
        error.problems(),
        [RegistryProblem::DuplicateName {
            name: "lookup".into(),
            first: made_at,
            second: made_at,
        }]
    );
    assert_eq!(
        error.to_string(),
        format!(
            "two run-time tools are named \"lookup\", both made at {}:{}; \
             a registry holds one tool of each name: rename one of them, or leave one out",
            made_at.file, made_at.line
        )
    );
}

#[test]
fn a_run_time_tool_named_like_a_macro_tool_is_an_error_naming_both() {
    let pong = DynamicTool::builder("ping", "Another ping.", json!({"type": "object"}))
        .handler(|_, _| Ok::<_, ToolError>("pong"))
        .build()
        .unwrap();
    let made_at = pong.spec().location;
    let error = Registry::builder()
        .tool(PingTool)
        .tool(pong)
        .build()
        .unwrap_err();
    let defined = PingTool::SPEC.location;
    // Sorted by file and line: this file's `ping` comes first.
    assert!(defined.line < made_at.line);
    assert_eq!(
        error.to_string(),
        format!(
            "two tools are named \"ping\": one defined in dynamic ({}:{}), one made at {}:{}; \
             a registry holds one tool of each name: rename one of them, or leave one out",
            defined.file, defined.line, made_at.file, made_at.line
        )
    );
}

#[test]
fn one_run_time_tool_added_twice_is_one_tool() {
    let shared: Arc<dyn Tool> = Arc::new(order_tool());
    let registry = Registry::builder()
        .shared(Arc::clone(&shared))
        .shared(shared)
        .build()
        .unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["place_order"]);
    // Offered by name from another registry and named twice: still one.
    let registry = Registry::builder()
        .catalog(&registry)
        .linked(Linked::named(["place_order", "place_order"]))
        .build()
        .unwrap();
    assert_eq!(registry.len(), 1);
    // Two tools of one name are refused by a live registry's change too.
    let live = LiveRegistry::new(Registry::builder().build().unwrap());
    let error = live
        .update(
            catalogue(&["lookup", "lookup"])
                .into_iter()
                .map(|tool| Arc::new(tool) as Arc<dyn Tool>),
            &[],
        )
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("two run-time tools are named \"lookup\""),
        "{error}"
    );
}

#[test]
fn gemini_orders_a_run_time_tools_properties_as_its_schema_does() {
    let registry = Registry::builder().tool(order_tool()).build().unwrap();
    let declaration = &registry.render(Provider::Gemini)["functionDeclarations"][0];
    let parameters = &declaration["parameters"];
    let order = ["item", "quantity", "size", "address", "tags"];
    assert_eq!(
        parameters["propertyOrdering"],
        json!(order),
        "{declaration}"
    );
    let keys: Vec<&str> = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, order);
    // A nested object keeps its properties in the schema's order too.
    let nested: Vec<&str> = parameters["properties"]["address"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(nested, ["city", "zip"]);
    // A `#[tool]` keeps its declaration order.
    let macro_tool = tool_runtime::providers::render_tool(Provider::Gemini, &OrderMacroTool::SPEC);
    assert_eq!(
        macro_tool["parameters"]["propertyOrdering"],
        json!(["item", "quantity"])
    );
}
