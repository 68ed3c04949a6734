//! MCP's header parameters (`tool_mcp::headers`): the rules on their
//! declaration, the value encoding both ways, the check of a call's
//! `Mcp-Param-*` headers against its arguments, and a server that does not
//! serve a tool whose declarations break the rules.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tool_mcp::headers::{
    self, MismatchKind, check_headers, decode_value, encode_value, for_each, header_params,
    is_token, value_text,
};
use tool_mcp::server::McpServer;
use tool_runtime::{
    Registry, ToolContext, ToolError, ToolSpec, dynamic::DynamicTool, tool, toolset,
};

// The declaration's rules.

fn problems(schema: Value) -> Vec<String> {
    header_params(&schema)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn finds_primitives_reached_through_properties() {
    let schema = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "x-mcp-header": {"type": "string"},
            "filter": {"type": "object", "properties": {
                "tenant": {"type": "integer", "x-mcp-header": "Tenant-Id"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry_Run"}
            }}
        }
    });
    let found = header_params(&schema).unwrap();
    let found: Vec<(Vec<&str>, &str)> = found
        .iter()
        .map(|p| (p.path.iter().map(String::as_str).collect(), p.name.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (vec!["region"], "Region"),
            (vec!["filter", "tenant"], "Tenant-Id"),
            (vec!["filter", "dry"], "Dry_Run"),
        ]
    );
    assert_eq!(header_params(&json!({"type": "object"})).unwrap(), []);
}

#[test]
fn reports_every_rule_broken() {
    let schema = json!({
        "type": "object",
        "x-mcp-header": "Root",
        "properties": {
            "a": {"type": "string", "x-mcp-header": ""},
            "b": {"type": "string", "x-mcp-header": "Has Space"},
            "c": {"type": "string", "x-mcp-header": "Naïve"},
            "d": {"type": "number", "x-mcp-header": "D"},
            "e": {"type": ["string", "null"], "x-mcp-header": "E"},
            "f": {"type": "object", "x-mcp-header": "F"},
            "g": {"$ref": "#/$defs/G", "x-mcp-header": "G"},
            "h": {"type": "string", "x-mcp-header": "region"},
            "i": {"type": "string", "x-mcp-header": "REGION"},
            "j": {"type": "string", "x-mcp-header": 5},
            "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
            "either": {"anyOf": [{"type": "string", "x-mcp-header": "Either"}]}
        },
        "$defs": {"G": {"type": "string", "x-mcp-header": "Def"}}
    });
    assert_eq!(
        problems(schema),
        [
            "/: x-mcp-header is on the schema's root; put it on one of its properties",
            "/properties/a: x-mcp-header \"\" is not a header name: it is empty. Use letters, \
             digits and `-` (any of !#$%&'*+-.^_`|~ too), as in \"Region\"",
            "/properties/b: x-mcp-header \"Has Space\" is not a header name: ' ' is not \
             allowed. Use letters, digits and `-` (any of !#$%&'*+-.^_`|~ too), as in \
             \"Region\"",
            "/properties/c: x-mcp-header \"Naïve\" is not a header name: 'ï' is not allowed. \
             Use letters, digits and `-` (any of !#$%&'*+-.^_`|~ too), as in \"Region\"",
            "/properties/d: x-mcp-header is on a \"number\"; MCP allows it on a string, \
             integer or boolean property only",
            "/properties/e: x-mcp-header is on a property of type [\"string\",\"null\"]; MCP \
             allows it on a single type of string, integer or boolean (a header is sent only \
             when a value is given, so leave the property out of `required` rather than \
             making it nullable)",
            "/properties/f: x-mcp-header is on a property of type \"object\"; MCP allows it \
             on a single type of string, integer or boolean (a header is sent only when a \
             value is given, so leave the property out of `required` rather than making it \
             nullable)",
            "/properties/g: x-mcp-header is on a property without a `type`; give it \"type\": \
             \"string\", \"integer\" or \"boolean\"",
            "/properties/i: x-mcp-header \"REGION\" is also the header of /properties/h \
             (names are compared ignoring case); give each parameter its own header name",
            "/properties/j: x-mcp-header must be a string (the header's name), not 5",
            "/properties/list/items: x-mcp-header is only allowed on a property reached from \
             the root through `properties` alone, not under items, anyOf, oneOf, allOf, not, \
             if/then/else, additionalProperties, $defs or a $ref; move the parameter to the \
             top level (or into a plain nested object)",
            "/properties/either/anyOf/0: x-mcp-header is only allowed on a property reached \
             from the root through `properties` alone, not under items, anyOf, oneOf, allOf, \
             not, if/then/else, additionalProperties, $defs or a $ref; move the parameter to \
             the top level (or into a plain nested object)",
            "/$defs/G: x-mcp-header is only allowed on a property reached from the root \
             through `properties` alone, not under items, anyOf, oneOf, allOf, not, \
             if/then/else, additionalProperties, $defs or a $ref; move the parameter to the \
             top level (or into a plain nested object)",
        ]
    );
}

#[test]
fn for_each_reads_the_chains_of_properties_only() {
    let schema = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "filter": {"type": "object", "properties": {
                "tenant": {"type": "integer", "x-mcp-header": "Tenant"}
            }},
            "list": {"type": "array", "items": {"x-mcp-header": "Item"}},
            "odd": {"x-mcp-header": 3}
        }
    });
    let mut seen = Vec::new();
    for_each(&schema, |path, name| {
        seen.push((path.to_string(), path.keys().join("/"), name.to_owned()))
    });
    assert_eq!(
        seen,
        [
            ("region".into(), "region".into(), "Region".into()),
            (
                "filter.tenant".into(),
                "filter/tenant".into(),
                "Tenant".into()
            ),
        ]
    );
    let arguments = json!({"filter": {"tenant": 7}, "region": "eu"});
    let mut values = Vec::new();
    for_each(&schema, |path, _| {
        values.push(path.lookup(&arguments).cloned())
    });
    assert_eq!(values, [Some(json!("eu")), Some(json!(7))]);
    let mut values = Vec::new();
    for_each(&schema, |path, _| {
        values.push(path.lookup(&json!({"filter": 1})).cloned())
    });
    assert_eq!(values, [None, None]);
}

#[test]
fn tokens() {
    assert!(is_token("Region"));
    assert!(is_token("Tenant-Id_2.x~"));
    assert!(!is_token(""));
    assert!(!is_token("a b"));
    assert!(!is_token("a:b"));
    assert!(!is_token("a\r\nb"));
    assert!(!is_token("é"));
}

// A call's headers against its arguments.

fn spec(properties: Value) -> ToolSpec {
    ToolSpec::new(
        "t",
        "A tool.",
        json!({"type": "object", "properties": properties}),
    )
}

fn region() -> ToolSpec {
    spec(json!({
        "region": {"type": "string", "x-mcp-header": "Region"},
        "query": {"type": "string"}
    }))
}

/// The check with these headers (names lowercased, as a client may
/// send them).
fn check(spec: &ToolSpec, arguments: Value, sent: &[(&str, &str)]) -> Result<(), String> {
    let sent: Vec<(String, &str)> = sent
        .iter()
        .map(|(name, value)| (name.to_ascii_lowercase(), *value))
        .collect();
    check_headers(spec, &arguments, |name: &str| {
        let name = name.to_ascii_lowercase();
        sent.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    })
    .map_err(|error| error.to_string())
}

#[test]
fn agreeing_headers_pass() {
    let spec = region();
    let args = json!({"region": "us-west1", "query": "q"});
    assert_eq!(
        check(&spec, args.clone(), &[("Mcp-Param-Region", "us-west1")]),
        Ok(())
    );
    assert_eq!(
        check(&spec, args.clone(), &[("MCP-PARAM-REGION", "  us-west1\t")]),
        Ok(())
    );
    // Base64, and the conformance suite's cases taken as literal text.
    let hello = json!({"region": "Hello"});
    assert_eq!(
        check(&spec, hello, &[("Mcp-Param-Region", "=?base64?SGVsbG8=?=")]),
        Ok(())
    );
    let literal = json!({"region": "SGVsbG8="});
    assert_eq!(
        check(&spec, literal, &[("Mcp-Param-Region", "SGVsbG8=")]),
        Ok(())
    );
    let open = json!({"region": "=?base64?SGVsbG8="});
    assert_eq!(
        check(&spec, open, &[("Mcp-Param-Region", "=?base64?SGVsbG8=")]),
        Ok(())
    );
    let unicode = json!({"region": "Hello, 世界"});
    let encoded = encode_value("Hello, 世界");
    assert_eq!(
        check(&spec, unicode, &[("Mcp-Param-Region", &encoded)]),
        Ok(())
    );
    let empty = json!({"region": ""});
    assert_eq!(
        check(&spec, empty.clone(), &[("Mcp-Param-Region", "")]),
        Ok(())
    );
    assert_eq!(
        check(&spec, empty, &[("Mcp-Param-Region", "=?base64??=")]),
        Ok(())
    );
}

#[test]
fn absent_and_null_values_expect_no_header() {
    let spec = region();
    assert_eq!(check(&spec, json!({"query": "q"}), &[]), Ok(()));
    assert_eq!(check(&spec, json!({"region": null}), &[]), Ok(()));
    assert_eq!(check(&spec, Value::Null, &[]), Ok(()));
    // A header for an absent value is not compared.
    assert_eq!(
        check(&spec, json!({}), &[("Mcp-Param-Region", "eu")]),
        Ok(())
    );
    // A value of the wrong type is the arguments' check to report.
    assert_eq!(check(&spec, json!({"region": ["eu"]}), &[]), Ok(()));
}

#[test]
fn missing_different_and_invalid_headers_are_refused() {
    let spec = region();
    let args = json!({"region": "us-west1"});
    assert_eq!(
        check(&spec, args.clone(), &[]),
        Err(
            "Header mismatch: the Mcp-Param-Region header is missing, but the arguments \
             give region = \"us-west1\""
                .into()
        )
    );
    assert_eq!(
        check(&spec, args.clone(), &[("Mcp-Param-Region", "eu")]),
        Err(
            "Header mismatch: Mcp-Param-Region header value \"eu\" does not match region = \
             \"us-west1\" in the arguments"
                .into()
        )
    );
    // Values are compared with their case.
    assert!(check(&spec, args.clone(), &[("Mcp-Param-Region", "US-WEST1")]).is_err());
    let hello = json!({"region": "Hello"});
    assert_eq!(
        check(
            &spec,
            hello.clone(),
            &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")]
        ),
        Err(
            "Header mismatch: Mcp-Param-Region header value \"=?base64?SGVsbG8?=\" is \
             invalid: the text between =?base64? and ?= is not canonical Base64 (with its \
             = padding)"
                .into()
        )
    );
    assert!(
        check(
            &spec,
            hello.clone(),
            &[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")]
        )
        .is_err()
    );
    // Not UTF-8 once decoded.
    assert!(
        check(&spec, hello, &[("Mcp-Param-Region", "=?base64?/w==?=")])
            .unwrap_err()
            .ends_with("does not decode to UTF-8 text")
    );
    // Invalid characters are refused even where no value is expected.
    assert!(check(&spec, json!({}), &[("Mcp-Param-Region", "caf\u{e9}")]).is_err());
    let control = check(&spec, args, &[("Mcp-Param-Region", "a\u{1b}[31m")]).unwrap_err();
    assert!(control.contains(r#""a\u001b[31m""#), "{control}");
}

#[test]
fn messages_are_escaped_and_bounded() {
    let spec = spec(json!({"r\u{1b}": {"type": "string", "x-mcp-header": "R"}}));
    let long = "x".repeat(100_000);
    let error = check(&spec, json!({"r\u{1b}": long}), &[("Mcp-Param-R", &long)]);
    assert_eq!(error, Ok(()));
    let error = check(&spec, json!({"r\u{1b}": "a"}), &[("Mcp-Param-R", &long)]).unwrap_err();
    assert!(error.len() < 400, "{error}");
    assert!(error.contains(r"r\u{1b} = "), "{error}");
}

#[test]
fn numbers_and_booleans() {
    let spec = spec(json!({
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "dry": {"type": "boolean", "x-mcp-header": "Dry"}
    }));
    let ok = |args: Value, sent: &[(&str, &str)]| check(&spec, args, sent).is_ok();
    assert!(ok(json!({"count": 42}), &[("Mcp-Param-Count", "42")]));
    assert!(ok(json!({"count": 42}), &[("Mcp-Param-Count", "42.0")]));
    assert!(ok(json!({"count": 42.0}), &[("Mcp-Param-Count", "42")]));
    assert!(ok(json!({"count": -7}), &[("Mcp-Param-Count", "-7")]));
    assert!(ok(
        json!({"count": u64::MAX}),
        &[("Mcp-Param-Count", "18446744073709551615")]
    ));
    assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "42.5")]));
    assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "0x2a")]));
    assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "4.2e1")]));
    assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "+42")]));
    assert!(ok(json!({"dry": true}), &[("Mcp-Param-Dry", "true")]));
    assert!(!ok(json!({"dry": true}), &[("Mcp-Param-Dry", "True")]));
    assert!(!ok(json!({"dry": false}), &[("Mcp-Param-Dry", "0")]));
    let big = check(&spec, json!({"count": 1u64 << 60}), &[]).unwrap_err();
    assert!(big.ends_with("so clients may leave it out)"), "{big}");
}

#[test]
fn nested_parameters_and_header_values() {
    let spec = spec(json!({"filter": {"type": "object", "properties": {
        "tenant": {"type": "string", "x-mcp-header": "Tenant"}
    }}}));
    let args = json!({"filter": {"tenant": "acme"}});
    assert_eq!(
        check(&spec, args.clone(), &[("Mcp-Param-Tenant", "acme")]),
        Ok(())
    );
    let error = check_headers(&spec, &args, |_| None::<&[u8]>).unwrap_err();
    assert_eq!(error.parameter, "filter.tenant");
    assert_eq!(error.header, "Mcp-Param-Tenant");
    assert_eq!(
        error.json_rpc_error(),
        json!({
            "code": -32020,
            "message": "Header mismatch: the Mcp-Param-Tenant header is missing, but the \
                        arguments give filter.tenant = \"acme\"",
            "data": {"header": "Mcp-Param-Tenant", "parameter": "filter.tenant"}
        })
    );
}

#[test]
fn encoding_round_trips() {
    for text in [
        "us-west1",
        "Hello, 世界",
        " padded ",
        "line1\nline2",
        "=?base64?literal?=",
        "\tlead",
        "in ner",
        "",
    ] {
        let encoded = encode_value(text);
        assert_eq!(decode_value(encoded.as_bytes()).unwrap(), text, "{encoded}");
    }
    assert_eq!(encode_value("in ner"), "in ner");
    assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert_eq!(value_text(&json!(42)).unwrap(), "42");
    assert_eq!(value_text(&json!(false)).unwrap(), "false");
    assert!(value_text(&Value::Null).is_none());
}

// Header parameters of `#[tool]` functions and toolset methods.

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
fn the_attributes_declarations_keep_the_rules() {
    let declared = header_params(ExecuteSqlTool::SPEC.input_schema()).unwrap();
    let names: Vec<&str> = declared.iter().map(|param| param.name.as_str()).collect();
    assert_eq!(names, ["Region", "Tenant-Id", "Dry-Run"]);
    assert_eq!(headers::KEYWORD, "x-mcp-header");
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
    let encoded = encode_value("Zürich");
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

// A server and the tools whose declarations break the rules.

/// What MCP's rules say of the declarations of [`misdeclared`].
const BROKEN: &str = "its x-mcp-header keywords break MCP's rules: /properties/ratio: \
    x-mcp-header is on a \"number\"; MCP allows it on a string, integer or boolean property \
    only; /properties/tags/items: x-mcp-header is only allowed on a property reached from the \
    root through `properties` alone, not under items, anyOf, oneOf, allOf, not, if/then/else, \
    additionalProperties, $defs or a $ref; move the parameter to the top level (or into a \
    plain nested object)";

/// A run-time tool declaring a header on a number and one under `items`.
fn misdeclared() -> DynamicTool {
    DynamicTool::builder(
        "route",
        "Routes.",
        json!({"type": "object", "properties": {
            "ratio": {"type": "number", "x-mcp-header": "Ratio"},
            "tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}
        }}),
    )
    .handler(|_, _| Ok::<_, ToolError>("routed"))
    .build()
    .expect("the core keeps the declaration as data, unjudged")
}

#[test]
fn the_server_does_not_list_a_tool_whose_declarations_break_the_rules() {
    let registry = Registry::builder()
        .tool(misdeclared())
        .tool(ExecuteSqlTool)
        .build()
        .unwrap();
    let server = McpServer::new(registry);
    let listed: Vec<Value> = server
        .tools()
        .iter()
        .map(|tool| tool["name"].clone())
        .collect();
    assert_eq!(listed, ["execute_sql"]);
}

#[tokio::test]
async fn the_server_refuses_a_call_of_a_tool_whose_declarations_break_the_rules() {
    let registry = Registry::builder()
        .tool(misdeclared())
        .tool(ExecuteSqlTool)
        .build()
        .unwrap();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    tokio::spawn(McpServer::new(registry).serve_io(server_read, server_write));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "route", "arguments": {"ratio": 0.5}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "execute_sql", "arguments": {"region": "eu", "query": "q"}}}),
    ];
    for message in messages {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut answers = std::collections::HashMap::new();
    while answers.len() < 3 {
        // A hang guard, not a timing check.
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server keeps the pipe open");
        let answer: Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = answer["id"].as_i64() {
            answers.insert(id, answer);
        }
    }
    let refused = &answers[&1]["error"];
    assert_eq!(refused["code"], -32602, "{refused}");
    assert_eq!(
        refused["message"],
        format!("the tool `route` is not served over MCP: {BROKEN}")
    );
    assert_eq!(refused["data"], json!({"tool": "route"}));
    // The other tools are served as ever.
    assert_eq!(answers[&2]["result"]["isError"], false, "{}", answers[&2]);
}
