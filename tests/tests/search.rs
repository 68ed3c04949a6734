//! Tool search and deferred loading: `search_tools` over a thousand
//! generated tools (`bench::catalog`) finds the tool each query of
//! `fixtures/tool-search/queries.json` means among its first three, and a
//! registry that defers tools renders them as each provider documents.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::providers::{Offer, Provider, render_offered_tools};
use tool_runtime::search::{SearchTool, ToolIndex, found_names};
use tool_runtime::{
    Registry, ToolContext, ToolSpec, ToolUse, dynamic::DynamicTool, spec::ToolErrorKind,
};

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/tool-search")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[derive(Deserialize)]
struct Query {
    query: String,
    expect: String,
}

fn queries() -> Vec<Query> {
    serde_json::from_value(fixture("queries.json")).expect("queries.json: [{query, expect}]")
}

/// The tools always offered in the large registry: a handful any agent
/// would keep at hand.
const ALWAYS: &[&str] = &[
    "weather_get_forecast",
    "calendar_schedule_meeting",
    "gmail_send_message",
];

#[tokio::test]
async fn search_tools_puts_the_meant_tool_in_the_top_three_of_a_thousand() {
    let registry = bench::catalog::registry(ALWAYS);
    assert_eq!(registry.len(), bench::catalog::COUNT + 1);
    let queries = queries();
    assert!(queries.len() >= 30, "only {} queries", queries.len());
    let ctx = ToolContext::new();
    let mut misses = Vec::new();
    for (i, Query { query, expect }) in queries.iter().enumerate() {
        assert!(registry.contains(expect), "no tool is named {expect}");
        let call = ToolUse::new(
            format!("q{i}"),
            "search_tools",
            json!({"query": query, "limit": 3}),
        );
        let result = registry.invoke(call, &ctx).await;
        assert!(!result.is_error(), "{query}: {}", result.text_content());
        let found = found_names(&result);
        assert!(found.len() <= 3);
        if !found.contains(expect) {
            misses.push(format!("{query:?}: expected {expect}, found {found:?}"));
        }
    }
    assert!(misses.is_empty(), "missed:\n{}", misses.join("\n"));
}

#[tokio::test]
async fn definitions_come_in_the_mcp_shape_and_a_found_tool_runs() {
    let registry = bench::catalog::registry(ALWAYS);
    let ctx = ToolContext::new();
    let call = ToolUse::new(
        "1",
        "search_tools",
        json!({"query": "refund a card payment", "limit": 1, "include_definitions": true}),
    );
    let result = registry.invoke(call, &ctx).await;
    let output: Value = serde_json::from_str(&result.text_content()).unwrap();
    let tool = &output["tools"][0];
    assert_eq!(tool["name"], "stripe_refund_payment");
    let spec = registry.get("stripe_refund_payment").unwrap().spec();
    assert_eq!(*tool, tool_runtime::providers::mcp::tool(spec));
    assert_eq!(tool["inputSchema"]["required"], json!(["payment_id"]));

    // Deferred, yet callable by name.
    assert!(registry.is_deferred("stripe_refund_payment"));
    let call = ToolUse::new("2", "stripe_refund_payment", json!({"payment_id": "pay_1"}));
    let result = registry.invoke(call, &ctx).await;
    assert!(!result.is_error(), "{}", result.text_content());
}

#[tokio::test]
async fn bad_search_arguments_are_errors_naming_the_field() {
    let registry = bench::catalog::registry(ALWAYS);
    let ctx = ToolContext::new();
    let call = ToolUse::new("1", "search_tools", json!({"query": "sms", "limt": 3}));
    let result = registry.invoke(call, &ctx).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::InvalidArguments));
    assert_eq!(
        result.text_content(),
        r#"invalid arguments for search_tools: limt: unknown field, did you mean "limit"?"#
    );
    let call = ToolUse::new("2", "search_tools", json!({"query": ["sms"], "limit": 500}));
    let result = registry.invoke(call, &ctx).await;
    assert_eq!(
        result.text_content(),
        r#"invalid arguments for search_tools: query: expected a string, got ["sms"]; limit: expected an integer from 1 to 50, got 500"#
    );
}

#[test]
fn only_the_always_offered_tools_and_search_tools_reach_providers_without_tool_search() {
    let registry = bench::catalog::registry(ALWAYS);
    let mut expected: Vec<&str> = ALWAYS.to_vec();
    expected.push("search_tools");
    expected.sort_unstable();
    let names = |tools: &Value, pointer: &str| -> Vec<String> {
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool.pointer(pointer).unwrap().as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(registry.render(Provider::OpenAiChat), "/function/name"),
        expected
    );
    assert_eq!(
        names(registry.render(Provider::OpenAiStrict), "/function/name"),
        expected
    );
    assert_eq!(
        names(
            &registry.render(Provider::Bedrock)["tools"],
            "/toolSpec/name"
        ),
        expected
    );
    assert_eq!(
        names(
            &registry.render(Provider::Gemini)["functionDeclarations"],
            "/name"
        ),
        expected
    );
    assert_eq!(
        names(&registry.render(Provider::Mcp)["tools"], "/name"),
        expected
    );
    let xml = registry.render_xml();
    assert!(xml.contains("search_tools") && !xml.contains("stripe_refund_payment"));
    let offered: Vec<&str> = registry.offered_specs().map(|s| &*s.name).collect();
    assert_eq!(offered, expected);

    // Tools a search found join the next request.
    let loaded = registry.render_loaded(Provider::OpenAiChat, ["stripe_refund_payment", "nope"]);
    let mut with_found = expected.clone();
    with_found.push("stripe_refund_payment");
    with_found.sort_unstable();
    assert_eq!(names(&loaded, "/function/name"), with_found);
}

#[test]
fn providers_with_tool_search_get_every_tool_with_deferred_ones_flagged() {
    let registry = bench::catalog::registry(ALWAYS);
    let anthropic = registry.render(Provider::Anthropic).as_array().unwrap();
    assert_eq!(anthropic.len(), bench::catalog::COUNT + 1);
    assert_eq!(
        anthropic[0],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    for tool in &anthropic[1..] {
        let name = tool["name"].as_str().unwrap();
        assert_ne!(name, "search_tools");
        assert_eq!(
            tool.get("defer_loading").is_some(),
            !ALWAYS.contains(&name),
            "{name}"
        );
    }
    let responses = registry
        .render(Provider::OpenAiResponses)
        .as_array()
        .unwrap();
    assert_eq!(responses[0], json!({"type": "tool_search"}));
    let deferred = responses
        .iter()
        .filter(|t| t["defer_loading"] == true)
        .count();
    assert_eq!(deferred, bench::catalog::COUNT - ALWAYS.len());
    // For these providers, the search finds what it loads.
    assert_eq!(
        registry.render_loaded(Provider::Anthropic, ["x"]),
        *registry.render(Provider::Anthropic)
    );
}

/// The registry of the provider fixtures: `get_time` offered, `get_weather`
/// deferred.
fn small_registry() -> Registry {
    let fixture = fixture("anthropic-request.json");
    let mut builder = Registry::builder();
    for tool in fixture["tools"].as_array().unwrap().iter().skip(1) {
        let name = tool["name"].as_str().unwrap().to_owned();
        let description = tool["description"].as_str().unwrap().to_owned();
        let dynamic = DynamicTool::builder(name, description, tool["input_schema"].clone())
            .handler(|_, _| Ok("ok"))
            .build()
            .unwrap();
        builder = builder.tool(dynamic);
    }
    builder.defer(["get_w*"]).build().unwrap()
}

#[test]
fn anthropic_rendering_matches_the_documented_request() {
    let registry = small_registry();
    let request = fixture("anthropic-request.json");
    assert_eq!(*registry.render(Provider::Anthropic), request["tools"]);
    assert_eq!(
        tool_runtime::providers::anthropic::TOOL_SEARCH_BETA,
        "advanced-tool-use-2025-11-20"
    );
}

#[test]
fn responses_rendering_matches_the_documented_request() {
    let registry = small_registry();
    let request = fixture("responses-request.json");
    assert_eq!(
        *registry.render(Provider::OpenAiResponses),
        request["tools"]
    );
}

#[test]
fn a_registry_without_deferral_renders_as_before() {
    let plain = small_registry_without(|builder| builder);
    let searchable = small_registry_without(|builder| builder.tool_search(true));
    assert!(plain.search_tool().is_none());
    assert!(!plain.is_deferred("get_weather"));
    let names = |registry: &Registry| -> Vec<String> {
        registry
            .render(Provider::Anthropic)
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&plain), ["get_time", "get_weather"]);
    // Searchable but nothing deferred: search_tools is an ordinary tool.
    assert_eq!(
        names(&searchable),
        ["get_time", "get_weather", "search_tools"]
    );
    assert_eq!(searchable.search_tool().unwrap().index().len(), 2);
}

fn small_registry_without(
    configure: impl FnOnce(tool_runtime::RegistryBuilder) -> tool_runtime::RegistryBuilder,
) -> Registry {
    let mut builder = Registry::builder();
    for name in ["get_time", "get_weather"] {
        let schema = json!({
            "type": "object",
            "properties": {"place": {"type": "string"}},
            "required": ["place"],
            "additionalProperties": false
        });
        let tool = DynamicTool::builder(name, format!("The {name} tool."), schema)
            .handler(|_, _| Ok("ok"))
            .build()
            .unwrap();
        builder = builder.tool(tool);
    }
    configure(builder).build().unwrap()
}

#[test]
fn a_tool_named_search_tools_collides_with_the_search() {
    let tool = DynamicTool::builder("search_tools", "Mine.", json!({"type": "object"}))
        .handler(|_, _| Ok("ok"))
        .build()
        .unwrap();
    let error = Registry::builder()
        .tool(tool)
        .tool_search(true)
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("search_tools"), "{error}");
}

#[test]
fn the_search_tool_is_strict_ready() {
    let registry = small_registry_without(|builder| builder.strict(true).defer(["get_weather"]));
    let rendered = registry.render(Provider::OpenAiChat);
    let search = rendered
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "search_tools")
        .unwrap();
    assert_eq!(search["function"]["strict"], true);
}

#[test]
fn an_index_and_a_search_tool_can_be_made_from_any_specs() {
    let specs = [
        ToolSpec::new("lookup_order", "Looks an order up by number.", json!({})),
        ToolSpec::new("refund_order", "Refunds an order.", json!({})),
    ];
    let index = ToolIndex::new(&specs);
    let hits = index.search("refund", 5);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].name, "refund_order");
    let tool = SearchTool::new(&specs);
    assert_eq!(
        tool.search("order", 1, false)["tools"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let rendered = render_offered_tools(
        Provider::OpenAiChat,
        [(&specs[0], Offer::Always), (&specs[1], Offer::Deferred)],
    );
    assert_eq!(rendered.as_array().unwrap().len(), 1);
}

#[test]
fn a_live_registry_searches_the_tools_it_has_now() {
    let live = tool_runtime::registry::LiveRegistry::new(small_registry());
    let refund = DynamicTool::builder(
        "refund_payment",
        "Refunds a card payment.",
        json!({"type": "object"}),
    )
    .handler(|_, _| Ok("ok"))
    .build()
    .unwrap();
    live.insert(refund).unwrap();
    let now = live.snapshot();
    let search = now.search_tool().expect("still searchable");
    assert_eq!(search.index().len(), 3);
    assert_eq!(search.index().search("refund", 1)[0].name, "refund_payment");
    assert!(now.is_deferred("get_weather") && !now.is_deferred("get_time"));
    assert!(live.remove("get_weather"));
    let now = live.snapshot();
    let search = now.search_tool().unwrap();
    assert!(search.index().search("weather", 5).is_empty());
}

#[test]
fn token_reports_count_only_the_definitions_a_deferring_registry_offers() {
    use tool_tokens as tokens;

    let registry = bench::catalog::registry(ALWAYS);
    let mut offered: Vec<&str> = ALWAYS.to_vec();
    offered.push("search_tools");
    offered.sort_unstable();
    let mut every_tool = 0;
    for provider in Provider::ALL {
        let report = tokens::report(&registry, provider);
        let names: Vec<&str> = report.tools.iter().map(|(name, _)| name.as_str()).collect();
        let expected: Vec<&str> = match provider {
            Provider::Anthropic => std::iter::once("tool_search_tool_bm25")
                .chain(ALWAYS.iter().copied())
                .collect(),
            Provider::OpenAiResponses => std::iter::once("tool_search")
                .chain(ALWAYS.iter().copied())
                .collect(),
            _ => offered.clone(),
        };
        let mut expected = expected;
        expected[usize::from(provider.has_tool_search())..].sort_unstable();
        assert_eq!(names, expected, "{provider}");
        // Each count is that of the tool's own definition.
        for (name, count) in &report.tools {
            let Some(tool) = registry.get(name) else {
                continue;
            };
            let definition = tool_runtime::providers::render_tool(provider, tool.spec());
            let text = match definition {
                Value::String(text) => text,
                other => other.to_string(),
            };
            assert_eq!(*count, tokens::count(&text), "{provider}: {name}");
        }
        // The whole is about the sum of its parts (tokens may merge or
        // split where two definitions meet).
        let sum: usize = report.tools.iter().map(|(_, count)| count).sum();
        assert!(
            report.total.abs_diff(sum) < 40,
            "{provider}: {} against {sum}",
            report.total
        );
        assert!(report.total < 3_000, "{provider}: {}", report.total);
        assert!(tokens::check_budget(&registry, provider, 3_000).is_ok());
        let over = tokens::check_budget(&registry, provider, 10).unwrap_err();
        assert!(
            over.to_string().starts_with("the 4 tool definitions take "),
            "{over}"
        );
        every_tool = every_tool.max(tokens::count(&registry.render(provider).to_string()));
    }
    // What deferring saves: the request with every definition is far larger.
    assert!(every_tool > 30_000, "{every_tool}");
}
