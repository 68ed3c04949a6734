//! JSON-RPC on the wire, for every transport: request ids kept exactly as
//! the client wrote them, messages read (a `tools/call` in one pass,
//! anything else as a JSON value), and answers, errors and notifications
//! written as lines.
//!
//! Ids are echoed byte for byte: an integer id beyond 64 bits comes back
//! as the same digits, not as a float (serde_json's `arbitrary_precision`
//! would do that too, but it changes every number of every crate in a
//! program, so the raw text of the id is kept instead).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tool_runtime::ToolUse;

/// JSON-RPC's "parse error".
pub(super) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "invalid request".
pub(super) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "method not found".
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's "invalid params".
pub(super) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC's "internal error".
pub(super) const INTERNAL_ERROR: i64 = -32603;

/// The longest method name, id or version quoted back in a message.
const QUOTED: usize = 100;

/// A request's id, as the client wrote it: a JSON string or number, or
/// `null` for an error answering a request whose id could not be read.
#[derive(Clone)]
pub(super) struct Id(Box<RawValue>);

impl Id {
    /// `null`, the id of an error when the request's could not be read.
    pub(super) fn null() -> Self {
        Id(RawValue::from_string("null".to_owned()).expect("null is JSON"))
    }

    /// The id whose JSON text is `raw`, when it is a string or a number.
    pub(super) fn from_raw(raw: &RawValue) -> Option<Self> {
        match raw.get().as_bytes().first() {
            Some(b'"' | b'-' | b'0'..=b'9') => Some(Id(raw.to_owned())),
            _ => None,
        }
    }

    /// The id that `bytes`, a JSON string or number, spell.
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let raw: &RawValue = serde_json::from_slice(bytes).ok()?;
        Self::from_raw(raw)
    }

    /// A string id.
    pub(super) fn from_str_value(id: &str) -> Self {
        let text = serde_json::to_string(id).unwrap_or_else(|_| "null".to_owned());
        Id(RawValue::from_string(text).unwrap_or_else(|_| Self::null().0))
    }

    /// The number `id` (the server's own requests to the client).
    pub(super) fn from_u64(id: u64) -> Self {
        Id(RawValue::from_string(id.to_string()).expect("a number is JSON"))
    }

    /// The id's JSON text.
    pub(super) fn text(&self) -> &str {
        self.0.get()
    }

    /// The id as a key among the requests in flight: a number as written,
    /// a string as its canonical JSON (so that `"a"` and `"\u0061"` are
    /// one id).
    pub(super) fn key(&self) -> Cow<'_, str> {
        let raw = self.0.get();
        if raw.starts_with('"')
            && raw.contains('\\')
            && let Ok(text) = serde_json::from_str::<String>(raw)
            && let Ok(canonical) = serde_json::to_string(&text)
        {
            return Cow::Owned(canonical);
        }
        Cow::Borrowed(raw)
    }

    /// The runtime's id for the tool use of this request: a string as it
    /// is, a number as its digits.
    pub(super) fn tool_use_id(&self) -> String {
        let raw = self.0.get();
        if raw.starts_with('"') {
            serde_json::from_str(raw).unwrap_or_else(|_| raw.to_owned())
        } else {
            raw.to_owned()
        }
    }

    /// The id of `value` (an `id` or `requestId` field), read again from
    /// the raw `line` when it is a number, so that its digits are kept;
    /// `None` for anything but a string or a number.
    pub(super) fn of(value: &Value, line: &[u8], key: &[u8], depth: usize) -> Option<Self> {
        match value {
            Value::String(id) => Some(Self::from_str_value(id)),
            Value::Number(number) => scan(line, key, depth)
                .and_then(Self::from_bytes)
                .filter(|id| !id.text().starts_with('"'))
                .or_else(|| RawValue::from_string(number.to_string()).ok().map(Id)),
            _ => None,
        }
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.get())
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.get())
    }
}

/// A JSON-RPC error to answer with.
#[derive(Debug)]
pub(super) struct RpcError {
    pub(super) code: i64,
    pub(super) message: String,
    pub(super) data: Option<Value>,
}

impl RpcError {
    /// An error of `code` with `message` and no data.
    pub(super) fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602`, invalid params.
    pub(super) fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    /// The same error with `data`.
    pub(super) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The error as an answer to `id`, a line.
    pub(super) fn line(&self, id: &Id) -> Vec<u8> {
        error_line(id, self.code, &self.message, self.data.clone())
    }
}

/// A `tools/call` request, read in one pass.
pub(super) struct Call {
    /// The request's id, as written.
    pub(super) id: Id,
    pub(super) name: String,
    pub(super) arguments: Option<Map<String, Value>>,
    pub(super) meta: Option<Map<String, Value>>,
    /// A retry's answers to the server's requests (2026-07-28 revision).
    pub(super) input_responses: Option<Value>,
    /// A retry's echoed state (2026-07-28 revision).
    pub(super) request_state: Option<Value>,
}

impl Call {
    /// The runtime's tool use: the request's id (a string as it is, a
    /// number as its digits), the tool's name, its arguments (none is an
    /// empty object).
    pub(super) fn tool_use(&mut self) -> ToolUse {
        let arguments = self.arguments.take().unwrap_or_default();
        ToolUse::new(
            self.id.tool_use_id(),
            std::mem::take(&mut self.name),
            Value::Object(arguments),
        )
    }

    /// The `progressToken` of the request's `_meta`, if it gave one.
    pub(super) fn progress_token(&self) -> Option<Value> {
        self.meta
            .as_ref()?
            .get("progressToken")
            .filter(|token| token.is_string() || token.is_number())
            .cloned()
    }
}

/// A `tools/call` request read straight from its line, or `None` for any
/// other line, which then takes the general path (and its error replies).
///
/// A call, by far the most frequent message, is read in one pass into its
/// parts, without a [`Value`] of the whole message in between. Anything
/// unusual (parameters it does not know, `arguments` that are not an
/// object, an id that is neither a string nor a number) is left to the
/// general path.
pub(super) fn decode_call(line: &[u8]) -> Option<Call> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: Cow<'a, str>,
        #[serde(borrow)]
        id: &'a RawValue,
        #[serde(borrow)]
        method: Cow<'a, str>,
        params: Params,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params {
        name: String,
        #[serde(default)]
        arguments: Option<Map<String, Value>>,
        #[serde(rename = "_meta", default)]
        meta: Option<Map<String, Value>>,
        #[serde(rename = "inputResponses", default)]
        input_responses: Option<Value>,
        #[serde(rename = "requestState", default)]
        request_state: Option<Value>,
    }
    let envelope: Envelope = serde_json::from_slice(line).ok()?;
    if envelope.jsonrpc != "2.0" || envelope.method != "tools/call" {
        return None;
    }
    let id = Id::from_raw(envelope.id)?;
    let params = envelope.params;
    Some(Call {
        id,
        name: params.name,
        arguments: params.arguments,
        meta: params.meta,
        input_responses: params.input_responses,
        request_state: params.request_state,
    })
}

/// The parameters of a `tools/call` the fast decoder left to the general
/// path, read, or the error to answer with.
pub(super) fn call_params(id: Id, params: Option<Map<String, Value>>) -> Result<Call, RpcError> {
    let mut params = params.ok_or_else(|| {
        RpcError::invalid_params("invalid params for tools/call: params are missing")
    })?;
    let name = match params.remove("name") {
        Some(Value::String(name)) => name,
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "invalid params for tools/call: `name` must be a string, not {}",
                kind(&other)
            )));
        }
        None => {
            return Err(RpcError::invalid_params(
                "invalid params for tools/call: `name` is missing",
            ));
        }
    };
    let arguments = match params.remove("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(arguments)) => Some(arguments),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "invalid params for tools/call: arguments must be an object, not {}",
                kind(&other)
            )));
        }
    };
    let meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => Some(meta),
        _ => None,
    };
    Ok(Call {
        id,
        name,
        arguments,
        meta,
        input_responses: params.remove("inputResponses"),
        request_state: params.remove("requestState"),
    })
}

/// A JSON-RPC response, serialized without building a [`Value`] of it.
#[derive(Serialize)]
struct Response<'a, T> {
    jsonrpc: &'static str,
    id: &'a Id,
    result: T,
}

/// A JSON-RPC error response.
#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: &'a Id,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

/// A notification or a request of the server's.
#[derive(Serialize)]
struct Outgoing<'a, T> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Id>,
    method: &'a str,
    params: T,
}

/// A line: `message` serialized, with its newline.
pub(super) fn line(message: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).unwrap_or_else(|error| {
        // Only a map with non-string keys fails, which no message has.
        tracing::error!(%error, "a message could not be serialised");
        Vec::new()
    });
    bytes.push(b'\n');
    bytes
}

/// The answer `result` to request `id`, as a line.
pub(super) fn result_line(id: &Id, result: impl Serialize) -> Vec<u8> {
    line(&Response {
        jsonrpc: "2.0",
        id,
        result,
    })
}

/// A JSON-RPC error response to request `id`, as a line.
pub(super) fn error_line(id: &Id, code: i64, message: &str, data: Option<Value>) -> Vec<u8> {
    line(&ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: ErrorObject {
            code,
            message,
            data,
        },
    })
}

/// The error code of `line` when it is an error response as
/// [`error_line`] writes it (`{"jsonrpc":"2.0","id":ID,"error":{"code":N`);
/// `None` for any other message. An id is a string or a number, so what
/// follows it is read without parsing the rest of the line.
#[cfg(feature = "http")]
pub(super) fn error_code(line: &[u8]) -> Option<i64> {
    let rest = line.strip_prefix(br#"{"jsonrpc":"2.0","id":"#)?;
    let id = scan_value(rest, 0).unwrap_or(b"null");
    let rest = rest[id.len()..].strip_prefix(br#","error":{"code":"#)?;
    let digits = rest
        .iter()
        .position(|byte| !matches!(byte, b'-' | b'0'..=b'9'))
        .unwrap_or(rest.len());
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// A notification `method` with `params`, as a line.
pub(super) fn notification_line(method: &str, params: impl Serialize) -> Vec<u8> {
    line(&Outgoing {
        jsonrpc: "2.0",
        id: None,
        method,
        params,
    })
}

/// A request of the server's to the client, as a line.
pub(super) fn request_line(id: &Id, method: &str, params: impl Serialize) -> Vec<u8> {
    line(&Outgoing {
        jsonrpc: "2.0",
        id: Some(id),
        method,
        params,
    })
}

/// `text` for a message: escaped, and cut short past [`QUOTED`] characters.
pub(super) fn quoted(text: &str) -> String {
    format!("{:?}", cut(text))
}

/// `text` cut short past [`QUOTED`] characters (an ellipsis marks the cut).
pub(super) fn cut(text: &str) -> String {
    let mut cut: String = text.chars().take(QUOTED).collect();
    if cut.len() < text.len() {
        cut.push_str("...");
    }
    cut
}

/// The JSON type of `value`, with its article.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The `id` of a line that is not (or not entirely) JSON: a lenient scan
/// for an `"id"` key of the outermost object, whose value is a string or a
/// number; `null` when there is none, or it cannot be read.
pub(super) fn scan_id(line: &[u8]) -> Id {
    scan(line, b"\"id\"", 1)
        .and_then(Id::from_bytes)
        .unwrap_or_else(Id::null)
}

/// The raw text of the string or number under `key` (quoted) in an object
/// at `depth` (1 for the outermost), found by a lenient scan: the first
/// one found.
fn scan<'a>(line: &'a [u8], key: &[u8], depth: usize) -> Option<&'a [u8]> {
    let mut level = 0usize;
    let mut at = 0;
    while at < line.len() {
        match line[at] {
            b'"' => {
                let end = string_end(line, at);
                let found = &line[at..end];
                at = end;
                if level == depth && found == key {
                    let rest = skip_space(line, at);
                    if line.get(rest) == Some(&b':') {
                        return scan_value(line, skip_space(line, rest + 1));
                    }
                }
                continue;
            }
            b'{' | b'[' => level += 1,
            b'}' | b']' => level = level.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    None
}

/// Just past the string starting at `start` (its quote), escapes
/// included; the end of the line for an unterminated string.
fn string_end(line: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < line.len() {
        match line[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    line.len()
}

fn skip_space(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The raw string or number at `at`.
fn scan_value(line: &[u8], at: usize) -> Option<&[u8]> {
    let end = match line.get(at)? {
        b'"' => string_end(line, at),
        b'-' | b'0'..=b'9' => {
            let mut end = at + 1;
            while line
                .get(end)
                .is_some_and(|b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                end += 1;
            }
            end
        }
        _ => return None,
    };
    Some(&line[at..end])
}
