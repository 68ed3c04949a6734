//! The token requests this crate makes itself, with the oauth2 crate: the
//! client credentials grant (a secret, or a `private_key_jwt` assertion)
//! and refreshing a token. The authorization code is redeemed by rmcp.

use std::future::Future;
use std::pin::Pin;
use std::time::{SystemTime, UNIX_EPOCH};

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenType};
use oauth2::{
    AsyncHttpClient, AuthType, ClientId, ClientSecret, HttpRequest, HttpResponse, RefreshToken,
    RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use rmcp::transport::auth::{AuthorizationMetadata, OAuthHttpRedirectPolicy};

use super::http::Http;
use super::jwt::SigningKey;
use super::{Secret, StoredTokens};
use crate::client::error::untrusted;

/// The type of a `private_key_jwt` assertion (RFC 7523 §2.2).
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The now, in seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The authorization server's token endpoint, as its metadata describes
/// it, and the resource the tokens are for.
pub(crate) struct Endpoint<'a> {
    pub(crate) metadata: &'a AuthorizationMetadata,
    pub(crate) resource: &'a str,
}

/// Who the client is at the token endpoint.
pub(crate) struct Client<'a> {
    pub(crate) id: &'a str,
    pub(crate) secret: Option<&'a Secret>,
    pub(crate) key: Option<&'a SigningKey>,
}

/// What to ask the token endpoint for.
pub(crate) enum Grant<'a> {
    ClientCredentials { scopes: &'a [String] },
    Refresh { token: &'a Secret },
}

/// The tokens `grant` brings from `endpoint` for `client`; or why not,
/// quoting the authorization server's error.
pub(crate) async fn request(
    http: &Http,
    endpoint: &Endpoint<'_>,
    client: &Client<'_>,
    grant: Grant<'_>,
) -> Result<StoredTokens, String> {
    let token_url = TokenUrl::new(endpoint.metadata.token_endpoint.clone())
        .map_err(|error| format!("the token endpoint is not a URL: {error}"))?;
    let mut oauth = BasicClient::new(ClientId::new(client.id.to_owned())).set_token_uri(token_url);
    let mut extra: Vec<(&str, String)> = vec![("resource", endpoint.resource.to_owned())];
    if let Some(key) = client.key {
        // RFC 7523 §2.2: the assertion's audience is the authorization
        // server, by its issuer identifier.
        let audience = endpoint
            .metadata
            .issuer
            .as_deref()
            .unwrap_or(&endpoint.metadata.token_endpoint);
        extra.push(("client_assertion_type", JWT_BEARER.to_owned()));
        extra.push(("client_assertion", key.assertion(client.id, audience)?));
        oauth = oauth.set_auth_type(AuthType::RequestBody);
    } else if let Some(secret) = client.secret {
        oauth = oauth
            .set_client_secret(ClientSecret::new(secret.expose().to_owned()))
            .set_auth_type(secret_auth_type(endpoint.metadata));
    }
    let send = Sender(http);
    let (asked, answer) = match grant {
        Grant::ClientCredentials { scopes } => {
            let mut request = oauth
                .exchange_client_credentials()
                .add_scopes(scopes.iter().cloned().map(Scope::new));
            for (name, value) in extra {
                request = request.add_extra_param(name, value);
            }
            (scopes.to_vec(), request.request_async(&send).await)
        }
        Grant::Refresh { token } => {
            let token = RefreshToken::new(token.expose().to_owned());
            let mut request = oauth.exchange_refresh_token(&token);
            for (name, value) in extra {
                request = request.add_extra_param(name, value);
            }
            (Vec::new(), request.request_async(&send).await)
        }
    };
    let answer = answer.map_err(refused)?;
    let mut tokens = stored(&answer, client.id, endpoint.metadata.issuer.clone(), &asked)?;
    tokens.client_secret = client.secret.cloned();
    Ok(tokens)
}

/// How a client with a secret authenticates: `client_secret_basic` unless
/// the authorization server lists `client_secret_post` and not it (a
/// server that lists none takes basic, RFC 8414 §2).
pub(crate) fn secret_auth_type(metadata: &AuthorizationMetadata) -> AuthType {
    let methods = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(|methods| methods.as_array());
    let lists = |method: &str| methods.is_some_and(|all| all.iter().any(|m| m == method));
    if lists("client_secret_post") && !lists("client_secret_basic") {
        AuthType::RequestBody
    } else {
        AuthType::BasicAuth
    }
}

/// What a token response grants, as kept: `asked` stands for the scopes
/// when the response names none (RFC 6749 §5.1). Only bearer tokens are
/// taken.
pub(crate) fn stored<R>(
    answer: &R,
    client_id: &str,
    issuer: Option<String>,
    asked: &[String],
) -> Result<StoredTokens, String>
where
    R: TokenResponse<TokenType = BasicTokenType>,
{
    if *answer.token_type() != BasicTokenType::Bearer {
        return Err(format!(
            "the authorization server issued a {:?} token, not a bearer token",
            answer.token_type()
        ));
    }
    let mut tokens = StoredTokens::new(answer.access_token().secret().as_str(), client_id);
    tokens.refresh_token = answer
        .refresh_token()
        .map(|token| Secret::new(token.secret().as_str()));
    tokens.expires_at = answer
        .expires_in()
        .map(|lifetime| now().saturating_add(lifetime.as_secs()));
    tokens.scopes = match answer.scopes() {
        Some(scopes) => scopes.iter().map(|scope| scope.to_string()).collect(),
        None => asked.to_vec(),
    };
    tokens.issuer = issuer;
    Ok(tokens)
}

/// A token request's failure, as the client says it.
fn refused(error: RequestTokenError<Failure, BasicErrorResponse>) -> String {
    match error {
        RequestTokenError::ServerResponse(answer) => {
            let mut said = answer.error().to_string();
            if let Some(description) = answer.error_description() {
                said.push_str(": ");
                said.push_str(description);
            }
            format!("the token endpoint refused: {}", untrusted(&said, 300))
        }
        RequestTokenError::Request(Failure(message)) => {
            format!("the token request failed: {}", untrusted(&message, 300))
        }
        // Only where: serde's message may quote a value, a token among them.
        RequestTokenError::Parse(error, _) => format!(
            "the token endpoint's answer is not a token response (at `{}`)",
            error.path()
        ),
        RequestTokenError::Other(message) => {
            format!("the token request failed: {}", untrusted(&message, 300))
        }
    }
}

/// The oauth2 crate's HTTP client: [`Http`], without following redirects.
struct Sender<'h>(&'h Http);

impl<'c> AsyncHttpClient<'c> for Sender<'_> {
    type Error = Failure;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Failure>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            self.0
                .send(request, OAuthHttpRedirectPolicy::Stop)
                .await
                .map_err(|error| Failure(error.to_string()))
        })
    }
}

/// Why an HTTP request of a token request failed.
#[derive(Debug)]
pub(crate) struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}
