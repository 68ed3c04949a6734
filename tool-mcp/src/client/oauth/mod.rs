//! OAuth 2.1 for the client (feature `client-auth`): an HTTP server that
//! answers `401 Unauthorized` is authorized as MCP's authorization
//! specification says, and the calls go on.
//!
//! Give [`McpClientOptions::with_oauth`](super::McpClientOptions::with_oauth)
//! an [`OAuth`]: an [`OAuthConfig`] (which grant, how the client is known,
//! which scopes), a [`TokenStore`] and, for the authorization code, an
//! [`AuthorizationHandler`] that has the user visit the authorization
//! server. What happens:
//!
//! - **Discovery from the `401`.** The `WWW-Authenticate` challenge's
//!   `resource_metadata` names the protected resource metadata (RFC 9728);
//!   without it the client tries the path-inserted well-known URL, then the
//!   root one. The metadata's `resource` must be the server's URL (the same
//!   origin and a prefix of its path), or the client stops; it is sent, as
//!   written, as the resource indicator of every authorization and token
//!   request (RFC 8707). The authorization server's metadata is read from
//!   RFC 8414's and OpenID's well-known URLs in the specification's order,
//!   and its `issuer` must be the one the resource named.
//! - **Scopes.** Those configured, else those of the challenge's `scope`,
//!   else the resource's `scopes_supported`; none (the parameter left out)
//!   when nothing names any. `offline_access` is added when the
//!   authorization server lists it. A `403` with `insufficient_scope`
//!   authorizes again for the scopes held and those named (their union).
//! - **The client's identity**, in the specification's order: a client id
//!   configured (for any authorization server, or for
//!   [`client_issuer`](OAuthConfig::client_issuer)), one registered there
//!   before, a client ID metadata document
//!   ([`client_metadata_url`](OAuthConfig::client_metadata_url)) when the
//!   authorization server takes them, or dynamic registration (RFC 7591).
//!   A registration belongs to its authorization server: another one (the
//!   resource moved) gets a new registration, never another's client id.
//! - **The grant.** The authorization code with PKCE (S256): the
//!   [`AuthorizationHandler`] shows the URL and hands back the redirect,
//!   whose `state` must match and whose `iss` (RFC 9207) must be the
//!   issuer, exactly, when the authorization server sends it or says it
//!   does. Or client credentials ([`OAuthGrant::ClientCredentials`]) with
//!   a secret (`client_secret_basic`, or `client_secret_post` when the
//!   authorization server takes only that) or a private key signing
//!   `private_key_jwt` assertions (RFC 7523).
//! - **Tokens.** Sent as `Authorization: Bearer` on every request,
//!   refreshed 30 s before they expire and after a `401` when there is a
//!   refresh token, and kept in the [`TokenStore`] (in memory by default;
//!   [`FileTokenStore`] keeps them in files only the user can read). They
//!   show in no log, trace, error or `Debug` output ([`Secret`]).
//! - **Limits.** At most
//!   [`max_authorizations`](OAuthConfig::max_authorizations) (3)
//!   authorizations for one request, then its error; each OAuth request 30 s
//!   and 1 MiB of answer; the user's part
//!   [`authorization_timeout`](OAuthConfig::authorization_timeout) (5
//!   minutes), during which a connection's time limit waits.
//!
//! Only servers reached over HTTP are authorized; a stdio server takes
//! its credentials from its environment.
//!
//! ```no_run
//! use tool_mcp::client::oauth::{AuthorizationHandler, FileTokenStore, OAuth, OAuthConfig};
//! use tool_mcp::client::{McpClient, McpClientOptions, McpServerConfig};
//!
//! # async fn run(browser: impl AuthorizationHandler) -> Result<(), Box<dyn std::error::Error>> {
//! // `browser` opens the authorization URL and receives the redirect.
//! let oauth = OAuth::new(OAuthConfig::default().with_client_name("my-agent"))
//!     .with_store(FileTokenStore::in_config_dir()?)
//!     .with_handler(browser);
//! let options = McpClientOptions::default().with_oauth(oauth);
//! let client = McpClient::connect_with(
//!     "protected",
//!     McpServerConfig::http("https://mcp.example.com/mcp"),
//!     options,
//! )
//! .await?;
//! # Ok(())
//! # }
//! ```

pub(crate) mod entry;
mod flow;
mod grant;
mod handler;
mod http;
mod jwt;
mod secret;
mod store;
mod transport;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

pub use handler::{
    AuthorizationError, AuthorizationFuture, AuthorizationHandler, AuthorizationPrompt,
    FollowRedirect,
};
pub use secret::Secret;
pub use store::{
    FileTokenStore, MemoryTokenStore, StoreFuture, StoredTokens, TokenStore, TokenStoreError,
};

pub(crate) use flow::Session;
pub(crate) use transport::Authorizing;

/// Which OAuth grant the client uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OAuthGrant {
    /// The authorization code with PKCE: a user authorizes the client, in a
    /// browser, through the [`AuthorizationHandler`].
    #[default]
    #[schemars(
        description = "The authorization code with PKCE: a person authorizes the \
        client in a browser (a sign-in), and its tokens are kept."
    )]
    AuthorizationCode,
    /// Client credentials: the client authorizes itself, with its
    /// [`client_secret`](OAuthConfig::client_secret) or
    /// [`private_key`](OAuthConfig::private_key), for machine-to-machine
    /// use (MCP's `oauth-client-credentials` extension).
    #[schemars(
        description = "Client credentials: the client authorizes itself with its \
        client_secret or private_key, machine to machine."
    )]
    ClientCredentials,
}

/// How the client authorizes itself: the data of an OAuth setup, as a
/// program or a configuration file gives it (`serde`: the field names
/// below, snake case, unknown keys refused). The hooks (where tokens are
/// kept, who asks the user) are [`OAuth`]'s.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = no_null_defaults)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// The grant: the authorization code by default.
    pub grant: OAuthGrant,
    /// A client id registered with the authorization server beforehand:
    /// used first (at [`client_issuer`](Self::client_issuer) alone, when
    /// set). Needed for client credentials.
    #[schemars(description = "A client id registered with the authorization server \
        beforehand; needed for client_credentials.")]
    pub client_id: Option<String>,
    /// The secret of [`client_id`](Self::client_id), for a confidential
    /// client.
    #[schemars(description = "The secret of client_id, for a confidential client.")]
    pub client_secret: Option<Secret>,
    /// The private key of [`client_id`](Self::client_id), PEM (PKCS#8, or
    /// PKCS#1 for RSA), signing `private_key_jwt` client assertions in
    /// place of a secret: RSA, P-256, P-384 or Ed25519.
    #[schemars(
        description = "The private key of client_id, PEM (PKCS#8, or PKCS#1 for \
        RSA; RSA, P-256, P-384 or Ed25519), signing private_key_jwt client assertions in \
        place of a secret."
    )]
    pub private_key: Option<Secret>,
    /// The JWS algorithm of [`private_key`](Self::private_key)'s
    /// assertions; by default RS256, ES256, ES384 or EdDSA, as the key is.
    #[schemars(
        description = "The JWS algorithm of private_key's assertions; by default \
        RS256, ES256, ES384 or EdDSA, as the key is."
    )]
    pub signing_algorithm: Option<String>,
    /// The authorization server (its issuer identifier) that
    /// [`client_id`](Self::client_id) belongs to; any when unset.
    #[schemars(description = "The authorization server (its issuer identifier) that \
        client_id belongs to; any when unset.")]
    pub client_issuer: Option<String>,
    /// The HTTPS URL of this client's metadata document, its client id at
    /// authorization servers that accept client ID metadata documents.
    pub client_metadata_url: Option<String>,
    /// The client's name in a dynamic registration: `tool-mcp` by default.
    pub client_name: String,
    /// The scopes to ask for, in place of those the server names. Empty
    /// by default: the server's.
    pub scopes: Vec<String>,
    /// How many authorizations one request may go through (a refusal
    /// answered, a step-up) before it fails: 3 by default.
    #[schemars(range(min = 1))]
    pub max_authorizations: u32,
    /// How long the user's part of an authorization may take: 5 minutes by
    /// default.
    #[serde(skip)]
    #[schemars(skip)]
    pub authorization_timeout: Duration,
}

impl Default for OAuthConfig {
    fn default() -> Self {
        Self {
            grant: OAuthGrant::AuthorizationCode,
            client_id: None,
            client_secret: None,
            private_key: None,
            signing_algorithm: None,
            client_issuer: None,
            client_metadata_url: None,
            client_name: "tool-mcp".to_owned(),
            scopes: Vec::new(),
            max_authorizations: 3,
            authorization_timeout: Duration::from_secs(300),
        }
    }
}

impl OAuthConfig {
    /// The client credentials grant for `client_id` with `client_secret`.
    pub fn client_credentials(
        client_id: impl Into<String>,
        client_secret: impl Into<Secret>,
    ) -> Self {
        Self {
            grant: OAuthGrant::ClientCredentials,
            client_id: Some(client_id.into()),
            client_secret: Some(client_secret.into()),
            ..Self::default()
        }
    }

    /// The client credentials grant for `client_id`, which signs
    /// `private_key_jwt` assertions with `private_key` (PEM).
    pub fn private_key_jwt(client_id: impl Into<String>, private_key: impl Into<Secret>) -> Self {
        Self {
            grant: OAuthGrant::ClientCredentials,
            client_id: Some(client_id.into()),
            private_key: Some(private_key.into()),
            ..Self::default()
        }
    }

    /// Sets the pre-registered client: [`client_id`](Self::client_id) and,
    /// for a confidential client, [`client_secret`](Self::client_secret).
    pub fn with_client(
        mut self,
        client_id: impl Into<String>,
        client_secret: Option<Secret>,
    ) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = client_secret;
        self
    }

    /// Sets [`client_issuer`](Self::client_issuer).
    pub fn with_client_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.client_issuer = Some(issuer.into());
        self
    }

    /// Sets [`client_metadata_url`](Self::client_metadata_url).
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets [`client_name`](Self::client_name).
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Sets [`scopes`](Self::scopes).
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`signing_algorithm`](Self::signing_algorithm).
    pub fn with_signing_algorithm(mut self, algorithm: impl Into<String>) -> Self {
        self.signing_algorithm = Some(algorithm.into());
        self
    }

    /// Sets [`max_authorizations`](Self::max_authorizations).
    pub fn with_max_authorizations(mut self, max: u32) -> Self {
        self.max_authorizations = max;
        self
    }

    /// Sets [`authorization_timeout`](Self::authorization_timeout).
    pub fn with_authorization_timeout(mut self, timeout: Duration) -> Self {
        self.authorization_timeout = timeout;
        self
    }
}

/// The schema of [`OAuthConfig`] without the `"default": null` of its
/// optional keys (they are left out, not written `null`).
fn no_null_defaults(schema: &mut schemars::Schema) {
    let properties = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut);
    for property in properties.into_iter().flat_map(|all| all.values_mut()) {
        if let Some(property) = property.as_object_mut()
            && property.get("default") == Some(&serde_json::Value::Null)
        {
            property.remove("default");
        }
    }
}

/// An OAuth setup for [`McpClientOptions::with_oauth`](super::McpClientOptions::with_oauth):
/// the [`OAuthConfig`], the [`TokenStore`] (a [`MemoryTokenStore`] unless
/// given) and the [`AuthorizationHandler`] of the authorization code
/// (none unless given: that grant then fails, saying so). Cheap to clone.
#[derive(Clone)]
pub struct OAuth {
    pub(crate) config: OAuthConfig,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) handler: Option<Arc<dyn AuthorizationHandler>>,
}

impl OAuth {
    /// `config`, with tokens kept in memory and no handler.
    pub fn new(config: OAuthConfig) -> Self {
        Self {
            config,
            store: Arc::new(MemoryTokenStore::new()),
            handler: None,
        }
    }

    /// The same, keeping tokens in `store`.
    pub fn with_store(self, store: impl TokenStore) -> Self {
        self.with_shared_store(Arc::new(store))
    }

    /// The same, keeping tokens in `store`, shared with others.
    pub fn with_shared_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }

    /// The same, asking the user through `handler`.
    pub fn with_handler(mut self, handler: impl AuthorizationHandler) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// The configuration.
    pub fn config(&self) -> &OAuthConfig {
        &self.config
    }

    /// Where the tokens are kept.
    pub fn store(&self) -> &Arc<dyn TokenStore> {
        &self.store
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("config", &self.config)
            .field("handler", &self.handler.is_some())
            .finish_non_exhaustive()
    }
}
