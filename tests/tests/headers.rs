//! Header parameters (MCP's `x-mcp-header`, revision 2026-07-28): declared
//! with `#[tool(header)]` or in a `DynamicTool`'s schema, listed over MCP,
//! left out where a provider would refuse them, and checked against a
//! call's `Mcp-Param-*` headers. The rules and the check themselves are
//! tested with `tool_mcp::headers`, in tool-mcp's `tests/headers.rs`.

use serde_json::{Value, json};
use tool_mcp::headers::{check_headers, header_params};
use tool_mcp::server::McpServer;
use tool_runtime::providers::Provider;
use tool_runtime::{
    Registry, ToolContext, ToolError, ToolUse, dynamic::DynamicTool, tool, toolset,
};

/// Runs a SQL query in a region.
#[tool]
fn execute_sql(
    /// The region to run the query in
    #[tool(header = "Region")]
    region: String,
    /// The query
    query: String,
    /// The tenant, for routing
    #[tool(header, rename = "tenant_id")]
    tenant: Option<u64>,
    /// Whether to only plan the query
    #[tool(header, default)]
    dry_run: bool,
) -> String {
    format!("{query} in {region} for {tenant:?} (dry run: {dry_run})")
}

/// A strict tool may have header parameters too.
#[tool(strict)]
fn strict_lookup(#[tool(header)] region: String, limit: Option<u32>) -> String {
    format!("{limit:?} in {region}")
}

struct Shards;

#[toolset]
impl Shards {
    /// Reads a shard.
    #[tool]
    fn read_shard(&self, #[tool(header = "Shard")] shard: u32, ctx: &ToolContext) -> String {
        let _ = ctx;
        format!("shard {shard}")
    }
}

/// Headers as a client sent them, looked up ignoring case.
fn sent<'a>(headers: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> {
    move |name| {
        headers
            .iter()
            .find(|(sent, _)| sent.eq_ignore_ascii_case(name))
            .map(|(_, value)| *value)
    }
}

#[test]
fn the_attribute_marks_properties_of_the_input_schema() {
    let spec = ExecuteSqlTool::SPEC;
    let headers: Vec<Option<&str>> = spec.params.iter().map(|param| param.header).collect();
    assert_eq!(
        headers,
        [Some("Region"), None, Some("Tenant-Id"), Some("Dry-Run")]
    );
    let schema = spec.input_schema();
    assert_eq!(
        schema["properties"]["region"],
        json!({"type": "string", "description": "The region to run the query in", "x-mcp-header": "Region"})
    );
    assert!(schema["properties"]["query"].get("x-mcp-header").is_none());
    assert_eq!(
        schema["properties"]["tenant_id"]["x-mcp-header"],
        "Tenant-Id"
    );
    assert_eq!(schema["properties"]["tenant_id"]["type"], "integer");
    assert_eq!(schema["properties"]["dry_run"]["x-mcp-header"], "Dry-Run");
    assert_eq!(schema["required"], json!(["region", "query"]));
    // What MCP asks of the declarations holds.
    let declared = header_params(schema).unwrap();
    let names: Vec<&str> = declared.iter().map(|param| param.name.as_str()).collect();
    assert_eq!(names, ["Region", "Tenant-Id", "Dry-Run"]);

    let shard = ShardsReadShardTool::SPEC.input_schema();
    assert_eq!(shard["properties"]["shard"]["x-mcp-header"], "Shard");
    assert!(shard["properties"].get("ctx").is_none());
}

#[test]
fn the_mcp_listing_keeps_the_keyword_and_providers_that_refuse_it_lose_it() {
    let registry = Registry::builder()
        .tool(ExecuteSqlTool)
        .tool(StrictLookupTool)
        .toolset(std::sync::Arc::new(Shards))
        .build()
        .unwrap();
    let server = McpServer::new(registry.clone());
    let listed = server.tools();
    let listed = listed
        .iter()
        .find(|tool| tool["name"] == "execute_sql")
        .unwrap();
    assert_eq!(
        listed["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    assert_eq!(
        registry.render(Provider::Mcp)["tools"][0]["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    for provider in Provider::ALL {
        let rendered = registry.render(provider).to_string();
        let kept = rendered.contains("x-mcp-header");
        match provider {
            // JSON Schema as it is: an unknown keyword is an annotation to
            // these, as in the schemas MCP servers hand them.
            Provider::Mcp
            | Provider::OpenAiChat
            | Provider::OpenAiResponses
            | Provider::Anthropic
            | Provider::Bedrock => assert!(kept, "{provider}: {rendered}"),
            // Gemini's schema subset refuses unknown fields ("Unknown
            // name"), strict mode takes listed keywords only; the XML
            // prompt shows Gemini's subset.
            Provider::OpenAiStrict | Provider::Gemini | Provider::Xml => {
                assert!(!kept, "{provider}: {rendered}")
            }
            _ => {}
        }
    }
    // The strict tool stays strict: the keyword is dropped, not a violation.
    let strict =
        tool_runtime::schema::strict::strict_input_schema(&StrictLookupTool::SPEC).unwrap();
    assert!(tool_runtime::schema::strict::is_strict(&strict));
    let chat = registry.render(Provider::OpenAiChat).to_string();
    assert!(chat.contains(r#""strict":true"#), "{chat}");
}

#[tokio::test]
async fn a_run_time_tool_declares_header_parameters_in_its_schema() {
    let tool = DynamicTool::builder(
        "route",
        "Routes a request.",
        json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "target": {"type": "object", "properties": {
                    "tenant": {"type": "integer", "x-mcp-header": "Tenant"}
                }}
            },
            "required": ["region"]
        }),
    )
    .handler(|args: Value, _: &ToolContext| Ok::<_, ToolError>(args["region"].to_string()))
    .build()
    .unwrap();
    let registry = Registry::builder().tool(tool).build().unwrap();
    let listed = &registry.render(Provider::Mcp)["tools"][0]["inputSchema"];
    assert_eq!(listed["properties"]["region"]["x-mcp-header"], "Region");
    let gemini = registry.render(Provider::Gemini).to_string();
    assert!(!gemini.contains("x-mcp-header"), "{gemini}");

    let spec = registry.get("route").unwrap().spec().clone();
    let arguments = json!({"region": "eu", "target": {"tenant": 7}});
    let ok = [("Mcp-Param-Region", "eu"), ("Mcp-Param-Tenant", "7")];
    assert!(check_headers(&spec, &arguments, sent(&ok)).is_ok());
    let error = check_headers(&spec, &arguments, sent(&ok[..1])).unwrap_err();
    assert_eq!(error.parameter, "target.tenant");

    // The keyword changes nothing in a call.
    let result = registry
        .invoke(ToolUse::new("1", "route", arguments), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "\"eu\"");
}

#[test]
fn a_run_time_tool_keeps_its_declarations_as_data() {
    // The core judges no declaration: MCP's rules are the MCP server's to
    // check (tool-mcp's `tests/headers.rs`), and the keyword is an
    // annotation to the other providers.
    let tool = DynamicTool::builder(
        "route",
        "Routes.",
        json!({"type": "object", "properties": {
            "ratio": {"type": "number", "x-mcp-header": "Ratio"}
        }}),
    )
    .handler(|_, _| Ok::<_, ToolError>("routed"))
    .build()
    .unwrap();
    let registry = Registry::builder().tool(tool).build().unwrap();
    let rendered = registry.render(Provider::OpenAiChat).to_string();
    assert!(rendered.contains(r#""x-mcp-header":"Ratio""#), "{rendered}");
    assert!(McpServer::new(registry).tools().is_empty());
}
