//! Prerequisites: a tool whose environment variables, programs or
//! features are missing when its registry is built is withheld: not
//! offered, reported with what it misses, and a call of it is an error
//! that names what is missing (through `Registry::invoke`, the providers'
//! renderings, registry files and the MCP server).

use std::borrow::Cow;

use serde_json::json;
use tool_manifest::Manifest;
use tool_runtime::providers::Provider;
use tool_runtime::{
    Registry, Tool, ToolContext, ToolUse, dynamic::DynamicTool, registry::Availability,
    spec::Feature, spec::Missing, spec::Requirements, spec::ToolErrorKind,
};

/// A variable no environment sets.
const UNSET: &str = "TOOL_RUNTIME_TEST_REQUIRES_NEVER_SET";

/// A tool named `name` that needs `requirements`.
fn needing(name: &'static str, requirements: Requirements) -> DynamicTool {
    DynamicTool::builder(name, "Searches something.", json!({"type": "object"}))
        .requires(requirements)
        .handler(move |_, _| Ok(format!("{name} ran")))
        .build()
        .unwrap()
}

/// A tool that needs nothing.
fn plain(name: &'static str) -> DynamicTool {
    needing(name, Requirements::new())
}

async fn call(registry: &Registry, name: &str) -> tool_runtime::ToolResult {
    registry
        .invoke(ToolUse::new("1", name, json!({})), &ToolContext::new())
        .await
}

#[tokio::test]
async fn a_missing_environment_variable_withholds_the_tool() {
    let registry = Registry::builder()
        .tool(needing("github_search", Requirements::new().env(UNSET)))
        .tool(plain("echo"))
        .build()
        .unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["echo"]);
    assert!(!registry.contains("github_search"));
    let openai = registry.render(Provider::OpenAiChat);
    assert_eq!(openai.as_array().unwrap().len(), 1);
    assert!(!openai.to_string().contains("github_search"));

    let report = registry.report();
    let names: Vec<&str> = report.iter().map(|entry| &*entry.spec.name).collect();
    assert_eq!(names, ["echo", "github_search"]);
    assert_eq!(report[0].availability, Availability::Offered);
    assert_eq!(
        report[1].availability,
        Availability::Withheld(&[Missing::Env(UNSET.into())])
    );
    assert_eq!(
        report[1].availability.to_string(),
        format!("withheld: environment variable {UNSET} is not set")
    );

    let result = call(&registry, "github_search").await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::Disabled));
    assert_eq!(
        result.text_content(),
        format!("tool `github_search` is unavailable: environment variable {UNSET} is not set")
    );
    let direct = registry
        .call_json("github_search", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(direct.kind(), ToolErrorKind::Disabled);
}

#[tokio::test]
async fn a_set_environment_variable_offers_the_tool() {
    const SET: &str = "TOOL_RUNTIME_TEST_REQUIRES_SET";
    // SAFETY: no other code of this test binary reads or writes this
    // variable, and the runtime reads the environment through `std::env`,
    // whose lock orders it with this write.
    unsafe { std::env::set_var(SET, "token") };
    let registry = Registry::builder()
        .tool(needing("github_search", Requirements::new().env(SET)))
        .build()
        .unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["github_search"]);
    assert_eq!(
        call(&registry, "github_search").await.text_content(),
        "github_search ran"
    );

    // Set but empty counts as missing.
    const EMPTY: &str = "TOOL_RUNTIME_TEST_REQUIRES_EMPTY";
    // SAFETY: as above, for a variable of its own.
    unsafe { std::env::set_var(EMPTY, "") };
    let registry = Registry::builder()
        .tool(needing("github_search", Requirements::new().env(EMPTY)))
        .build()
        .unwrap();
    assert!(registry.is_empty());
}

#[cfg(unix)]
#[tokio::test]
async fn a_program_is_looked_for_on_the_path() {
    let registry = Registry::builder()
        .tool(needing("shell", Requirements::new().program("sh")))
        .tool(needing(
            "ripgrep_search",
            Requirements::new().program("tool-runtime-no-such-program"),
        ))
        .build()
        .unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["shell"]);
    assert_eq!(
        call(&registry, "ripgrep_search").await.text_content(),
        "tool `ripgrep_search` is unavailable: program tool-runtime-no-such-program is not on the PATH"
    );
}

#[tokio::test]
async fn a_feature_is_met_when_built_or_turned_on() {
    let built = Requirements {
        features: Cow::Owned(vec![Feature {
            name: "search".into(),
            built: true,
        }]),
        ..Requirements::NONE
    };
    let not_built = Requirements::new().feature("search");
    let builder = Registry::builder()
        .tool(needing("built_search", built))
        .tool(needing("web_search", not_built.clone().env(UNSET)))
        .tool(needing("plain_search", not_built));
    let registry = builder.clone().build().unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["built_search"]);
    // Every missing requirement is named, in order.
    assert_eq!(
        call(&registry, "web_search").await.text_content(),
        format!(
            "tool `web_search` is unavailable: environment variable {UNSET} is not set; \
             feature search is not on"
        )
    );
    let registry = builder.features(["search"]).build().unwrap();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["built_search", "plain_search"]
    );
    assert_eq!(
        call(&registry, "web_search").await.text_content(),
        format!("tool `web_search` is unavailable: environment variable {UNSET} is not set")
    );
}

#[tokio::test]
async fn a_withheld_version_leaves_the_other_versions_offered() {
    let version = |v: &'static str, needs: Requirements| {
        DynamicTool::builder(
            "convert_length",
            "Converts a length.",
            json!({"type": "object"}),
        )
        .version(v)
        .requires(needs)
        .handler(move |_, _| Ok(format!("version {v}")))
        .build()
        .unwrap()
    };
    let registry = Registry::builder()
        .tool(version("1.0.0", Requirements::new()))
        .tool(version("2.0.0", Requirements::new().env(UNSET)))
        .build()
        .unwrap();
    assert_eq!(
        call(&registry, "convert_length").await.text_content(),
        "version 1.0.0"
    );
    let result = call(&registry, "convert_length@2.0.0").await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Disabled));
    assert_eq!(
        result.text_content(),
        format!(
            "tool `convert_length` 2.0.0 is unavailable: environment variable {UNSET} is not set"
        )
    );
}

#[tokio::test]
async fn the_mcp_server_leaves_a_withheld_tool_out_and_says_why_a_call_fails() {
    let registry = Registry::builder()
        .tool(needing("github_search", Requirements::new().env(UNSET)))
        .tool(plain("echo"))
        .build()
        .unwrap();
    let answers = super::mcp::mcp_answers(
        registry,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "github_search", "arguments": {}}}),
        ],
    )
    .await;
    let tools = answers[0]["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["echo"]);
    let failed = &answers[1]["result"];
    assert_eq!(failed["isError"], true, "{failed}");
    assert_eq!(
        failed["content"][0]["text"],
        format!("tool `github_search` is unavailable: environment variable {UNSET} is not set")
    );
}

#[tokio::test]
async fn a_registry_file_adds_requirements() {
    let tools: Vec<&'static dyn Tool> = vec![
        Box::leak(Box::new(plain("github_search"))),
        Box::leak(Box::new(plain("echo"))),
    ];
    let text = format!(
        "tools:\n  - echo\n  - name: github_search\n    requires:\n      env: [{UNSET}]\n      \
         program: tool-runtime-no-such-program\n"
    );
    let manifest = Manifest::parse("tools.yaml", &text).unwrap();
    let registry = manifest
        .build_with(Registry::builder().catalog(&tools))
        .unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["echo"]);
    assert_eq!(
        call(&registry, "github_search").await.text_content(),
        format!(
            "tool `github_search` is unavailable: environment variable {UNSET} is not set; \
             program tool-runtime-no-such-program is not on the PATH"
        )
    );

    let manifest = Manifest::parse(
        "tools.yaml",
        "tools:\n  - name: echo\n    requires:\n      envs: [A]\n",
    )
    .unwrap();
    let error = manifest
        .build_with(Registry::builder().catalog(&tools))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tools.yaml:4:7: unknown key \"envs\"; `requires` has `env`, `program` and `feature`"
    );
}
