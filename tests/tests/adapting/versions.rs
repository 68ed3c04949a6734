//! Several versions of one tool name and deprecated tools: the version a
//! registry offers, pins in code and in registry files, calls by
//! `name@version`, and the warning a deprecated tool's calls carry
//! (through `Registry::invoke`, the providers' renderings and the MCP
//! server).

use serde_json::{Value, json};
use tool_manifest::{Location, Manifest};
use tool_runtime::providers::{Provider, mcp};
use tool_runtime::{
    Registry, Tool, ToolContext, ToolUse, dynamic::DynamicTool, registry::RegistryProblem,
    spec::ToolErrorKind,
};

/// `convert_length` at `version`, answering with its version; deprecated
/// with `note` when given.
fn convert_length(version: &'static str, note: Option<&'static str>) -> DynamicTool {
    let mut builder = DynamicTool::builder(
        "convert_length",
        "Converts a length between units.",
        json!({"type": "object", "properties": {"meters": {"type": "number"}}}),
    )
    .version(version)
    .handler(move |_, _| Ok(format!("version {version}")));
    if let Some(note) = note {
        builder = builder.deprecated(note);
    }
    builder.build().unwrap()
}

/// Versions 1.0.0 and 2.0.0, and 3.0.0 deprecated.
fn three_versions() -> tool_runtime::RegistryBuilder {
    Registry::builder()
        .tool(convert_length("1.0.0", None))
        .tool(convert_length("3.0.0", Some("use convert_length_v3")))
        .tool(convert_length("2.0.0", None))
}

async fn call(registry: &Registry, name: &str) -> tool_runtime::ToolResult {
    registry
        .invoke(ToolUse::new("1", name, json!({})), &ToolContext::new())
        .await
}

#[tokio::test]
async fn the_newest_version_not_deprecated_is_offered_and_the_others_are_called_by_version() {
    let registry = three_versions().build().unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["convert_length"]);
    assert_eq!(registry.specs().len(), 1);
    let versions: Vec<_> = registry
        .versions("convert_length")
        .iter()
        .map(|spec| spec.version.as_deref().unwrap())
        .collect();
    assert_eq!(versions, ["1.0.0", "2.0.0", "3.0.0"]);

    assert_eq!(
        call(&registry, "convert_length").await.text_content(),
        "version 2.0.0"
    );
    assert_eq!(
        call(&registry, "convert_length@1.0.0").await.text_content(),
        "version 1.0.0"
    );
    assert_eq!(
        call(&registry, "convert_length@3.0.0").await.text_content(),
        "version 3.0.0"
    );
    // The offered version by its version too.
    assert_eq!(
        call(&registry, "convert_length@2.0.0").await.text_content(),
        "version 2.0.0"
    );
    assert!(registry.resolve("convert_length@1.0.0").is_some());
    assert!(registry.get("convert_length@1.0.0").is_none());
}

#[tokio::test]
async fn an_unknown_version_is_an_error_naming_the_versions_held() {
    let registry = three_versions().build().unwrap();
    let result = call(&registry, "convert_length@9.9.9").await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::UnknownTool));
    assert_eq!(
        result.text_content(),
        r#"tool `convert_length` has no version "9.9.9"; its versions are 1.0.0, 2.0.0, 3.0.0"#
    );
    // A name no tool has stays the unknown-tool error of old.
    let result = call(&registry, "convert_weight@1.0.0").await;
    assert!(
        result.text_content().starts_with("unknown tool"),
        "{}",
        result.text_content()
    );
}

#[tokio::test]
async fn a_pin_offers_that_version() {
    let registry = three_versions()
        .pin("convert_length", "1.0.0")
        .build()
        .unwrap();
    assert_eq!(
        call(&registry, "convert_length").await.text_content(),
        "version 1.0.0"
    );
    assert_eq!(
        call(&registry, "convert_length@2.0.0").await.text_content(),
        "version 2.0.0"
    );
    // A pinned deprecated version is offered too.
    let registry = three_versions()
        .pin("convert_length", "3.0.0")
        .build()
        .unwrap();
    assert_eq!(
        registry
            .get("convert_length")
            .unwrap()
            .spec()
            .version
            .as_deref(),
        Some("3.0.0")
    );
    let error = three_versions()
        .pin("convert_length", "4.0.0")
        .build()
        .unwrap_err();
    assert_eq!(
        error.problems(),
        [RegistryProblem::UnknownVersion {
            name: "convert_length".into(),
            version: "4.0.0".into(),
            versions: vec!["1.0.0".into(), "2.0.0".into(), "3.0.0".into()],
        }]
    );
}

#[tokio::test]
async fn a_deprecated_call_warns_in_its_record_and_its_description() {
    let registry = three_versions().build().unwrap();
    let held = registry.resolve("convert_length@3.0.0").unwrap();
    assert_eq!(
        held.spec().description,
        "[deprecated: use convert_length_v3] Converts a length between units."
    );
    let (result, record) = registry
        .invoke_recorded(
            ToolUse::new("1", "convert_length@3.0.0", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        record.warnings,
        ["tool `convert_length` 3.0.0 is deprecated: use convert_length_v3"]
    );
    // The serialised record carries them; a call of a tool in good
    // standing has none, and leaves the key out.
    assert_eq!(
        serde_json::to_value(&record).unwrap()["warnings"][0],
        record.warnings[0]
    );
    let (_, record) = registry
        .invoke_recorded(
            ToolUse::new("2", "convert_length", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert!(record.warnings.is_empty());
    assert!(
        serde_json::to_value(&record)
            .unwrap()
            .get("warnings")
            .is_none()
    );
}

#[tokio::test]
async fn when_every_version_is_deprecated_the_newest_is_offered() {
    let registry = Registry::builder()
        .tool(convert_length("1.0.0", Some("use convert_length_v3")))
        .tool(convert_length("1.5.0", Some("use convert_length_v3")))
        .build()
        .unwrap();
    let (result, record) = registry
        .invoke_recorded(
            ToolUse::new("1", "convert_length", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(result.text_content(), "version 1.5.0");
    assert_eq!(record.warnings.len(), 1);
    let spec = registry.specs().next().unwrap();
    assert!(
        spec.description
            .starts_with("[deprecated: use convert_length_v3] ")
    );
}

#[test]
fn a_version_that_is_not_semantic_or_given_twice_is_an_error() {
    let error = Registry::builder()
        .tool(convert_length("1.x", None))
        .build()
        .unwrap_err();
    assert!(
        matches!(&error.problems()[0], RegistryProblem::InvalidVersion { version, .. } if version == "1.x"),
        "{error}"
    );
    assert!(
        error.to_string().contains("not a semantic version"),
        "{error}"
    );

    let error = Registry::builder()
        .tool(convert_length("1.0.0", None))
        .tool(convert_length("1.0.0", None))
        .build()
        .unwrap_err();
    assert!(
        matches!(&error.problems()[0], RegistryProblem::DuplicateName { name, .. } if name == "convert_length"),
        "{error}"
    );
    // A version beside a tool of the same name without one is a duplicate too.
    let unversioned =
        DynamicTool::builder("convert_length", "Converts.", json!({"type": "object"}))
            .handler(|_, _| Ok("none"))
            .build()
            .unwrap();
    let error = Registry::builder()
        .tool(convert_length("1.0.0", None))
        .tool(unversioned)
        .build()
        .unwrap_err();
    assert!(
        matches!(&error.problems()[0], RegistryProblem::DuplicateName { .. }),
        "{error}"
    );
}

#[test]
fn renderings_list_one_entry_per_name_and_the_mcp_listing_has_the_version() {
    let registry = three_versions().build().unwrap();
    let openai = registry.render(Provider::OpenAiChat);
    let names: Vec<&str> = openai
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            tool["function"]["name"]
                .as_str()
                .or(tool["name"].as_str())
                .unwrap()
        })
        .collect();
    assert_eq!(names, ["convert_length"]);
    let listed = mcp::tool(registry.specs().next().unwrap());
    assert_eq!(listed["_meta"], json!({mcp::META_VERSION: "2.0.0"}));
    let deprecated = mcp::tool(registry.resolve("convert_length@3.0.0").unwrap().spec());
    assert_eq!(
        deprecated["_meta"],
        json!({
            "io.github.tool-runtime/version": "3.0.0",
            "io.github.tool-runtime/deprecated": "use convert_length_v3",
        })
    );
    assert!(
        deprecated["description"]
            .as_str()
            .unwrap()
            .starts_with("[deprecated: use convert_length_v3]")
    );
}

#[tokio::test]
async fn the_mcp_server_lists_the_version_and_calls_held_and_deprecated_versions() {
    let registry = Registry::builder()
        .tool(convert_length("1.0.0", Some("use convert_length_v3")))
        .tool(convert_length("2.0.0", None))
        .build()
        .unwrap();
    let messages = super::mcp::mcp_session(
        registry,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "convert_length@1.0.0", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "convert_length", "arguments": {}}}),
        ],
    )
    .await;
    let answer = |id: u64| {
        messages
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {messages:?}"))
    };
    let tools = answer(1)["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "convert_length");
    assert_eq!(tools[0]["_meta"][mcp::META_VERSION], "2.0.0");
    assert!(tools[0]["_meta"].get(mcp::META_DEPRECATED).is_none());
    let held = &answer(2)["result"];
    assert_eq!(held["isError"], false, "{held}");
    assert_eq!(held["content"][0]["text"], "version 1.0.0");
    assert_eq!(answer(3)["result"]["content"][0]["text"], "version 2.0.0");
}

const CATALOG_FILE: &str = "tools:\n  - convert_length@1.0.0\n";
const BAD_PIN_FILE: &str = "tools:\n  - name: convert_length@7.0.0\n    aliases: [length]\n";

#[tokio::test]
async fn a_registry_file_pins_a_version_and_reports_an_unknown_one_where_it_is_written() {
    let versions: Vec<&'static dyn Tool> = vec![
        Box::leak(Box::new(convert_length("1.0.0", None))),
        Box::leak(Box::new(convert_length("2.0.0", None))),
    ];
    let catalog = Registry::builder().catalog(&versions);
    let manifest = Manifest::parse("tools.yaml", CATALOG_FILE).unwrap();
    assert_eq!(
        manifest.tool_names().collect::<Vec<_>>(),
        ["convert_length"]
    );
    let registry = manifest.build_with(catalog.clone()).unwrap();
    assert_eq!(
        call(&registry, "convert_length").await.text_content(),
        "version 1.0.0"
    );
    assert_eq!(
        call(&registry, "convert_length@2.0.0").await.text_content(),
        "version 2.0.0"
    );

    let manifest = Manifest::parse("tools.yaml", BAD_PIN_FILE).unwrap();
    let error = manifest.build_with(catalog).unwrap_err();
    assert_eq!(error.problems.len(), 1, "{error}");
    assert_eq!(
        error.problems[0].location,
        Some(Location {
            line: 2,
            column: 11
        })
    );
    assert_eq!(
        error.to_string(),
        "tools.yaml:2:11: no tool \"convert_length\" has the pinned version \"7.0.0\"; \
         its versions are 1.0.0, 2.0.0"
    );
}

/// `convert_length` at `version` whose arguments are `properties`.
fn convert_length_taking(version: &'static str, properties: Value) -> DynamicTool {
    DynamicTool::builder(
        "convert_length",
        "Converts a length between units.",
        json!({"type": "object", "properties": properties}),
    )
    .version(version)
    .handler(|_, _| Ok("converted"))
    .build()
    .unwrap()
}

#[tokio::test]
async fn a_schema_lockfile_keys_each_version_and_judges_changes_version_by_version() {
    let dir = tempfile::tempdir().unwrap();
    let lockfile = dir.path().join("tools.lock.json");
    let lockfile = lockfile.to_str().unwrap();
    let echo = || {
        DynamicTool::builder("echo", "Echoes.", json!({"type": "object"}))
            .handler(|_, _| Ok("echo"))
            .build()
            .unwrap()
    };
    let meters = || json!({"meters": {"type": "number"}});
    let registry = Registry::builder()
        .tool(convert_length_taking("1.0.0", meters()))
        .tool(convert_length_taking("2.0.0", meters()))
        .tool(echo())
        .build()
        .unwrap();
    let code = tool_cli::run_async(registry, ["toolbox", "schema", "--lock", lockfile]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let locked: Value = serde_json::from_str(&std::fs::read_to_string(lockfile).unwrap()).unwrap();
    let keys: Vec<&String> = locked["tools"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["convert_length@1.0.0", "convert_length@2.0.0", "echo"]
    );

    let check = |registry: Registry| {
        tool_cli::run_async(registry, ["toolbox", "schema", "--check", lockfile])
    };
    // The same tools, and a new version: nothing breaks.
    let same = Registry::builder()
        .tool(convert_length_taking("1.0.0", meters()))
        .tool(convert_length_taking("2.0.0", meters()))
        .tool(convert_length_taking("3.0.0", json!({})))
        .tool(echo())
        .build()
        .unwrap();
    assert_eq!(check(same).await, std::process::ExitCode::SUCCESS);
    // Version 1.0.0 changed its parameter: breaking, though the offered
    // version (2.0.0) is unchanged.
    let changed = Registry::builder()
        .tool(convert_length_taking(
            "1.0.0",
            json!({"feet": {"type": "number"}}),
        ))
        .tool(convert_length_taking("2.0.0", meters()))
        .tool(echo())
        .build()
        .unwrap();
    assert_eq!(check(changed).await, std::process::ExitCode::FAILURE);
    // Version 1.0.0 dropped: a tool removed, breaking.
    let dropped = Registry::builder()
        .tool(convert_length_taking("2.0.0", meters()))
        .tool(echo())
        .build()
        .unwrap();
    assert_eq!(check(dropped).await, std::process::ExitCode::FAILURE);
}
