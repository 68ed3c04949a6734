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

use std::collections::{BTreeMap, BTreeSet, HashMap};

use base64::Engine as _;
use serde_json::{Map, Value, json};
use tool_runtime::manifest::{Document, ManifestProblem, OpenApiEntry, pointer_token};
use ureq::http;

use super::Guard;
use super::schema::{Schemas, local_pointer};
use super::template::{Env, JsonTemplate, Part, Template};
use super::{
    Body, Context, Endpoint, LIMIT_KEYS, Loaded, LoadedTool, Problems, QueryParam, ToolShape,
    guard_for, limits, make_tool, output_schema, read_env,
};
use crate::http::{HttpConfig, Outgoing};

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

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The most bytes of an OpenAPI document fetched from a URL.
const MAX_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;

/// How a credential of `auth` is sent.
#[derive(Debug, Clone)]
enum Credential {
    Header(String, Template),
    Query(String, Template),
}

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
    let Some(source) = definition.get("document").and_then(Value::as_str) else {
        problems.at_key(
            "document",
            "missing `document`: the OpenAPI document's path (relative to this file) or URL",
        );
        loaded.problems.append(&mut problems.list);
        return;
    };
    let (text, from_url) = match read_document(context, source, &config) {
        Ok(read) => read,
        Err(message) => {
            problems.at_value("document", message);
            loaded.problems.append(&mut problems.list);
            return;
        }
    };
    let document = match Document::parse(&text) {
        Ok(document) => document,
        Err(error) => {
            problems.at_value(
                "document",
                format!("{source} is not valid JSON or YAML: {error}"),
            );
            loaded.problems.append(&mut problems.list);
            return;
        }
    };
    let mut reader = Reader {
        document: &document,
        source: source.to_owned(),
        from_url: from_url.is_some(),
        v30: false,
        notes: Vec::new(),
        errors: Vec::new(),
    };
    let doc = document.value();
    match (doc.get("openapi").and_then(Value::as_str), doc.get("swagger")) {
        (Some(version), _) if version.starts_with("3.0") => reader.v30 = true,
        (Some(version), _) if version.starts_with("3.1") => {}
        (Some(version), _) => reader.error(
            "/openapi",
            format!("OpenAPI {version} is not supported; this reads OpenAPI 3.0 and 3.1"),
        ),
        (None, Some(_)) => reader.error(
            "/swagger",
            "Swagger 2.0 is not supported; convert the document to OpenAPI 3 (swagger2openapi, or the Swagger editor)",
        ),
        (None, None) => reader.error("", "not an OpenAPI document: it has no `openapi` version"),
    }

    // Where the operations are.
    let base = base_url(
        definition,
        doc,
        from_url.as_ref(),
        &mut reader,
        &mut problems,
    );
    let guard = base
        .as_ref()
        .and_then(|(_, url)| match guard_for(url, config) {
            Ok(guard) => Some(guard),
            Err(message) => {
                problems.at_value("base_url", message);
                None
            }
        });

    let mut env = Env::default();
    let credentials = auth(context, definition, doc, &mut env, &mut problems);
    let mut extra_headers = Vec::new();
    if let Some(value) = definition.get("headers") {
        match value.as_object() {
            Some(pairs) => {
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
                    if let Err(error) =
                        crate::http::request_headers([(name.clone(), "x".to_owned())].into())
                    {
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
                read_env(context, templates, &mut env, &mut problems);
            }
            None => problems.at_value("headers", "`headers` maps each header's name to its value"),
        }
    }
    let filter = Filter::read(definition, &mut problems);
    let prefix = match definition.get("prefix") {
        None => String::new(),
        Some(Value::String(prefix)) => prefix.clone(),
        Some(_) => {
            problems.at_value("prefix", "`prefix` is text put before each tool's name");
            String::new()
        }
    };

    // The operations.
    let mut operations = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    let mut tags: BTreeSet<String> = BTreeSet::new();
    if let Some(paths) = doc.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            let item_pointer = format!("/paths/{}", pointer_token(path));
            let (item, item_pointer) = reader.follow(item, &item_pointer);
            let Some(item) = item.as_object() else {
                continue;
            };
            // In the document's order.
            for (key, operation) in item {
                let Some(method) = METHODS.iter().copied().find(|m| m == key) else {
                    continue;
                };
                if !operation.is_object() {
                    continue;
                }
                let pointer = format!("{item_pointer}/{method}");
                let id = operation.get("operationId").and_then(Value::as_str);
                let op_tags: Vec<String> = operation
                    .get("tags")
                    .and_then(Value::as_array)
                    .map(|t| {
                        t.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                ids.extend(id.map(str::to_owned));
                tags.extend(op_tags.iter().cloned());
                if !filter.keeps(id, &op_tags) {
                    continue;
                }
                let shown = format!("{} {path}", method.to_ascii_uppercase());
                if method == "trace" {
                    reader.note(
                        &pointer,
                        format!("{shown}: TRACE operations are not made into tools"),
                    );
                    continue;
                }
                operations.push(Operation {
                    path: path.clone(),
                    method,
                    pointer,
                    shown,
                    id: id.map(str::to_owned),
                    operation,
                    common: item.get("parameters"),
                    common_pointer: format!("{item_pointer}/parameters"),
                });
            }
        }
    } else if reader.errors.is_empty() {
        reader.error("", "the document has no `paths`");
    }
    filter.check(&ids, &tags, &mut problems);

    // Each operation a tool.
    let mut made: Vec<(String, String, ToolShape, Endpoint)> = Vec::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for operation in &operations {
        let base_name = match &operation.id {
            Some(id) => sanitize(id),
            None => {
                let name = sanitize(&format!("{}_{}", operation.method, operation.path));
                reader.note(
                    &operation.pointer,
                    format!(
                        "{}: the operation has no operationId; its tool is named \"{prefix}{name}\" from its method and path (give it an operationId for a stable name)",
                        operation.shown
                    ),
                );
                name
            }
        };
        let mut name = format!("{prefix}{base_name}");
        if name.len() > 64 {
            name.truncate(64);
            reader.note(
                &operation.pointer,
                format!(
                    "{}: the tool's name is cut to 64 characters: \"{name}\"",
                    operation.shown
                ),
            );
        }
        if name.is_empty() {
            reader.error(
                &operation.pointer,
                format!("{}: no tool name can be made", operation.shown),
            );
            continue;
        }
        if let Some(first) = names.get(&name) {
            reader.error(
                &operation.pointer,
                format!(
                    "{} makes the tool name \"{name}\", as {first} does; `exclude` one of them",
                    operation.shown
                ),
            );
            continue;
        }
        names.insert(name.clone(), operation.shown.clone());
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
            made.push((name, operation.pointer.clone(), shape, endpoint));
        }
    }

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
    let target = base
        .as_ref()
        .map(|(_, url)| url.origin().ascii_serialization())
        .unwrap_or_default();
    for (name, _, shape, endpoint) in made {
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

/// The document's text, and its URL when it was fetched.
fn read_document(
    context: &Context<'_>,
    source: &str,
    config: &HttpConfig,
) -> Result<(String, Option<url::Url>), String> {
    if source.starts_with("http://") || source.starts_with("https://") {
        let url = crate::http::parse_url(source).map_err(|error| error.to_string())?;
        let mut config = config.clone();
        config.max_response_bytes = config.max_response_bytes.max(MAX_DOCUMENT_BYTES);
        let guard = guard_for(&url, config)?;
        let response = guard
            .send(Outgoing {
                method: http::Method::GET,
                url: url.clone(),
                headers: http::HeaderMap::new(),
                body: None,
            })
            .map_err(|error| format!("cannot fetch {source}: {error}"))?;
        if !(200..300).contains(&response.status) {
            return Err(format!(
                "cannot fetch {source}: it answered {}",
                response.status
            ));
        }
        if response.truncated {
            return Err(format!(
                "{source} is larger than {MAX_DOCUMENT_BYTES} bytes"
            ));
        }
        let text = match response.body {
            Value::String(text) => text,
            json => serde_json::to_string_pretty(&json).unwrap_or_default(),
        };
        return Ok((text, Some(url)));
    }
    let path = context.base_dir.join(source);
    std::fs::read_to_string(&path)
        .map(|text| (text, None))
        .map_err(|error| format!("cannot read {}: {error}", path.display()))
}

/// Where the operations' requests go, as the base URL their paths are put
/// after (without a trailing `/`), and that URL parsed.
///
/// Only an origin the registry file names is a target: the entry's
/// `base_url`; else, for a document fetched from a URL, that URL's origin,
/// with the path of the document's first server. A server at another
/// origin is refused unless `allowed_origins` names it; a document read
/// from a file needs `base_url`.
fn base_url(
    definition: &Value,
    doc: &Value,
    from_url: Option<&url::Url>,
    reader: &mut Reader<'_>,
    problems: &mut Problems<'_>,
) -> Option<(String, url::Url)> {
    let allowed = allowed_origins(definition, problems);
    match definition.get("base_url") {
        Some(Value::String(text)) => {
            if allowed.is_some() {
                problems.at_key(
                    "allowed_origins",
                    "`allowed_origins` is for the document's `servers` entry, which `base_url` replaces: requests go to `base_url` alone; remove one of them",
                );
            }
            return match checked_base(text) {
                Ok(base) => Some(base),
                Err(message) => {
                    problems.at_value("base_url", message);
                    None
                }
            };
        }
        Some(_) => {
            problems.at_value(
                "base_url",
                "`base_url` is a URL such as \"https://api.example.com/v1\"",
            );
            return None;
        }
        None => {}
    }
    // The first server's URL, its variables at their defaults; no server
    // is the server "/" (OpenAPI's default).
    let server = doc
        .get("servers")
        .and_then(Value::as_array)
        .and_then(|servers| servers.first());
    let mut text = match server {
        Some(server) => server
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        None => "/".to_owned(),
    };
    for (name, variable) in server
        .and_then(|server| server.get("variables"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(default) = variable.get("default").and_then(Value::as_str) {
            text = text.replace(&format!("{{{name}}}"), default);
        }
    }
    let Some(document_url) = from_url else {
        let hint = match url::Url::parse(&text) {
            Ok(_) => format!(
                "; its first server is {text}: write `base_url: {text}` if the requests go there"
            ),
            Err(_) => String::new(),
        };
        problems.at_key(
            "document",
            format!(
                "set `base_url`: requests (with the credentials of `auth` and `headers`) go only to an origin the registry file names, and this document is read from a file{hint}"
            ),
        );
        return None;
    };
    let server_pointer = if server.is_some() {
        "/servers/0/url"
    } else {
        ""
    };
    if text.contains(['{', '}']) {
        reader.error(
            server_pointer,
            format!(
                "the server URL {text:?} has a placeholder with no default; set `base_url` in the registry file"
            ),
        );
        return None;
    }
    // A relative server URL (`/v1`, or `//host/v1`) is read against the
    // document's own URL.
    let resolved = match document_url.join(&text) {
        Ok(resolved) => resolved,
        Err(error) => {
            reader.error(
                server_pointer,
                format!(
                    "the server URL {text:?} is not a valid URL ({error}); set `base_url` in the registry file"
                ),
            );
            return None;
        }
    };
    let document_origin = document_url.origin();
    let origin = resolved.origin();
    if origin != document_origin
        && !allowed
            .as_ref()
            .is_some_and(|allowed| allowed.contains(&origin))
    {
        reader.error(
            server_pointer,
            format!(
                "the server {text} is refused: its origin, {origin}, is not the document's ({}), and requests (with the credentials of `auth` and `headers`) go only to an origin the registry file names; add \"{origin}\" to `allowed_origins` if it is meant, or set `base_url`",
                document_origin.ascii_serialization(),
                origin = origin.ascii_serialization(),
            ),
        );
        return None;
    }
    match checked_base(resolved.as_str()) {
        Ok(base) => Some(base),
        Err(message) => {
            reader.error(
                server_pointer,
                format!("{message}; set `base_url` in the registry file"),
            );
            None
        }
    }
}

/// `text` as a base URL: an http(s) URL with no query, fragment or
/// placeholder, without its trailing `/`.
fn checked_base(text: &str) -> Result<(String, url::Url), String> {
    let text = text.trim_end_matches('/').to_owned();
    let url =
        url::Url::parse(&text).map_err(|error| format!("{text:?} is not a valid URL ({error})"))?;
    crate::http::check_shape(&url).map_err(|error| error.to_string())?;
    if text.contains(['{', '}', '?', '#']) {
        return Err(format!(
            "{text:?} is not a base URL: it has a query, a fragment or a placeholder"
        ));
    }
    Ok((text, url))
}

/// The origins of `allowed_origins`, or `None` when the entry has none.
fn allowed_origins(definition: &Value, problems: &mut Problems<'_>) -> Option<Vec<url::Origin>> {
    let value = definition.get("allowed_origins")?;
    let Some(items) = value.as_array() else {
        problems.at_value(
            "allowed_origins",
            "`allowed_origins` is a list of origins, such as [\"https://api.example.com\"]",
        );
        return Some(Vec::new());
    };
    let mut origins = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("allowed_origins/{i}");
        match item.as_str().map(parse_origin) {
            Some(Ok(origin)) => origins.push(origin),
            Some(Err(message)) => problems.at_value(&key, message),
            None => problems.at_value(
                &key,
                "an origin is text, such as \"https://api.example.com:8443\"",
            ),
        }
    }
    Some(origins)
}

/// An origin as written in `allowed_origins`: a scheme, a host and an
/// optional port.
fn parse_origin(text: &str) -> Result<url::Origin, String> {
    let example =
        "write a scheme, a host and an optional port, such as \"https://api.example.com:8443\"";
    let url = url::Url::parse(text)
        .map_err(|error| format!("{text:?} is not an origin ({error}); {example}"))?;
    crate::http::check_shape(&url).map_err(|error| format!("{text:?}: {error}"))?;
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?} is not an origin: it has a path, a query or a fragment; {example}"
        ));
    }
    Ok(url.origin())
}

/// The credentials of `auth`, by security scheme name.
fn auth(
    context: &Context<'_>,
    definition: &Value,
    doc: &Value,
    env: &mut Env,
    problems: &mut Problems<'_>,
) -> BTreeMap<String, Credential> {
    let mut out = BTreeMap::new();
    let Some(given) = definition.get("auth") else {
        return out;
    };
    let Some(given) = given.as_object() else {
        problems.at_value("auth", "`auth` maps a security scheme's name to its credential, such as `api_key: ${PETSTORE_KEY}`");
        return out;
    };
    let schemes = doc
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    for (scheme_name, value) in given {
        let key = format!("auth/{}", pointer_token(scheme_name));
        let Some(scheme) = schemes.and_then(|s| s.get(scheme_name)) else {
            let names: Vec<&str> = schemes
                .into_iter()
                .flatten()
                .map(|(n, _)| n.as_str())
                .collect();
            let suggestion = tool_runtime::names::closest(scheme_name, names.iter().copied())
                .map(|s| format!("did you mean `{s}`? "))
                .unwrap_or_default();
            problems.at_key(
                &key,
                format!(
                    "the document has no security scheme `{scheme_name}`; {suggestion}its schemes are: {}",
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ),
            );
            continue;
        };
        let template = match value.as_str().map(Template::parse) {
            Some(Ok(template)) if template.params().next().is_none() => template,
            Some(Ok(_)) => {
                problems.at_value(
                    &key,
                    "a credential takes `${VAR}` and text, not `{parameter}`",
                );
                continue;
            }
            Some(Err(message)) => {
                problems.at_value(&key, message);
                continue;
            }
            None => {
                problems.at_value(&key, "a credential is text, such as \"${PETSTORE_KEY}\"");
                continue;
            }
        };
        read_env(context, [(key.clone(), &template)], env, problems);
        let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
        let http_scheme = scheme
            .get("scheme")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        let credential = match kind {
            "apiKey" => {
                let name = scheme
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                match scheme.get("in").and_then(Value::as_str) {
                    Some("header") => Credential::Header(name, template),
                    Some("query") => Credential::Query(name, template),
                    _ => {
                        problems.at_key(&key, format!("security scheme `{scheme_name}` sends its key in a cookie, which is not supported"));
                        continue;
                    }
                }
            }
            "http" if http_scheme == "basic" => {
                // `user:password`, sent base64-encoded; the encoded form is
                // a secret too.
                let plain = template
                    .render(&Map::new(), env, str::to_owned)
                    .unwrap_or_default();
                let encoded = format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(plain.as_bytes())
                );
                let secret = format!("{scheme_name}#basic");
                env.insert(secret.clone(), encoded);
                Credential::Header(
                    "Authorization".into(),
                    Template {
                        parts: vec![Part::Env(secret)],
                    },
                )
            }
            "http" | "oauth2" | "openIdConnect" if kind != "http" || http_scheme == "bearer" => {
                let mut parts = vec![Part::Text("Bearer ".into())];
                parts.extend(template.parts);
                Credential::Header("Authorization".into(), Template { parts })
            }
            _ => {
                problems.at_key(&key, format!("security scheme `{scheme_name}` ({kind} {http_scheme}) is not supported; use `headers` instead"));
                continue;
            }
        };
        out.insert(scheme_name.clone(), credential);
    }
    out
}

/// `include` and `exclude`: operationIds or tags.
struct Filter {
    include: Option<Vec<(String, String)>>,
    exclude: Vec<(String, String)>,
}

impl Filter {
    fn read(definition: &Value, problems: &mut Problems<'_>) -> Filter {
        let mut list = |key: &str| -> Option<Vec<(String, String)>> {
            let value = definition.get(key)?;
            let Some(items) = value.as_array() else {
                problems.at_value(key, format!("`{key}` is a list of operationIds and tags"));
                return Some(Vec::new());
            };
            Some(
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| match item.as_str() {
                        Some(text) => Some((text.to_owned(), format!("{key}/{i}"))),
                        None => {
                            problems.at_value(&format!("{key}/{i}"), "an operationId or a tag");
                            None
                        }
                    })
                    .collect(),
            )
        };
        Filter {
            include: list("include"),
            exclude: list("exclude").unwrap_or_default(),
        }
    }

    fn matches(entries: &[(String, String)], id: Option<&str>, tags: &[String]) -> bool {
        entries
            .iter()
            .any(|(entry, _)| Some(entry.as_str()) == id || tags.contains(entry))
    }

    fn keeps(&self, id: Option<&str>, tags: &[String]) -> bool {
        self.include
            .as_ref()
            .is_none_or(|include| Self::matches(include, id, tags))
            && !Self::matches(&self.exclude, id, tags)
    }

    /// An entry that names no operation and no tag is a mistake.
    fn check(&self, ids: &[String], tags: &BTreeSet<String>, problems: &mut Problems<'_>) {
        let all = self.include.iter().flatten().chain(&self.exclude);
        for (entry, key) in all {
            if ids.contains(entry) || tags.contains(entry) {
                continue;
            }
            let candidates = ids
                .iter()
                .map(String::as_str)
                .chain(tags.iter().map(String::as_str));
            let suggestion = tool_runtime::names::closest(entry, candidates)
                .map(|s| format!("; did you mean \"{s}\"?"))
                .unwrap_or_default();
            problems.at_value(
                key,
                format!(
                    "\"{entry}\" is neither an operationId nor a tag of the document{suggestion}"
                ),
            );
        }
    }
}

/// What every operation of an entry shares.
#[derive(Clone, Copy)]
struct Common<'a> {
    /// The base URL, without a trailing `/`.
    base: &'a str,
    /// The entry's credentials, by security scheme name.
    credentials: &'a BTreeMap<String, Credential>,
    /// The entry's `headers`.
    headers: &'a [(String, Template)],
    /// The values of the environment variables the entry names.
    env: &'a Env,
    guard: &'a Guard,
}

/// One operation to make a tool of.
struct Operation<'d> {
    path: String,
    method: &'static str,
    /// Its JSON pointer in the document.
    pointer: String,
    /// `GET /pet/{petId}`, for messages.
    shown: String,
    id: Option<String>,
    operation: &'d Value,
    /// The path item's parameters.
    common: Option<&'d Value>,
    common_pointer: String,
}

/// Walks the document: follows references, converts schemas, and keeps
/// what is wrong (errors) and worth knowing (notes), each naming its place
/// in the document.
struct Reader<'d> {
    document: &'d Document,
    source: String,
    from_url: bool,
    v30: bool,
    notes: Vec<String>,
    errors: Vec<String>,
}

impl<'d> Reader<'d> {
    /// `source:LINE:COLUMN` of the key of the value at `pointer` (the
    /// pointer itself for a document fetched from a URL, whose text was not
    /// kept).
    fn here(&self, pointer: &str) -> String {
        let at = self
            .document
            .key_location_of(pointer)
            .or_else(|| self.document.location_of(pointer));
        match at {
            Some(at) if !self.from_url => format!("{}:{}:{}", self.source, at.line, at.column),
            _ => format!("{}#{pointer}", self.source),
        }
    }

    fn error(&mut self, pointer: &str, message: impl std::fmt::Display) {
        let here = self.here(pointer);
        self.errors.push(format!("{here}: {message}"));
    }

    fn note(&mut self, pointer: &str, message: impl std::fmt::Display) {
        let here = self.here(pointer);
        self.notes.push(format!("{here}: {message}"));
    }

    /// `value`, or what its `$ref` points at, with its pointer.
    fn follow(&mut self, value: &'d Value, pointer: &str) -> (&'d Value, String) {
        let mut value = value;
        let mut pointer = pointer.to_owned();
        for _ in 0..16 {
            let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
                return (value, pointer);
            };
            match local_pointer(reference)
                .and_then(|p| Some((self.document.value().pointer(&p)?, p)))
            {
                Some((target, target_pointer)) => {
                    value = target;
                    pointer = target_pointer;
                }
                None => {
                    self.error(&pointer, format!("$ref {reference:?} does not resolve (only references within the document are followed)"));
                    return (&Value::Null, pointer);
                }
            }
        }
        (value, pointer)
    }

    /// The tool of `operation`, or `None` (with the reason in errors or
    /// notes).
    fn operation(
        &mut self,
        operation: &Operation<'d>,
        name: String,
        common: &Common<'_>,
    ) -> Option<(ToolShape, Endpoint)> {
        let Common {
            base,
            credentials,
            headers: extra_headers,
            env,
            guard,
        } = *common;
        let doc = self.document.value();
        let shown = &operation.shown;
        let op = operation.operation;
        let mut schemas = Schemas::new(doc, self.v30);
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut origin_of: HashMap<String, String> = HashMap::new();
        let mut path_params: HashMap<String, String> = HashMap::new();
        let mut query: Vec<QueryParam> = Vec::new();
        let mut headers: Vec<(String, Template)> = Vec::new();

        // The credentials this operation takes.
        let security = op.get("security").or_else(|| doc.get("security"));
        let mut applied: Vec<&Credential> = Vec::new();
        if let Some(requirements) = security.and_then(Value::as_array) {
            let covered = requirements
                .iter()
                .filter_map(Value::as_object)
                .find(|requirement| {
                    !requirement.is_empty()
                        && requirement
                            .keys()
                            .all(|scheme| credentials.contains_key(scheme))
                });
            if let Some(requirement) = covered {
                applied.extend(
                    requirement
                        .keys()
                        .filter_map(|scheme| credentials.get(scheme)),
                );
            }
        }
        let supplied = |inside: &str, name: &str| {
            applied.iter().any(|credential| match credential {
                Credential::Header(header, _) => {
                    inside == "header" && header.eq_ignore_ascii_case(name)
                }
                Credential::Query(param, _) => inside == "query" && param == name,
            })
        };

        // Parameters: the path item's, then the operation's (which win).
        let mut parameters: Vec<(&'d Value, String)> = Vec::new();
        for (list, list_pointer) in [
            (operation.common, operation.common_pointer.clone()),
            (
                op.get("parameters"),
                format!("{}/parameters", operation.pointer),
            ),
        ] {
            for (i, parameter) in list
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let (parameter, pointer) = self.follow(parameter, &format!("{list_pointer}/{i}"));
                let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
                parameters.retain(|(existing, _)| key(existing) != key(parameter));
                parameters.push((parameter, pointer));
            }
        }
        for (parameter, pointer) in parameters {
            let (Some(param_name), Some(inside)) = (
                parameter.get("name").and_then(Value::as_str),
                parameter.get("in").and_then(Value::as_str),
            ) else {
                self.error(
                    &pointer,
                    format!("{shown}: a parameter needs `name` and `in`"),
                );
                return None;
            };
            if inside == "header"
                && ["accept", "content-type", "authorization"]
                    .contains(&param_name.to_ascii_lowercase().as_str())
            {
                continue; // OpenAPI says these are ignored.
            }
            if supplied(inside, param_name) {
                continue; // `auth` gives it.
            }
            if inside == "header"
                && crate::http::request_headers([(param_name.to_owned(), "x".to_owned())].into())
                    .is_err()
            {
                self.note(
                    &pointer,
                    format!("{shown}: its header parameter \"{param_name}\" is left out: the tool sets that header itself, or it is not a valid header name"),
                );
                continue;
            }
            let is_required =
                inside == "path" || parameter.get("required") == Some(&Value::Bool(true));
            if inside == "cookie" {
                if is_required {
                    self.note(&pointer, format!("{shown}: left out: its cookie parameter \"{param_name}\" is required, and cookie parameters are not supported"));
                    return None;
                }
                self.note(
                    &pointer,
                    format!(
                        "{shown}: its cookie parameter \"{param_name}\" is left out (not supported)"
                    ),
                );
                continue;
            }
            let property = sanitize_property(param_name);
            if let Some(first) = origin_of.get(&property) {
                self.error(
                    &pointer,
                    format!("{shown}: the parameter \"{param_name}\" (in {inside}) is named twice: {first} has the name \"{property}\" too; `exclude` the operation"),
                );
                return None;
            }
            origin_of.insert(
                property.clone(),
                format!("the parameter \"{param_name}\" (in {inside})"),
            );
            let mut schema = match (
                parameter.get("schema"),
                parameter.get("content").and_then(Value::as_object),
            ) {
                (Some(schema), _) => schemas.convert(schema),
                (None, Some(content)) => content
                    .values()
                    .next()
                    .and_then(|media| media.get("schema"))
                    .map(|schema| schemas.convert(schema))
                    .unwrap_or_else(|| json!({"type": "string"})),
                (None, None) => json!({"type": "string"}),
            };
            if let (Some(description), Some(object)) = (
                parameter.get("description").and_then(Value::as_str),
                schema.as_object_mut(),
            ) && !object.contains_key("description")
            {
                object.insert("description".into(), json!(description));
            }
            properties.insert(property.clone(), schema);
            if is_required {
                required.push(json!(property));
            }
            match inside {
                "path" => {
                    path_params.insert(param_name.to_owned(), property);
                }
                "query" => {
                    let style = parameter
                        .get("style")
                        .and_then(Value::as_str)
                        .unwrap_or("form");
                    let explode = parameter
                        .get("explode")
                        .and_then(Value::as_bool)
                        .unwrap_or(style == "form");
                    query.push(QueryParam {
                        name: param_name.to_owned(),
                        value: Template::param(property),
                        explode,
                    });
                }
                "header" => headers.push((param_name.to_owned(), Template::param(property))),
                other => {
                    self.error(&pointer, format!("{shown}: a parameter `in: {other}` is not path, query, header or cookie"));
                    return None;
                }
            }
        }

        // The body.
        let mut body = Body::None;
        if let Some(request_body) = op.get("requestBody") {
            let body_pointer = format!("{}/requestBody", operation.pointer);
            let (request_body, body_pointer) = self.follow(request_body, &body_pointer);
            let body_required = request_body.get("required") == Some(&Value::Bool(true));
            let content = request_body.get("content").and_then(Value::as_object);
            let pick = |wanted: &dyn Fn(&str) -> bool| {
                content
                    .into_iter()
                    .flatten()
                    .find(|(media_type, _)| wanted(&media_type.to_ascii_lowercase()))
            };
            let json_media =
                pick(&|t| t == "application/json" || t.ends_with("+json") || t == "*/*");
            let form_media = pick(&|t| t == "application/x-www-form-urlencoded");
            let text_media = pick(&|t| t.starts_with("text/") || t == "application/octet-stream");
            let (mut schema, made) = if let Some((_, media)) = json_media {
                let schema = media
                    .get("schema")
                    .map(|s| schemas.convert(s))
                    .unwrap_or_else(|| json!({}));
                (schema, Body::Json(JsonTemplate::Param("body".into())))
            } else if let Some((_, media)) = form_media {
                let schema = media
                    .get("schema")
                    .map(|s| schemas.convert(s))
                    .unwrap_or_else(|| json!({"type": "object"}));
                (schema, Body::Form(JsonTemplate::Param("body".into())))
            } else if let Some((media_type, _)) = text_media {
                (
                    json!({"type": "string"}),
                    Body::Text("body".into(), media_type.clone()),
                )
            } else {
                let types: Vec<&str> = content
                    .into_iter()
                    .flatten()
                    .map(|(t, _)| t.as_str())
                    .collect();
                if body_required {
                    self.note(&body_pointer, format!("{shown}: left out: its body is {}, which is not supported (JSON, form and text bodies are)", types.join(" or ")));
                    return None;
                }
                self.note(
                    &body_pointer,
                    format!(
                        "{shown}: its optional body ({}) is left out (not supported)",
                        types.join(" or ")
                    ),
                );
                (Value::Null, Body::None)
            };
            if !matches!(made, Body::None) {
                if let Some(first) = origin_of.get("body") {
                    self.error(&body_pointer, format!("{shown}: the request body is named \"body\", as {first} is; `exclude` the operation"));
                    return None;
                }
                if let (Some(description), Some(object)) = (
                    request_body.get("description").and_then(Value::as_str),
                    schema.as_object_mut(),
                ) && !object.contains_key("description")
                {
                    object.insert("description".into(), json!(description));
                }
                properties.insert("body".into(), schema);
                if body_required {
                    required.push(json!("body"));
                }
                body = made;
            }
        }

        // The URL: the base, then the path with its parameters.
        let mut parts = vec![Part::Text(base.to_owned())];
        let mut rest = operation.path.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| c + open) else {
                break;
            };
            parts.push(Part::Text(rest[..open].to_owned()));
            let param = &rest[open + 1..close];
            match path_params.get(param) {
                Some(property) => parts.push(Part::Param(property.clone())),
                None => {
                    self.error(&operation.pointer, format!("{shown}: the path's {{{param}}} has no parameter `in: path` of that name"));
                    return None;
                }
            }
            rest = &rest[close + 1..];
        }
        parts.push(Part::Text(rest.to_owned()));
        parts.retain(|part| !matches!(part, Part::Text(text) if text.is_empty()));
        let url = Template { parts };

        // The answer, when the document describes a JSON 200.
        let mut outputs = Schemas::new(doc, self.v30);
        let success = op.pointer("/responses/200").map(|r| {
            self.follow(r, &format!("{}/responses/200", operation.pointer))
                .0
        });
        let success_schema = success
            .and_then(|response| response.get("content"))
            .and_then(Value::as_object)
            .and_then(|content| {
                content
                    .iter()
                    .find(|(t, _)| *t == "application/json" || t.ends_with("+json"))
                    .and_then(|(_, media)| media.get("schema"))
            })
            .map(|schema| outputs.convert(schema));
        let output = success_schema.map(|body| {
            let mut schema = output_schema(body);
            outputs.finish(&mut schema);
            schema
        });
        if output.is_some() {
            headers.push((
                "Accept".into(),
                Template {
                    parts: vec![Part::Text("application/json".into())],
                },
            ));
        }
        for credential in applied {
            match credential {
                Credential::Header(name, template) => {
                    headers.push((name.clone(), template.clone()))
                }
                Credential::Query(name, template) => query.push(QueryParam {
                    name: name.clone(),
                    value: template.clone(),
                    explode: false,
                }),
            }
        }
        headers.extend(extra_headers.iter().cloned());

        let mut input = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            input["required"] = Value::Array(required);
        }
        input["additionalProperties"] = json!(false);
        schemas.finish(&mut input);
        for message in schemas.errors.iter().chain(&outputs.errors) {
            let message = format!("{shown}: {message}");
            self.error(&operation.pointer, message);
        }
        if !schemas.errors.is_empty() || !outputs.errors.is_empty() {
            return None;
        }

        let text = |key: &str| {
            op.get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
        };
        let description = match (text("summary"), text("description")) {
            (Some(summary), Some(description)) if summary != description => {
                format!("{summary}\n\n{description}")
            }
            (Some(one), _) | (None, Some(one)) => one.to_owned(),
            (None, None) => shown.clone(),
        };
        let method = http::Method::from_bytes(operation.method.to_ascii_uppercase().as_bytes())
            .unwrap_or(http::Method::GET);
        let endpoint = Endpoint {
            shown: format!("{} {base}{}", method, operation.path),
            method,
            url,
            query,
            headers,
            body,
            defaults: Map::new(),
            env: env.clone(),
            guard: guard.clone(),
            has_output_schema: output.is_some(),
        };
        let shape = ToolShape {
            name,
            description,
            title: text("summary").map(str::to_owned),
            input_schema: input,
            output_schema: output,
        };
        Some((shape, endpoint))
    }
}

/// An operationId (or `method_path`) as a tool name: characters outside
/// `[a-zA-Z0-9_-]` become `_`, runs of `_` one, none at either end.
fn sanitize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end_matches('_').to_owned()
}

/// A parameter's name as a property name every provider takes
/// (`[a-zA-Z0-9_.-]`, 64 at most).
fn sanitize_property(raw: &str) -> String {
    let mut out: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out.truncate(64);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_provider_safe() {
        assert_eq!(sanitize("getPetById"), "getPetById");
        assert_eq!(sanitize("get_/pet/{petId}"), "get_pet_petId");
        assert_eq!(sanitize("pets.list v2"), "pets_list_v2");
        assert_eq!(sanitize_property("filter[name]"), "filter_name_");
    }
}
