//! The `[dependencies]` a guide shows are the ones its snippets need.
//!
//! The snippets of docs/adapters.md are doctests of this crate, those of
//! docs/mcp.md of the `tests` crate: both build with more than a page names
//! (every adapter feature, every dev-dependency), so a snippet that uses a
//! crate or a feature its page leaves out still passes there and fails for
//! whoever copies it. This test reads each Rust snippet and the TOML block
//! shown before it, and checks that every crate of the workspace's
//! dependencies the snippet names is in that block, with the features the
//! snippet calls for.

use std::collections::BTreeSet;

const WORKSPACE: &str = include_str!("../../Cargo.toml");
const MANIFESTS: [&str; 2] = [
    include_str!("../Cargo.toml"),
    include_str!("../../tests/Cargo.toml"),
];

/// What a snippet that contains `needle` needs of `krate`: `feature`.
const FEATURES: &[(&str, &str, &str)] = &[
    ("tool-adapters", "tool_adapters::rig::", "rig"),
    (
        "tool-adapters",
        "tool_adapters::async_openai::",
        "async-openai",
    ),
    ("tool-adapters", "tool_adapters::genai::", "genai"),
    ("tool-mcp", "traceparent", "otel"),
    ("tool-tasks", "RedisTaskStore", "redis"),
    // `OpenAIConfig::client()`: the shared reqwest transport.
    ("rig-core", ".client()", "reqwest"),
    ("async-openai", ".chat()", "chat-completion"),
    ("async-openai", ".responses()", "responses"),
    ("opentelemetry_sdk", "InMemorySpanExporter", "testing"),
    ("tokio", "#[tokio::main]", "macros"),
    ("tokio", "#[tokio::main]\n", "rt-multi-thread"),
    ("tokio", "tokio::io::", "io-util"),
];

const LEFT_OUT: &str = "left out of the [dependencies] before it";

/// The crates a snippet could use unnamed in the doctests: the workspace's
/// dependencies and those of the two crates that run the guides.
fn known_crates() -> BTreeSet<String> {
    let mut crates = BTreeSet::new();
    for manifest in MANIFESTS.iter().chain([&WORKSPACE]) {
        let mut in_table = false;
        for line in manifest.lines() {
            if line.starts_with('[') {
                in_table = line.ends_with("dependencies]");
            } else if in_table && let Some((name, _)) = line.split_once(" = ") {
                let name = name.trim_end_matches(".workspace");
                if !name.starts_with('#') {
                    crates.insert(name.replace('-', "_"));
                }
            }
        }
    }
    crates
}

/// The code blocks of `page` in order, each as its language and its text
/// (rust blocks as rustdoc compiles them: `# ` hidden lines included).
fn blocks(page: &str) -> Vec<(&str, String)> {
    let mut blocks = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let Some(tags) = line.strip_prefix("```") else {
            continue;
        };
        let lang = tags.split(',').next().unwrap_or_default();
        let mut text = String::new();
        for line in lines.by_ref().take_while(|line| !line.starts_with("```")) {
            let line = match line.strip_prefix("# ") {
                Some(hidden) if lang == "rust" => hidden,
                _ if lang == "rust" && line == "#" => "",
                _ => line,
            };
            text.push_str(line);
            text.push('\n');
        }
        blocks.push((lang, text));
    }
    blocks
}

/// The dependency line of `krate` in a `[dependencies]` block.
fn dependency<'a>(toml: &'a str, krate: &str) -> Option<&'a str> {
    toml.lines().find(|line| {
        line.split_once(" = ")
            .is_some_and(|(name, _)| name.replace('-', "_") == krate.replace('-', "_"))
    })
}

/// What is wrong with the snippets of `page` against the blocks before them.
fn problems(name: &str, page: &str) -> Vec<String> {
    let known = known_crates();
    let mut problems = Vec::new();
    let mut toml: Option<String> = None;
    let mut snippets = 0;
    for (lang, text) in blocks(page) {
        match lang {
            "toml" if text.starts_with("[dependencies]") => toml = Some(text),
            "rust" => {
                snippets += 1;
                let first = text
                    .lines()
                    .find(|line| !line.is_empty())
                    .unwrap_or_default();
                let Some(toml) = &toml else {
                    problems.push(format!("{name}: no [dependencies] before `{first}`"));
                    continue;
                };
                let used: BTreeSet<&str> = text
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                    .filter_map(|word| word.split_once("::").map(|(root, _)| root))
                    .filter(|root| known.contains(*root))
                    .collect();
                for krate in used {
                    if dependency(toml, krate).is_none() {
                        problems.push(format!("{name}: `{first}` uses {krate}, {LEFT_OUT}"));
                    }
                }
                for (krate, needle, feature) in FEATURES {
                    if !text.contains(needle) {
                        continue;
                    }
                    match dependency(toml, krate) {
                        Some(line) if line.contains(&format!("\"{feature}\"")) => {}
                        _ => problems.push(format!(
                            "{name}: `{first}` needs {krate} with `{feature}` ({needle:?}), {LEFT_OUT}"
                        )),
                    }
                }
            }
            _ => {}
        }
    }
    if snippets == 0 {
        problems.push(format!("{name}: no Rust snippet"));
    }
    problems
}

/// The part of `page` from the heading `heading` to the next of its level.
fn section<'a>(page: &'a str, heading: &str) -> &'a str {
    let start = page.find(&format!("\n{heading}\n")).expect("the section") + 1;
    let end = page[start + heading.len()..]
        .find("\n## ")
        .map_or(page.len(), |end| start + heading.len() + end);
    &page[start..end]
}

#[test]
fn the_adapters_guide_names_what_its_snippets_use() {
    let problems = problems("docs/adapters.md", include_str!("../../docs/adapters.md"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_mcp_traces_snippet_names_what_it_uses() {
    let page = include_str!("../../docs/mcp.md");
    let problems = problems("docs/mcp.md#traces", section(page, "## Traces"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_snippet_without_its_crates_is_caught() {
    let page = "```toml\n[dependencies]\ntool-runtime = \"0.1\"\n\
                tool-adapters = { version = \"0.1\", features = [\"genai\"] }\n```\n\n\
                ```rust,no_run\nuse rig_core::providers::openai::OpenAIConfig;\n\
                # #[tokio::main]\n# async fn main() {\n\
                let _ = OpenAIConfig::from_env().unwrap().client();\n\
                tool_adapters::rig::tools;\n# }\n```\n";
    let problems = problems("page", page);
    let said = |what: &str| problems.iter().any(|problem| problem.contains(what));
    assert!(said("uses rig_core"), "{problems:#?}");
    assert!(said("uses tokio"), "{problems:#?}");
    assert!(said("tool-adapters with `rig`"), "{problems:#?}");
    assert!(said("rig-core with `reqwest`"), "{problems:#?}");
    assert!(said("tokio with `macros`"), "{problems:#?}");
    assert_eq!(problems.len(), 6, "{problems:#?}");
}

#[test]
fn the_tracing_snippet_names_what_it_uses() {
    let page = include_str!("../../docs/context-and-streaming.md");
    let problems = problems(
        "docs/context-and-streaming.md#tracing",
        section(page, "## Tracing"),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
