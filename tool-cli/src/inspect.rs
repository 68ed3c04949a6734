//! The commands that show the tools: `list`, `schema` and `config`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use serde_json::{Map, Value, json};
use tool_runtime::providers;
use tool_runtime::schema::compat::{self, Compatibility, ToolSchemas};
use tool_runtime::{Provider, registry::ToolReport};

use crate::Tools;
use crate::output::{
    clip, parameter_list, parameters, pretty, print_out, summary, table, terminal, type_label,
};

pub(crate) fn list(tools: &Tools, json: bool, all: bool) -> ExitCode {
    let registry = &tools.registry;
    tools.note_excluded();
    let aliases = registry.aliases();
    // Every tool the registry was given with `--all`, else the offered.
    let report: Vec<ToolReport<'_>> = registry
        .report()
        .into_iter()
        .filter(|entry| all || entry.availability.is_offered())
        .collect();
    if json {
        let tools: Vec<Value> = report
            .iter()
            .map(|entry| {
                let spec = entry.spec;
                let schema = spec.input_schema();
                let parameters: Vec<Value> = parameters(spec)
                    .into_iter()
                    .map(|(name, required, description)| {
                        let property = &schema["properties"][name.as_str()];
                        let mut entry = Map::new();
                        entry.insert("name".into(), name.into());
                        entry.insert("type".into(), type_label(property).into());
                        entry.insert("required".into(), required.into());
                        entry.insert("description".into(), description.into());
                        if let Some(default) = property.get("default") {
                            entry.insert("default".into(), default.clone());
                        }
                        Value::Object(entry)
                    })
                    .collect();
                let tool_aliases: Vec<&str> = aliases
                    .iter()
                    .filter(|(_, name)| *name == spec.name)
                    .map(|(alias, _)| *alias)
                    .collect();
                let mcp = providers::mcp::tool(spec);
                let mut json = json!({
                    "name": spec.name,
                    "source": tools.source(spec),
                    "title": spec.title,
                    "description": spec.description,
                    "parameters": parameters,
                    "aliases": tool_aliases,
                    "annotations": mcp.get("annotations").cloned().unwrap_or_else(|| json!({})),
                    "configurable": spec.config.is_some(),
                    "streaming": spec.streaming,
                });
                if let Some(version) = &spec.version {
                    json["version"] = json!(version);
                }
                if let Some(note) = &spec.deprecated {
                    json["deprecated"] = json!(note);
                }
                if all {
                    json["status"] = json!(entry.availability.to_string());
                }
                // Where an HTTP tool's requests go.
                if let Some(target) = tools.targets.get(spec.name.as_ref()) {
                    json["origin"] = json!(target);
                }
                json
            })
            .collect();
        return print_out(&pretty(&Value::Array(tools)));
    }
    if report.is_empty() {
        return print_out("no tools");
    }
    let versions = report.iter().any(|entry| entry.spec.version.is_some());
    let mut head = vec!["NAME".to_owned()];
    head.extend(versions.then(|| "VERSION".to_owned()));
    head.extend(["SOURCE", "DESCRIPTION", "PARAMETERS"].map(str::to_owned));
    head.extend(all.then(|| "STATUS".to_owned()));
    let mut rows = vec![head];
    rows.extend(report.iter().map(|entry| {
        let spec = entry.spec;
        // An OpenAPI tool's source names the entry: the origin its
        // requests go to follows (an `http:HOST` source names it already).
        let source = match (tools.source(spec), tools.targets.get(spec.name.as_ref())) {
            (source, Some(target)) if source.starts_with("openapi:") => {
                format!("{source} {target}")
            }
            (source, _) => source,
        };
        // A deprecated tool's description starts with the note, as the
        // model reads it.
        let mut row = vec![spec.name.to_string()];
        row.extend(versions.then(|| spec.version.as_deref().unwrap_or("-").to_owned()));
        row.extend([
            source,
            terminal(&summary(&spec.description), 72),
            parameter_list(spec),
        ]);
        row.extend(all.then(|| entry.availability.to_string()));
        row
    }));
    print_out(&table(&rows))
}

pub(crate) fn schema(tools: &Tools, name: Option<&str>, format: Provider) -> ExitCode {
    let registry = &tools.registry;
    let Some(name) = name else {
        return match registry.render(format) {
            Value::String(text) => print_out(&terminal(text.trim_end(), usize::MAX)),
            value => print_out(&pretty(value)),
        };
    };
    let spec = match tools.find(name) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    let position = registry.names().position(|n| n == spec.name);
    // The registry's own rendering (its strict switch included), entry by
    // entry; XML is rendered per tool.
    let rendered = registry.render(format);
    let entries = match rendered {
        Value::Array(items) => Some(items),
        Value::Object(object) => object.values().find_map(Value::as_array),
        _ => None,
    };
    let one = match (entries, position) {
        (Some(items), Some(i)) if i < items.len() => items[i].clone(),
        _ => providers::render_tool(format, spec),
    };
    match one {
        Value::String(text) => print_out(&terminal(text.trim_end(), usize::MAX)),
        value => print_out(&pretty(&value)),
    }
}

/// What a lockfile holds of the registry's tools: for each, its description
/// and schemas, which `--check` compares, and its definition in `format`,
/// for the record.
///
/// Entries are keyed `name@version` for a tool with a version (every
/// version the registry holds has its own, so changes are judged version
/// by version) and by the bare name for one without, as before versions.
/// Tools withheld for their requirements are locked too: what the
/// lockfile holds does not depend on the environment it is written in.
fn locked(tools: &Tools, format: Provider) -> Value {
    let mut entries = Map::new();
    for entry in tools.registry.report() {
        let spec = entry.spec;
        let schemas = ToolSchemas {
            description: spec.description.to_string(),
            input_schema: spec.input_schema().clone(),
            output_schema: spec.output_schema().cloned(),
        };
        let mut entry = match serde_json::to_value(schemas) {
            Ok(Value::Object(entry)) => entry,
            _ => Map::new(),
        };
        entry.insert("rendered".into(), providers::render_tool(format, spec));
        let key = match &spec.version {
            Some(version) => format!("{}@{version}", spec.name),
            None => spec.name.to_string(),
        };
        entries.insert(key, Value::Object(entry));
    }
    json!({"format": format.to_string(), "tools": entries})
}

/// `schema --tokens [--budget N]`: a table of each tool's tokens and the
/// total; exit code 1 over the budget.
#[cfg(feature = "tokens")]
pub(crate) fn tokens(tools: &Tools, format: Provider, budget: Option<usize>) -> ExitCode {
    let report = tool_tokens::report(&tools.registry, format);
    let mut rows = vec![vec!["TOOL".to_owned(), "TOKENS".to_owned()]];
    rows.extend(
        report
            .tools
            .iter()
            .map(|(name, count)| vec![name.clone(), count.to_string()]),
    );
    let mut text = table(&rows);
    let _ = write!(
        text,
        "\ntotal: {} tokens for {} tools ({format}, o200k_base)",
        report.total,
        report.tools.len()
    );
    let code = print_out(&text);
    match budget {
        Some(limit) if report.total > limit => {
            let over = tool_tokens::OverBudget { report, limit };
            eprintln!("error: {over}");
            ExitCode::FAILURE
        }
        _ => code,
    }
}

/// `schema --tokens` in a program built without the feature `tokens`.
#[cfg(not(feature = "tokens"))]
pub(crate) fn tokens(_: &Tools, _: Provider, _: Option<usize>) -> ExitCode {
    crate::usage_error(
        "--tokens: this program is built without tool-cli's `tokens` feature, so it counts \
         no tokens",
    )
}

/// `schema --lock FILE`: writes the lockfile.
pub(crate) fn lock(tools: &Tools, format: Provider, path: &Path) -> ExitCode {
    let text = pretty(&locked(tools, format)) + "\n";
    match std::fs::write(path, text) {
        Ok(()) => {
            let count = tools.registry.report().len();
            eprintln!("locked {count} tools in {}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: cannot write {}: {error}", path.display());
            ExitCode::FAILURE
        }
    }
}

/// `schema --check FILE`: every change since the lockfile, breaking ones
/// first; exit code 1 when any is breaking.
pub(crate) fn check(tools: &Tools, format: Provider, path: &Path) -> ExitCode {
    let old = std::fs::read_to_string(path)
        .map_err(|error| error.to_string())
        .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|error| error.to_string()))
        .and_then(|mut lockfile| {
            let tools = lockfile
                .get_mut("tools")
                .map(Value::take)
                .unwrap_or_default();
            serde_json::from_value::<BTreeMap<String, ToolSchemas>>(tools)
                .map_err(|error| format!("its `tools` are not a lockfile's: {error}"))
        });
    let old = match old {
        Ok(tools) => tools,
        Err(error) => {
            return crate::usage_error(format!(
                "cannot read the lockfile {}: {error}",
                path.display()
            ));
        }
    };
    let new: BTreeMap<String, ToolSchemas> =
        match serde_json::from_value(locked(tools, format)["tools"].take()) {
            Ok(new) => new,
            Err(error) => return crate::usage_error(error),
        };
    let mut changes = compat::compare(&old, &new);
    changes.sort_by_key(|change| change.compatibility);
    let breaking = changes
        .iter()
        .filter(|change| change.compatibility == Compatibility::Breaking)
        .count();
    let mut report = String::new();
    for change in &changes {
        let _ = writeln!(report, "{change}");
    }
    let count = match changes.len() {
        0 => "no changes".to_owned(),
        1 => "1 change".to_owned(),
        n => format!("{n} changes"),
    };
    let _ = write!(
        report,
        "{count} since {}: {breaking} breaking, {} compatible",
        path.display(),
        changes.len() - breaking
    );
    let code = print_out(&report);
    if breaking > 0 {
        ExitCode::FAILURE
    } else {
        code
    }
}

pub(crate) fn config(tools: &Tools, name: &str, json: bool) -> ExitCode {
    let registry = &tools.registry;
    // A tool left out for its configuration is what this command is for.
    let (spec, left_out) = match tools.left_out_spec(name) {
        Some((spec, problem)) => (spec, Some(problem)),
        None => match tools.find(name) {
            Ok(spec) => (spec.clone(), None),
            Err(code) => return code,
        },
    };
    let Some(config) = spec.config else {
        if json {
            return print_out(&pretty(&json!({"tool": spec.name, "configurable": false})));
        }
        return print_out(&format!("{} takes no configuration.", spec.name));
    };
    let schema = config.schema();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let defaults: Map<String, Value> = properties
        .iter()
        .filter_map(|(field, property)| {
            property
                .get("default")
                .map(|default| (field.clone(), default.clone()))
        })
        .collect();
    let prefix = tool_runtime::config::env_prefix(&spec.name);
    // Field names only: a configuration often holds secrets.
    let configured: Option<Vec<String>> = registry.config(&spec.name).map(|value| {
        value
            .json()
            .as_object()
            .map(|fields| fields.keys().cloned().collect())
            .unwrap_or_default()
    });
    if json {
        return print_out(&pretty(&json!({
            "tool": spec.name,
            "configurable": true,
            "type": config.type_name,
            "schema": schema,
            "defaults": defaults,
            "required": required,
            "env_prefix": prefix,
            "configured": configured,
            "left_out": left_out.map(ToString::to_string),
        })));
    }
    let mut out = format!(
        "{} takes a configuration ({}).\n\n",
        spec.name, config.type_name
    );
    let mut rows = vec![vec![
        "FIELD".to_owned(),
        "TYPE".to_owned(),
        "DEFAULT".to_owned(),
        "REQUIRED".to_owned(),
        "ENVIRONMENT".to_owned(),
        "DESCRIPTION".to_owned(),
    ]];
    for (field, property) in &properties {
        let default = property
            .get("default")
            .map_or_else(|| "-".to_owned(), Value::to_string);
        let is_required = if required.contains(&field.as_str()) {
            "yes"
        } else {
            "no"
        };
        let env = format!(
            "{prefix}{}",
            field
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                })
                .collect::<String>()
        );
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .map(summary)
            .unwrap_or_default();
        rows.push(vec![
            field.clone(),
            type_label(property),
            default,
            is_required.to_owned(),
            env,
            clip(&description, 60),
        ]);
    }
    out.push_str(&table(&rows));
    out.push_str("\n\n");
    match (left_out, &configured) {
        (Some(problem), _) => {
            let _ = write!(
                out,
                "Left out of this registry: {problem}.\nSet the fields in the environment \
                 ({prefix}<FIELD>) or in a registry file (--registry)."
            );
        }
        (None, Some(fields)) if fields.is_empty() => {
            out.push_str("Configured in this registry from the defaults alone.");
        }
        (None, Some(fields)) => {
            let _ = write!(
                out,
                "Configured in this registry; fields given: {} (values not shown).",
                fields.join(", ")
            );
        }
        (None, None) => out.push_str(
            "Not configured in this registry; set it in a registry file (--registry) or in code.",
        ),
    }
    out.push_str("\n\nSchema:\n");
    out.push_str(&pretty(schema));
    print_out(&out)
}
