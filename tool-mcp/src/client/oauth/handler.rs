//! The user's part of the authorization code flow: the program shows the
//! authorization URL (a browser) and hands back where the authorization
//! server sent the user.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// The future an [`AuthorizationHandler`] returns: the URL the
/// authorization server redirected the user to, with its `code`, `state`
/// and `iss` parameters, or why there is none.
pub type AuthorizationFuture<'a> =
    Pin<Box<dyn Future<Output = Result<String, AuthorizationError>> + Send + 'a>>;

/// Why the user's part of an authorization did not end with a redirect.
pub type AuthorizationError = Box<dyn std::error::Error + Send + Sync>;

/// What the program does for the authorization code flow: has the user
/// visit the authorization server's page (open a browser, print the URL)
/// and receives the redirect that ends it (a listener on the loopback
/// address, a custom scheme the system routes back).
///
/// The client registers [`redirect_uri`](Self::redirect_uri) with the
/// authorization server, then calls [`authorize`](Self::authorize) with the
/// URL to visit; the URL returned must be the redirect URI with the
/// authorization server's parameters. The client checks the `state` (and
/// `iss`, RFC 9207) before it redeems the code.
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// Where the authorization server is to send the user back: a loopback
    /// URL (`http://127.0.0.1:PORT/callback`) or an app's own scheme.
    fn redirect_uri(&self) -> String;

    /// Has the user visit `prompt.url` and waits for the redirect to
    /// [`redirect_uri`](Self::redirect_uri); returns the whole URL the user
    /// was sent to.
    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizationFuture<'a>;
}

/// One authorization to ask the user for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationPrompt {
    /// The MCP server that asks for authorization (its URL).
    pub server: String,
    /// The authorization server's page to visit, with the request in its
    /// query (PKCE challenge, state, scope, resource).
    pub url: String,
    /// The scopes asked for.
    pub scopes: Vec<String>,
}

/// An [`AuthorizationHandler`] without a user: it requests the
/// authorization URL itself and takes the redirect the authorization server
/// answers with at once. For authorization servers that approve this
/// client without asking anyone (test servers, such as the MCP conformance
/// suite's, or ones that trust the client's network); against one that
/// shows a login page, the authorization fails, naming the status it got.
#[derive(Debug, Clone)]
pub struct FollowRedirect {
    redirect_uri: String,
    timeout: Duration,
}

impl FollowRedirect {
    /// A handler registering `redirect_uri`, which it never listens on: it
    /// only reads the redirect. Each request has 30 s.
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            timeout: Duration::from_secs(30),
        }
    }
}

impl AuthorizationHandler for FollowRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizationFuture<'a> {
        Box::pin(async move {
            crate::tls::ensure_crypto_provider();
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(self.timeout)
                .build()?;
            let response = client.get(&prompt.url).send().await?;
            let status = response.status();
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .filter(|_| status.is_redirection())
                .ok_or_else(|| {
                    format!("the authorization server answered {status}, not a redirect")
                })?;
            let sent_to = response.url().join(location)?;
            let expected = reqwest::Url::parse(&self.redirect_uri)?;
            let same = sent_to.scheme() == expected.scheme()
                && sent_to.host_str() == expected.host_str()
                && sent_to.port_or_known_default() == expected.port_or_known_default()
                && sent_to.path() == expected.path();
            if !same {
                return Err(format!(
                    "the authorization server redirected to {}, not to the redirect URI",
                    sent_to.origin().ascii_serialization()
                )
                .into());
            }
            Ok(sent_to.to_string())
        })
    }
}
