//! Header parameters (MCP's `x-mcp-header`, revision 2026-07-28): declared
//! with `#[tool(header)]` or in a `DynamicTool`'s schema, listed over MCP,
//! left out where a provider would refuse them, and checked against a
//! call's `Mcp-Param-*` headers.

use serde_json::{Value, json};
use tool_mcp::server::McpServer;
use tool_runtime::providers::Provider;
use tool_runtime::providers::mcp::headers::{self, MismatchKind, check_headers};
use tool_runtime::{DynamicTool, Registry, ToolContext, ToolError, ToolUse, tool, toolset};

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
    let declared = tool_runtime::schema::headers::header_params(schema).unwrap();
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
    let strict = tool_runtime::strict::strict_input_schema(&StrictLookupTool::SPEC).unwrap();
    assert!(tool_runtime::strict::is_strict(&strict));
    let chat = registry.render(Provider::OpenAiChat).to_string();
    assert!(chat.contains(r#""strict":true"#), "{chat}");
}

#[test]
fn a_calls_headers_are_checked_against_its_arguments() {
    let spec = &ExecuteSqlTool::SPEC;
    let arguments = json!({"region": "us-west1", "query": "SELECT 1", "tenant_id": 42});
    let ok = [
        ("Mcp-Param-Region", "us-west1"),
        ("mcp-param-tenant-id", "42"),
    ];
    assert!(check_headers(spec, &arguments, sent(&ok)).is_ok());
    // `dry_run` absent, so its header is neither expected nor looked at.
    let extra = [
        ("Mcp-Param-Region", "us-west1"),
        ("Mcp-Param-Tenant-Id", "42.0"),
        ("Mcp-Param-Dry-Run", "maybe"),
    ];
    assert!(check_headers(spec, &arguments, sent(&extra)).is_ok());

    let wrong = [("Mcp-Param-Region", "eu"), ("Mcp-Param-Tenant-Id", "42")];
    let error = check_headers(spec, &arguments, sent(&wrong)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Header mismatch: Mcp-Param-Region header value \"eu\" does not match region = \
         \"us-west1\" in the arguments"
    );
    assert_eq!(error.header, "Mcp-Param-Region");
    assert_eq!(error.parameter, "region");
    assert!(matches!(error.kind, MismatchKind::Differs { .. }));
    assert_eq!(error.json_rpc_error()["code"], -32020);
    assert_eq!(headers::HTTP_STATUS, 400);

    let missing = [("Mcp-Param-Region", "us-west1")];
    let error = check_headers(spec, &arguments, sent(&missing)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Header mismatch: the Mcp-Param-Tenant-Id header is missing, but the arguments give \
         tenant_id = 42"
    );

    let non_ascii = json!({"region": "Zürich", "query": "q", "dry_run": true});
    let encoded = headers::encode_value("Zürich");
    let both = [
        ("Mcp-Param-Region", encoded.as_ref()),
        ("Mcp-Param-Dry-Run", "true"),
    ];
    assert!(check_headers(spec, &non_ascii, sent(&both)).is_ok());

    // A toolset method's header parameter is checked alike.
    let shard = &ShardsReadShardTool::SPEC;
    assert!(
        check_headers(
            shard,
            &json!({"shard": 3}),
            sent(&[("Mcp-Param-Shard", "3")])
        )
        .is_ok()
    );
    assert!(check_headers(shard, &json!({"shard": 3}), sent(&[])).is_err());
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
fn a_run_time_tool_whose_declarations_break_the_rules_is_refused() {
    let build = |schema: Value| {
        DynamicTool::builder("route", "Routes.", schema)
            .handler(|_, _| Ok::<_, ToolError>("never"))
            .build()
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        build(json!({"type": "object", "properties": {
            "ratio": {"type": "number", "x-mcp-header": "Ratio"},
            "tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}
        }})),
        "tool route: invalid input schema: /properties/ratio: x-mcp-header is on a \"number\"; \
         MCP allows it on a string, integer or boolean property only; \
         /properties/tags/items: x-mcp-header is only allowed on a property reached from the \
         root through `properties` alone, not under items, anyOf, oneOf, allOf, not, \
         if/then/else, additionalProperties, $defs or a $ref; move the parameter to the top \
         level (or into a plain nested object)"
    );
    let duplicate = build(json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "Region"},
        "b": {"type": "string", "x-mcp-header": "region"}
    }}));
    assert!(
        duplicate.ends_with(
            "/properties/b: x-mcp-header \"region\" is also the header of /properties/a (names \
             are compared ignoring case); give each parameter its own header name"
        ),
        "{duplicate}"
    );
    let spaced = build(json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "Has Space"}
    }}));
    assert!(
        spaced.contains("is not a header name: ' ' is not allowed"),
        "{spaced}"
    );
}
