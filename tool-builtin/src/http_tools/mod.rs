//! Tools from configuration: a registry file's `http_tools` (tools that
//! are one HTTP request each) and `openapi` (one tool per operation of an
//! OpenAPI 3.0 or 3.1 document) sections, made into `DynamicTool`s.
//!
//! ```yaml
//! http_tools:
//!   - name: get_item
//!     description: Fetches one item of the catalogue.
//!     url: https://api.example.com/items/{id}
//!     parameters:
//!       - id: {type: string, description: The item's id, required: true}
//!       - fields: {type: string, description: Which fields to return}
//!     query: [fields]
//!     headers: {Authorization: "Bearer ${API_TOKEN}"}
//! openapi:
//!   petstore:
//!     document: petstore.json
//!     base_url: https://petstore.example.com/v2
//!     include: [pet, getInventory]
//!     auth: {api_key: "${PETSTORE_KEY}"}
//! ```
//!
//! Every call goes out through `http_request`'s guards
//! ([`crate::http`]): only the tool's own host (of its URL, or of the
//! document's base URL) is reachable, redirects are followed only there,
//! each one checked before it is made, and one call has a time limit and
//! caps on the body sent and the response read. An OpenAPI document's
//! requests, and the credentials they carry, go only to an origin the
//! registry file names: the entry's `base_url`; else the origin of the URL
//! the document was fetched from, a `servers` entry at another origin
//! refused unless the entry's `allowed_origins` lists it; a document read
//! from a file needs `base_url`. Arguments are checked
//! against the tool's input schema before any request is made. A value
//! taken from the environment (`${VAR}`) is read at load and never shown:
//! not in errors, not in results, not in `Debug` output.
//!
//! The sections are [`HttpTools`] and [`OpenApi`] ([`SECTIONS`] holds
//! both): a [`Manifest`] parsed with them
//! ([`Manifest::parse_with`], [`Manifest::from_path_with`]) has their
//! entries, and [`load`] makes them tools; every mistake comes back at
//! once, each with its line and column, like the file's other mistakes:
//!
//! ```
//! use tool_builtin::http_tools;
//! use tool_manifest::Manifest;
//!
//! let manifest = Manifest::parse_with("tools.yaml", r#"
//! http_tools:
//!   - name: get_item
//!     description: Fetches one item.
//!     url: https://api.example.com/items/{idd}
//!     parameters:
//!       - id: {type: string, required: true}
//! "#, http_tools::SECTIONS).unwrap();
//! let loaded = http_tools::load(&manifest);
//! assert_eq!(
//!     loaded.error(&manifest).unwrap().to_string(),
//!     "tools.yaml:5:10: HTTP tool \"get_item\": unknown placeholder {idd} in `url`; \
//!      did you mean {id}? the parameters are: id\n\
//!      tools.yaml:7:9: HTTP tool \"get_item\": parameter \"id\" is used nowhere: \
//!      put {id} in `url`, `query`, `headers` or `body`, or remove it"
//! );
//! ```
//!
//! The guide is `docs/http-tools.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tool_manifest::{Location, Manifest, ManifestError, ManifestProblem};
use tool_runtime::{
    Registry, RegistryBuilder, Tool, ToolContext, ToolError, dynamic::DynamicTool, schema::strict,
    spec::ToolAnnotations,
};
use ureq::http;

use crate::http::{HostPattern, HttpConfig, Outgoing, request_headers, send};

/// Where an HTTP tool's requests may go (its own host and port) and the
/// limits they go out under.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    pub(crate) patterns: Vec<HostPattern>,
    pub(crate) config: HttpConfig,
}

impl Guard {
    /// Sends `request` through `http_request`'s guard code.
    pub(crate) fn send(&self, request: Outgoing) -> Result<crate::http::HttpResponse, ToolError> {
        send(request, &self.patterns, &self.config)
    }
}

mod declared;
mod openapi;
mod schema;
mod section;
mod template;

pub use section::{HttpToolEntry, HttpTools, OpenApi, OpenApiEntry, SECTIONS};

use template::{Env, JsonTemplate, Template, encode_segment, text_of};

/// The tools of a registry file's `http_tools` and `openapi` sections, with
/// what was wrong in them.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The tools made, in file order.
    pub tools: Vec<LoadedTool>,
    /// Things worth knowing that stop nothing (an OpenAPI operation with no
    /// `operationId`, named from its method and path), each at its place.
    pub notes: Vec<ManifestProblem>,
    /// The mistakes; when there is any, the sections are not usable.
    pub problems: Vec<ManifestProblem>,
}

/// One tool made from a registry file.
#[derive(Debug, Clone)]
pub struct LoadedTool {
    /// The tool.
    pub tool: DynamicTool,
    /// Where it comes from, for listings: `http:HOST` for an entry of
    /// `http_tools`, `openapi:NAME` for an operation of the `openapi`
    /// entry `NAME`.
    pub origin: String,
    /// The origin its requests go to, and nowhere else: scheme, host and
    /// port (when not the scheme's default), such as
    /// `https://api.example.com` or `http://127.0.0.1:8080`.
    pub target: String,
    /// Where it is defined in the registry file.
    pub location: Location,
}

impl Loaded {
    /// `builder` with every tool added.
    pub fn builder(&self, mut builder: RegistryBuilder) -> RegistryBuilder {
        for loaded in &self.tools {
            builder = builder.tool(loaded.tool.clone());
        }
        builder
    }

    /// The mistakes as the error of `manifest`'s file, in file order, or
    /// `None` when there is none.
    pub fn error(&self, manifest: &Manifest) -> Option<ManifestError> {
        if self.problems.is_empty() {
            return None;
        }
        let mut problems = self.problems.clone();
        problems.sort_by_key(|problem| problem.location.map(|at| (at.line, at.column)));
        Some(ManifestError {
            source: manifest.source().to_owned(),
            problems,
        })
    }

    /// The origin of each tool (where it comes from: `http:HOST`,
    /// `openapi:NAME`), by name.
    pub fn origins(&self) -> BTreeMap<String, String> {
        self.tools
            .iter()
            .map(|loaded| (loaded.tool.spec().name.to_string(), loaded.origin.clone()))
            .collect()
    }

    /// The origin each tool's requests go to (its [`LoadedTool::target`]),
    /// by name.
    pub fn targets(&self) -> BTreeMap<String, String> {
        self.tools
            .iter()
            .map(|loaded| (loaded.tool.spec().name.to_string(), loaded.target.clone()))
            .collect()
    }
}

/// Where `${VAR}` values come from.
type EnvLookup = Box<dyn Fn(&str) -> Option<String>>;

/// How [`load_with`] reads what a registry file points at.
pub struct LoadOptions {
    env: EnvLookup,
    base_dir: Option<PathBuf>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            env: Box::new(|name| std::env::var(name).ok()),
            base_dir: None,
        }
    }
}

impl LoadOptions {
    /// Values from this process's environment; OpenAPI documents' paths
    /// relative to the registry file's folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads `${VAR}` values from `lookup` instead of the environment.
    pub fn env(mut self, lookup: impl Fn(&str) -> Option<String> + 'static) -> Self {
        self.env = Box::new(lookup);
        self
    }

    /// Reads OpenAPI documents' relative paths from `dir` instead of the
    /// registry file's folder.
    pub fn base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = Some(dir.into());
        self
    }
}

/// The tools of `manifest`'s `http_tools` and `openapi` sections (read
/// when it was parsed with [`HttpTools`] and [`OpenApi`]), with values
/// from the environment and documents' paths relative to the file.
pub fn load(manifest: &Manifest) -> Loaded {
    load_with(manifest, &LoadOptions::default())
}

/// [`load`] with `options`.
pub fn load_with(manifest: &Manifest, options: &LoadOptions) -> Loaded {
    let mut loaded = Loaded::default();
    let base_dir = options.base_dir.clone().unwrap_or_else(|| {
        Path::new(manifest.source())
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    });
    let context = Context {
        manifest,
        env: options.env.as_ref(),
        base_dir: &base_dir,
    };
    for entry in manifest.section::<HttpTools>().into_iter().flatten() {
        declared::load(&context, entry, &mut loaded);
    }
    for entry in manifest.section::<OpenApi>().into_iter().flatten() {
        openapi::load(&context, entry, &mut loaded);
    }
    check_names(manifest, &mut loaded);
    loaded
}

/// Builds the registry `manifest` describes, its HTTP and OpenAPI tools
/// included; every mistake, in the sections or elsewhere in the file, is
/// in the error. Notes are dropped: use [`load`] to see them.
pub fn build(manifest: &Manifest) -> Result<Registry, ManifestError> {
    build_with(manifest, &LoadOptions::default(), Registry::builder())
}

/// [`build`] with `options`, starting from `builder`.
pub fn build_with(
    manifest: &Manifest,
    options: &LoadOptions,
    builder: RegistryBuilder,
) -> Result<Registry, ManifestError> {
    let loaded = load_with(manifest, options);
    let built = manifest.build_with(loaded.builder(builder));
    match (built, loaded.error(manifest)) {
        (Ok(registry), None) => Ok(registry),
        (Ok(_), Some(error)) => Err(error),
        (Err(mut error), more) => {
            error
                .problems
                .extend(more.map(|e| e.problems).unwrap_or_default());
            error
                .problems
                .sort_by_key(|problem| problem.location.map(|at| (at.line, at.column)));
            Err(error)
        }
    }
}

/// What loading one entry needs.
pub(crate) struct Context<'a> {
    pub(crate) manifest: &'a Manifest,
    pub(crate) env: &'a dyn Fn(&str) -> Option<String>,
    pub(crate) base_dir: &'a Path,
}

/// Two generated tools with one name, or one named like a linked tool the
/// file enables, are mistakes at the later one.
fn check_names(manifest: &Manifest, loaded: &mut Loaded) {
    let linked: Vec<&str> = manifest.tool_names().collect();
    let mut seen: BTreeMap<String, &LoadedTool> = BTreeMap::new();
    let mut problems = Vec::new();
    for tool in &loaded.tools {
        let name = tool.tool.spec().name.to_string();
        let other = if linked.contains(&name.as_str()) {
            "the linked tool of that name in `tools`".to_owned()
        } else if let Some(first) = seen.get(&name) {
            format!("{} at line {}", first.origin, first.location.line)
        } else {
            seen.insert(name, tool);
            continue;
        };
        problems.push(ManifestProblem {
            location: Some(tool.location),
            message: format!(
                "the tool name \"{name}\" ({}) is used twice: also by {other}; rename one (an OpenAPI entry takes a `prefix`)",
                tool.origin
            ),
        });
    }
    loaded.problems.extend(problems);
}

/// The problems of one entry, each at a place in the registry file.
pub(crate) struct Problems<'a> {
    pub(crate) manifest: &'a Manifest,
    /// The entry's JSON pointer (`/http_tools/0`).
    pub(crate) pointer: String,
    /// What every message starts with (`HTTP tool "get_item": `).
    pub(crate) prefix: String,
    /// Where the entry is, for problems with no better place.
    pub(crate) at: Location,
    pub(crate) list: Vec<ManifestProblem>,
}

impl Problems<'_> {
    /// A problem with the value of `key` (a path below the entry, such as
    /// `url` or `headers/Authorization`).
    pub(crate) fn at_value(&mut self, key: &str, message: impl std::fmt::Display) {
        let location = self.value_location(key);
        self.push(location, message);
    }

    /// A problem with the key `key` itself.
    pub(crate) fn at_key(&mut self, key: &str, message: impl std::fmt::Display) {
        let location = self
            .manifest
            .key_location_of(&format!("{}/{key}", self.pointer))
            .unwrap_or(self.at);
        self.push(location, message);
    }

    pub(crate) fn value_location(&self, key: &str) -> Location {
        let mut pointer = format!("{}/{key}", self.pointer);
        // The nearest value written, for a key below one that is missing.
        loop {
            if let Some(location) = self.manifest.location_of(&pointer) {
                return location;
            }
            match pointer.rfind('/') {
                Some(cut) if cut > self.pointer.len() => pointer.truncate(cut),
                _ => return self.at,
            }
        }
    }

    pub(crate) fn push(&mut self, location: Location, message: impl std::fmt::Display) {
        self.list.push(ManifestProblem {
            location: Some(location),
            message: format!("{}{message}", self.prefix),
        });
    }

    /// Unknown keys of the entry, each with the closest known one.
    pub(crate) fn unknown_keys(&mut self, definition: &Value, known: &[&str], what: &str) {
        let Some(object) = definition.as_object() else {
            return;
        };
        for key in object.keys() {
            if !known.contains(&key.as_str()) {
                let suggestion =
                    tool_runtime::__private::names::closest(key, known.iter().copied())
                        .map(|s| format!("did you mean `{s}`? "))
                        .unwrap_or_default();
                self.at_key(
                    &tool_manifest::pointer_token(key),
                    format!(
                        "unknown key `{}`; {suggestion}{what}",
                        tool_runtime::__private::quote::name(key)
                    ),
                );
            }
        }
    }
}

/// The keys that set an HTTP tool's limits, in an `http_tools` entry or an
/// `openapi` entry.
pub(crate) const LIMIT_KEYS: [&str; 5] = [
    "timeout_ms",
    "connect_timeout_ms",
    "max_response_bytes",
    "max_request_bytes",
    "max_redirects",
];

/// The limits an entry sets, over `http_request`'s defaults.
pub(crate) fn limits(definition: &Value, problems: &mut Problems<'_>) -> HttpConfig {
    let mut config = HttpConfig::default();
    for key in LIMIT_KEYS {
        let Some(value) = definition.get(key) else {
            continue;
        };
        let (min, max) = match key {
            "max_redirects" => (0, 20),
            "max_request_bytes" => (0, u64::MAX),
            _ => (1, u64::MAX),
        };
        match value.as_u64().filter(|n| (min..=max).contains(n)) {
            Some(n) => match key {
                "timeout_ms" => config.timeout_ms = n,
                "connect_timeout_ms" => config.connect_timeout_ms = n,
                "max_response_bytes" => config.max_response_bytes = n,
                "max_request_bytes" => config.max_request_bytes = n,
                _ => config.max_redirects = n as u32,
            },
            None if max == u64::MAX => {
                problems.at_value(key, format!("`{key}` is a whole number of at least {min}"))
            }
            None => problems.at_value(
                key,
                format!("`{key}` is a whole number from {min} to {max}"),
            ),
        }
    }
    config
}

/// The guard of a tool whose requests go to `url`'s host and port alone.
pub(crate) fn guard_for(url: &url::Url, config: HttpConfig) -> Result<Guard, String> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(0);
    let pattern = HostPattern::parse(&format!("{host}:{port}"))?;
    Ok(Guard {
        patterns: vec![pattern],
        config,
    })
}

/// Reads the values of the environment variables `templates` name into an
/// [`Env`]; an unset one is a problem at `key`, which never shows a value.
pub(crate) fn read_env<'t>(
    context: &Context<'_>,
    templates: impl IntoIterator<Item = (String, &'t Template)>,
    env: &mut Env,
    problems: &mut Problems<'_>,
) {
    for (key, template) in templates {
        for name in template.envs() {
            match (context.env)(name) {
                Some(value) => env.insert(name.to_owned(), value),
                None => problems.at_value(
                    &key,
                    format!(
                        "the environment variable {name} (in `{}`) is not set",
                        key.replace('/', ".")
                    ),
                ),
            }
        }
    }
}

/// How one argument goes into the query.
#[derive(Debug, Clone)]
pub(crate) struct QueryParam {
    pub(crate) name: String,
    pub(crate) value: Template,
    /// A list's items as repeated parameters (`tag=a&tag=b`) rather than
    /// joined with `,`.
    pub(crate) explode: bool,
}

/// How the body is made.
#[derive(Debug, Clone, Default)]
pub(crate) enum Body {
    /// No body.
    #[default]
    None,
    /// A JSON body.
    Json(JsonTemplate),
    /// An object argument sent as `application/x-www-form-urlencoded`.
    Form(JsonTemplate),
    /// A string argument sent as it is, with this Content-Type.
    Text(String, String),
}

/// One HTTP tool's request, ready to be filled with arguments.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub(crate) method: http::Method,
    /// The URL template: placeholders in its path only.
    pub(crate) url: Template,
    pub(crate) query: Vec<QueryParam>,
    pub(crate) headers: Vec<(String, Template)>,
    pub(crate) body: Body,
    /// Values for arguments not given.
    pub(crate) defaults: Map<String, Value>,
    /// Values from the environment: secrets.
    pub(crate) env: Env,
    pub(crate) guard: Guard,
    /// How messages name the request: `GET https://api.example.com/items/{id}`.
    pub(crate) shown: String,
    /// Whether the tool has an output schema (a response the size limit
    /// cut is then an error, since it could not fit it).
    pub(crate) has_output_schema: bool,
}

impl Endpoint {
    /// Makes the request for `args` (already checked against the input
    /// schema), sends it, and returns `{status, headers, body, truncated}`;
    /// an answer of 400 or more is an error. Secrets are taken out of
    /// every message and of the result.
    pub(crate) fn call(&self, args: &Value) -> Result<Value, ToolError> {
        self.call_inner(args).map_err(|error| {
            let text = self.env.redact(&error.to_string());
            ToolError::new(text)
        })
    }

    fn call_inner(&self, args: &Value) -> Result<Value, ToolError> {
        let mut args = args.as_object().cloned().unwrap_or_default();
        for (name, value) in &self.defaults {
            if args.get(name).is_none_or(Value::is_null) {
                args.insert(name.clone(), value.clone());
            }
        }
        for name in self.url.params() {
            if let Some(Value::String(text)) = args.get(name)
                && (text == "." || text == "..")
            {
                return Err(ToolError::new(format!(
                    "{name}: {text:?} cannot be a part of the URL's path"
                )));
            }
        }
        let Some(url) = self.url.render(&args, &self.env, encode_segment) else {
            let missing: Vec<&str> = self
                .url
                .params()
                .filter(|p| args.get(*p).is_none_or(Value::is_null))
                .collect();
            return Err(ToolError::new(format!(
                "{} needs a value for {}",
                self.shown,
                missing.join(", ")
            )));
        };
        let mut url = crate::http::parse_url(&url)?;
        {
            let mut pairs = url.query_pairs_mut();
            for param in &self.query {
                match param.value.single_param().map(|name| args.get(name)) {
                    Some(None | Some(Value::Null)) => {}
                    Some(Some(Value::Array(items))) if param.explode => {
                        for item in items.iter().filter_map(text_of) {
                            pairs.append_pair(&param.name, &item);
                        }
                    }
                    _ => {
                        if let Some(text) = param.value.render(&args, &self.env, str::to_owned) {
                            pairs.append_pair(&param.name, &text);
                        }
                    }
                }
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        let mut headers = BTreeMap::new();
        for (name, template) in &self.headers {
            if let Some(value) = template.render(&args, &self.env, str::to_owned) {
                headers.insert(name.clone(), value);
            }
        }
        let headers = request_headers(headers)?;
        let body = match &self.body {
            Body::None => None,
            Body::Json(template) => match template.render(&args, &self.env) {
                Some(value) => Some((
                    serde_json::to_vec(&value).map_err(ToolError::internal)?,
                    "application/json".to_owned(),
                )),
                None => None,
            },
            Body::Form(template) => template.render(&args, &self.env).map(|value| {
                let mut form = url::form_urlencoded::Serializer::new(String::new());
                for (key, item) in value.as_object().into_iter().flatten() {
                    match item {
                        Value::Array(items) => {
                            for item in items.iter().filter_map(text_of) {
                                form.append_pair(key, &item);
                            }
                        }
                        other => {
                            if let Some(text) = text_of(other) {
                                form.append_pair(key, &text);
                            }
                        }
                    }
                }
                (
                    form.finish().into_bytes(),
                    "application/x-www-form-urlencoded".to_owned(),
                )
            }),
            Body::Text(name, content_type) => args
                .get(name)
                .and_then(text_of)
                .map(|text| (text.into_bytes(), content_type.clone())),
        };
        let response = self.guard.send(Outgoing {
            method: self.method.clone(),
            url,
            headers,
            body,
        })?;
        let mut answer = json!({
            "status": response.status,
            "headers": response.headers,
            "body": response.body,
            "truncated": response.truncated,
        });
        self.env.redact_value(&mut answer);
        if response.status >= 400 {
            let body = match &answer["body"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            return Err(ToolError::new(format!(
                "{} answered {} {}: {}",
                self.shown,
                response.status,
                http::StatusCode::from_u16(response.status)
                    .ok()
                    .and_then(|status| status.canonical_reason())
                    .unwrap_or(""),
                clip(&body, 2000)
            )));
        }
        if response.truncated && self.has_output_schema {
            return Err(ToolError::new(format!(
                "the response of {} is larger than the limit of {} bytes (`max_response_bytes`)",
                self.shown, self.guard.config.max_response_bytes
            )));
        }
        Ok(answer)
    }
}

/// What the tools return: the output schema around a response body's.
pub(crate) fn output_schema(body: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {"type": "integer", "description": "The HTTP status code."},
            "headers": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "The response headers, names in lower case."
            },
            "body": body,
            "truncated": {"type": "boolean", "description": "Whether the body was cut at the size limit."}
        },
        "required": ["status", "headers", "body", "truncated"]
    })
}

/// The hints MCP clients get for `method`.
pub(crate) fn annotations(method: &http::Method) -> ToolAnnotations {
    let read_only = matches!(
        *method,
        http::Method::GET | http::Method::HEAD | http::Method::OPTIONS
    );
    ToolAnnotations {
        read_only: Some(read_only),
        destructive: Some(*method == http::Method::DELETE),
        idempotent: Some(read_only || matches!(*method, http::Method::PUT | http::Method::DELETE)),
        open_world: Some(true),
    }
}

/// The spec of a tool to make, before its handler.
pub(crate) struct ToolShape {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) title: Option<String>,
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
}

/// Makes the tool: strict for OpenAI whenever its schema can be, its
/// handler the endpoint's call on a blocking thread.
pub(crate) fn make_tool(shape: ToolShape, endpoint: Endpoint) -> Result<DynamicTool, String> {
    let endpoint = Arc::new(endpoint);
    let annotations = annotations(&endpoint.method);
    let build = |strict: bool| {
        let endpoint = Arc::clone(&endpoint);
        let mut builder = DynamicTool::builder(
            shape.name.clone(),
            shape.description.clone(),
            shape.input_schema.clone(),
        )
        .annotations(annotations)
        .blocking(true)
        .strict(strict)
        .handler(move |args: Value, _ctx: &ToolContext| endpoint.call(&args));
        if let Some(title) = &shape.title {
            builder = builder.title(title.clone());
        }
        if let Some(schema) = &shape.output_schema {
            builder = builder.output_schema(schema.clone());
        }
        builder.build().map_err(|error| error.to_string())
    };
    let tool = build(false)?;
    if strict::strict_input_schema(tool.spec()).is_ok() {
        return build(true);
    }
    Ok(tool)
}

/// `text` cut to at most `max` characters, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
