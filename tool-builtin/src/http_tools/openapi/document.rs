//! Reading the document: fetching or opening it, parsing it with the line
//! and column of every value, its OpenAPI version, and [`Reader`], which
//! walks it, follows its references and keeps what is wrong and worth
//! knowing, each naming its place.

use serde_json::Value;
use tool_manifest::Document;
use ureq::http;

use super::super::schema::local_pointer;
use super::super::{Context, Problems, guard_for};
use crate::http::{HttpConfig, Outgoing};

/// The most bytes of an OpenAPI document fetched from a URL.
const MAX_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;

/// The entry's `document`, read and parsed, and its URL when it was
/// fetched; `None` when that fails (the problem pushed).
pub(super) fn open(
    context: &Context<'_>,
    definition: &Value,
    config: &HttpConfig,
    problems: &mut Problems<'_>,
) -> Option<(Document, String, Option<url::Url>)> {
    let Some(source) = definition.get("document").and_then(Value::as_str) else {
        problems.at_key(
            "document",
            "missing `document`: the OpenAPI document's path (relative to this file) or URL",
        );
        return None;
    };
    let (text, from_url) = match read_document(context, source, config) {
        Ok(read) => read,
        Err(message) => {
            problems.at_value("document", message);
            return None;
        }
    };
    match Document::parse(&text) {
        Ok(document) => Some((document, source.to_owned(), from_url)),
        Err(error) => {
            problems.at_value(
                "document",
                format!("{source} is not valid JSON or YAML: {error}"),
            );
            None
        }
    }
}

/// The document's text, and its URL when it was fetched.
fn read_document(
    context: &Context<'_>,
    source: &str,
    config: &HttpConfig,
) -> Result<(String, Option<url::Url>), String> {
    if source.starts_with("http://") || source.starts_with("https://") {
        let url = crate::http::parse_url(source).map_err(|error| error.to_string())?;
        let mut config = config.clone();
        config.max_response_bytes = config.max_response_bytes.max(MAX_DOCUMENT_BYTES);
        let guard = guard_for(&url, config)?;
        let response = guard
            .send(Outgoing {
                method: http::Method::GET,
                url: url.clone(),
                headers: http::HeaderMap::new(),
                body: None,
            })
            .map_err(|error| format!("cannot fetch {source}: {error}"))?;
        if !(200..300).contains(&response.status) {
            return Err(format!(
                "cannot fetch {source}: it answered {}",
                response.status
            ));
        }
        if response.truncated {
            return Err(format!(
                "{source} is larger than {MAX_DOCUMENT_BYTES} bytes"
            ));
        }
        let text = match response.body {
            Value::String(text) => text,
            json => serde_json::to_string_pretty(&json).unwrap_or_default(),
        };
        return Ok((text, Some(url)));
    }
    let path = context.base_dir.join(source);
    std::fs::read_to_string(&path)
        .map(|text| (text, None))
        .map_err(|error| format!("cannot read {}: {error}", path.display()))
}

/// Walks the document: follows references, converts schemas, and keeps
/// what is wrong (errors) and worth knowing (notes), each naming its place
/// in the document.
pub(super) struct Reader<'d> {
    pub(super) document: &'d Document,
    source: String,
    from_url: bool,
    /// Whether the document is OpenAPI 3.0 (whose schemas differ from
    /// JSON Schema's), found by [`check_version`](Self::check_version).
    pub(super) v30: bool,
    pub(super) notes: Vec<String>,
    pub(super) errors: Vec<String>,
}

impl<'d> Reader<'d> {
    /// A reader of `document`, read from `source` (fetched from a URL when
    /// `from_url`).
    pub(super) fn new(document: &'d Document, source: String, from_url: bool) -> Self {
        Reader {
            document,
            source,
            from_url,
            v30: false,
            notes: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Reads the document's version: OpenAPI 3.0 or 3.1, else an error.
    pub(super) fn check_version(&mut self) {
        let doc = self.document.value();
        match (doc.get("openapi").and_then(Value::as_str), doc.get("swagger")) {
            (Some(version), _) if version.starts_with("3.0") => self.v30 = true,
            (Some(version), _) if version.starts_with("3.1") => {}
            (Some(version), _) => self.error(
                "/openapi",
                format!("OpenAPI {version} is not supported; this reads OpenAPI 3.0 and 3.1"),
            ),
            (None, Some(_)) => self.error(
                "/swagger",
                "Swagger 2.0 is not supported; convert the document to OpenAPI 3 (swagger2openapi, or the Swagger editor)",
            ),
            (None, None) => {
                self.error("", "not an OpenAPI document: it has no `openapi` version")
            }
        }
    }

    /// `source:LINE:COLUMN` of the key of the value at `pointer` (the
    /// pointer itself for a document fetched from a URL, whose text was not
    /// kept).
    fn here(&self, pointer: &str) -> String {
        let at = self
            .document
            .key_location_of(pointer)
            .or_else(|| self.document.location_of(pointer));
        match at {
            Some(at) if !self.from_url => format!("{}:{}:{}", self.source, at.line, at.column),
            _ => format!("{}#{pointer}", self.source),
        }
    }

    pub(super) fn error(&mut self, pointer: &str, message: impl std::fmt::Display) {
        let here = self.here(pointer);
        self.errors.push(format!("{here}: {message}"));
    }

    pub(super) fn note(&mut self, pointer: &str, message: impl std::fmt::Display) {
        let here = self.here(pointer);
        self.notes.push(format!("{here}: {message}"));
    }

    /// `value`, or what its `$ref` points at, with its pointer.
    pub(super) fn follow(&mut self, value: &'d Value, pointer: &str) -> (&'d Value, String) {
        let mut value = value;
        let mut pointer = pointer.to_owned();
        for _ in 0..16 {
            let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
                return (value, pointer);
            };
            match local_pointer(reference)
                .and_then(|p| Some((self.document.value().pointer(&p)?, p)))
            {
                Some((target, target_pointer)) => {
                    value = target;
                    pointer = target_pointer;
                }
                None => {
                    self.error(&pointer, format!("$ref {reference:?} does not resolve (only references within the document are followed)"));
                    return (&Value::Null, pointer);
                }
            }
        }
        (value, pointer)
    }
}
