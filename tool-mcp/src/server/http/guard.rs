//! The guard against DNS rebinding and cross-origin requests, applied to a
//! request's head before any byte of its body is read: its `Host` must
//! name a loopback host or one the server allows, and its `Origin`, when a
//! browser sent one, a loopback origin or one the server allows.
//!
//! A web page cannot set either header, so a page on another site that
//! makes the browser reach the server (a rebound DNS name, or a plain
//! cross-origin request) is refused, whatever its body says.

use hyper::StatusCode;
use hyper::header::{self, HeaderMap};
use hyper::http::uri::Authority;

use super::HttpOptions;

/// Why a request's head was refused: the status and the text to answer
/// with.
pub(super) type Refusal = (StatusCode, &'static str);

/// Refuses a request whose `Host` or `Origin` the server does not accept.
pub(super) fn check(headers: &HeaderMap, options: &HttpOptions) -> Result<(), Refusal> {
    check_host(headers, &options.allowed_hosts)?;
    check_origin(headers, &options.allowed_origins)
}

/// Whether `host` (lower case, without brackets) is a loopback host.
fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

/// Whether `authority` is plainly a loopback host with an optional port
/// (`127.0.0.1:8080`, `localhost`, `[::1]:3000`): the usual `Host`, told
/// without parsing it.
fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    };
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1" || host == "[::1]"
}

/// A host as compared: lower case, an IPv6 address without its brackets.
fn normalize(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

fn check_host(headers: &HeaderMap, allowed: &[String]) -> Result<(), Refusal> {
    let forbidden = (
        StatusCode::FORBIDDEN,
        "forbidden: the Host header names a host this server does not serve (a guard against \
         DNS rebinding)",
    );
    let Some(host) = headers.get(header::HOST) else {
        return Err((StatusCode::BAD_REQUEST, "bad request: no Host header"));
    };
    if host.to_str().is_ok_and(is_loopback_authority) {
        return Ok(());
    }
    let authority = host
        .to_str()
        .ok()
        .and_then(|host| host.parse::<Authority>().ok())
        .ok_or((
            StatusCode::BAD_REQUEST,
            "bad request: the Host header is not a host",
        ))?;
    let name = normalize(authority.host());
    if is_loopback(&name) {
        return Ok(());
    }
    let port = authority.port_u16();
    let listed = allowed.iter().any(|entry| {
        let Ok(entry) = entry.trim().parse::<Authority>() else {
            return false;
        };
        normalize(entry.host()) == name && entry.port_u16().is_none_or(|p| Some(p) == port)
    });
    if listed { Ok(()) } else { Err(forbidden) }
}

/// An origin: scheme, host (normalized) and port (the scheme's default when
/// none is written).
#[derive(PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origin {
    /// The origin `text` (`scheme://host[:port]`), or `None` for anything
    /// else (`null` included).
    fn parse(text: &str) -> Option<Self> {
        let uri: hyper::Uri = text.trim().parse().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let authority = uri.authority()?;
        let port = authority.port_u16().or(match scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        });
        Some(Origin {
            host: normalize(authority.host()),
            scheme,
            port,
        })
    }
}

fn check_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), Refusal> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        // No browser sent it: not a cross-origin request.
        return Ok(());
    };
    let forbidden = (
        StatusCode::FORBIDDEN,
        "forbidden: requests from this Origin are not accepted (only loopback origins and those \
         the server allows)",
    );
    let text = origin.to_str().map_err(|_| forbidden)?;
    if allowed.iter().any(|entry| entry.trim() == text.trim()) {
        // `null` and the like, allowed as written.
        return Ok(());
    }
    let origin = Origin::parse(text).ok_or(forbidden)?;
    let web = matches!(origin.scheme.as_str(), "http" | "https");
    if web && is_loopback(&origin.host) {
        return Ok(());
    }
    if allowed
        .iter()
        .filter_map(|entry| Origin::parse(entry))
        .any(|entry| entry == origin)
    {
        return Ok(());
    }
    Err(forbidden)
}
