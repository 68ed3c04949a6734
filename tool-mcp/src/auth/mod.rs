//! The MCP server as an OAuth 2.1 resource server (feature `auth`), as
//! MCP's authorization specification asks of a server over HTTP: every
//! request carries an access token, checked before its body is read.
//!
//! A [`ResourceServer`] says which authorization server issues the tokens
//! (its issuer identifier), which resource they must be issued for (this
//! server's canonical URI, the `aud` of RFC 8707), and which scopes every
//! request needs. Given to
//! [`HttpOptions::resource_server`](crate::server::HttpOptions::resource_server),
//! it makes the server:
//!
//! - serve its Protected Resource Metadata (RFC 9728) at
//!   `/.well-known/oauth-protected-resource` and at the path-inserted
//!   `/.well-known/oauth-protected-resource/mcp`, to anyone (`GET`);
//! - answer a request without a token `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`, one with
//!   a token it does not accept `401` with `error="invalid_token"`, and one
//!   whose token lacks a required scope `403` with
//!   `error="insufficient_scope"` and the scopes needed (RFC 6750 §3);
//! - hand the [`Caller`] the token describes to each tool it calls for
//!   that request, on the call's
//!   [`ToolContext`](tool_runtime::ToolContext): `ctx.caller()`.
//!
//! Tokens that are JWTs (RFC 9068) are checked locally against the
//! authorization server's keys: the signature with the key the header's
//! `kid` names in the server's JWKS (asymmetric algorithms only, the
//! header's `alg` one the configuration allows and of the key's type),
//! `iss` equal to the issuer, `aud` naming the resource (exactly, and
//! required), `exp` (required) and `nbf` with the leeway, and `typ`
//! `at+jwt` or `JWT` (or none). Opaque tokens are introspected (RFC 7662)
//! when [`Introspection`] is configured, refused otherwise.
//!
//! Nothing is fetched when the server starts: the authorization server's
//! metadata (RFC 8414 `/.well-known/oauth-authorization-server`, then
//! OpenID Connect discovery; its `issuer` must equal the configured one
//! exactly) and its JWKS are fetched for the first token, and kept. The
//! JWKS is fetched again when its lifetime has passed, or for a key id it
//! does not have (a key rotated in), at most once per
//! [`min_refetch_interval`](ResourceServerBuilder::min_refetch_interval).
//! While the authorization server cannot be reached, the keys fetched
//! before still check tokens; a token no known key checks gets
//! `503 Service Unavailable` with `Retry-After` (the token may be good: a
//! `401` would send the client for another one, in vain). Every fetch has a
//! timeout and a size limit.
//!
//! A token accepted is remembered (by its SHA-256 digest, up to
//! [`verification_cache_size`](ResourceServerBuilder::verification_cache_size)
//! tokens), so that a client sending it with every request has it checked
//! once: until its `exp`, for at most
//! [`verification_cache_lifetime`](ResourceServerBuilder::verification_cache_lifetime),
//! and for a JWT only while the keys that checked it are fresh and not
//! fetched again. A token introspected is taken for that long without
//! asking again, so the lifetime bounds how long a token revoked at the
//! authorization server is still served.
//!
//! ```no_run
//! use tool_mcp::auth::ResourceServer;
//! use tool_mcp::server::{HttpOptions, McpServer};
//! use tool_runtime::{Registry, context::CancellationToken};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let resource_server = ResourceServer::builder(
//!     "https://auth.example.com",      // the issuer, as its metadata says
//!     "https://tools.example.com/mcp", // this server's URL, the tokens' `aud`
//! )
//! .required_scopes(["tools:call"])
//! .build()?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let options = HttpOptions::new()
//!     .allowed_hosts(["tools.example.com"])
//!     .resource_server(resource_server);
//! McpServer::new(Registry::global().clone())
//!     .serve_http_with(listener, options, CancellationToken::new())
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! A tool reads who calls it from its context:
//!
//! ```
//! use tool_runtime::{ToolContext, tool};
//!
//! /// Says who calls.
//! #[tool]
//! fn whoami(ctx: &ToolContext) -> String {
//!     ctx.caller()
//!         .and_then(|caller| caller.subject.clone())
//!         .unwrap_or_else(|| "anonymous".to_owned())
//! }
//! ```

mod cache;
mod error;
mod fetch;
mod introspect;
mod jwt;
mod keys;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};

pub use error::AuthError;
pub use introspect::Introspection;
/// The JWS algorithms a [`ResourceServer`] may accept
/// ([`ResourceServerBuilder::algorithms`]); only the asymmetric ones are
/// allowed (`none` is not an algorithm here at all).
pub use jsonwebtoken::Algorithm;
/// Who is calling: the core's [`Caller`], which
/// the server puts on the context of each call it serves for a token.
pub use tool_runtime::context::Caller;

/// The path of the Protected Resource Metadata document (RFC 9728 §3),
/// before any path of the resource.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The asymmetric algorithms, every one accepted by default.
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether `url` may be an authorization server's endpoint: https, or http
/// on a loopback host (`localhost`, `127.0.0.1`, `[::1]`).
pub(crate) fn is_acceptable_endpoint(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    match url.scheme() {
        "https" => true,
        "http" => {
            host.eq_ignore_ascii_case("localhost")
                || host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|address| address.is_loopback())
        }
        _ => false,
    }
}

/// The limits on the resource server's dealings with the authorization
/// server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) fetch_timeout: Duration,
    pub(crate) max_document_bytes: usize,
    pub(crate) jwks_cache_lifetime: Duration,
    pub(crate) min_refetch_interval: Duration,
    pub(crate) verification_cache_size: usize,
    pub(crate) verification_cache_lifetime: Duration,
}

/// What a [`ResourceServer`] is configured with.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    issuer: String,
    resource: String,
    required_scopes: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    implied: BTreeMap<String, BTreeSet<String>>,
    resource_name: Option<String>,
    leeway: Duration,
    algorithms: Vec<Algorithm>,
    introspection: Option<Introspection>,
    limits: Limits,
}

/// Why a [`ResourceServerBuilder`] could not build.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The issuer is not an https URL (or http on a loopback host) without
    /// query and fragment.
    Issuer(String),
    /// The resource is not an https URL (or http on a loopback host)
    /// without fragment.
    Resource(String),
    /// The algorithms allowed are none, or include a symmetric one (HS256,
    /// HS384, HS512): a resource server never holds the secret those need,
    /// and a public key taken for one is a known forgery.
    Algorithms(String),
    /// The introspection endpoint given is not https (or http on a
    /// loopback host).
    Introspection(String),
    /// The HTTP client for the authorization server could not be built.
    Client(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Issuer(text) => write!(f, "invalid issuer: {text}"),
            BuildError::Resource(text) => write!(f, "invalid resource: {text}"),
            BuildError::Algorithms(text) => write!(f, "invalid algorithms: {text}"),
            BuildError::Introspection(text) => write!(f, "invalid introspection: {text}"),
            BuildError::Client(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for BuildError {}

/// Builds a [`ResourceServer`]: [`ResourceServer::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ResourceServerBuilder {
    config: Config,
}

impl ResourceServerBuilder {
    /// The scopes every request needs (none by default): a token without
    /// one of them is answered `403` with `error="insufficient_scope"`,
    /// and a request without a token is told them in the `401`'s `scope`.
    pub fn required_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes the protected resource metadata lists
    /// (`scopes_supported`): by default the required scopes. Clients that
    /// get no `scope` in a challenge ask for these. `offline_access` is
    /// left out, as MCP asks.
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// A token granted `broader` has each of `narrower` too (a scope
    /// hierarchy, which MCP asks servers to honour): `tools:admin` may
    /// imply `tools:call`, say. Implications chain.
    pub fn scope_implies<I, S>(mut self, broader: impl Into<String>, narrower: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config
            .implied
            .entry(broader.into())
            .or_default()
            .extend(narrower.into_iter().map(Into::into));
        self
    }

    /// The `resource_name` of the protected resource metadata: a name for
    /// people (none by default).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.config.resource_name = Some(name.into());
        self
    }

    /// How far past `exp` (and before `nbf`) a token is still taken, for
    /// clocks that differ: [`ResourceServer::DEFAULT_LEEWAY`] by default.
    /// Whole seconds count.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.config.leeway = leeway;
        self
    }

    /// The JWS algorithms accepted: by default every asymmetric one
    /// (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA).
    /// [`build`](Self::build) refuses HS256, HS384 and HS512, and an empty
    /// list.
    pub fn algorithms<I: IntoIterator<Item = Algorithm>>(mut self, algorithms: I) -> Self {
        self.config.algorithms = algorithms.into_iter().collect();
        self
    }

    /// Opaque tokens are introspected (RFC 7662) as `introspection` says;
    /// without it they are refused (`invalid_token`).
    pub fn introspection(mut self, introspection: Introspection) -> Self {
        self.config.introspection = Some(introspection);
        self
    }

    /// How long each request to the authorization server may take,
    /// connecting included: [`ResourceServer::DEFAULT_FETCH_TIMEOUT`] by
    /// default.
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.config.limits.fetch_timeout = timeout;
        self
    }

    /// The largest answer read from the authorization server (metadata,
    /// JWKS, introspection), in bytes:
    /// [`ResourceServer::DEFAULT_MAX_DOCUMENT_BYTES`] by default.
    pub fn max_document_bytes(mut self, bytes: usize) -> Self {
        self.config.limits.max_document_bytes = bytes;
        self
    }

    /// How long a JWKS fetched is used before it is fetched again:
    /// [`ResourceServer::DEFAULT_JWKS_CACHE_LIFETIME`] by default.
    pub fn jwks_cache_lifetime(mut self, lifetime: Duration) -> Self {
        self.config.limits.jwks_cache_lifetime = lifetime;
        self
    }

    /// The least time between two fetches of the JWKS for key ids it does
    /// not have (or after a failed fetch), so that tokens naming made-up
    /// keys cannot make the server hammer the authorization server:
    /// [`ResourceServer::DEFAULT_MIN_REFETCH_INTERVAL`] by default. It is
    /// also the `Retry-After` of a `503`.
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        self.config.limits.min_refetch_interval = interval;
        self
    }

    /// How many accepted tokens are remembered, so that each is checked
    /// once rather than on every request:
    /// [`ResourceServer::DEFAULT_VERIFICATION_CACHE_SIZE`] by default; `0`
    /// checks every request's token. A full cache forgets the token that
    /// would be forgotten first.
    pub fn verification_cache_size(mut self, tokens: usize) -> Self {
        self.config.limits.verification_cache_size = tokens;
        self
    }

    /// How long an accepted token is remembered at most (never past its
    /// `exp`, nor for a JWT past the freshness of the keys that checked
    /// it): [`ResourceServer::DEFAULT_VERIFICATION_CACHE_LIFETIME`] by
    /// default. For an introspected token it is how long a revocation at
    /// the authorization server may go unnoticed.
    pub fn verification_cache_lifetime(mut self, lifetime: Duration) -> Self {
        self.config.limits.verification_cache_lifetime = lifetime;
        self
    }

    /// The resource server, or why the configuration is not one.
    pub fn build(self) -> Result<ResourceServer, BuildError> {
        let config = self.config;
        check_issuer(&config.issuer)?;
        let metadata_url = check_resource(&config.resource)?;
        if config.algorithms.is_empty() {
            return Err(BuildError::Algorithms("no algorithm is allowed".to_owned()));
        }
        if let Some(symmetric) = config
            .algorithms
            .iter()
            .find(|alg| !ASYMMETRIC.contains(alg))
        {
            return Err(BuildError::Algorithms(format!(
                "{symmetric:?} is symmetric: a resource server accepts asymmetric signatures only"
            )));
        }
        if let Some(endpoint) = config
            .introspection
            .as_ref()
            .and_then(|introspection| introspection.endpoint.as_deref())
            && !is_acceptable_endpoint(endpoint)
        {
            return Err(BuildError::Introspection(format!(
                "{endpoint:?} is neither https nor http on a loopback host"
            )));
        }
        let limits = config.limits;
        let fetcher = fetch::Fetcher::new(limits.fetch_timeout, limits.max_document_bytes)
            .map_err(BuildError::Client)?;
        let keys = keys::KeyStore::new(config.issuer.clone(), fetcher, limits);
        let metadata_path = format!("{METADATA_PATH}{}", resource_path(&config.resource));
        let verified = cache::VerifiedCache::new(
            limits.verification_cache_size,
            limits.verification_cache_lifetime,
        );
        Ok(ResourceServer {
            inner: Arc::new(Inner {
                config,
                keys,
                verified,
                metadata_url,
                metadata_path,
            }),
        })
    }
}

/// Refuses an issuer that is not an https URL (or http on a loopback host)
/// without query and fragment (RFC 8414 §2).
fn check_issuer(issuer: &str) -> Result<(), BuildError> {
    let url = reqwest::Url::parse(issuer)
        .map_err(|error| BuildError::Issuer(format!("{issuer:?} is not a URL: {error}")))?;
    if !is_acceptable_endpoint(issuer) || url.query().is_some() || url.fragment().is_some() {
        return Err(BuildError::Issuer(format!(
            "{issuer:?} must be https (or http on a loopback host), without query or fragment"
        )));
    }
    Ok(())
}

/// Refuses a resource that is not an https URL (or http on a loopback
/// host) without fragment (RFC 8707 §2); the URL of its metadata otherwise
/// (RFC 9728 §3.1: the well-known path inserted before the resource's
/// path, whose trailing `/` goes).
fn check_resource(resource: &str) -> Result<String, BuildError> {
    let url = reqwest::Url::parse(resource)
        .map_err(|error| BuildError::Resource(format!("{resource:?} is not a URL: {error}")))?;
    if !is_acceptable_endpoint(resource) || url.fragment().is_some() {
        return Err(BuildError::Resource(format!(
            "{resource:?} must be https (or http on a loopback host), without fragment"
        )));
    }
    let mut metadata = format!(
        "{}{METADATA_PATH}{}",
        url.origin().ascii_serialization(),
        resource_path(resource)
    );
    if let Some(query) = url.query() {
        metadata.push('?');
        metadata.push_str(query);
    }
    Ok(metadata)
}

/// The path of `resource` (an absolute URL), without its trailing `/`.
fn resource_path(resource: &str) -> String {
    reqwest::Url::parse(resource)
        .map(|url| url.path().trim_end_matches('/').to_owned())
        .unwrap_or_default()
}

struct Inner {
    config: Config,
    keys: keys::KeyStore,
    /// The tokens accepted, remembered.
    verified: cache::VerifiedCache,
    /// The URL of the protected resource metadata, for challenges.
    metadata_url: String,
    /// The path of `metadata_url`.
    metadata_path: String,
}

/// The configuration of the MCP server as an OAuth 2.1 resource server,
/// with what it has learnt of the authorization server (its metadata and
/// keys, fetched on the first token). Cheap to clone: the clones share
/// what was fetched. See the [module](self) for what it does.
#[derive(Clone)]
pub struct ResourceServer {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

/// Two resource servers are equal when configured alike.
impl PartialEq for ResourceServer {
    fn eq(&self, other: &Self) -> bool {
        self.inner.config == other.inner.config
    }
}

impl Eq for ResourceServer {}

impl ResourceServer {
    /// How far past `exp` a token is still taken: 60 seconds.
    pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(60);
    /// How long a request to the authorization server may take: 10 seconds.
    pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(10);
    /// The largest answer read from the authorization server: 64 KiB.
    pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 64 * 1024;
    /// How long a JWKS is used before it is fetched again: 10 minutes.
    pub const DEFAULT_JWKS_CACHE_LIFETIME: Duration = Duration::from_secs(10 * 60);
    /// The least time between fetches for unknown key ids: 30 seconds.
    pub const DEFAULT_MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(30);
    /// How many accepted tokens are remembered: 1,024.
    pub const DEFAULT_VERIFICATION_CACHE_SIZE: usize = 1024;
    /// How long an accepted token is remembered at most: 60 seconds.
    pub const DEFAULT_VERIFICATION_CACHE_LIFETIME: Duration = Duration::from_secs(60);

    /// A resource server for tokens of the authorization server `issuer`
    /// (its issuer identifier, exactly as its metadata's `issuer` says),
    /// issued for `resource`: this MCP server's canonical URI, exactly as
    /// clients reach it (`https://tools.example.com/mcp`, no trailing
    /// `/`), the `resource` of its metadata and the `aud` its tokens must
    /// name.
    pub fn builder(
        issuer: impl Into<String>,
        resource: impl Into<String>,
    ) -> ResourceServerBuilder {
        ResourceServerBuilder {
            config: Config {
                issuer: issuer.into(),
                resource: resource.into(),
                required_scopes: Vec::new(),
                scopes_supported: None,
                implied: BTreeMap::new(),
                resource_name: None,
                leeway: Self::DEFAULT_LEEWAY,
                algorithms: ASYMMETRIC.to_vec(),
                introspection: None,
                limits: Limits {
                    fetch_timeout: Self::DEFAULT_FETCH_TIMEOUT,
                    max_document_bytes: Self::DEFAULT_MAX_DOCUMENT_BYTES,
                    jwks_cache_lifetime: Self::DEFAULT_JWKS_CACHE_LIFETIME,
                    min_refetch_interval: Self::DEFAULT_MIN_REFETCH_INTERVAL,
                    verification_cache_size: Self::DEFAULT_VERIFICATION_CACHE_SIZE,
                    verification_cache_lifetime: Self::DEFAULT_VERIFICATION_CACHE_LIFETIME,
                },
            },
        }
    }

    /// The authorization server's issuer identifier.
    pub fn issuer(&self) -> &str {
        &self.inner.config.issuer
    }

    /// This server's canonical URI: the `aud` its tokens must name.
    pub fn resource(&self) -> &str {
        &self.inner.config.resource
    }

    /// The scopes every request needs.
    pub fn required_scopes(&self) -> &[String] {
        &self.inner.config.required_scopes
    }

    /// The URL of the protected resource metadata, as challenges name it
    /// (`resource_metadata`): the well-known path inserted in the
    /// resource's URL.
    pub fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// The path of [`metadata_url`](Self::metadata_url): the well-known
    /// path followed by the resource's. The HTTP server answers the
    /// metadata there, at the well-known path alone, and at it followed by
    /// the MCP endpoint's path (`/mcp`).
    pub fn metadata_path(&self) -> &str {
        &self.inner.metadata_path
    }

    /// The protected resource metadata document (RFC 9728 §2).
    pub fn metadata_document(&self) -> Value {
        let config = &self.inner.config;
        let mut document = json!({
            "resource": config.resource,
            "authorization_servers": [config.issuer],
            "bearer_methods_supported": ["header"],
        });
        let scopes = without_offline_access(
            config
                .scopes_supported
                .as_deref()
                .unwrap_or(&config.required_scopes),
        );
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        if let Some(name) = &config.resource_name {
            document["resource_name"] = json!(name);
        }
        document
    }

    /// The caller the request's `Authorization` header (its value, if it
    /// had one) shows, its token checked, the server-wide scopes not yet.
    pub async fn authenticate(&self, authorization: Option<&str>) -> Result<Caller, AuthError> {
        let token = bearer_token(authorization)?;
        let inner = &self.inner;
        let digest = cache::digest(token);
        if let Some(caller) = inner.verified.get(&digest, inner.keys.generation()) {
            return Ok(Caller::clone(&caller));
        }
        let checked = if jwt::looks_like_jwt(token) {
            jwt::validate(self, token).await?
        } else {
            introspect::validate(self, token).await?
        };
        inner.verified.insert(digest, &checked);
        Ok(checked.caller)
    }

    /// Refuses `caller` unless its token grants every one of `scopes` (or
    /// scopes that imply them): [`AuthError::InsufficientScope`] names all
    /// of `scopes`.
    pub fn authorize<S: AsRef<str>>(&self, caller: &Caller, scopes: &[S]) -> Result<(), AuthError> {
        let granted = self.granted(caller);
        if scopes.iter().all(|scope| granted.contains(scope.as_ref())) {
            return Ok(());
        }
        Err(AuthError::InsufficientScope {
            needed: scopes
                .iter()
                .map(|scope| scope.as_ref().to_owned())
                .collect(),
        })
    }

    /// The caller the request's `Authorization` header shows, if its token
    /// is good and grants the server-wide scopes. Its
    /// [`scopes`](Caller::scopes) are the token's and those they
    /// [imply](ResourceServerBuilder::scope_implies), so that a tool's
    /// scopes ([`ToolSpec::scopes`](tool_runtime::ToolSpec::scopes)) are
    /// checked against the hierarchy too.
    pub async fn check(&self, authorization: Option<&str>) -> Result<Caller, AuthError> {
        let mut caller = self.authenticate(authorization).await?;
        self.authorize(&caller, &self.inner.config.required_scopes)?;
        let implied: Vec<String> = self
            .granted(&caller)
            .into_iter()
            .filter(|scope| !caller.has_scope(scope))
            .map(str::to_owned)
            .collect();
        caller.scopes.extend(implied);
        Ok(caller)
    }

    /// The `WWW-Authenticate` value answering `error`: RFC 6750's `Bearer`
    /// challenge with `resource_metadata` (RFC 9728 §5.1) and, for a `401`,
    /// the server-wide scopes.
    pub fn challenge(&self, error: &AuthError) -> String {
        let scopes = without_offline_access(&self.inner.config.required_scopes);
        error::challenge(error, &self.inner.metadata_url, &scopes)
    }

    /// The scopes `caller` has, those they imply included.
    fn granted<'a>(&'a self, caller: &'a Caller) -> BTreeSet<&'a str> {
        let mut granted: BTreeSet<&str> = caller.scopes.iter().map(String::as_str).collect();
        let mut added = granted.iter().copied().collect::<Vec<_>>();
        while let Some(scope) = added.pop() {
            for implied in self.inner.config.implied.get(scope).into_iter().flatten() {
                if granted.insert(implied) {
                    added.push(implied);
                }
            }
        }
        granted
    }
}

fn without_offline_access(scopes: &[String]) -> Vec<String> {
    scopes
        .iter()
        .filter(|scope| *scope != "offline_access")
        .cloned()
        .collect()
}

/// The token of an `Authorization: Bearer` header value (RFC 6750 §2.1):
/// [`AuthError::MissingToken`] without one (no header, or another
/// scheme), [`AuthError::InvalidRequest`] when it is malformed.
fn bearer_token(authorization: Option<&str>) -> Result<&str, AuthError> {
    let Some(value) = authorization else {
        return Err(AuthError::MissingToken);
    };
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthError::MissingToken);
    }
    let token = token.trim_start_matches(' ');
    let body = token.trim_end_matches('=');
    let b64token =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/');
    if body.is_empty() || !body.chars().all(b64token) {
        return Err(AuthError::InvalidRequest(
            "the Authorization header must be `Bearer` and one token".to_owned(),
        ));
    }
    Ok(token)
}
