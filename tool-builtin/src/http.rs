//! `http_request`: HTTP calls to an allowlist of hosts, and nowhere else.
//!
//! The allowlist is empty by default, so nothing is reachable until the
//! deployment names the hosts. Redirects are followed here, not by the HTTP
//! client, so that every hop is checked against the allowlist before any
//! connection is made to it.

use std::collections::BTreeMap;
use std::io::Read;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use tool_runtime::ToolError;
#[cfg(feature = "tools")]
use tool_runtime::config::Config;
#[cfg(feature = "tools")]
use tool_runtime::tool;
use ureq::http;
use url::Url;

/// How the `http_request` tool is set up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// The hosts requests may go to: `api.example.com` (any port),
    /// `api.example.com:8443` (that port only), `*.example.com` (its
    /// subdomains, not example.com itself), IP addresses (`127.0.0.1:8080`,
    /// `[::1]`). Empty, the default, allows nothing.
    #[serde(deserialize_with = "host_patterns")]
    pub allowed_hosts: Vec<String>,
    /// The time limit of one call, redirects and reading the body included,
    /// in milliseconds.
    #[schemars(range(min = 1))]
    pub timeout_ms: u64,
    /// The time limit for opening each connection, in milliseconds.
    #[schemars(range(min = 1))]
    pub connect_timeout_ms: u64,
    /// The most bytes of a response body read; the rest is not read, and
    /// the answer says `truncated`.
    #[schemars(range(min = 1))]
    pub max_response_bytes: u64,
    /// The largest request body sent, in bytes.
    pub max_request_bytes: u64,
    /// How many redirects one call follows (each target checked against
    /// `allowed_hosts`). 0 returns redirects as they are.
    #[schemars(range(max = 20))]
    pub max_redirects: u32,
    /// The User-Agent header sent when the call sets none.
    pub user_agent: String,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            allowed_hosts: Vec::new(),
            timeout_ms: 30_000,
            connect_timeout_ms: 10_000,
            max_response_bytes: 1024 * 1024,
            max_request_bytes: 1024 * 1024,
            max_redirects: 5,
            user_agent: concat!("tool-builtin/", env!("CARGO_PKG_VERSION")).into(),
        }
    }
}

fn host_patterns<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let entries = Vec::<String>::deserialize(deserializer)?;
    for entry in &entries {
        HostPattern::parse(entry).map_err(serde::de::Error::custom)?;
    }
    Ok(entries)
}

/// What `http_request` returns.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HttpResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The URL that answered (after redirects).
    pub url: String,
    /// The response headers, names in lower case; repeated headers are
    /// joined with ", ".
    pub headers: BTreeMap<String, String>,
    /// The body: parsed JSON when the response is JSON, else text.
    pub body: Value,
    /// Whether the body was cut at the size limit.
    pub truncated: bool,
}

/// Make an HTTP request to an allowed host.
///
/// Only hosts on the configured allowlist can be reached; redirects are
/// followed only to allowed hosts. The answer has the status, headers and
/// body (JSON when the response is JSON, else text). Long bodies are cut at
/// the size limit, with `truncated` set.
#[cfg(feature = "tools")]
#[tool(register = false, config = HttpConfig, open_world, read_only = false, blocking)]
pub fn http_request(
    /// The URL, http:// or https://, e.g. "https://api.example.com/items?page=2"
    #[tool(length(min = 1, max = 8192))]
    url: String,
    /// The method: GET (the default), POST, PUT, PATCH or DELETE
    #[tool(one_of = ["GET", "POST", "PUT", "PATCH", "DELETE"])]
    method: Option<String>,
    /// Request headers, name to value, e.g. {"Accept": "application/json"}
    headers: Option<BTreeMap<String, String>>,
    /// The body: a string is sent as text, any other JSON value as JSON
    body: Option<Value>,
    config: Config<HttpConfig>,
) -> Result<HttpResponse, ToolError> {
    let patterns: Vec<HostPattern> = config
        .allowed_hosts
        .iter()
        .filter_map(|entry| HostPattern::parse(entry).ok())
        .collect();
    let url = parse_url(&url)?;
    check_allowed(&url, &patterns)?;
    let method = match method.as_deref().unwrap_or("GET") {
        "GET" => http::Method::GET,
        "POST" => http::Method::POST,
        "PUT" => http::Method::PUT,
        "PATCH" => http::Method::PATCH,
        "DELETE" => http::Method::DELETE,
        other => {
            return Err(ToolError::new(format!(
                "unknown method {other:?}; use GET, POST, PUT, PATCH or DELETE"
            )));
        }
    };
    let headers = request_headers(headers.unwrap_or_default())?;
    let body = match body {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some((text.into_bytes(), "text/plain; charset=utf-8".into())),
        Some(json) => Some((
            serde_json::to_vec(&json).map_err(ToolError::internal)?,
            "application/json".into(),
        )),
    };
    send(
        Outgoing {
            method,
            url,
            headers,
            body,
        },
        &patterns,
        &config,
    )
}

/// One request to send: its URL already parsed (`parse_url`), its headers
/// checked (`request_headers`).
pub(crate) struct Outgoing {
    pub(crate) method: http::Method,
    pub(crate) url: Url,
    pub(crate) headers: http::HeaderMap,
    /// The body and the Content-Type sent with it unless a header sets one.
    pub(crate) body: Option<(Vec<u8>, String)>,
}

/// Sends `request`: its URL and every redirect checked against `patterns`
/// before any connection is made, the body and the response capped as
/// `config` says (its `allowed_hosts` is not read), one time limit for the
/// whole call. `http_request` and the HTTP tools (`crate::http_tools`)
/// both go through here.
pub(crate) fn send(
    request: Outgoing,
    patterns: &[HostPattern],
    config: &HttpConfig,
) -> Result<HttpResponse, ToolError> {
    let Outgoing {
        mut method,
        mut url,
        mut headers,
        mut body,
    } = request;
    check_shape(&url)?;
    check_allowed(&url, patterns)?;
    if let Some((bytes, _)) = &body
        && bytes.len() as u64 > config.max_request_bytes
    {
        return Err(ToolError::new(format!(
            "the body is {} bytes, more than the limit of {} bytes",
            bytes.len(),
            config.max_request_bytes
        )));
    }

    let agent = ureq::Agent::new_with_config(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .timeout_connect(Some(Duration::from_millis(config.connect_timeout_ms)))
            .user_agent(config.user_agent.as_str())
            .build(),
    );
    let deadline = Instant::now() + Duration::from_millis(config.timeout_ms);
    let mut redirects = 0;
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(timed_out(config));
        }
        let mut request = http::Request::builder()
            .method(method.clone())
            .uri(url.as_str());
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        if let Some((_, content_type)) = &body
            && !headers.contains_key(http::header::CONTENT_TYPE)
        {
            request = request.header(http::header::CONTENT_TYPE, content_type.as_str());
        }
        let bytes = body
            .as_ref()
            .map(|(bytes, _)| bytes.clone())
            .unwrap_or_default();
        let request = request
            .body(bytes)
            .map_err(|error| ToolError::new(format!("invalid request: {error}")))?;
        let request = agent
            .configure_request(request)
            .timeout_global(Some(remaining))
            .build();
        let response = agent
            .run(request)
            .map_err(|error| transport_error(&url, config, error))?;

        let status = response.status().as_u16();
        let location = response
            .headers()
            .get(http::header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if let (301 | 302 | 303 | 307 | 308, Some(location)) = (status, &location)
            && config.max_redirects > 0
        {
            if redirects == config.max_redirects {
                return Err(ToolError::new(format!(
                    "stopped after {redirects} redirects (the limit); the last one pointed to {location}"
                )));
            }
            let next = url.join(location).map_err(|error| {
                ToolError::new(format!(
                    "the redirect to {location:?} is not a valid URL: {error}"
                ))
            })?;
            check_redirect(&next, patterns)?;
            if status == 303 || (matches!(status, 301 | 302) && method == http::Method::POST) {
                method = http::Method::GET;
                body = None;
                headers.remove(http::header::CONTENT_TYPE);
            }
            if next.host_str() != url.host_str()
                || next.port_or_known_default() != url.port_or_known_default()
            {
                // Credentials meant for one host are not sent to another.
                headers.remove(http::header::AUTHORIZATION);
                headers.remove(http::header::COOKIE);
                headers.remove(http::header::PROXY_AUTHORIZATION);
            }
            url = next;
            redirects += 1;
            continue;
        }
        return read_response(response, &url, config);
    }
}

fn read_response(
    response: http::Response<ureq::Body>,
    url: &Url,
    config: &HttpConfig,
) -> Result<HttpResponse, ToolError> {
    let (parts, mut body) = response.into_parts();
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in &parts.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_owned())
            .and_modify(|existing| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    let limit = config.max_response_bytes;
    let mut bytes = Vec::new();
    body.as_reader()
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| {
            ToolError::new(format!(
                "reading the response from {url} failed: {}",
                read_error_text(&error, config)
            ))
        })?;
    let truncated = bytes.len() as u64 > limit;
    bytes.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let is_json = headers.get("content-type").is_some_and(|kind| {
        let kind = kind
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        kind == "application/json" || kind.ends_with("+json")
    });
    let body = match (is_json && !truncated)
        .then(|| serde_json::from_slice::<Value>(&bytes).ok())
        .flatten()
    {
        Some(json) => json,
        None => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
    };
    Ok(HttpResponse {
        status: parts.status.as_u16(),
        url: url.to_string(),
        headers,
        body,
        truncated,
    })
}

fn read_error_text(error: &std::io::Error, config: &HttpConfig) -> String {
    let text = error.to_string();
    if error.kind() == std::io::ErrorKind::TimedOut || text.to_lowercase().contains("timeout") {
        format!("timed out (the limit is {} ms)", config.timeout_ms)
    } else {
        text
    }
}

fn timed_out(config: &HttpConfig) -> ToolError {
    ToolError::new(format!(
        "the request timed out (the limit is {} ms)",
        config.timeout_ms
    ))
}

fn transport_error(url: &Url, config: &HttpConfig, error: ureq::Error) -> ToolError {
    match error {
        ureq::Error::Timeout(ureq::Timeout::Connect) => ToolError::new(format!(
            "connecting to {url} timed out (the limit is {} ms)",
            config.connect_timeout_ms
        )),
        ureq::Error::Timeout(_) => timed_out(config),
        ureq::Error::HostNotFound => ToolError::new(format!(
            "the host of {url} was not found (DNS lookup failed)"
        )),
        ureq::Error::Io(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => {
            ToolError::new(format!("{url} refused the connection"))
        }
        other => ToolError::new(format!("the request to {url} failed: {other}")),
    }
}

/// Checks and converts the call's headers; the ones the tool sets itself
/// (Host, Content-Length, ...) are refused.
pub(crate) fn request_headers(
    given: BTreeMap<String, String>,
) -> Result<http::HeaderMap, ToolError> {
    const RESERVED: &[&str] = &[
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "upgrade",
        "te",
        "trailer",
        "keep-alive",
        "proxy-connection",
    ];
    let mut headers = http::HeaderMap::new();
    for (name, value) in given {
        if RESERVED.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(ToolError::new(format!(
                "the header {name:?} is set by the tool; leave it out"
            )));
        }
        let header = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| ToolError::new(format!("{name:?} is not a valid header name")))?;
        let value = http::HeaderValue::from_str(&value).map_err(|_| {
            ToolError::new(format!(
                "the value of header {name:?} is not valid (no line breaks or control characters)"
            ))
        })?;
        headers.append(header, value);
    }
    Ok(headers)
}

pub(crate) fn parse_url(input: &str) -> Result<Url, ToolError> {
    let url = Url::parse(input.trim()).map_err(|error| {
        ToolError::new(format!(
            "{input:?} is not a valid URL ({error}); write a full URL such as \"https://api.example.com/items\""
        ))
    })?;
    check_shape(&url)?;
    Ok(url)
}

pub(crate) fn check_shape(url: &Url) -> Result<(), ToolError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::new(format!(
            "only http:// and https:// URLs are supported, not {}:",
            url.scheme()
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ToolError::new(
            "credentials in the URL are not supported; send an Authorization header instead",
        ));
    }
    if url.host_str().is_none() {
        return Err(ToolError::new(format!("{url} has no host")));
    }
    if url.scheme() == "https" && !cfg!(feature = "https") {
        return Err(ToolError::new(
            "https:// URLs are not available in this build (the `https` feature of tool-builtin is off)",
        ));
    }
    Ok(())
}

fn check_allowed(url: &Url, patterns: &[HostPattern]) -> Result<(), ToolError> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(0);
    if patterns.iter().any(|pattern| pattern.matches(host, port)) {
        return Ok(());
    }
    Err(ToolError::new(if patterns.is_empty() {
        format!(
            "refused: {host} is not an allowed host; no host is allowed yet (the deployment sets allowed_hosts in the http_request configuration)"
        )
    } else {
        format!(
            "refused: {host}:{port} is not an allowed host; the allowed hosts are {}",
            patterns
                .iter()
                .map(|p| p.source.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }))
}

fn check_redirect(next: &Url, patterns: &[HostPattern]) -> Result<(), ToolError> {
    check_shape(next)
        .and_then(|()| check_allowed(next, patterns))
        .map_err(|error| {
            ToolError::new(format!(
                "the response redirects to {next}, which is not followed: {error}"
            ))
        })
}

/// One allowlist entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HostPattern {
    source: String,
    /// The host, lower case; for `*.example.com`, `example.com`.
    host: String,
    wildcard: bool,
    port: Option<u16>,
}

impl HostPattern {
    pub(crate) fn parse(entry: &str) -> Result<Self, String> {
        let source = entry.trim().to_owned();
        let text = source.to_ascii_lowercase();
        let bad = |why: &str| {
            Err(format!(
                "allowed host {entry:?} {why}; write a host name such as \"api.example.com\", \"api.example.com:8443\" or \"*.example.com\""
            ))
        };
        if text.is_empty() {
            return bad("is empty");
        }
        if text.contains("://") || text.contains('/') {
            return bad("is a URL, not a host");
        }
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let Some((address, after)) = rest.split_once(']') else {
                return bad("has an unclosed '['");
            };
            let port = match after.strip_prefix(':') {
                Some(port) => Some(port),
                None if after.is_empty() => None,
                None => return bad("has text after ']'"),
            };
            if address.parse::<std::net::Ipv6Addr>().is_err() {
                return bad("is not a valid IPv6 address");
            }
            (format!("[{address}]"), port)
        } else {
            match text.rsplit_once(':') {
                Some((host, port)) => (host.to_owned(), Some(port)),
                None => (text.clone(), None),
            }
        };
        let port = match port {
            Some(port) => match port.parse::<u16>() {
                Ok(port) => Some(port),
                Err(_) => return bad("has an invalid port"),
            },
            None => None,
        };
        let (host, wildcard) = match host.strip_prefix("*.") {
            Some(rest) => (rest.to_owned(), true),
            None => (host, false),
        };
        let host = host.trim_end_matches('.').to_owned();
        let valid = host.starts_with('[')
            || (!host.is_empty()
                && host.split('.').all(|label| {
                    !label.is_empty()
                        && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                }));
        if !valid {
            return bad("is not a valid host name");
        }
        Ok(Self {
            source,
            host,
            wildcard,
            port,
        })
    }

    fn matches(&self, host: &str, port: u16) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let host_ok = if self.wildcard {
            host.strip_suffix(&self.host)
                .is_some_and(|prefix| prefix.len() > 1 && prefix.ends_with('.'))
        } else {
            host == self.host
        };
        host_ok && self.port.is_none_or(|allowed| allowed == port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(entries: &[&str], url: &str) -> bool {
        let patterns: Vec<HostPattern> = entries
            .iter()
            .map(|e| HostPattern::parse(e).unwrap())
            .collect();
        check_allowed(&Url::parse(url).unwrap(), &patterns).is_ok()
    }

    #[test]
    fn allowlist_matching() {
        assert!(allowed(&["api.example.com"], "https://api.example.com/x"));
        assert!(allowed(&["API.Example.com"], "https://api.EXAMPLE.com./x"));
        assert!(allowed(
            &["api.example.com"],
            "http://api.example.com:8080/"
        ));
        assert!(!allowed(&["api.example.com"], "https://example.com/"));
        assert!(!allowed(
            &["api.example.com"],
            "https://api.example.com.evil.net/"
        ));
        assert!(allowed(
            &["api.example.com:443"],
            "https://api.example.com/"
        ));
        assert!(!allowed(
            &["api.example.com:443"],
            "http://api.example.com/"
        ));
        assert!(allowed(&["*.example.com"], "https://a.b.example.com/"));
        assert!(!allowed(&["*.example.com"], "https://example.com/"));
        assert!(!allowed(&["*.example.com"], "https://badexample.com/"));
        assert!(allowed(&["127.0.0.1:8080"], "http://127.0.0.1:8080/"));
        // Other spellings of an address are normalised before the check.
        assert!(allowed(&["127.0.0.1"], "http://2130706433/"));
        assert!(!allowed(&["localhost"], "http://127.0.0.1/"));
        assert!(allowed(&["[::1]:80"], "http://[::1]/"));
        // Userinfo does not fool the check: the host is what follows '@'.
        assert!(parse_url("http://api.example.com@evil.net/").is_err());
        assert!(!allowed(
            &["api.example.com"],
            "http://evil.net/?api.example.com"
        ));
        assert!(!allowed(&[], "https://api.example.com/"));
    }

    #[test]
    fn invalid_entries_are_rejected() {
        for entry in [
            "https://x.com",
            "x.com/path",
            "",
            "x.com:port",
            "[::1",
            "a..b",
            "x y",
        ] {
            assert!(HostPattern::parse(entry).is_err(), "{entry:?}");
        }
    }
}
