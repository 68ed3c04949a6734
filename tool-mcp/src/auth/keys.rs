//! The authorization server's metadata and signing keys, discovered on the
//! first token that needs them and kept: the metadata (RFC 8414, then
//! OpenID Connect discovery) once found, the JWKS for the configured
//! lifetime, fetched again for a key id it does not have, at most once per
//! the minimum interval.
//!
//! One fetch runs at a time; the requests that need it wait for it (each
//! fetch is bounded by the fetch timeout), then use what it found. When the
//! authorization server cannot be reached, keys fetched before still check
//! the tokens they signed; a token no known key checks is refused as
//! [`AuthError::Unavailable`] (the key may exist), and the server is not
//! asked again before the minimum interval has passed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily};
use serde_json::{Map, Value};

use super::error::AuthError;
use super::fetch::{FetchError, Fetcher};
use super::lock;
use super::{Limits, is_acceptable_endpoint};

/// What the authorization server's metadata says that the resource server
/// uses.
#[derive(Debug, Clone)]
pub(crate) struct AsMetadata {
    pub(crate) jwks_uri: Option<String>,
    pub(crate) introspection_endpoint: Option<String>,
}

#[derive(Default)]
struct State {
    metadata: Option<Arc<AsMetadata>>,
    keys: Option<Arc<Vec<Jwk>>>,
    /// When `keys` were fetched.
    fetched_at: Option<Instant>,
    /// When a fetch was last tried, and why it failed if it did.
    last_attempt: Option<Instant>,
    last_error: Option<String>,
}

/// The authorization server's metadata and keys, as far as fetched.
pub(crate) struct KeyStore {
    issuer: String,
    fetcher: Fetcher,
    limits: Limits,
    state: Mutex<State>,
    /// How many times keys were fetched: tokens checked against older keys
    /// are checked again (changed under `state`'s lock).
    generation: AtomicU64,
    /// Held by the one fetch running.
    fetching: tokio::sync::Mutex<()>,
}

/// A key that checks a token, and how long what it checked holds: until
/// `fresh_until` (the keys' lifetime; already past for keys kept while the
/// authorization server is out of reach), while the keys are of
/// `generation`.
pub(crate) struct FoundKey {
    pub(crate) jwk: Jwk,
    pub(crate) fresh_until: Instant,
    pub(crate) generation: u64,
}

impl KeyStore {
    pub(crate) fn new(issuer: String, fetcher: Fetcher, limits: Limits) -> Self {
        Self {
            issuer,
            fetcher,
            limits,
            state: Mutex::new(State::default()),
            generation: AtomicU64::new(0),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    pub(crate) fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    /// The generation of the keys: it changes with every fetch of them.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn unavailable(&self, reason: String) -> AuthError {
        AuthError::Unavailable {
            reason,
            retry_after: self.limits.min_refetch_interval,
        }
    }

    /// The key that checks a token signed with `alg` under key id `kid`.
    pub(crate) async fn key(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<FoundKey, AuthError> {
        if let Some(key) = self.known(kid, alg, true) {
            return Ok(key);
        }
        let _fetching = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(key) = self.known(kid, alg, true) {
            return Ok(key);
        }
        let (recent, last_error, have_keys) = {
            let state = lock(&self.state);
            let recent = state
                .last_attempt
                .is_some_and(|at| at.elapsed() < self.limits.min_refetch_interval);
            (recent, state.last_error.clone(), state.keys.is_some())
        };
        if recent {
            if let Some(key) = self.known(kid, alg, false) {
                return Ok(key);
            }
            return Err(match last_error {
                Some(error) => self.unavailable(error),
                None if have_keys => no_such_key(kid),
                None => self.unavailable("no keys fetched yet".to_owned()),
            });
        }
        match self.fetch_keys().await {
            Ok(()) => self.known(kid, alg, true).ok_or_else(|| no_such_key(kid)),
            Err(error) => {
                tracing::warn!(issuer = %self.issuer, %error, "the authorization server's keys could not be fetched");
                self.known(kid, alg, false)
                    .ok_or_else(|| self.unavailable(error))
            }
        }
    }

    /// The key among those known (only if still fresh, when `fresh`).
    fn known(&self, kid: Option<&str>, alg: Algorithm, fresh: bool) -> Option<FoundKey> {
        let state = lock(&self.state);
        let keys = state.keys.as_ref()?;
        let fresh_until = state.fetched_at? + self.limits.jwks_cache_lifetime;
        if fresh && fresh_until <= Instant::now() {
            return None;
        }
        Some(FoundKey {
            jwk: select(keys, kid, alg)?.clone(),
            fresh_until,
            generation: self.generation(),
        })
    }

    /// The authorization server's metadata, fetched if it is not yet.
    pub(crate) async fn metadata(&self) -> Result<Arc<AsMetadata>, AuthError> {
        if let Some(metadata) = lock(&self.state).metadata.clone() {
            return Ok(metadata);
        }
        let _fetching = self.fetching.lock().await;
        if let Some(metadata) = lock(&self.state).metadata.clone() {
            return Ok(metadata);
        }
        self.fetch_metadata().await.map_err(|error| {
            tracing::warn!(issuer = %self.issuer, %error, "the authorization server's metadata could not be fetched");
            self.unavailable(error)
        })
    }

    /// Fetches the keys (and the metadata first, if it is not known yet).
    async fn fetch_keys(&self) -> Result<(), String> {
        let started = Instant::now();
        lock(&self.state).last_attempt = Some(started);
        let result = self.try_fetch_keys().await;
        let mut state = lock(&self.state);
        match result {
            Ok(keys) => {
                state.keys = Some(Arc::new(keys));
                state.fetched_at = Some(started);
                state.last_error = None;
                self.generation.fetch_add(1, Ordering::AcqRel);
                Ok(())
            }
            Err(error) => {
                state.last_error = Some(error.clone());
                Err(error)
            }
        }
    }

    async fn try_fetch_keys(&self) -> Result<Vec<Jwk>, String> {
        let known = lock(&self.state).metadata.clone();
        let metadata = match known {
            Some(metadata) => metadata,
            None => self.fetch_metadata().await?,
        };
        let Some(jwks_uri) = &metadata.jwks_uri else {
            return Err(format!(
                "the metadata of {} has no jwks_uri: its tokens cannot be checked",
                self.issuer
            ));
        };
        let jwks = self
            .fetcher
            .get_json(jwks_uri)
            .await
            .map_err(|error| format!("the JWKS: {error}"))?;
        Ok(parse_jwks(&jwks))
    }

    /// Finds the metadata at the issuer's well-known locations, in order,
    /// and keeps it.
    async fn fetch_metadata(&self) -> Result<Arc<AsMetadata>, String> {
        let mut tried = Vec::new();
        for url in metadata_urls(&self.issuer) {
            match self.fetcher.get_json(&url).await {
                Ok(document) => {
                    let metadata = Arc::new(self.read_metadata(&url, &document)?);
                    lock(&self.state).metadata = Some(Arc::clone(&metadata));
                    return Ok(metadata);
                }
                // Not there: the next location may be.
                Err(FetchError::Status(status)) if status.is_client_error() => {
                    tried.push(format!("{url} ({status})"));
                }
                Err(error) => return Err(format!("the metadata: {error}")),
            }
        }
        Err(format!(
            "no authorization server metadata for {} (tried {})",
            self.issuer,
            tried.join(", ")
        ))
    }

    fn read_metadata(
        &self,
        url: &str,
        document: &Map<String, Value>,
    ) -> Result<AsMetadata, String> {
        let issuer = document.get("issuer").and_then(Value::as_str);
        if issuer != Some(self.issuer.as_str()) {
            return Err(format!(
                "the metadata at {url} names the issuer {issuer:?}, not {:?} (RFC 8414 §3.3)",
                self.issuer
            ));
        }
        let endpoint = |name: &str| -> Result<Option<String>, String> {
            match document.get(name).and_then(Value::as_str) {
                Some(url) if is_acceptable_endpoint(url) => Ok(Some(url.to_owned())),
                Some(url) => Err(format!(
                    "the metadata's {name} {url:?} is neither https nor http on a loopback host"
                )),
                None => Ok(None),
            }
        };
        Ok(AsMetadata {
            jwks_uri: endpoint("jwks_uri")?,
            introspection_endpoint: endpoint("introspection_endpoint")?,
        })
    }
}

fn no_such_key(kid: Option<&str>) -> AuthError {
    AuthError::InvalidToken(match kid {
        Some(kid) => format!("no key of the authorization server has the id {kid:?}"),
        None => "the token names no key id, and no single key of the authorization server \
                 fits its algorithm"
            .to_owned(),
    })
}

/// The keys of a JWKS document that can be read; the others (unknown key
/// types, curves) are skipped.
fn parse_jwks(document: &Map<String, Value>) -> Vec<Jwk> {
    let Some(keys) = document.get("keys").and_then(Value::as_array) else {
        return Vec::new();
    };
    keys.iter()
        .filter_map(|key| serde_json::from_value::<Jwk>(key.clone()).ok())
        .collect()
}

/// The key among `keys` for a token signed with `alg` under `kid`: the one
/// with that id, else (no `kid`) the only signing key that fits `alg`.
fn select<'a>(keys: &'a [Jwk], kid: Option<&str>, alg: Algorithm) -> Option<&'a Jwk> {
    let signing = |key: &&Jwk| {
        !matches!(
            key.common.public_key_use,
            Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
        )
    };
    match kid {
        Some(kid) => keys
            .iter()
            .filter(signing)
            .find(|key| key.common.key_id.as_deref() == Some(kid)),
        None => {
            let mut fitting = keys
                .iter()
                .filter(signing)
                .filter(|key| family_of(key) == Some(alg.family()));
            let key = fitting.next()?;
            fitting.next().is_none().then_some(key)
        }
    }
}

/// The algorithm family a key's type belongs to (none for secret keys and
/// unknown types).
pub(crate) fn family_of(key: &Jwk) -> Option<AlgorithmFamily> {
    match key.algorithm {
        AlgorithmParameters::RSA(_) => Some(AlgorithmFamily::Rsa),
        AlgorithmParameters::EllipticCurve(_) => Some(AlgorithmFamily::Ec),
        AlgorithmParameters::OctetKeyPair(_) => Some(AlgorithmFamily::Ed),
        _ => None,
    }
}

/// Where the metadata of `issuer` may be, in the order clients look: the
/// RFC 8414 location (path inserted after `/.well-known/...`), then OpenID
/// Connect discovery's (path appended), then the path-inserted form of the
/// latter.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = match issuer.find("://") {
        Some(scheme_end) => match issuer[scheme_end + 3..].find('/') {
            Some(slash) => issuer.split_at(scheme_end + 3 + slash),
            None => (issuer, ""),
        },
        None => (issuer, ""),
    };
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{issuer}/.well-known/openid-configuration"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/openid-configuration{path}"));
    }
    urls
}
