//! The resource server's requests to the authorization server: a GET for a
//! JSON document (metadata, JWKS) or a form POST (introspection), each
//! under the fetch timeout and with its answer read up to the size limit.

use std::time::Duration;

use reqwest::{Client, Response, StatusCode};
use serde_json::{Map, Value};

/// Why a fetch gave nothing usable.
#[derive(Debug)]
pub(crate) enum FetchError {
    /// The server answered with this status (4xx: not there; the next
    /// well-known location may be).
    Status(StatusCode),
    /// No answer (refused, timed out, TLS), or one that is not a JSON
    /// object of at most the size limit.
    Failed(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Status(status) => write!(f, "answered {status}"),
            FetchError::Failed(text) => f.write_str(text),
        }
    }
}

/// The HTTP client, limits included.
pub(crate) struct Fetcher {
    client: Client,
    max_bytes: usize,
}

impl Fetcher {
    /// A client whose requests each take at most `timeout` and whose
    /// answers are read up to `max_bytes`. Redirects are not followed: a
    /// metadata document or a key set is where the issuer says.
    pub(crate) fn new(timeout: Duration, max_bytes: usize) -> Result<Self, String> {
        crate::tls::ensure_crypto_provider();
        let client = Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("tool-mcp/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| format!("the HTTP client could not be built: {error}"))?;
        Ok(Self { client, max_bytes })
    }

    /// The JSON object at `url`.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Map<String, Value>, FetchError> {
        let response = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|error| FetchError::Failed(format!("GET {url}: {}", chain(&error))))?;
        self.read_json(url, response).await
    }

    /// The JSON object answering a form POST of `form` to `url`, with HTTP
    /// Basic authentication as `user` / `password` (RFC 6749 §2.3.1).
    pub(crate) async fn post_form(
        &self,
        url: &str,
        user: &str,
        password: &str,
        form: &[(&str, &str)],
    ) -> Result<Map<String, Value>, FetchError> {
        let body = form
            .iter()
            .map(|(name, value)| format!("{}={}", form_encode(name), form_encode(value)))
            .collect::<Vec<_>>()
            .join("&");
        let response = self
            .client
            .post(url)
            .basic_auth(form_encode(user), Some(form_encode(password)))
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|error| FetchError::Failed(format!("POST {url}: {}", chain(&error))))?;
        self.read_json(url, response).await
    }

    async fn read_json(
        &self,
        url: &str,
        mut response: Response,
    ) -> Result<Map<String, Value>, FetchError> {
        let status = response.status();
        if !status.is_success() {
            return Err(FetchError::Status(status));
        }
        if response
            .content_length()
            .is_some_and(|length| length > self.max_bytes as u64)
        {
            return Err(too_large(url, self.max_bytes));
        }
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > self.max_bytes {
                        return Err(too_large(url, self.max_bytes));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(error) => {
                    return Err(FetchError::Failed(format!(
                        "{url}: the answer could not be read: {}",
                        chain(&error)
                    )));
                }
            }
        }
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(object)) => Ok(object),
            _ => Err(FetchError::Failed(format!(
                "{url}: the answer is not a JSON object"
            ))),
        }
    }
}

fn too_large(url: &str, max: usize) -> FetchError {
    FetchError::Failed(format!("{url}: the answer is larger than {max} bytes"))
}

/// An error with its sources, as one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `text` encoded as `application/x-www-form-urlencoded` does (and as
/// RFC 6749 §2.3.1 asks of a client id and secret in Basic
/// authentication).
fn form_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                encoded.push(byte as char);
            }
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}
