//! Building registries: from chosen tools, from linked tools by name or by
//! filter, the duplicate-name check, and the lookups.
//!
//! This test binary links two different tools named `dup` on purpose, so
//! the global registry of this binary is an error; the global registry of a
//! well-formed program is tested in `snapshots.rs`.

use std::sync::Arc;

use examples::{ConvertLengthTool, WeatherForecastTool};
use serde_json::json;
use tool_runtime::{
    Registry, Tool, ToolContext, ToolUse, registry::Linked, registry::RegistryProblem,
    spec::SourceLocation, tool,
};

// Link the example tools into this binary.
use examples as _;

/// Says which `dup` answered: the first one.
#[tool(name = "dup")]
fn dup_first() -> &'static str {
    "first"
}

mod other {
    use tool_runtime::tool;

    /// Says which `dup` answered: the second one.
    #[tool(name = "dup")]
    pub fn dup_second() -> &'static str {
        "second"
    }
}

/// Counts the characters of a word.
#[tool]
fn char_count(
    /// The word to measure
    word: String,
) -> usize {
    word.chars().count()
}

/// The line of this file that contains `needle`, counting from 1.
fn line_of(needle: &str) -> u32 {
    let source = include_str!("registry.rs");
    let index = source
        .lines()
        .position(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in this file"));
    u32::try_from(index + 1).unwrap()
}

fn dup_locations() -> (SourceLocation, SourceLocation) {
    (
        DupFirstTool::SPEC.location,
        other::DupSecondTool::SPEC.location,
    )
}

fn duplicate_message() -> String {
    let (first, second) = dup_locations();
    format!(
        "two tools are named \"dup\": one defined in {first}, one in {second}; \
         rename one with #[tool(name = \"...\")]"
    )
}

#[test]
fn tool_locations_point_at_the_definitions() {
    let (first, second) = dup_locations();
    assert_eq!(first.module, "registry");
    assert_eq!(second.module, "registry::other");
    assert!(first.file.ends_with("registry.rs"), "{}", first.file);
    assert_eq!(first.file, second.file);
    assert_eq!(first.line, line_of("fn dup_first()"));
    assert_eq!(second.line, line_of("pub fn dup_second()"));
    assert_eq!(
        first.to_string(),
        format!("registry ({}:{})", first.file, first.line)
    );
}

#[test]
fn two_tools_with_one_name_are_an_error_naming_both() {
    let error = Registry::builder()
        .tool(other::DupSecondTool)
        .tool(DupFirstTool)
        .tool(CharCountTool)
        .build()
        .unwrap_err();
    let (first, second) = dup_locations();
    // Reported in source order, whatever the order they were added in.
    assert_eq!(
        error.problems(),
        [RegistryProblem::DuplicateName {
            name: "dup".into(),
            first,
            second
        }]
    );
    assert_eq!(error.to_string(), duplicate_message());
}

#[test]
fn the_global_registry_of_this_binary_reports_the_duplicate() {
    let error = Registry::try_global().unwrap_err();
    assert_eq!(error.to_string(), duplicate_message());
    assert_eq!(error.problems().len(), 1);
    // The outcome is computed once and stays the same.
    assert!(std::ptr::eq(error, Registry::try_global().unwrap_err()));
}

#[test]
#[should_panic(expected = "two tools are named \"dup\"")]
fn the_global_registry_panics_on_a_duplicate() {
    let _ = Registry::global();
}

#[test]
fn adding_the_same_tool_twice_gives_one_tool() {
    let registry = Registry::builder()
        .tool(CharCountTool)
        .tool(CharCountTool)
        .linked(Linked::named(["char_count"]))
        .build()
        .unwrap();
    assert_eq!(registry.len(), 1);
    assert_eq!(registry.names().collect::<Vec<_>>(), ["char_count"]);
}

#[test]
fn linked_named_picks_linked_tools_by_name() {
    let registry = Registry::builder()
        .linked(Linked::named(["weather_forecast", "convert_length"]))
        .tool(CharCountTool)
        .build()
        .unwrap();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["char_count", "convert_length", "weather_forecast"]
    );
    assert_eq!(
        registry.get("weather_forecast").unwrap().spec().location,
        WeatherForecastTool::SPEC.location
    );
}

#[test]
fn linked_named_reports_unknown_names_with_a_suggestion() {
    let error = Registry::builder()
        .linked(Linked::named(["convert_lenght", "teleport", "char_count"]))
        .build()
        .unwrap_err();
    assert_eq!(
        error.problems(),
        [
            RegistryProblem::UnknownName {
                name: "convert_lenght".into(),
                suggestion: Some("convert_length".into()),
            },
            RegistryProblem::UnknownName {
                name: "teleport".into(),
                suggestion: None,
            },
        ]
    );
    assert_eq!(
        error.to_string(),
        "no linked tool is named \"convert_lenght\"; did you mean \"convert_length\"?\n\
         no linked tool is named \"teleport\""
    );
}

#[test]
fn linked_named_with_a_shared_name_reports_the_duplicate_and_other_problems() {
    let error = Registry::builder()
        .linked(Linked::named(["dup", "nope"]))
        .build()
        .unwrap_err();
    let messages: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "no linked tool is named \"nope\"".to_owned(),
            duplicate_message()
        ]
    );
}

#[test]
fn linked_matching_picks_linked_tools_by_spec() {
    let examples = Registry::builder()
        .linked(Linked::matching(|spec| spec.location.module == "examples"))
        .build()
        .unwrap();
    assert_eq!(
        examples.names().collect::<Vec<_>>(),
        [
            "account_balance",
            "convert_length",
            "schedule_meeting",
            "weather_forecast"
        ]
    );

    let no_dups = Registry::builder()
        .linked(Linked::matching(|spec| {
            spec.name != "dup" && spec.config.is_none()
        }))
        .build()
        .unwrap();
    assert!(no_dups.contains("char_count"));
    assert!(no_dups.contains("weather_forecast"));
    assert!(!no_dups.contains("dup"));

    let none = Registry::builder()
        .linked(Linked::matching(|_| false))
        .build()
        .unwrap();
    assert!(none.is_empty());
}

#[test]
fn linked_all_includes_both_duplicates() {
    let error = Registry::builder()
        .linked(Linked::all())
        .build()
        .unwrap_err();
    assert_eq!(error.to_string(), duplicate_message());
}

#[test]
fn lookups() {
    let registry = Registry::builder()
        .tool(WeatherForecastTool)
        .shared(Arc::new(ConvertLengthTool))
        .tool(CharCountTool)
        .build()
        .unwrap();

    assert_eq!(registry.len(), 3);
    assert!(!registry.is_empty());
    let names: Vec<&str> = registry.names().collect();
    assert_eq!(names, ["char_count", "convert_length", "weather_forecast"]);
    let spec_names: Vec<&str> = registry.specs().map(|spec| &*spec.name).collect();
    assert_eq!(spec_names, names);
    let iter_names: Vec<&str> = registry.iter().map(|tool| &*tool.spec().name).collect();
    assert_eq!(iter_names, names);
    let loop_names: Vec<&str> = (&registry)
        .into_iter()
        .map(|tool| &*tool.spec().name)
        .collect();
    assert_eq!(loop_names, names);

    assert!(registry.contains("convert_length"));
    assert!(!registry.contains("Convert_Length"));
    assert!(!registry.contains(""));
    let tool = registry.get("char_count").expect("registered");
    assert_eq!(tool.spec().description, "Counts the characters of a word.");
    assert!(registry.get("dup").is_none());

    assert_eq!(
        format!("{registry:?}"),
        r#"["char_count", "convert_length", "weather_forecast"]"#
    );

    let empty = Registry::builder().build().unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(empty.names().count(), 0);
}

#[tokio::test]
async fn a_built_registry_serves_its_tools_and_clones_share_them() {
    let registry = Registry::builder().tool(CharCountTool).build().unwrap();
    let copy = registry.clone();
    drop(registry);
    let result = copy
        .invoke(
            ToolUse::new("r1", "char_count", json!({"word": "héllo"})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(result.text_content(), "5");

    // Each `dup` answers when it is alone in a registry.
    for (tool, expected) in [
        (Arc::new(DupFirstTool) as Arc<dyn Tool>, "first"),
        (Arc::new(other::DupSecondTool), "second"),
    ] {
        let registry = Registry::builder().shared(tool).build().unwrap();
        let value = registry
            .call_json("dup", json!({}), &ToolContext::new())
            .await
            .unwrap();
        assert_eq!(value, json!(expected));
    }
    assert_eq!((dup_first(), other::dup_second()), ("first", "second"));
}

#[test]
fn linked_crates_keeps_to_the_named_crates() {
    // This binary links the example tools and its own (`dup` twice, `char_count`).
    let registry = Registry::builder()
        .linked(Linked::crates(["examples"]))
        .configure("search", json!({"api_key": "test-key"}))
        .build()
        .unwrap();
    assert!(registry.contains("convert_length"));
    assert!(
        registry
            .specs()
            .all(|spec| spec.location.module.split("::").next() == Some("examples")),
        "{:?}",
        registry.names().collect::<Vec<_>>()
    );
    assert!(!registry.contains("char_count") && !registry.contains("dup"));
    let none = Registry::builder()
        .linked(Linked::crates(["no_such_crate"]))
        .build()
        .unwrap();
    assert!(none.is_empty());
}

/// Counts to three; offered by name only.
#[tool(register = false)]
fn count_three() -> &'static str {
    "1 2 3"
}

#[test]
fn an_unregistered_tool_is_reached_by_value_or_from_a_catalogue_only() {
    assert!(Registry::linked_specs().all(|spec| spec.name != "count_three"));
    const OFFERED: &[&dyn Tool] = &[&CountThreeTool];
    // A catalogue adds nothing until a name picks from it.
    let unnamed = Registry::builder().catalog(OFFERED).build().unwrap();
    assert!(unnamed.is_empty());
    let named = Registry::builder()
        .catalog(OFFERED)
        .linked(Linked::named(["count_three", "convert_length"]))
        .build()
        .unwrap();
    assert_eq!(
        named.names().collect::<Vec<_>>(),
        ["convert_length", "count_three"]
    );
    // The same tool by value and by name is one tool.
    let both = Registry::builder()
        .tools(OFFERED)
        .catalog(OFFERED)
        .linked(Linked::named(["count_three"]))
        .build()
        .unwrap();
    assert_eq!(both.len(), 1);
    // A registry's tools are a catalogue for another (a registry file over a program's tools).
    let program = Registry::builder()
        .tool(CountThreeTool)
        .tool(ConvertLengthTool)
        .build()
        .unwrap();
    let chosen = Registry::builder()
        .catalog(&program)
        .linked(Linked::named(["count_three"]))
        .build()
        .unwrap();
    assert_eq!(chosen.names().collect::<Vec<_>>(), ["count_three"]);
    // Shared tools, and a list by reference, are catalogues too.
    let shared: Vec<Arc<dyn Tool>> = vec![Arc::new(CountThreeTool)];
    let listed: Vec<&'static dyn Tool> = OFFERED.to_vec();
    for builder in [
        Registry::builder().catalog(shared),
        Registry::builder().catalog(&listed),
    ] {
        let chosen = builder
            .linked(Linked::named(["count_three"]))
            .build()
            .unwrap();
        assert_eq!(chosen.names().collect::<Vec<_>>(), ["count_three"]);
    }
    let error = Registry::builder()
        .catalog(OFFERED)
        .linked(Linked::named(["count_thre"]))
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains(r#"did you mean "count_three"?"#),
        "{error}"
    );
}

/// Prints a long report.
#[tool(register = false, result_limit = "1KB")]
fn long_report() -> String {
    "a line of the report\n".repeat(1_000)
}

/// Reads back what a long report kept.
#[tool(register = false, name = "read_result")]
fn own_read_result(handle: String) -> String {
    handle
}

#[tokio::test]
async fn a_registry_whose_results_can_be_cut_offers_read_result_unless_told_not_to() {
    // A tool with a limit of its own: its cut result is readable.
    let limited = Registry::builder().tool(LongReportTool).build().unwrap();
    assert!(limited.get("read_result").is_some());
    let call = ToolUse::new("1", "long_report", json!({}));
    let result = limited.invoke(call, &ToolContext::new()).await;
    assert!(result.text_content().contains("read it with read_result"));
    let handle = result.full_result.clone().expect("the full result is kept");
    let page = limited
        .invoke(
            ToolUse::new("2", "read_result", json!({"handle": handle.as_str()})),
            &ToolContext::new(),
        )
        .await;
    assert!(page.is_success(), "{}", page.text_content());
    assert!(page.text_content().contains("a line of the report"));
    // A registry-wide limit too.
    let registry_wide = Registry::builder()
        .tool(ConvertLengthTool)
        .result_limit(tool_runtime::limits::ResultLimit::Bytes(4096))
        .build()
        .unwrap();
    assert!(registry_wide.get("read_result").is_some());
    // Nothing to cut, nothing to read.
    let unlimited = Registry::builder().tool(ConvertLengthTool).build().unwrap();
    assert!(unlimited.get("read_result").is_none());
    // Turned off, the marker names the handle alone.
    let off = Registry::builder()
        .tool(LongReportTool)
        .read_result(false)
        .build()
        .unwrap();
    assert!(off.get("read_result").is_none());
    let call = ToolUse::new("3", "long_report", json!({}));
    let text = off.invoke(call, &ToolContext::new()).await.text_content();
    assert!(text.contains("full result: handle r-"), "{text}");
    assert!(!text.contains("read_result"), "{text}");
    // A tool of the registry's own takes the name: it is kept, not an error.
    let own = Registry::builder()
        .tool(LongReportTool)
        .tool(OwnReadResultTool)
        .build()
        .unwrap();
    assert_eq!(own.get("read_result").unwrap().spec().params.len(), 1);
    let call = ToolUse::new("4", "long_report", json!({}));
    let text = own.invoke(call, &ToolContext::new()).await.text_content();
    assert!(!text.contains("read_result"), "{text}");
    // Asked for beside it, the clash is an error.
    let clash = Registry::builder()
        .tool(LongReportTool)
        .tool(OwnReadResultTool)
        .read_result(true)
        .build();
    assert!(clash.is_err());
}
