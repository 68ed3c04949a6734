//! The MCP endpoint as an OAuth 2.1 resource server (feature `auth`): the
//! protected resource metadata served at its well-known paths, and each
//! request's bearer token checked from its head, before its body is read,
//! by the [`ResourceServer`] of [`HttpOptions`](super::HttpOptions). A
//! request it refuses is answered `401`, `403`, `400` or `503`, with the
//! `WWW-Authenticate` challenge and a JSON body
//! `{"error": …, "error_description": …}` as RFC 6750 has them. A
//! `tools/call` of a tool whose scopes the token lacks is refused `403`
//! the same way, before the call is dispatched.

use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, StatusCode};
use tool_runtime::ToolContext;

use super::MCP_PATH;
use super::body::{self, Reply};
use super::sessions::Shared;
use crate::auth::{AuthError, METADATA_PATH, ResourceServer};

/// The answer to a request for the protected resource metadata, when the
/// server has a resource server and `path` is one of the metadata's.
pub(super) fn metadata(shared: &Shared, method: &Method, path: &str) -> Option<Reply> {
    let resource_server = shared.options.resource_server.as_ref()?;
    let known = path == METADATA_PATH
        || path == resource_server.metadata_path()
        || path
            .strip_prefix(METADATA_PATH)
            .is_some_and(|rest| rest == MCP_PATH);
    if !known {
        return None;
    }
    if method != Method::GET && method != Method::HEAD {
        let mut reply = body::text(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: the protected resource metadata is read with GET",
        );
        reply
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(reply);
    }
    let document = resource_server.metadata_document().to_string();
    // hyper sends no body for HEAD.
    Some(body::json(StatusCode::OK, document.into_bytes()))
}

/// Checks the bearer token of a request to the MCP endpoint: the context
/// its calls start from, with its [`Caller`](tool_runtime::context::Caller)
/// (`None` when the server asks for no token), or the refusal to
/// answer with.
pub(super) async fn check(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<Option<ToolContext>, Box<Reply>> {
    let Some(resource_server) = shared.options.resource_server.as_ref() else {
        return Ok(None);
    };
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let value = values.next();
    let outcome = match (value, values.next()) {
        (Some(_), Some(_)) => Err(AuthError::InvalidRequest(
            "the request has more than one Authorization header".to_owned(),
        )),
        (Some(value), None) => match value.to_str() {
            Ok(value) => resource_server.check(Some(value)).await,
            Err(_) => Err(AuthError::InvalidRequest(
                "the Authorization header is not text".to_owned(),
            )),
        },
        (None, _) => resource_server.check(None).await,
    };
    match outcome {
        Ok(caller) => Ok(Some(shared.base_context().with_caller(caller))),
        Err(error) => Err(Box::new(refusal(resource_server, &error))),
    }
}

/// The refusal of a `tools/call` of the tool `name` (or alias) whose
/// [scopes](tool_runtime::ToolSpec::scopes) the caller on `context` was not
/// granted, checked with the server-wide scopes and those its scopes imply
/// ([`ResourceServer::authorize`]): `403` with `error="insufficient_scope"`
/// and, in `scope`, the tool's scopes and the server-wide ones, before the
/// call reaches its session, so that the client can ask for a token with
/// them and call again. `None` for a tool that needs none, one the registry
/// does not have (the call is answered for that), and a request without a
/// caller.
pub(super) fn tool_scopes(
    shared: &Shared,
    context: Option<&ToolContext>,
    name: &str,
) -> Option<Reply> {
    let resource_server = shared.options.resource_server.as_ref()?;
    let caller = context?.caller()?;
    let registry = shared.registry();
    let spec = registry.resolve(name)?.spec();
    if spec.scopes.is_empty() {
        return None;
    }
    let mut needed: Vec<&str> = spec.scopes.iter().map(|scope| &**scope).collect();
    for scope in resource_server.required_scopes() {
        if !needed.contains(&scope.as_str()) {
            needed.push(scope);
        }
    }
    let error = resource_server.authorize(caller, &needed).err()?;
    Some(refusal(resource_server, &error))
}

/// The answer refusing a request for `error`.
fn refusal(resource_server: &ResourceServer, error: &AuthError) -> Reply {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::UNAUTHORIZED);
    if let AuthError::Unavailable { reason, .. } = error {
        tracing::warn!(%reason, "an access token could not be checked");
    } else {
        tracing::debug!(%error, "a request's access token was refused");
    }
    let mut document = serde_json::Map::new();
    let code = error.code().unwrap_or(match error {
        AuthError::Unavailable { .. } => "temporarily_unavailable",
        _ => "unauthorized",
    });
    document.insert("error".into(), code.into());
    let description = match error {
        AuthError::MissingToken => Some("this server needs an access token".to_owned()),
        AuthError::Unavailable { .. } => Some(
            "the access token cannot be checked now: the authorization server is out of reach"
                .to_owned(),
        ),
        _ => error.description(),
    };
    if let Some(description) = description {
        document.insert("error_description".into(), description.into());
    }
    let mut reply = body::json(
        status,
        serde_json::Value::Object(document).to_string().into_bytes(),
    );
    let headers = reply.headers_mut();
    if let AuthError::Unavailable { retry_after, .. } = error {
        headers.insert(
            header::RETRY_AFTER,
            HeaderValue::from(retry_after.as_secs().max(1)),
        );
    } else if let Ok(challenge) = HeaderValue::from_str(&resource_server.challenge(error)) {
        headers.insert(header::WWW_AUTHENTICATE, challenge);
    }
    reply
}
