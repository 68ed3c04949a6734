//! The `openapi` section: one tool per operation of an OpenAPI 3.0 or 3.1
//! document.
//!
//! The document is read as JSON (or YAML) with the registry file's own
//! reader, which knows the line and column of every value, and walked
//! here: the typed OpenAPI crates read one version each (`openapiv3`
//! refuses 3.1's type lists, `oas3` refuses 3.0 documents and 3.0's
//! boolean `exclusiveMinimum`), and both turn schemas into structs that
//! drop JSON Schema keywords they do not model, where a tool needs the
//! schema as JSON Schema, whole.
//!
//! [`load`] reads an entry in steps, each in a file of its own: reading
//! the document (`document`), where its requests may go (`origins`), the
//! credentials of `auth` (`auth`), which operations become tools and their
//! names (`operations`), and each operation's tool (`operation`, with its
//! schemas in `schemas`).

mod auth;
mod document;
mod operation;
mod operations;
mod origins;
mod schemas;

use std::collections::BTreeMap;

use serde_json::Value;
use tool_manifest::{ManifestProblem, pointer_token};

use super::template::{Env, Template};
use super::{
    Context, Endpoint, Guard, LIMIT_KEYS, Loaded, LoadedTool, OpenApiEntry, Problems, ToolShape,
    guard_for, limits, make_tool, read_env,
};
use crate::http::HttpConfig;
use document::Reader;
use operation::Common;
use operations::Filter;

const KEYS: [&str; 8] = [
    "document",
    "base_url",
    "allowed_origins",
    "include",
    "exclude",
    "prefix",
    "auth",
    "headers",
];

/// Reads one entry into tools, or into problems.
pub(super) fn load(context: &Context<'_>, entry: &OpenApiEntry, loaded: &mut Loaded) {
    let mut problems = Problems {
        manifest: context.manifest,
        pointer: entry.pointer.clone(),
        prefix: format!("OpenAPI \"{}\": ", entry.name),
        at: entry.location,
        list: Vec::new(),
    };
    let definition = &entry.definition;
    let known: Vec<&str> = KEYS.iter().chain(LIMIT_KEYS.iter()).copied().collect();
    problems.unknown_keys(
        definition,
        &known,
        "an OpenAPI entry has `document`, and optionally `base_url`, `allowed_origins`, `include`, `exclude`, `prefix`, `auth`, `headers` and limits (`timeout_ms`, ...)",
    );
    let config = limits(definition, &mut problems);
    let Some((document, source, from_url)) =
        document::open(context, definition, &config, &mut problems)
    else {
        loaded.problems.append(&mut problems.list);
        return;
    };
    let mut reader = Reader::new(&document, source, from_url.is_some());
    reader.check_version();
    let doc = document.value();

    // Where the operations are.
    let base = origins::base_url(
        definition,
        doc,
        from_url.as_ref(),
        &mut reader,
        &mut problems,
    );
    let guard = guard(base.as_ref(), config, &mut problems);

    let mut env = Env::default();
    let credentials = auth::auth(context, definition, doc, &mut env, &mut problems);
    let extra_headers = headers(context, definition, &mut env, &mut problems);
    let filter = Filter::read(definition, &mut problems);
    let prefix = prefix(definition, &mut problems);

    let operations = operations::collect(&mut reader, &filter, &mut problems);

    // Each operation a tool.
    let mut made: Vec<(String, ToolShape, Endpoint)> = Vec::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for operation in &operations {
        let Some(name) = operations::tool_name(&mut reader, operation, &prefix, &mut names) else {
            continue;
        };
        let (Some((base_text, _)), Some(guard)) = (&base, &guard) else {
            continue;
        };
        let common = Common {
            base: base_text,
            credentials: &credentials,
            headers: &extra_headers,
            env: &env,
            guard,
        };
        if let Some((shape, endpoint)) = reader.operation(operation, name.clone(), &common) {
            made.push((name, shape, endpoint));
        }
    }

    let target = base
        .as_ref()
        .map(|(_, url)| url.origin().ascii_serialization())
        .unwrap_or_default();
    finish(entry, reader, problems, made, target, loaded);
}

/// The guard of the tools' requests: to the base URL's host and port.
fn guard(
    base: Option<&(String, url::Url)>,
    config: HttpConfig,
    problems: &mut Problems<'_>,
) -> Option<Guard> {
    base.and_then(|(_, url)| match guard_for(url, config) {
        Ok(guard) => Some(guard),
        Err(message) => {
            problems.at_value("base_url", message);
            None
        }
    })
}

/// The entry's `headers`, sent with every call: `${VAR}` and text.
fn headers(
    context: &Context<'_>,
    definition: &Value,
    env: &mut Env,
    problems: &mut Problems<'_>,
) -> Vec<(String, Template)> {
    let mut extra_headers = Vec::new();
    let Some(value) = definition.get("headers") else {
        return extra_headers;
    };
    let Some(pairs) = value.as_object() else {
        problems.at_value("headers", "`headers` maps each header's name to its value");
        return extra_headers;
    };
    for (name, value) in pairs {
        let key = format!("headers/{}", pointer_token(name));
        let text = match value {
            Value::String(text) => text.clone(),
            Value::Number(_) | Value::Bool(_) => value.to_string(),
            _ => {
                problems.at_value(&key, "a header's value is text");
                continue;
            }
        };
        if let Err(error) = crate::http::request_headers([(name.clone(), "x".to_owned())].into()) {
            problems.at_key(&key, error);
            continue;
        }
        match Template::parse(&text) {
            Ok(template) if template.params().next().is_none() => {
                extra_headers.push((name.clone(), template))
            }
            Ok(_) => problems.at_value(
                &key,
                "a header of an OpenAPI entry takes `${VAR}` and text, not `{parameter}`",
            ),
            Err(message) => problems.at_value(&key, message),
        }
    }
    let templates: Vec<(String, &Template)> = extra_headers
        .iter()
        .map(|(name, template)| (format!("headers/{}", pointer_token(name)), template))
        .collect();
    read_env(context, templates, env, problems);
    extra_headers
}

/// The entry's `prefix` for the tools' names.
fn prefix(definition: &Value, problems: &mut Problems<'_>) -> String {
    match definition.get("prefix") {
        None => String::new(),
        Some(Value::String(prefix)) => prefix.clone(),
        Some(_) => {
            problems.at_value("prefix", "`prefix` is text put before each tool's name");
            String::new()
        }
    }
}

/// Reports what the reader found at the entry's `document`, and makes the
/// tools when the entry has no problem.
fn finish(
    entry: &OpenApiEntry,
    mut reader: Reader<'_>,
    mut problems: Problems<'_>,
    made: Vec<(String, ToolShape, Endpoint)>,
    target: String,
    loaded: &mut Loaded,
) {
    let document_at = problems.value_location("document");
    for message in reader.errors.drain(..) {
        problems.push(document_at, message);
    }
    loaded
        .notes
        .extend(reader.notes.drain(..).map(|message| ManifestProblem {
            location: Some(document_at),
            message: format!("OpenAPI \"{}\": {message}", entry.name),
        }));
    let failed = !problems.list.is_empty();
    loaded.problems.append(&mut problems.list);
    if failed {
        return;
    }
    for (name, shape, endpoint) in made {
        match make_tool(shape, endpoint) {
            Ok(tool) => loaded.tools.push(LoadedTool {
                tool,
                origin: format!("openapi:{}", entry.name),
                target: target.clone(),
                location: document_at,
            }),
            Err(message) => loaded.problems.push(ManifestProblem {
                location: Some(document_at),
                message: format!("OpenAPI \"{}\": tool \"{name}\": {message}", entry.name),
            }),
        }
    }
}
