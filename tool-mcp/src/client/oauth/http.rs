//! The HTTP requests of the OAuth flows (metadata, registration, tokens):
//! one reqwest client with a time limit and a bound on each body, for
//! rmcp's discovery and exchange and for the token requests made here. It
//! notes the protected resource metadata it reads, whose `resource` the
//! token requests made here name (RFC 8707).

use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};
use serde_json::Value;

/// How long one OAuth request may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(30);
/// The largest body of an OAuth response read (metadata, tokens).
pub(crate) const MAX_BODY: usize = 1024 * 1024;

/// The OAuth flows' HTTP client: made when first needed (most
/// connections never authorize).
pub(crate) struct Http {
    follow: OnceLock<reqwest::Client>,
    stop: OnceLock<reqwest::Client>,
    /// The `resource` of the last protected resource metadata document
    /// read.
    resource: Mutex<Option<String>>,
}

impl Http {
    pub(crate) fn new() -> Self {
        Self {
            follow: OnceLock::new(),
            stop: OnceLock::new(),
            resource: Mutex::new(None),
        }
    }

    /// The client following redirects, or not.
    fn client(
        &self,
        redirects: OAuthHttpRedirectPolicy,
    ) -> Result<&reqwest::Client, reqwest::Error> {
        let (slot, policy) = match redirects {
            OAuthHttpRedirectPolicy::Stop => (&self.stop, reqwest::redirect::Policy::none()),
            _ => (&self.follow, reqwest::redirect::Policy::limited(10)),
        };
        if let Some(client) = slot.get() {
            return Ok(client);
        }
        crate::tls::ensure_crypto_provider();
        // No connection kept between requests: they are few and far
        // apart, and a server closing an idle connection as a request goes
        // out on it would fail the request.
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(policy)
            .pool_max_idle_per_host(0)
            .build()?;
        Ok(slot.get_or_init(|| client))
    }

    /// The `resource` of the protected resource metadata read since the
    /// last call, taking it.
    pub(crate) fn take_resource(&self) -> Option<String> {
        self.resource
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Sends `request`, following redirects or not, and reads the answer
    /// within [`MAX_BODY`].
    pub(crate) async fn send(
        &self,
        request: oauth2::HttpRequest,
        redirects: OAuthHttpRedirectPolicy,
    ) -> Result<oauth2::HttpResponse, OAuthHttpClientError> {
        let client = self.client(redirects)?;
        let is_get = request.method() == http::Method::GET;
        let request = reqwest::Request::try_from(request)?;
        let url = request.url().clone();
        let response = client.execute(request).await.inspect_err(|error| {
            tracing::debug!(%url, error = %error_chain(error), "an OAuth request failed");
        })?;
        let mut answer = http::Response::builder().status(response.status());
        for (name, value) in response.headers() {
            answer = answer.header(name, value);
        }
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk?;
            if body.len() + chunk.len() > MAX_BODY {
                return Err(format!("an OAuth response is over {MAX_BODY} bytes").into());
            }
            body.extend_from_slice(&chunk);
        }
        let answer = answer.body(body)?;
        if is_get && answer.status().is_success() {
            self.note_resource(answer.body());
        }
        Ok(answer)
    }

    /// Notes the `resource` of a protected resource metadata document.
    fn note_resource(&self, body: &[u8]) {
        let Ok(Value::Object(document)) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        let names_servers = document.contains_key("authorization_servers")
            || document.contains_key("authorization_server");
        if let (Some(Value::String(resource)), true) = (document.get("resource"), names_servers) {
            *self.resource.lock().unwrap_or_else(PoisonError::into_inner) = Some(resource.clone());
        }
    }
}

impl OAuthHttpClient for Http {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        let redirects = request.redirect_policy;
        Box::pin(self.send(request.request, redirects))
    }
}

/// An error with its sources, for the log.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
