//! The protocol's two eras, request by request: the revisions with
//! `initialize` and sessions (2024-11-05 to 2025-11-25), and the stateless
//! revision 2026-07-28, whose requests say in their `_meta` which revision
//! they speak, what the client can do and which log messages it wants,
//! and whose results say what they are (`resultType`) and who answers
//! (`serverInfo` in their `_meta`).
//!
//! A request whose `_meta` names 2026-07-28 is served by that revision,
//! whatever came before it on the connection; `initialize` sets up a
//! session of an earlier one for the requests without it.

use serde::Serialize;
use serde_json::{Map, Value, json};
use tool_runtime::ToolContext;
use tool_runtime::events::LogLevel;

use super::McpServer;
use super::listing::Listed;
use super::wire::{RpcError, cut};

/// The protocol revisions a session can be set up with (`initialize`),
/// oldest first.
pub(super) const REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The revision without `initialize` nor sessions: each request says
/// which revision it speaks, and what the client can do, in its `_meta`.
pub(super) const STATELESS_REVISION: &str = "2026-07-28";
/// Where a request gives its revision.
pub(super) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Where a request gives the client's capabilities.
pub(super) const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Where a request gives the least severe log level it wants.
pub(super) const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Where a result names the server.
pub(super) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The tasks extension's name, in capabilities (see `tasks.rs`).
pub(super) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// MCP's "missing required client capability".
pub(super) const MISSING_CAPABILITY: i64 = -32021;
/// MCP's "unsupported protocol version".
pub(super) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Every revision served, newest first: `server/discover`'s
/// `supportedVersions`, and the `supported` of an unsupported version's
/// error.
pub(super) const SUPPORTED: [&str; 5] = [
    STATELESS_REVISION,
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// What a request of the stateless revision says of itself in `_meta`.
#[derive(Debug)]
pub(super) struct RequestMeta {
    /// The client's capabilities, for this request.
    pub(super) capabilities: Map<String, Value>,
    /// The least severe log message the client wants for this request;
    /// none when it asked for none.
    pub(super) log_level: Option<LogLevel>,
}

/// The era a request is served in.
#[derive(Debug)]
pub(super) enum Era {
    /// The revisions with `initialize`: the session's capabilities and log
    /// level.
    Session,
    /// The stateless revision: what the request's `_meta` says.
    Stateless(RequestMeta),
}

/// The `_meta` of a request's parameters, if it has one.
pub(super) fn meta_of(params: Option<&Map<String, Value>>) -> Option<&Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

/// Whether `meta` names the stateless revision.
pub(super) fn names_stateless(meta: Option<&Map<String, Value>>) -> bool {
    meta.and_then(|meta| meta.get(META_VERSION))
        .and_then(Value::as_str)
        == Some(STATELESS_REVISION)
}

/// The era of a request with `meta`: the stateless revision when `meta`
/// names it, else a session's when there is one (`session`), else the
/// revision `meta` names (a request may speak a session's revision
/// without one); or the error to answer with: `-32602` for `_meta`
/// missing what the revision requires, `-32022` for a revision the server
/// does not know.
pub(super) fn era(meta: Option<&Map<String, Value>>, session: bool) -> Result<Era, RpcError> {
    if names_stateless(meta) {
        return stateless(meta).map(Era::Stateless);
    }
    if session {
        return Ok(Era::Session);
    }
    let version = meta
        .and_then(|meta| meta.get(META_VERSION))
        .and_then(Value::as_str);
    let capabilities = meta
        .and_then(|meta| meta.get(META_CAPABILITIES))
        .filter(|capabilities| capabilities.is_object());
    let mut missing = Vec::new();
    if version.is_none() {
        missing.push(META_VERSION);
    }
    if capabilities.is_none() {
        missing.push(META_CAPABILITIES);
    }
    let Some(version) = version.filter(|_| missing.is_empty()) else {
        return Err(RpcError::invalid_params(format!(
            "request _meta is missing or has malformed required fields: {}",
            missing.join(", ")
        )));
    };
    if REVISIONS.contains(&version) {
        return Ok(Era::Session);
    }
    Err(unsupported_version(version))
}

/// The `_meta` of a request naming the stateless revision, read.
fn stateless(meta: Option<&Map<String, Value>>) -> Result<RequestMeta, RpcError> {
    let meta = meta.expect("the revision is named in it");
    let capabilities = match meta.get(META_CAPABILITIES) {
        Some(Value::Object(capabilities)) => capabilities.clone(),
        _ => {
            return Err(RpcError::invalid_params(format!(
                "request _meta is missing or has malformed required fields: {META_CAPABILITIES}"
            )));
        }
    };
    let log_level = match meta.get(META_LOG_LEVEL) {
        None | Some(Value::Null) => None,
        Some(level) => Some(serde_json::from_value(level.clone()).map_err(|_| {
            RpcError::invalid_params(format!(
                "invalid {META_LOG_LEVEL}: it must be one of debug, info, notice, warning, \
                 error, critical, alert, emergency"
            ))
        })?),
    };
    Ok(RequestMeta {
        capabilities,
        log_level,
    })
}

/// `-32022`: the revision `requested` is not one the server speaks.
pub(super) fn unsupported_version(requested: &str) -> RpcError {
    RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({"requested": cut(requested), "supported": SUPPORTED}))
}

/// `-32021`: the call needs the client capabilities `missing`, which the
/// request did not declare.
pub(super) fn missing_capabilities<'a>(missing: impl IntoIterator<Item = &'a str>) -> RpcError {
    let missing: Vec<&str> = missing.into_iter().collect();
    let required: Map<String, Value> = missing
        .iter()
        .map(|name| ((*name).to_owned(), Value::Object(Map::new())))
        .collect();
    RpcError::new(
        MISSING_CAPABILITY,
        format!(
            "Missing required client capability: {} (declare it in {META_CAPABILITIES})",
            missing.join(", ")
        ),
    )
    .with_data(json!({"requiredCapabilities": required}))
}

/// `-32601` for a method the stateless revision does not have (or the
/// server does not serve in it).
pub(super) fn not_in_stateless(method: &str) -> RpcError {
    RpcError::new(
        super::wire::METHOD_NOT_FOUND,
        format!(
            "method not found: {} (revision {STATELESS_REVISION} has server/discover, \
             tools/list, tools/call and subscriptions/listen here)",
            super::wire::quoted(method)
        ),
    )
}

/// The `_meta` of a result of the stateless revision: the server's name
/// and version, and `extra` entries.
pub(super) fn result_meta(server: &McpServer, extra: Option<(&str, Value)>) -> Map<String, Value> {
    let implementation = &server.implementation;
    let mut meta = Map::new();
    meta.insert(
        META_SERVER_INFO.into(),
        json!({"name": implementation.name, "version": implementation.version}),
    );
    if let Some((key, value)) = extra {
        meta.insert(key.into(), value);
    }
    meta
}

/// A result of the stateless revision: `resultType` `complete` and the
/// server's `_meta` added to `result` (a JSON object), next to any `_meta`
/// it has.
pub(super) fn complete(server: &McpServer, result: &mut Value) {
    let Value::Object(fields) = result else {
        return;
    };
    fields.insert("resultType".into(), "complete".into());
    let ours = result_meta(server, None);
    match fields.get_mut("_meta") {
        Some(Value::Object(meta)) => meta.extend(ours),
        _ => {
            fields.insert("_meta".into(), Value::Object(ours));
        }
    }
}

/// How a `tools/list` (and `server/discover`) result may be cached: fresh
/// for the server's list lifetime, and the same for every client
/// (`public`), but for a tool list that leaves out tools its caller lacks
/// scopes of (`private`).
#[derive(Serialize)]
pub(super) struct Caching {
    #[serde(rename = "ttlMs")]
    pub(super) ttl_ms: u64,
    #[serde(rename = "cacheScope")]
    pub(super) cache_scope: &'static str,
}

impl Caching {
    /// The server's caching hints.
    pub(super) fn of(server: &McpServer) -> Self {
        Self {
            ttl_ms: u64::try_from(server.limits.list_ttl.as_millis()).unwrap_or(u64::MAX),
            cache_scope: "public",
        }
    }

    /// The hints for `listed`'s tools as listed in `context`: `private`
    /// when some tool needs scopes and the context has a caller, whom the
    /// list is made for.
    pub(super) fn for_list(mut self, listed: &Listed, context: &ToolContext) -> Self {
        let scoped = || listed.registry.specs().any(|spec| !spec.scopes.is_empty());
        if context.caller().is_some() && scoped() {
            self.cache_scope = "private";
        }
        self
    }
}

/// The server's capabilities, in either era: with `extensions` naming the
/// tasks extension when the server serves tasks, the skills extension when
/// it serves skills; `resources` (with
/// `subscribe` and `listChanged`), `prompts` (with `listChanged`) and
/// `completions` when it serves resources or prompts.
pub(super) fn capabilities(server: &McpServer) -> Value {
    let mut capabilities = json!({"logging": {}, "tools": {"listChanged": true}});
    if server.tasks.is_some() {
        capabilities["extensions"] = json!({TASKS_EXTENSION: {}});
    }
    if server.resources.is_some() {
        capabilities["resources"] = json!({"subscribe": true, "listChanged": true});
    }
    if server.prompts.is_some() {
        capabilities["prompts"] = json!({"listChanged": true});
    }
    if server.resources.is_some() || server.prompts.is_some() {
        capabilities["completions"] = json!({});
    }
    #[cfg(feature = "skills")]
    if server.resources.as_ref().and_then(|r| r.skills()).is_some() {
        // The extension's entry: `{"io.modelcontextprotocol/skills": {"directoryRead": true}}`.
        capabilities["extensions"][crate::resources::skills::EXTENSION_ID] =
            json!({"directoryRead": true});
    }
    capabilities
}

/// The `server/discover` result: the revisions served, the capabilities,
/// the instructions, with caching hints and the server's `_meta`. Besides
/// the tools and logging, the stateless revision lists prompts and
/// resources (empty lists when the server serves none), so those
/// capabilities are always declared (resource subscriptions, with
/// `resources.subscribe`, go through `subscriptions/listen` there).
pub(super) fn discover(server: &McpServer) -> Value {
    let caching = Caching::of(server);
    let mut capabilities = capabilities(server);
    if capabilities["resources"].is_null() {
        capabilities["resources"] = json!({});
    }
    if capabilities["prompts"].is_null() {
        capabilities["prompts"] = json!({});
    }
    let mut result = json!({
        "resultType": "complete",
        "supportedVersions": SUPPORTED,
        "capabilities": capabilities,
        "ttlMs": caching.ttl_ms,
        "cacheScope": caching.cache_scope,
        "_meta": result_meta(server, None),
    });
    if let Some(instructions) = &server.instructions {
        result["instructions"] = instructions.as_str().into();
    }
    result
}
