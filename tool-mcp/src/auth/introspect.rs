//! Opaque access tokens, checked by asking the authorization server
//! (OAuth 2.0 Token Introspection, RFC 7662): a POST of the token to its
//! introspection endpoint, authenticated as the resource server's own
//! client (`client_secret_basic`). The answer must say `active`, name this
//! resource in `aud` and, when it says them, the issuer in `iss` and an
//! `exp` not past (with the leeway).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use super::Caller;
use super::ResourceServer;
use super::cache::Checked;
use super::error::AuthError;
use super::fetch::FetchError;

/// The resource server's own client at the authorization server, with
/// which it may introspect tokens, and where: [`ResourceServerBuilder::introspection`](super::ResourceServerBuilder::introspection).
///
/// Without it, opaque tokens (anything that is not a JWT) are refused.
#[derive(Clone, PartialEq, Eq)]
pub struct Introspection {
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
    pub(crate) endpoint: Option<String>,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspection")
            .field("client_id", &self.client_id)
            .field("client_secret", &"(hidden)")
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl Introspection {
    /// Introspection as client `client_id` with `client_secret`, at the
    /// `introspection_endpoint` of the authorization server's metadata.
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            endpoint: None,
        }
    }

    /// Introspects at `url` instead of the metadata's endpoint (https, or
    /// http on a loopback host).
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(url.into());
        self
    }
}

/// Checks the opaque `token` by introspection, as `server` is configured.
pub(crate) async fn validate(server: &ResourceServer, token: &str) -> Result<Checked, AuthError> {
    let inner = &server.inner;
    let Some(introspection) = &inner.config.introspection else {
        return Err(AuthError::InvalidToken(
            "the token is not a JWT, and this server does not introspect tokens".to_owned(),
        ));
    };
    let endpoint = match &introspection.endpoint {
        Some(endpoint) => endpoint.clone(),
        None => match inner.keys.metadata().await?.introspection_endpoint.clone() {
            Some(endpoint) => endpoint,
            None => {
                return Err(AuthError::Unavailable {
                    reason: "the authorization server's metadata has no introspection_endpoint"
                        .to_owned(),
                    retry_after: inner.config.limits.min_refetch_interval,
                });
            }
        },
    };
    let answer = inner
        .keys
        .fetcher()
        .post_form(
            &endpoint,
            &introspection.client_id,
            &introspection.client_secret,
            &[("token", token), ("token_type_hint", "access_token")],
        )
        .await;
    let answer = match answer {
        Ok(answer) => answer,
        Err(error) => {
            if let FetchError::Status(status) = &error {
                tracing::warn!(%endpoint, %status, "token introspection was refused");
            }
            return Err(AuthError::Unavailable {
                reason: format!("token introspection: {error}"),
                retry_after: inner.config.limits.min_refetch_interval,
            });
        }
    };
    Ok(Checked {
        caller: check(server, answer)?,
        keys: None,
    })
}

/// The caller an introspection answer describes, if it is one this
/// resource accepts.
fn check(server: &ResourceServer, answer: Map<String, Value>) -> Result<Caller, AuthError> {
    let config = &server.inner.config;
    let invalid = |text: &str| Err(AuthError::InvalidToken(text.to_owned()));
    if answer.get("active") != Some(&Value::Bool(true)) {
        return invalid("the token is not active");
    }
    if let Some(iss) = answer.get("iss")
        && iss.as_str() != Some(config.issuer.as_str())
    {
        return invalid("the token was issued by another issuer");
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let leeway = config.leeway.as_secs();
    if let Some(exp) = answer.get("exp").and_then(Value::as_u64)
        && exp.saturating_add(leeway) < now
    {
        return invalid("the token has expired");
    }
    if let Some(nbf) = answer.get("nbf").and_then(Value::as_u64)
        && nbf > now.saturating_add(leeway)
    {
        return invalid("the token is not valid yet (nbf)");
    }
    let mut caller = Caller::from_claims(answer);
    if !caller.audience.iter().any(|aud| aud == &config.resource) {
        return invalid("the token was not issued for this resource (aud)");
    }
    if caller.issuer.is_none() {
        caller.issuer = Some(config.issuer.clone());
    }
    Ok(caller)
}
