//! The origin rules: where an entry's requests (and credentials) may go.
//! Only an origin the registry file names is a target: the entry's
//! `base_url`; else, for a document fetched from a URL, that URL's origin,
//! with the path of the document's first server. A server at another
//! origin is refused unless `allowed_origins` names it; a document read
//! from a file needs `base_url`.

use serde_json::Value;

use super::super::Problems;
use super::document::Reader;

/// Where the operations' requests go, as the base URL their paths are put
/// after (without a trailing `/`), and that URL parsed (see the [module
/// documentation](self) for the rules).
pub(super) fn base_url(
    definition: &Value,
    doc: &Value,
    from_url: Option<&url::Url>,
    reader: &mut Reader<'_>,
    problems: &mut Problems<'_>,
) -> Option<(String, url::Url)> {
    let allowed = allowed_origins(definition, problems);
    match definition.get("base_url") {
        Some(Value::String(text)) => {
            if allowed.is_some() {
                problems.at_key(
                    "allowed_origins",
                    "`allowed_origins` is for the document's `servers` entry, which `base_url` replaces: requests go to `base_url` alone; remove one of them",
                );
            }
            match checked_base(text) {
                Ok(base) => Some(base),
                Err(message) => {
                    problems.at_value("base_url", message);
                    None
                }
            }
        }
        Some(_) => {
            problems.at_value(
                "base_url",
                "`base_url` is a URL such as \"https://api.example.com/v1\"",
            );
            None
        }
        None => server_base(doc, from_url, allowed.as_deref(), reader, problems),
    }
}

/// The base URL from the document's first server, for an entry without
/// `base_url`: only for a document fetched from a URL, and only at that
/// URL's origin or one of `allowed`.
fn server_base(
    doc: &Value,
    from_url: Option<&url::Url>,
    allowed: Option<&[url::Origin]>,
    reader: &mut Reader<'_>,
    problems: &mut Problems<'_>,
) -> Option<(String, url::Url)> {
    let (server, text) = first_server(doc);
    let Some(document_url) = from_url else {
        let hint = match url::Url::parse(&text) {
            Ok(_) => format!(
                "; its first server is {text}: write `base_url: {text}` if the requests go there"
            ),
            Err(_) => String::new(),
        };
        problems.at_key(
            "document",
            format!(
                "set `base_url`: requests (with the credentials of `auth` and `headers`) go only to an origin the registry file names, and this document is read from a file{hint}"
            ),
        );
        return None;
    };
    let server_pointer = if server.is_some() {
        "/servers/0/url"
    } else {
        ""
    };
    if text.contains(['{', '}']) {
        reader.error(
            server_pointer,
            format!(
                "the server URL {text:?} has a placeholder with no default; set `base_url` in the registry file"
            ),
        );
        return None;
    }
    // A relative server URL (`/v1`, or `//host/v1`) is read against the
    // document's own URL.
    let resolved = match document_url.join(&text) {
        Ok(resolved) => resolved,
        Err(error) => {
            reader.error(
                server_pointer,
                format!(
                    "the server URL {text:?} is not a valid URL ({error}); set `base_url` in the registry file"
                ),
            );
            return None;
        }
    };
    let document_origin = document_url.origin();
    let origin = resolved.origin();
    if origin != document_origin && !allowed.is_some_and(|allowed| allowed.contains(&origin)) {
        reader.error(
            server_pointer,
            format!(
                "the server {text} is refused: its origin, {origin}, is not the document's ({}), and requests (with the credentials of `auth` and `headers`) go only to an origin the registry file names; add \"{origin}\" to `allowed_origins` if it is meant, or set `base_url`",
                document_origin.ascii_serialization(),
                origin = origin.ascii_serialization(),
            ),
        );
        return None;
    }
    match checked_base(resolved.as_str()) {
        Ok(base) => Some(base),
        Err(message) => {
            reader.error(
                server_pointer,
                format!("{message}; set `base_url` in the registry file"),
            );
            None
        }
    }
}

/// The document's first server, and its URL with its variables at their
/// defaults; no server is the server "/" (OpenAPI's default).
fn first_server(doc: &Value) -> (Option<&Value>, String) {
    let server = doc
        .get("servers")
        .and_then(Value::as_array)
        .and_then(|servers| servers.first());
    let mut text = match server {
        Some(server) => server
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        None => "/".to_owned(),
    };
    for (name, variable) in server
        .and_then(|server| server.get("variables"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(default) = variable.get("default").and_then(Value::as_str) {
            text = text.replace(&format!("{{{name}}}"), default);
        }
    }
    (server, text)
}

/// `text` as a base URL: an http(s) URL with no query, fragment or
/// placeholder, without its trailing `/`.
fn checked_base(text: &str) -> Result<(String, url::Url), String> {
    let text = text.trim_end_matches('/').to_owned();
    let url =
        url::Url::parse(&text).map_err(|error| format!("{text:?} is not a valid URL ({error})"))?;
    crate::http::check_shape(&url).map_err(|error| error.to_string())?;
    if text.contains(['{', '}', '?', '#']) {
        return Err(format!(
            "{text:?} is not a base URL: it has a query, a fragment or a placeholder"
        ));
    }
    Ok((text, url))
}

/// The origins of `allowed_origins`, or `None` when the entry has none.
fn allowed_origins(definition: &Value, problems: &mut Problems<'_>) -> Option<Vec<url::Origin>> {
    let value = definition.get("allowed_origins")?;
    let Some(items) = value.as_array() else {
        problems.at_value(
            "allowed_origins",
            "`allowed_origins` is a list of origins, such as [\"https://api.example.com\"]",
        );
        return Some(Vec::new());
    };
    let mut origins = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("allowed_origins/{i}");
        match item.as_str().map(parse_origin) {
            Some(Ok(origin)) => origins.push(origin),
            Some(Err(message)) => problems.at_value(&key, message),
            None => problems.at_value(
                &key,
                "an origin is text, such as \"https://api.example.com:8443\"",
            ),
        }
    }
    Some(origins)
}

/// An origin as written in `allowed_origins`: a scheme, a host and an
/// optional port.
fn parse_origin(text: &str) -> Result<url::Origin, String> {
    let example =
        "write a scheme, a host and an optional port, such as \"https://api.example.com:8443\"";
    let url = url::Url::parse(text)
        .map_err(|error| format!("{text:?} is not an origin ({error}); {example}"))?;
    crate::http::check_shape(&url).map_err(|error| format!("{text:?}: {error}"))?;
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?} is not an origin: it has a path, a query or a fragment; {example}"
        ));
    }
    Ok(url.origin())
}
