//! `resources/list`, `resources/templates/list`, `resources/read` and, in
//! revision 2025-11-25, `resources/subscribe` and `resources/unsubscribe`.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tool_runtime::ToolContext;

use super::{string_param, uri_data};
use crate::resources::{
    ReadRequest, Resource, ResourceError, ResourceSpec, ResourceUri, Resources, key,
};
use crate::server::McpServer;
use crate::server::output::Outbox;
use crate::server::revision::Caching;
use crate::server::session::{Session, lock};
use crate::server::wire::{INTERNAL_ERROR, RpcError};

/// `resources/list`: every resource at a fixed URI and each skill's
/// `SKILL.md`, in URI order, then the members each template lists (in the
/// templates' order, at most [`Resources::max_listed`] of each), asked for
/// at once with the request's `context`.
pub(super) async fn list(server: &McpServer, context: ToolContext) -> Value {
    let entries: Vec<Arc<dyn Resource>> = server
        .resources
        .iter()
        .flat_map(|resources| resources.list())
        .collect();
    let (fixed, templates): (Vec<_>, Vec<_>) = entries
        .iter()
        .partition(|resource| matches!(resource.spec().uri, ResourceUri::Fixed(_)));
    let mut resources: Vec<Value> = fixed
        .iter()
        .map(|resource| resource.spec().to_json())
        .collect();
    #[cfg(feature = "skills")]
    resources.extend(super::skills::listed(server));
    resources.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
    if let Some(collection) = &server.resources {
        let lists = templates
            .iter()
            .map(|template| template.list(context.clone()));
        let lists = futures_util::future::join_all(lists).await;
        let mut seen: HashSet<String> = resources
            .iter()
            .filter_map(|entry| entry["uri"].as_str().map(str::to_owned))
            .collect();
        for (template, listed) in templates.iter().zip(lists) {
            members(
                template.spec(),
                listed,
                collection,
                &mut seen,
                &mut resources,
            );
        }
    }
    json!({"resources": resources})
}

/// Adds the members `template` listed to `resources`: at most
/// [`Resources::max_listed`], at fixed URIs not `seen` yet.
fn members(
    template: &ResourceSpec,
    listed: Result<Vec<ResourceSpec>, ResourceError>,
    collection: &Resources,
    seen: &mut HashSet<String>,
    resources: &mut Vec<Value>,
) {
    let members = match listed {
        Ok(members) => members,
        Err(error) => {
            tracing::warn!(
                template = key(template),
                %error,
                "the template's members are left out of resources/list: listing them failed"
            );
            return;
        }
    };
    let limit = collection.max_listed();
    let mut listed = 0;
    for member in members {
        let ResourceUri::Fixed(uri) = &member.uri else {
            continue;
        };
        if seen.contains(uri.as_ref()) {
            continue;
        }
        if listed == limit {
            tracing::warn!(
                template = key(template),
                limit,
                "the template lists more members than resources/list gives of one \
                 template: the rest are left out"
            );
            return;
        }
        seen.insert(uri.to_string());
        resources.push(member.to_json());
        listed += 1;
    }
}

/// `resources/templates/list`: every URI template, in the order they are
/// matched.
pub(super) fn templates(server: &McpServer) -> Value {
    let templates: Vec<Value> = server
        .resources
        .iter()
        .flat_map(|resources| resources.list())
        .filter(|resource| matches!(resource.spec().uri, ResourceUri::Template(_)))
        .map(|resource| resource.spec().to_json())
        .collect();
    json!({"resourceTemplates": templates})
}

/// `-32602` "Resource not found", with the URI (SEP-2164, in every era).
pub(super) fn not_found(uri: &str) -> RpcError {
    RpcError::invalid_params("Resource not found").with_data(uri_data(uri))
}

/// The JSON-RPC error for `error`, a read of `uri`.
fn read_error(error: ResourceError, uri: &str) -> RpcError {
    match error {
        ResourceError::NotFound => not_found(uri),
        ResourceError::InvalidParams(reason) => {
            RpcError::invalid_params(format!("invalid resource URI: {reason}"))
                .with_data(json!({"uri": uri_data(uri)["uri"], "reason": reason}))
        }
        ResourceError::TooLarge { bytes, limit } => too_large(uri, bytes, limit),
        other => RpcError::new(INTERNAL_ERROR, other.to_string()).with_data(uri_data(uri)),
    }
}

/// `-32603`: the contents of `uri` are `bytes` long, over `limit`.
fn too_large(uri: &str, bytes: usize, limit: usize) -> RpcError {
    let error = ResourceError::TooLarge { bytes, limit };
    RpcError::new(INTERNAL_ERROR, error.to_string())
        .with_data(json!({"uri": uri_data(uri)["uri"], "bytes": bytes, "limit": limit}))
}

/// `resources/read`: the contents of the resource that answers for the
/// URI, with how they may be cached.
pub(super) async fn read(
    server: &McpServer,
    params: Option<&Map<String, Value>>,
    context: ToolContext,
) -> Result<(Value, Caching), RpcError> {
    let uri = string_param("resources/read", params, "uri")?;
    let found = server
        .resources
        .as_ref()
        .and_then(|resources| resources.resolve(uri));
    let (Some(resources), Some((resource, uri_params))) = (&server.resources, found) else {
        return Err(not_found(uri));
    };
    let request = ReadRequest::new(uri, uri_params, context);
    let contents = resource
        .read(request)
        .await
        .map_err(|error| read_error(error, uri))?;
    if contents.is_empty() {
        return Err(RpcError::new(
            INTERNAL_ERROR,
            "the resource gave no contents: a read gives at least one",
        )
        .with_data(uri_data(uri)));
    }
    let bytes = contents.iter().map(|item| item.body.len()).sum();
    let limit = resources.max_read_bytes();
    if bytes > limit {
        return Err(too_large(uri, bytes, limit));
    }
    let hint = resource.spec().cache;
    let ttl = hint.ttl.unwrap_or(server.limits.list_ttl);
    let caching = Caching {
        ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
        cache_scope: if hint.public { "public" } else { "private" },
    };
    let contents: Vec<Value> = contents.iter().map(|item| item.to_json()).collect();
    Ok((json!({"contents": contents}), caching))
}

impl<O: Outbox> Session<O> {
    /// `resources/subscribe` or `resources/unsubscribe` (revision
    /// 2025-11-25): the URI kept for `notifications/resources/updated`, or
    /// forgotten; any URI, served yet or not. At most the server's
    /// [`max_subscriptions`](McpServer::with_max_subscriptions) per
    /// session.
    pub(super) fn subscription(
        self: &Arc<Self>,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) -> Result<Value, RpcError> {
        let uri = string_param(method, params, "uri")?;
        let mut subscribed = lock(&self.content.subscribed);
        if method == "resources/unsubscribe" {
            subscribed.remove(uri);
            return Ok(json!({}));
        }
        let limit = self.server.limits.max_subscriptions;
        if !subscribed.contains(uri) && subscribed.len() >= limit {
            return Err(RpcError::new(
                INTERNAL_ERROR,
                format!(
                    "server busy: this session has {limit} subscriptions, the server's limit; \
                     unsubscribe from one first"
                ),
            )
            .with_data(json!({"maxSubscriptions": limit})));
        }
        subscribed.insert(uri.to_owned());
        drop(subscribed);
        self.watch_content();
        Ok(json!({}))
    }

    /// Whether the session subscribed to `uri`.
    pub(super) fn subscribed(&self, uri: &str) -> bool {
        lock(&self.content.subscribed).contains(uri)
    }
}
