//! One client's authorization at one MCP server: the tokens it holds, and
//! what it does when the server refuses them. A `401` is answered by
//! refreshing the token, or by authorizing anew (discovery from the
//! challenge, registration, the grant); a `403 insufficient_scope` by
//! authorizing again for the scopes held and those the server named.
//!
//! rmcp's `AuthorizationManager` and `AuthorizationSession` do the
//! discovery (RFC 9728, RFC 8414 and OpenID, issuer and resource checks),
//! dynamic registration (RFC 7591), the authorization request (PKCE S256,
//! state, RFC 8707 resource) and the code's redemption (the state and RFC
//! 9207 `iss` checked first); this file chooses what to do, in the
//! specification's order, and `grant.rs` makes the other token requests.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource,
    AuthorizationRequest, AuthorizationSession, WWWAuthenticateParams,
};
use serde_json::Value;

use super::grant::{self, Client, Endpoint, Grant, now};
use super::handler::AuthorizationPrompt;
use super::http::Http;
use super::jwt::SigningKey;
use super::{OAuth, OAuthGrant, Secret, StoredTokens};
use crate::client::error::untrusted;

/// How long before its expiry an access token is refreshed, in seconds.
const REFRESH_MARGIN: u64 = 30;
/// The scope an OpenID authorization server issues refresh tokens for; not
/// one a client credentials grant asks.
const OFFLINE_ACCESS: &str = "offline_access";

/// One client's authorization at one server.
pub(crate) struct Session {
    /// The server's URL, as configured: the token store's key.
    server: String,
    oauth: OAuth,
    http: Arc<Http>,
    /// The key signing `private_key_jwt` assertions, when one is given.
    key: Option<SigningKey>,
    state: tokio::sync::Mutex<State>,
    /// The program's handler has the user's attention now.
    interacting: AtomicBool,
    /// Why the last authorization failed, for the error the caller sees.
    failure: Mutex<Option<String>>,
}

#[derive(Default)]
struct State {
    loaded: bool,
    tokens: Option<StoredTokens>,
    /// The authorization server that granted the tokens, and the resource
    /// they are for.
    discovered: Option<Discovered>,
    /// The clients this client registered, by authorization server issuer.
    registrations: HashMap<String, Registration>,
}

struct Discovered {
    metadata: AuthorizationMetadata,
    resource: String,
}

/// A client known to an authorization server.
#[derive(Clone)]
struct Registration {
    client_id: String,
    client_secret: Option<Secret>,
}

/// How the client is known to the authorization server of a code flow.
enum Identity {
    Registered(Registration),
    /// A client ID metadata document's URL, which is the client ID.
    MetadataDocument(String),
}

impl Session {
    /// The authorization of the server at `server` (its URL) as `oauth`
    /// says; or why it cannot be (a private key that is not one).
    pub(crate) fn new(server: &str, oauth: OAuth) -> Result<Self, String> {
        let key = match &oauth.config.private_key {
            Some(pem) => Some(SigningKey::from_pem(
                pem.expose(),
                oauth.config.signing_algorithm.as_deref(),
            )?),
            None => None,
        };
        Ok(Self {
            server: server.to_owned(),
            oauth,
            http: Arc::new(Http::new()),
            key,
            state: tokio::sync::Mutex::new(State::default()),
            interacting: AtomicBool::new(false),
            failure: Mutex::new(None),
        })
    }

    /// How many authorizations one request may go through.
    pub(crate) fn max_authorizations(&self) -> u32 {
        self.oauth.config.max_authorizations
    }

    /// Whether the program's handler is waiting for the user.
    pub(crate) fn is_interacting(&self) -> bool {
        self.interacting.load(Ordering::Acquire)
    }

    /// Why the last authorization failed, taking it.
    pub(crate) fn take_failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// The access token to send, refreshed first when it is about to
    /// expire; `None` before any authorization.
    pub(crate) async fn token(&self) -> Option<String> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await;
        let expiring = state
            .tokens
            .as_ref()
            .is_some_and(|tokens| tokens.expires_within(REFRESH_MARGIN, now()));
        if expiring && let Err(error) = self.refresh(&mut state).await {
            // The server will refuse the old token; its 401 is answered.
            tracing::debug!(server = %self.server, "no refreshed token: {error}");
        }
        access(&state)
    }

    /// The server refused `sent` with a `401` and `challenge` (its
    /// `WWW-Authenticate`): a token another request obtained meanwhile, a
    /// refreshed one (when `may_refresh`) or a new authorization.
    pub(crate) async fn recover(
        &self,
        challenge: &str,
        sent: Option<&str>,
        may_refresh: bool,
    ) -> Result<(), String> {
        let mut state = self.state.lock().await;
        if access(&state).as_deref() != sent {
            return Ok(());
        }
        if may_refresh {
            // Tokens kept from an earlier run come without their
            // authorization server: the challenge leads to it.
            let refreshable = state
                .tokens
                .as_ref()
                .is_some_and(|tokens| tokens.refresh_token.is_some());
            if refreshable && state.discovered.is_none() {
                match self.discover(challenge).await {
                    Ok((_, discovered)) => state.discovered = Some(discovered),
                    Err(error) => {
                        tracing::debug!(server = %self.server, "no discovery to refresh with: {error}");
                    }
                }
            }
            match self.refresh(&mut state).await {
                Ok(()) => return Ok(()),
                Err(error) => {
                    tracing::debug!(server = %self.server, "no refreshed token: {error}");
                }
            }
        }
        let authorized = self.authorize(&mut state, challenge, None).await;
        self.note(authorized)
    }

    /// The server refused `sent` with a `403` and `challenge`: when it is
    /// `insufficient_scope`, authorizes again for the scopes granted and
    /// those it names (their union: the challenge names what this request
    /// needs, not all the client needs).
    pub(crate) async fn step_up(&self, challenge: &str, sent: Option<&str>) -> Result<(), String> {
        let mut state = self.state.lock().await;
        if access(&state).as_deref() != sent {
            return Ok(());
        }
        let base = reqwest::Url::parse(&self.server).map_err(|error| error.to_string())?;
        let params = WWWAuthenticateParams::parse(challenge, &base);
        if !params.is_insufficient_scope() {
            return self.note(Err(format!(
                "the server refused the token (403): {}",
                untrusted(challenge, 200)
            )));
        }
        let mut scopes = state
            .tokens
            .as_ref()
            .map(|tokens| tokens.scopes.clone())
            .unwrap_or_default();
        for scope in params.scope.as_deref().unwrap_or("").split_whitespace() {
            if !scopes.iter().any(|held| held == scope) {
                scopes.push(scope.to_owned());
            }
        }
        let authorized = self.authorize(&mut state, challenge, Some(scopes)).await;
        self.note(authorized)
    }

    /// Records a failure for the caller's error.
    fn note(&self, outcome: Result<(), String>) -> Result<(), String> {
        if let Err(error) = &outcome {
            tracing::warn!(server = %self.server, "authorization failed: {error}");
            *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(error.clone());
        }
        outcome
    }

    /// Reads the stored tokens, once.
    async fn load(&self, state: &mut State) {
        if state.loaded {
            return;
        }
        state.loaded = true;
        match self.oauth.store.load(&self.server).await {
            Ok(Some(tokens)) => {
                remember(state, &tokens);
                state.tokens = Some(tokens);
            }
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(server = %self.server, "could not read the stored tokens: {error}");
            }
        }
    }

    /// Keeps `tokens`, in memory and in the store.
    async fn keep(&self, state: &mut State, tokens: StoredTokens) {
        remember(state, &tokens);
        if let Err(error) = self.oauth.store.save(&self.server, &tokens).await {
            tracing::warn!(server = %self.server, "could not store the tokens: {error}");
        }
        state.tokens = Some(tokens);
    }

    /// Refreshes the access token, where there is a refresh token and the
    /// authorization server is known.
    async fn refresh(&self, state: &mut State) -> Result<(), String> {
        let (Some(tokens), Some(discovered)) = (&state.tokens, &state.discovered) else {
            return Err("the authorization server is not known yet".to_owned());
        };
        let Some(refresh_token) = tokens.refresh_token.clone() else {
            return Err("there is no refresh token".to_owned());
        };
        // A refresh token goes back only to the server that issued it.
        if tokens.issuer.is_some() && tokens.issuer != discovered.metadata.issuer {
            return Err("the tokens were granted by another authorization server".to_owned());
        }
        let client = Client {
            id: &tokens.client_id,
            secret: tokens.client_secret.as_ref(),
            key: self.key_of(&tokens.client_id),
        };
        let endpoint = Endpoint {
            metadata: &discovered.metadata,
            resource: &discovered.resource,
        };
        let grant = Grant::Refresh {
            token: &refresh_token,
        };
        let mut fresh = grant::request(&self.http, &endpoint, &client, grant).await?;
        // RFC 6749 §6: a new refresh token is optional, and the scope is
        // the old one unless named.
        fresh.refresh_token.get_or_insert(refresh_token);
        if fresh.scopes.is_empty() {
            fresh.scopes.clone_from(&tokens.scopes);
        }
        tracing::debug!(server = %self.server, "refreshed the access token");
        self.keep(state, fresh).await;
        Ok(())
    }

    /// The signing key, for the configured client.
    fn key_of(&self, client_id: &str) -> Option<&SigningKey> {
        let configured = self.oauth.config.client_id.as_deref() == Some(client_id);
        self.key.as_ref().filter(|_| configured)
    }

    /// Authorizes anew: discovery from `challenge`, then the grant, for
    /// `scopes` (else the configured ones, else those the challenge or the
    /// resource's metadata name).
    async fn authorize(
        &self,
        state: &mut State,
        challenge: &str,
        scopes: Option<Vec<String>>,
    ) -> Result<(), String> {
        let (manager, discovered) = self.discover(challenge).await?;
        let Discovered { metadata, resource } = discovered;
        let explicit = scopes.or_else(|| {
            let configured = &self.oauth.config.scopes;
            (!configured.is_empty()).then(|| configured.clone())
        });
        tracing::info!(
            server = %self.server,
            issuer = metadata.issuer.as_deref().unwrap_or(""),
            "authorizing"
        );
        let tokens = match self.oauth.config.grant {
            OAuthGrant::ClientCredentials => {
                let mut scopes = match explicit {
                    Some(scopes) => scopes,
                    None => manager.select_initial_scopes(&[]).await,
                };
                scopes.retain(|scope| scope != OFFLINE_ACCESS);
                self.client_credentials(&metadata, &resource, &scopes)
                    .await?
            }
            OAuthGrant::AuthorizationCode => {
                self.code_flow(state, manager, &metadata, explicit).await?
            }
        };
        state.discovered = Some(Discovered { metadata, resource });
        self.keep(state, tokens).await;
        Ok(())
    }

    /// The authorization server and the resource, discovered from
    /// `challenge` (the resource's metadata, then the authorization
    /// server's), its endpoints checked; with rmcp's manager, set up with
    /// them.
    async fn discover(
        &self,
        challenge: &str,
    ) -> Result<(AuthorizationManager, Discovered), String> {
        let mut manager = AuthorizationManager::new_with_oauth_http_client(
            self.server.as_str(),
            self.http.clone(),
        )
        .await
        .map_err(described)?;
        self.http.take_resource();
        let resolution = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(described)?;
        let resource = match resolution.source {
            AuthorizationMetadataSource::ProtectedResourceMetadata => self
                .http
                .take_resource()
                .ok_or("the protected resource metadata names no resource")?,
            AuthorizationMetadataSource::AuthorizationServerMetadata => self.server.clone(),
            _ => {
                return Err(
                    "the server published no protected resource or authorization server \
                     metadata"
                        .to_owned(),
                );
            }
        };
        let metadata = resolution.metadata;
        secure_endpoints(&metadata)?;
        manager.set_metadata(metadata.clone());
        Ok((manager, Discovered { metadata, resource }))
    }

    /// The client credentials grant, for `scopes`.
    async fn client_credentials(
        &self,
        metadata: &AuthorizationMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<StoredTokens, String> {
        let config = &self.oauth.config;
        let id = config
            .client_id
            .as_deref()
            .ok_or("the client credentials grant needs a client id")?;
        if config.client_secret.is_none() && self.key.is_none() {
            return Err(
                "the client credentials grant needs a client secret or a private key".to_owned(),
            );
        }
        let client = Client {
            id,
            secret: config.client_secret.as_ref(),
            key: self.key.as_ref(),
        };
        let endpoint = Endpoint { metadata, resource };
        grant::request(
            &self.http,
            &endpoint,
            &client,
            Grant::ClientCredentials { scopes },
        )
        .await
    }

    /// The authorization code flow: registration, the user's part through
    /// the program's handler, and the code redeemed.
    async fn code_flow(
        &self,
        state: &mut State,
        mut manager: AuthorizationManager,
        metadata: &AuthorizationMetadata,
        scopes: Option<Vec<String>>,
    ) -> Result<StoredTokens, String> {
        let config = &self.oauth.config;
        let handler = self.oauth.handler.as_ref().ok_or(
            "the server asks for the user's authorization, and the program gave no \
             AuthorizationHandler to ask with",
        )?;
        let redirect_uri = handler.redirect_uri();
        let mut request = AuthorizationRequest::new(&redirect_uri)
            .with_client_name(&config.client_name)
            .with_application_type("native");
        request = match &scopes {
            Some(scopes) if !scopes.is_empty() => request.with_scopes(scopes.clone()),
            // The challenge's scope, else the resource's; none when neither
            // names any (the scope parameter is then left out).
            _ => request.with_initial_scope_selection(),
        };
        let asked = match &scopes {
            Some(scopes) if !scopes.is_empty() => scopes.clone(),
            _ => manager.select_initial_scopes(&[]).await,
        };
        let identity = self
            .identity(state, &mut manager, metadata, &redirect_uri, &asked)
            .await?;
        let (client_id, client_secret) = match identity {
            Identity::Registered(registration) => {
                request = request.with_preregistered_client(&registration.client_id);
                if let Some(secret) = &registration.client_secret {
                    request = request.with_client_secret(secret.expose());
                }
                (registration.client_id, registration.client_secret)
            }
            Identity::MetadataDocument(url) => {
                request = request.with_client_metadata_url(&url);
                (url, None)
            }
        };
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, error)| described(error))?;
        let prompt = AuthorizationPrompt {
            server: self.server.clone(),
            url: session.get_authorization_url().to_owned(),
            scopes: asked.clone(),
        };
        let timeout = config.authorization_timeout;
        self.interacting.store(true, Ordering::Release);
        let redirected = tokio::time::timeout(timeout, handler.authorize(&prompt)).await;
        self.interacting.store(false, Ordering::Release);
        let redirected = redirected
            .map_err(|_| format!("the user's authorization did not come back within {timeout:?}"))?
            .map_err(|error| {
                format!(
                    "the user's authorization did not complete: {}",
                    untrusted(&error.to_string(), 300)
                )
            })?;
        let answer = session
            .handle_callback_url(&redirected)
            .await
            .map_err(described)?;
        let mut tokens = grant::stored(&answer, &client_id, metadata.issuer.clone(), &asked)?;
        tokens.client_secret = client_secret;
        Ok(tokens)
    }

    /// How the client is known to the authorization server, in the
    /// specification's order: the client configured for it, one registered
    /// with it before, a client ID metadata document it accepts, or a
    /// dynamic registration (RFC 7591) now.
    async fn identity(
        &self,
        state: &mut State,
        manager: &mut AuthorizationManager,
        metadata: &AuthorizationMetadata,
        redirect_uri: &str,
        scopes: &[String],
    ) -> Result<Identity, String> {
        let config = &self.oauth.config;
        let issuer = metadata.issuer.clone().unwrap_or_default();
        if let Some(client_id) = &config.client_id
            && config
                .client_issuer
                .as_deref()
                .is_none_or(|given| given == issuer)
        {
            return Ok(Identity::Registered(Registration {
                client_id: client_id.clone(),
                client_secret: config.client_secret.clone(),
            }));
        }
        if let Some(registration) = state.registrations.get(&issuer) {
            return Ok(Identity::Registered(registration.clone()));
        }
        let documents = metadata
            .additional_fields
            .get("client_id_metadata_document_supported")
            == Some(&Value::Bool(true));
        if let Some(url) = &config.client_metadata_url
            && documents
        {
            return Ok(Identity::MetadataDocument(url.clone()));
        }
        if metadata.registration_endpoint.is_none() {
            return Err(format!(
                "the client cannot register with {issuer}: no client id is configured for it, \
                 it takes no client metadata document (or none is configured), and it offers no \
                 dynamic registration"
            ));
        }
        let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let registered = manager
            .register_client(&config.client_name, redirect_uri, &scopes)
            .await
            .map_err(described)?;
        let registration = Registration {
            client_id: registered.client_id,
            client_secret: registered.client_secret.map(Secret::new),
        };
        state.registrations.insert(issuer, registration.clone());
        Ok(Identity::Registered(registration))
    }
}

/// The access token held, if any.
fn access(state: &State) -> Option<String> {
    state
        .tokens
        .as_ref()
        .map(|tokens| tokens.access_token.expose().to_owned())
}

/// Notes the client `tokens` were granted to, at their issuer.
fn remember(state: &mut State, tokens: &StoredTokens) {
    if let Some(issuer) = &tokens.issuer {
        state.registrations.insert(
            issuer.clone(),
            Registration {
                client_id: tokens.client_id.clone(),
                client_secret: tokens.client_secret.clone(),
            },
        );
    }
}

/// Refuses an authorization server whose endpoints are not HTTPS, but on
/// the loopback interface.
fn secure_endpoints(metadata: &AuthorizationMetadata) -> Result<(), String> {
    for endpoint in [&metadata.authorization_endpoint, &metadata.token_endpoint] {
        let url = reqwest::Url::parse(endpoint).map_err(|error| {
            format!(
                "the endpoint `{}` is not a URL: {error}",
                untrusted(endpoint, 200)
            )
        })?;
        let loopback = match url.host_str() {
            Some("localhost") => true,
            Some(host) => host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|address| address.is_loopback()),
            None => false,
        };
        if url.scheme() != "https" && !(url.scheme() == "http" && loopback) {
            return Err(format!(
                "the authorization server's endpoint {} is not HTTPS",
                url.origin().ascii_serialization()
            ));
        }
    }
    Ok(())
}

/// An rmcp authorization error, as the client says it: its words, the
/// server's quoted safely.
fn described(error: AuthError) -> String {
    untrusted(&error.to_string(), 500)
}
