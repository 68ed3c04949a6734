//! Why a request was refused ([`AuthError`]), and how the refusal is told
//! to the client: the status and the `WWW-Authenticate` challenge of
//! RFC 6750 §3, with the `resource_metadata` parameter of RFC 9728 §5.1.

use std::fmt;
use std::time::Duration;

/// Why a request's access token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// The request carried no access token (no `Authorization: Bearer`
    /// header): `401` with a challenge without `error` (RFC 6750 §3.1).
    MissingToken,
    /// The token is malformed, expired, not yet valid, not signed by the
    /// authorization server, not issued for this resource, or otherwise
    /// not acceptable: `401`, `error="invalid_token"`. The text says why
    /// (it goes to the client as `error_description`).
    InvalidToken(String),
    /// The `Authorization` header is not one bearer token (another scheme,
    /// several tokens, bad characters): `400`, `error="invalid_request"`.
    InvalidRequest(String),
    /// The token is valid but lacks scopes the request needs: `403`,
    /// `error="insufficient_scope"`, `scope` naming every scope needed.
    InsufficientScope {
        /// Every scope the request needs (those the token has included).
        needed: Vec<String>,
    },
    /// The token could not be checked: the authorization server (its
    /// metadata, its keys, its introspection endpoint) could not be
    /// reached or answered something unusable, and no keys known before
    /// check it. `503 Service Unavailable` with `Retry-After`: the token
    /// may well be good, so the client is not told to get another.
    Unavailable {
        /// What failed (logged; the client gets a generic text).
        reason: String,
        /// When to try again.
        retry_after: Duration,
    },
}

impl AuthError {
    /// The HTTP status the refusal is answered with.
    pub fn status(&self) -> u16 {
        match self {
            AuthError::MissingToken | AuthError::InvalidToken(_) => 401,
            AuthError::InvalidRequest(_) => 400,
            AuthError::InsufficientScope { .. } => 403,
            AuthError::Unavailable { .. } => 503,
        }
    }

    /// The RFC 6750 error code: `invalid_token`, `invalid_request`,
    /// `insufficient_scope`; none for a missing token, nor for an
    /// authorization server out of reach.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            AuthError::MissingToken | AuthError::Unavailable { .. } => None,
            AuthError::InvalidToken(_) => Some("invalid_token"),
            AuthError::InvalidRequest(_) => Some("invalid_request"),
            AuthError::InsufficientScope { .. } => Some("insufficient_scope"),
        }
    }

    /// The text for `error_description`, if the refusal has one.
    pub fn description(&self) -> Option<String> {
        match self {
            AuthError::MissingToken | AuthError::Unavailable { .. } => None,
            AuthError::InvalidToken(text) | AuthError::InvalidRequest(text) => Some(text.clone()),
            AuthError::InsufficientScope { needed } => Some(format!(
                "the access token lacks a scope this request needs (it needs {})",
                needed.join(" ")
            )),
        }
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::MissingToken => f.write_str("no access token"),
            AuthError::InvalidToken(text) => write!(f, "invalid access token: {text}"),
            AuthError::InvalidRequest(text) => write!(f, "invalid request: {text}"),
            AuthError::InsufficientScope { needed } => {
                write!(f, "insufficient scope: needs {}", needed.join(" "))
            }
            AuthError::Unavailable { reason, .. } => {
                write!(f, "the authorization server is unavailable: {reason}")
            }
        }
    }
}

impl std::error::Error for AuthError {}

/// The `WWW-Authenticate` value answering `error`: `Bearer` and its
/// parameters, every value quoted. `scope` is the server-wide scopes for
/// a `401`, the needed ones for a `403`; left out when empty.
pub(crate) fn challenge(error: &AuthError, resource_metadata: &str, scope: &[String]) -> String {
    let mut params: Vec<(&str, String)> = Vec::new();
    if let Some(code) = error.code() {
        params.push(("error", code.to_owned()));
    }
    if let Some(description) = error.description() {
        params.push(("error_description", description));
    }
    params.push(("resource_metadata", resource_metadata.to_owned()));
    let scope = match error {
        AuthError::InsufficientScope { needed } => needed.as_slice(),
        _ => scope,
    };
    if !scope.is_empty() {
        params.push(("scope", scope.join(" ")));
    }
    let params: Vec<String> = params
        .into_iter()
        .map(|(name, value)| format!("{name}=\"{}\"", quote(&value)))
        .collect();
    format!("Bearer {}", params.join(", "))
}

/// `value` as the inside of a quoted string (RFC 9110 §5.6.4): `"` and `\`
/// escaped, control characters and non-ASCII ones (not allowed in
/// RFC 6750's values) replaced with `?`.
fn quote(value: &str) -> String {
    let mut quoted = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            ' '..='~' => quoted.push(c),
            _ => quoted.push('?'),
        }
    }
    quoted
}
