//! Tool configuration, aliases, allowlists and registry files.

use examples::search::{SearchConfig, SearchTool};
use serde_json::json;
use tool_manifest::{Location, Manifest};
use tool_runtime::config::{self, Config};
use tool_runtime::{
    Registry, ToolContext, ToolUse, registry::Linked, registry::RegistryProblem,
    spec::ToolErrorKind, tool,
};

const BAD_FILE: &str = include_str!("../../examples/search/bad-tools.yaml");

fn registry_with_key() -> Registry {
    Registry::builder()
        .tool(SearchTool)
        .configure("search", json!({"api_key": "k", "max_results": 2}))
        .config_from_env(false)
        .build()
        .unwrap()
}

#[test]
fn the_spec_exposes_the_config_schema() {
    let config = SearchTool::SPEC
        .config
        .expect("search declares a configuration");
    assert_eq!(config.type_name, "SearchConfig");
    let schema = config.schema();
    assert_eq!(schema["properties"]["max_results"]["default"], 5);
    assert_eq!(schema["properties"]["max_results"]["minimum"], 1);
    assert_eq!(schema["properties"]["max_results"]["maximum"], 50);
    assert_eq!(schema["required"], json!(["api_key"]));
    assert!(
        std::ptr::eq(schema, config.schema()),
        "built once and cached"
    );
}

#[tokio::test]
async fn a_configured_tool_receives_its_config() {
    let registry = registry_with_key();
    let result = registry
        .invoke(
            ToolUse::new("1", "search", json!({"query": "rust"})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{result:?}");
    let hits = &result.content[0];
    assert_eq!(
        serde_json::to_value(hits).unwrap()["json"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let config = registry
        .config("search")
        .unwrap()
        .get::<SearchConfig>()
        .unwrap();
    assert_eq!(config.max_results, 2);
}

#[test]
fn invalid_config_names_every_bad_field() {
    let error = Registry::builder()
        .tool(SearchTool)
        .configure(
            "search",
            json!({"api_key": 7, "max_results": 0, "colour": "blue"}),
        )
        .config_from_env(false)
        .build()
        .unwrap_err();
    let [
        RegistryProblem::InvalidConfig {
            tool,
            problems,
            missing,
        },
    ] = error.problems()
    else {
        panic!("{error}");
    };
    assert_eq!(tool, "search");
    assert!(!missing);
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["api_key", "colour", "max_results"], "{error}");
    assert!(
        error
            .to_string()
            .contains("max_results: must be from 1 to 50, got 0"),
        "{error}"
    );
}

#[test]
fn a_required_config_missing_is_refused_at_build() {
    let error = Registry::builder()
        .tool(SearchTool)
        .config_from_env(false)
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool \"search\" needs a configuration: api_key: missing required field"
    );
}

#[test]
fn config_for_a_tool_that_takes_none_is_an_error() {
    let error = Registry::builder()
        .linked(Linked::named(["convert_length"]))
        .configure("convert_length", json!({}))
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("takes no configuration"),
        "{error}"
    );
}

#[test]
fn environment_variables_fill_fields_by_schema() {
    let schema = SearchTool::SPEC.config.unwrap().schema();
    let vars = [
        ("TOOL_SEARCH_API_KEY".to_owned(), "12345".to_owned()),
        ("TOOL_SEARCH_MAX_RESULTS".to_owned(), "7".to_owned()),
        ("TOOL_OTHER_API_KEY".to_owned(), "no".to_owned()),
    ];
    let fields = config::from_env("search", schema, vars);
    // A string field keeps digits as text; a number field reads JSON.
    assert_eq!(fields.get("api_key"), Some(&json!("12345")));
    assert_eq!(fields.get("max_results"), Some(&json!(7)));
    assert_eq!(fields.len(), 2);
    assert_eq!(config::env_prefix("file_read"), "TOOL_FILE_READ_");
}

#[test]
fn later_sources_override_field_by_field() {
    let mut base = json!({"a": 1, "nested": {"x": 1, "y": 2}});
    config::merge(&mut base, json!({"nested": {"y": 3}, "b": 2}));
    assert_eq!(base, json!({"a": 1, "b": 2, "nested": {"x": 1, "y": 3}}));
}

/// Echoes.
#[tool(alias = "legacy.echo", alias = "say")]
fn echo(text: String) -> String {
    text
}

/// Shouts.
#[tool(alias = "say")]
fn shout(text: String) -> String {
    text.to_uppercase()
}

#[tokio::test]
async fn aliases_resolve_to_the_tool() {
    let registry = Registry::builder().tool(EchoTool).build().unwrap();
    assert_eq!(registry.resolve("legacy.echo").unwrap().spec().name, "echo");
    assert!(
        registry.get("legacy.echo").is_none(),
        "get takes canonical names only"
    );
    let result = registry
        .invoke(
            ToolUse::new("1", "legacy.echo", json!({"text": "hi"})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(result.text_content(), "hi");
    assert_eq!(
        registry.aliases(),
        [("legacy.echo", "echo"), ("say", "echo")]
    );
}

#[test]
fn colliding_aliases_name_both_owners() {
    let error = Registry::builder()
        .tool(EchoTool)
        .tool(ShoutTool)
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the name \"say\" is used twice: by the alias \"say\" of tool \"echo\" and by the \
         alias \"say\" of tool \"shout\"; remove or rename one"
    );
    let error = Registry::builder()
        .tool(EchoTool)
        .linked(Linked::named(["convert_length"]))
        .alias("echo", "convert_length")
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the name \"echo\" is used twice"),
        "{error}"
    );
}

#[tokio::test]
async fn an_allowlist_limits_what_is_listed_and_run() {
    let registry = Registry::builder()
        .linked(Linked::all())
        .allow(["convert_*", "echo"])
        .config_from_env(false)
        .build()
        .unwrap();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["convert_length", "echo"]
    );
    let result = registry
        .invoke(
            ToolUse::new("1", "weather_forecast", json!({"city": "Paris"})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::NotAllowed));
    let text = result.text_content();
    assert!(
        text.starts_with("tool \"weather_forecast\" is not allowed here"),
        "{text}"
    );
    assert!(
        !text.contains("search") && !text.contains("shout"),
        "lists only allowed tools: {text}"
    );
}

#[tokio::test]
async fn a_registry_file_adds_scopes_a_caller_needs() {
    let text = "tools:\n  - name: echo\n    scopes: [talk:echo, audit]\n  - name: whisper\n    \
                from: shout\n    scopes: talk:whisper\n";
    let registry = Manifest::parse("tools.yaml", text)
        .unwrap()
        .build()
        .unwrap();
    let scopes = |name| registry.get(name).unwrap().spec().scopes.to_vec();
    assert_eq!(scopes("echo"), ["talk:echo", "audit"]);
    assert_eq!(scopes("whisper"), ["talk:whisper"]);
    let caller = |scopes: &[&str]| {
        let caller = tool_runtime::context::Caller::new("ada").with_scopes(scopes.iter().copied());
        ToolContext::new().with_caller(caller)
    };
    let echo = ToolUse::new("1", "echo", json!({"text": "hi"}));
    let refused = registry.invoke(echo.clone(), &caller(&["talk:echo"])).await;
    assert_eq!(refused.error_kind, Some(ToolErrorKind::InsufficientScope));
    assert!(refused.text_content().contains("\"audit\""), "{refused:?}");
    let done = registry
        .invoke(echo, &caller(&["talk:echo", "audit"]))
        .await;
    assert_eq!(done.text_content(), "hi");
    let whisperer = caller(&["talk:whisper"]);
    let offered: Vec<&str> = registry
        .specs_for(&whisperer)
        .map(|spec| &*spec.name)
        .collect();
    assert_eq!(offered, ["whisper"]);
}

#[test]
fn a_registry_file_s_bad_scopes_are_mistakes_at_their_place() {
    let text = "\
tools:
  - name: echo
    scopes: [talk:echo, 'talk echo', talk:echo, '']
  - name: whisper
    from: shout
    scopes: []
  - name: murmur
    from: echo
    scopes: {talk: yes}
";
    let error = Manifest::parse("tools.yaml", text)
        .unwrap()
        .build_with(Registry::builder().config_from_env(false))
        .unwrap_err();
    let lines: Vec<String> = error.to_string().lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            "tools.yaml:3:25: invalid scope \"talk echo\": it holds ' ': a scope is one word, so \
             give each scope separately",
            "tools.yaml:3:38: scope \"talk:echo\" is listed twice; remove one",
            "tools.yaml:3:49: invalid scope \"\": it is empty",
            "tools.yaml:6:13: `scopes` is an empty list: write the scopes a caller needs, as in \
             scopes: [files:read], or remove `scopes`",
            "tools.yaml:9:13: `scopes` is a scope or a list of scopes, as in scopes: [files:read, \
             files:write]",
        ],
        "{error}"
    );
    // The published schema says so too.
    for bad in [
        "scopes: []",
        "scopes: ['a b']",
        "scopes: [a, a]",
        "scopes: {a: b}",
    ] {
        let text = format!("tools: [{{name: echo, {bad}}}]\n");
        assert!(!schema_errors(&text).is_empty(), "{bad}");
    }
    assert!(schema_errors("tools: [{name: echo, scopes: [a, 'b:c/d']}]\n").is_empty());
}

#[test]
fn a_bad_registry_file_reports_every_mistake_with_its_place() {
    let manifest = Manifest::parse("bad-tools.yaml", BAD_FILE).unwrap();
    let error = manifest
        .build_with(Registry::builder().config_from_env(false))
        .unwrap_err();
    let lines: Vec<String> = error.to_string().lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            "bad-tools.yaml:3:5: no linked tool is named \"convert_lenght\"; did you mean \"convert_length\"?",
            "bad-tools.yaml:5:5: unknown key \"aliasses\"; did you mean \"aliases\"? an entry has `name`, `aliases`, `config`, `requires`, `scopes`, and `from`, `description` and `arguments` to re-expose a tool",
            "bad-tools.yaml:7:20: configuration of \"search\": max_results: must be from 1 to 50, got 500",
            "bad-tools.yaml:8:16: configuration of \"search\": api_key: expected a string, got 42",
            "bad-tools.yaml:9:15: configuration of \"search\": colour: unknown field \"colour\"",
            "bad-tools.yaml:10:11: tool \"search\" is listed twice (first at line 4); remove one entry",
        ],
        "{error}"
    );
    assert!(error.problems.iter().all(|p| p.location.is_some()));
    assert_eq!(
        error.problems[0].location,
        Some(Location { line: 3, column: 5 })
    );
}

#[tokio::test]
async fn a_good_registry_file_builds_the_registry() {
    let manifest = Manifest::parse(
        "tools.yaml",
        include_str!("../../examples/search/tools.yaml"),
    )
    .unwrap();
    assert_eq!(
        manifest.tool_names().collect::<Vec<_>>(),
        ["convert_length", "search"]
    );
    let registry = manifest
        .build_with(
            Registry::builder()
                .config_from_env(false)
                .configure("search", json!({"api_key": "from-code", "max_results": 9})),
        )
        .unwrap();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["convert_length", "search"]
    );
    // The file overrides code, field by field.
    let config = registry
        .config("search")
        .unwrap()
        .get::<SearchConfig>()
        .unwrap();
    assert_eq!(
        (config.max_results, config.api_key.as_str()),
        (3, "from-code")
    );
    let result = registry
        .invoke(
            ToolUse::new("1", "find_docs", json!({"query": "rust"})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{result:?}");
}

/// `docs/registry-file.schema.json` is the schema of the files tool-cli
/// reads, assembled from the sections it knows; `UPDATE_REGISTRY_SCHEMA=1
/// cargo test -p tests --test configuration` writes it again.
#[test]
fn the_published_file_schema_is_current() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/registry-file.schema.json");
    let current = tool_cli::registry_file_schema();
    if std::env::var_os("UPDATE_REGISTRY_SCHEMA").is_some() {
        let text = serde_json::to_string_pretty(&current).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
    }
    let published: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        published == current,
        "docs/registry-file.schema.json is not current: write it again with \
         UPDATE_REGISTRY_SCHEMA=1 cargo test -p tests --test configuration"
    );
}

#[test]
fn a_section_no_reader_was_given_is_an_unknown_key_at_its_place() {
    let text = "tools: [echo]\nmcp_server:\n  a: {command: npx}\nhttp_tools: []\n";
    let sections = tool_cli::registry_sections();
    let manifest = Manifest::parse_with("tools.yaml", text, &sections).unwrap();
    let problems: Vec<String> = manifest.problems().iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems,
        [
            "2:1: unknown key \"mcp_server\"; did you mean \"mcp_servers\"? the file has a `tools` list, an `mcp_servers` mapping, an `http_tools` list, an `openapi` mapping, a `code_mode` mapping, an `auth` mapping, a `resources` list, a `prompts` list, a `skills` list and an `apps` list (and optionally `$schema`)"
        ]
    );
    // Read with `tools` alone, the other sections are unknown keys too.
    let manifest = Manifest::parse("tools.yaml", text).unwrap();
    let problems: Vec<String> = manifest.problems().iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems,
        [
            "2:1: unknown key \"mcp_server\"; the file has a `tools` list (and optionally `$schema`)",
            "4:1: unknown key \"http_tools\"; the file has a `tools` list (and optionally `$schema`)",
        ]
    );
    // A file with a given section and no `tools` is fine; with neither, not.
    let servers = Manifest::parse_with("tools.yaml", "mcp_servers: {}\n", &sections).unwrap();
    assert!(servers.problems().is_empty(), "{:?}", servers.problems());
    let none = Manifest::parse("tools.yaml", "mcp_servers: {}\n").unwrap();
    assert_eq!(
        none.problems().last().unwrap().message,
        "missing the `tools` list"
    );
}

/// What the published schema says of `text`, a registry file: the
/// instance paths of its mistakes.
fn schema_errors(text: &str) -> Vec<String> {
    let schema = tool_cli::registry_file_schema();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let document = tool_manifest::Document::parse(text).unwrap();
    validator
        .iter_errors(document.value())
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}

#[test]
fn the_sample_registry_files_fit_the_schema() {
    jsonschema::draft202012::meta::validate(&tool_cli::registry_file_schema()).unwrap();
    for file in [
        include_str!("../../examples/search/tools.yaml"),
        include_str!("../../examples/http_tools/tools.yaml"),
        include_str!("../../examples/proxy/tools.yaml"),
    ] {
        assert_eq!(schema_errors(file), Vec::<String>::new(), "{file}");
    }
    // Each form of each section, with its settings.
    let every_form = "\
tools: [echo, {name: search, aliases: [find], config: {max_results: 3}, scopes: [search:run]}]
mcp_servers:
  local: {type: stdio, command: npx, args: [-y, server], env: {KEY: v}, prefix: l_, max_tools: 5}
  remote: {type: streamable-http, url: 'http://127.0.0.1:3001/mcp', headers: {A: b}, connect_timeout_ms: 100}
http_tools:
  - name: get_item
    description: Fetches one item.
    method: post
    url: https://api.example.com/items/{id}
    parameters:
      - id: {type: string, required: true, enum: [a, b], default: a}
      - n: integer
    query: {limit: 10, id: '{id}'}
    headers: {X-Flag: true}
    body: {id: '{id}', list: [1, null]}
    max_redirects: 0
  - name: schema_form
    description: Takes a JSON Schema.
    url: https://api.example.com/
    parameters: {type: object, properties: {q: {type: string}}}
    query: [q]
openapi:
  petstore: {document: petstore.json, base_url: 'https://p.example.com', include: [pet], auth: {key: x}, timeout_ms: 5}
resources:
  - {uri: 'docs://readme', name: readme, title: Readme, description: The readme, mime: text/markdown, file: README.md}
  - {uri: 'docs://hello', text: Hello}
  - {uri: 'notes://{name}', dir: notes}
prompts:
  - name: review
    title: Review
    description: Reviews code.
    arguments: [{name: code, title: Code, description: The code, required: true}, {name: language, complete: [rust, go]}]
    messages: [{role: user, text: 'Review {code}'}, {role: assistant, text: Done}]
skills:
  - dir: skills
apps:
  - uri: 'ui://counter/view'
    file: counter.html
    name: counter
    title: Counter
    description: The counter's view
    csp: {connect_domains: ['https://api.example.com'], resource_domains: ['https://*.cdn.example.com'], frame_domains: [], base_uri_domains: []}
    permissions: [camera, clipboard_write]
    prefers_border: true
    domain: 'https://counter.example.com'
    tools: [counter_show]
    app_tools: [counter_add]
    model_tools: [counter_reset]
";
    assert_eq!(schema_errors(every_form), Vec::<String>::new());
}

#[test]
fn the_schema_refuses_unknown_keys() {
    for (text, place) in [
        ("tools: []\ntool: []\n", ""),
        ("tools: [{name: a, alias: [b]}]\n", "/tools/0"),
        (
            "mcp_servers: {s: {command: npx, url: 'http://x'}}\n",
            "/mcp_servers/s",
        ),
        (
            "mcp_servers: {s: {command: npx, prefx: p}}\n",
            "/mcp_servers/s",
        ),
        (
            "http_tools: [{name: a, description: b, url: 'http://x', timeout: 5}]\n",
            "/http_tools/0",
        ),
        (
            "http_tools: [{name: a, description: b, url: 'http://x', parameters: [{q: {kind: string}}]}]\n",
            "/http_tools/0/parameters",
        ),
        (
            "openapi: {p: {document: d.json, base: 'http://x'}}\n",
            "/openapi/p",
        ),
        ("openapi: {'bad name': {document: d.json}}\n", "/openapi"),
        (
            "mcp_servers: {s: {command: npx, max_schema_depth: 65}}\n",
            "/mcp_servers/s",
        ),
        (
            "mcp_servers: {s: {command: npx, prefix: null}}\n",
            "/mcp_servers/s",
        ),
        (
            "resources: [{uri: 'x://y', text: a, size: 1}]\n",
            "/resources/0",
        ),
        (
            "resources: [{uri: 'x://y', text: a, file: b}]\n",
            "/resources/0",
        ),
        (
            "prompts: [{name: p, messages: [{role: system, text: a}]}]\n",
            "/prompts/0/messages/0/role",
        ),
        ("skills: [{path: s}]\n", "/skills/0"),
        (
            "apps: [{uri: 'ui://v', file: v.html, csp: {connect: []}}]\n",
            "/apps/0/csp",
        ),
        (
            "apps: [{uri: 'ui://v', file: v.html, tool: [a]}]\n",
            "/apps/0",
        ),
    ] {
        let errors = schema_errors(text);
        assert!(
            !errors.is_empty() && errors.iter().all(|error| error.starts_with(place)),
            "{text}: {errors:?}"
        );
    }
}

#[test]
fn config_is_unavailable_outside_a_registry() {
    // Called directly, nothing supplied the configuration: an error, not a panic.
    let ctx = ToolContext::new();
    let error = <Config<SearchConfig> as tool_runtime::FromToolContext>::from_tool_context(&ctx)
        .err()
        .unwrap();
    assert_eq!(error.kind(), ToolErrorKind::MissingContext);
}
