//! What streamable HTTP asks of a request's headers: the media types it
//! accepts and sends, its `MCP-Protocol-Version`, and, from revision
//! 2026-07-28, the standard headers that mirror its body (`Mcp-Method`,
//! and `Mcp-Name` for the methods that name something) so that a proxy
//! can route it without reading the body. A mirror missing or unlike the
//! body is refused with `-32020` (header mismatch), HTTP `400`.

use std::borrow::Cow;

use hyper::header::{self, HeaderMap};
use serde_json::{Map, Value};

use crate::server::revision::{META_VERSION, REVISIONS, STATELESS_REVISION};
use crate::server::wire::RpcError;

/// MCP's "header mismatch".
pub(super) use crate::headers::HEADER_MISMATCH;

/// The protocol version header.
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The session header.
pub(super) const SESSION_ID: &str = "mcp-session-id";
const METHOD: &str = "mcp-method";
const NAME: &str = "mcp-name";

/// The media types of the `Accept` header (without parameters), those
/// given a weight of zero left out.
fn accepted(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|range| {
            let mut parts = range.split(';');
            let media = parts.next()?.trim();
            let refused = parts.any(|parameter| {
                let parameter = parameter.trim();
                parameter
                    .strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
            });
            (!refused).then_some(media)
        })
}

/// Whether the request accepts `media` (or everything).
pub(super) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    accepted(headers).any(|range| range.eq_ignore_ascii_case(media) || range == "*/*")
}

/// Whether the request accepts both JSON and event streams, as a POST
/// must: one pass over `Accept`.
pub(super) fn accepts_json_and_events(headers: &HeaderMap) -> bool {
    // What clients send, told at once.
    if let Some(accept) = headers.get(header::ACCEPT)
        && matches!(
            accept.as_bytes(),
            b"application/json, text/event-stream" | b"text/event-stream, application/json"
        )
    {
        return true;
    }
    let (mut json, mut events) = (false, false);
    for range in accepted(headers) {
        let any = range == "*/*";
        json |= any || range.eq_ignore_ascii_case("application/json");
        events |= any || range.eq_ignore_ascii_case("text/event-stream");
    }
    json && events
}

/// Whether the request's body is JSON (`Content-Type: application/json`,
/// any parameters).
pub(super) fn sends_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// The header `name` when it appears once, trimmed; an error when it
/// appears more than once or is not text.
fn single<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(format!("the {name} header appears more than once"));
    }
    let value = value
        .to_str()
        .map_err(|_| format!("the {name} header holds characters a header may not"))?;
    Ok(Some(value.trim()))
}

/// The request's `MCP-Protocol-Version`, if it gave one it could.
pub(super) fn protocol_version(headers: &HeaderMap) -> Option<&str> {
    single(headers, PROTOCOL_VERSION).ok().flatten()
}

/// Whether `version` is a revision the server knows.
pub(super) fn is_known(version: &str) -> bool {
    version == STATELESS_REVISION || REVISIONS.contains(&version)
}

/// Whether `version` (a request's header) is a revision with the standard
/// headers: 2026-07-28 or later.
pub(super) fn is_modern(version: &str) -> bool {
    version >= STATELESS_REVISION
}

/// Whether the request says (in its header) it speaks a revision with the
/// standard headers.
pub(super) fn has_standard_headers(headers: &HeaderMap) -> bool {
    protocol_version(headers).is_some_and(is_modern)
}

/// What the header checks need of a message's body.
pub(super) struct Message<'a> {
    /// The method, for requests and notifications.
    pub(super) method: Option<&'a str>,
    /// The `name` (or `uri`) its method is named by, for the methods that
    /// have one.
    pub(super) name: Option<Cow<'a, str>>,
    /// The protocol version in its `_meta`, if any.
    pub(super) meta_version: Option<&'a str>,
}

impl<'a> Message<'a> {
    /// The parts of a message of `method` with `params` the checks need.
    pub(super) fn of(method: Option<&'a str>, params: Option<&'a Map<String, Value>>) -> Self {
        let key = match method {
            Some("tools/call" | "prompts/get") => Some("name"),
            Some("resources/read" | "resources/subscribe" | "resources/unsubscribe") => Some("uri"),
            // The tasks extension routes by task.
            Some("tasks/get" | "tasks/update" | "tasks/cancel") => Some("taskId"),
            _ => None,
        };
        let name = key
            .and_then(|key| params?.get(key)?.as_str())
            .map(Cow::Borrowed);
        let meta_version = params.and_then(|params| {
            params
                .get("_meta")?
                .as_object()?
                .get(META_VERSION)?
                .as_str()
        });
        Self {
            method,
            name,
            meta_version,
        }
    }

    /// The parts of a `tools/call` of tool `name` with `meta`.
    pub(super) fn of_call(name: &'a str, meta: Option<&'a Map<String, Value>>) -> Self {
        Self {
            method: Some("tools/call"),
            name: Some(Cow::Borrowed(name)),
            meta_version: meta.and_then(|meta| meta.get(META_VERSION)?.as_str()),
        }
    }
}

/// Checks the request's headers against its body: `MCP-Protocol-Version`
/// (`header_version`, as [`protocol_version`] read it) against the version
/// in its `_meta`, and, when it speaks a revision with them, the standard
/// headers; the error to answer with otherwise.
pub(super) fn check(
    headers: &HeaderMap,
    header_version: Option<&str>,
    message: &Message<'_>,
) -> Result<(), RpcError> {
    let mismatch =
        |text: String| RpcError::new(HEADER_MISMATCH, format!("header mismatch: {text}"));
    if let Some(meta_version) = message.meta_version {
        match header_version {
            None => {
                return Err(mismatch(format!(
                    "a request whose _meta names protocol version {meta_version} needs the same \
                     in an MCP-Protocol-Version header"
                )));
            }
            Some(header) if header != meta_version => {
                return Err(mismatch(format!(
                    "the MCP-Protocol-Version header ({header}) is not the protocol version of \
                     the request's _meta ({meta_version})"
                )));
            }
            Some(_) => {}
        }
    }
    if !header_version.is_some_and(is_modern) {
        return Ok(());
    }
    let Some(method) = message.method else {
        return Ok(());
    };
    match single(headers, METHOD).map_err(mismatch)? {
        // The handshake of the older revisions need not say its method.
        None if method == "initialize" => {}
        None => return Err(mismatch("the Mcp-Method header is missing".into())),
        Some(header) if header != method => {
            return Err(mismatch(format!(
                "the Mcp-Method header ({header}) is not the request's method ({method})"
            )));
        }
        Some(_) => {}
    }
    if let Some(name) = &message.name {
        let header = single(headers, NAME).map_err(mismatch)?.ok_or_else(|| {
            mismatch(format!(
                "the Mcp-Name header is missing (a {method} names {name})"
            ))
        })?;
        let decoded = crate::headers::decode_value(header.as_bytes())
            .map_err(|_| mismatch("the Mcp-Name header is not valid base64".into()))?;
        if decoded != *name {
            return Err(mismatch(format!(
                "the Mcp-Name header ({decoded}) is not the name in the request ({name})"
            )));
        }
    }
    Ok(())
}
