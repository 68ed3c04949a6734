//! The server's side of header parameters (MCP revision 2026-07-28,
//! streamable HTTP): checking that the `Mcp-Param-{name}` headers of a
//! `tools/call` agree with its arguments.
//!
//! A tool marks a parameter with `x-mcp-header` in its input schema
//! (`#[tool(header)]`, or the keyword in a `DynamicTool`'s schema; see
//! [`schema::headers`](crate::schema::headers) for the rules on the
//! declaration). A client then sends the parameter's value twice: in the
//! arguments, and as the header `Mcp-Param-{name}`, so that intermediaries
//! can route on it. The server must reject the call when the two disagree,
//! so that a balancer routing on the header and the tool acting on the body
//! cannot be told different things:
//!
//! | in the arguments | header | the call |
//! | --- | --- | --- |
//! | a string, integer or boolean | present, equal once decoded | goes on |
//! | a string, integer or boolean | present, different | refused |
//! | a string, integer or boolean | absent | refused |
//! | absent or `null` | absent | goes on |
//! | absent or `null` | present | goes on (the header is not looked at), unless its value is not a valid header value |
//! | anything else (an object, a list) | either | goes on: checking the arguments reports it |
//!
//! Refused means HTTP `400 Bad Request` with the JSON-RPC error `-32020`
//! (`HeaderMismatch`), [`HeaderMismatch::json_rpc_error`].
//!
//! A header's value is the argument's text: a string as it is, an integer
//! in decimal, a boolean as `true` or `false`. A value that is not plain
//! visible ASCII (non-ASCII, control characters, spaces at either end, or
//! text that looks like the wrapper itself) is sent as
//! `=?base64?{Base64 of its UTF-8}?=` ([`encode_value`]), which the server
//! decodes before comparing ([`decode_value`]); the wrapper's Base64 must be
//! canonical, with its padding. Integers compare as numbers (`42.0` is
//! `42`), everything else as text, case and all. Header names are
//! compared ignoring case.
//!
//! Only the transport sees the headers, so the transport calls
//! [`check_headers`] for each `tools/call` before running it. Over stdio
//! there are no headers and nothing to check.

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::schema::headers;
use crate::spec::tool_spec::ToolSpec;

/// The prefix of a header parameter's HTTP header: `Mcp-Param-Region` for
/// `x-mcp-header: "Region"`.
pub const HEADER_PREFIX: &str = "Mcp-Param-";

/// The JSON-RPC error code of a call whose headers disagree with its body
/// (`HeaderMismatch`), answered with HTTP status [`HTTP_STATUS`].
pub const HEADER_MISMATCH: i64 = -32020;

/// The HTTP status of a `HeaderMismatch` answer: 400 Bad Request.
pub const HTTP_STATUS: u16 = 400;

const BASE64_PREFIX: &str = "=?base64?";
const BASE64_SUFFIX: &str = "?=";

/// The most bytes of a header's value an error message looks at.
const MAX_QUOTED_BYTES: usize = 256;

/// Checks the `Mcp-Param-*` headers of one `tools/call` of `spec`'s tool
/// against the call's `arguments` (see the [module documentation](self)).
///
/// `header` gives the value of the header of a name, or `None` when the
/// request has no such header; it must compare names ignoring case, as
/// `http::HeaderMap::get` does (so `|name| headers.get(name)` will do). A
/// value is read as bytes: a `&str`, a `&[u8]` or an
/// `&http::HeaderValue`. Spaces and tabs at either end of a value are
/// ignored, as HTTP parsers drop them.
///
/// The header parameters are those of `spec`'s input schema
/// ([`schema::headers::for_each`](crate::schema::headers::for_each)), so
/// this works the same for a `#[tool]`, a `DynamicTool` and a tool imported
/// from another server; a tool without any costs a look at the top-level
/// properties of its schema. The first disagreement found is the error.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::providers::mcp::headers::{self, check_headers};
/// use tool_runtime::tool;
///
/// /// Runs a query in a region.
/// #[tool(register = false)]
/// fn execute_sql(#[tool(header = "Region")] region: String, query: String) -> String {
///     format!("{query} in {region}")
/// }
///
/// let spec = &ExecuteSqlTool::SPEC;
/// let arguments = json!({"region": "us-west1", "query": "SELECT 1"});
///
/// // Names compare ignoring case.
/// let sent = [("mcp-param-region", "us-west1")];
/// let header = |name: &str| {
///     sent.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
/// };
/// assert!(check_headers(spec, &arguments, header).is_ok());
///
/// let error = check_headers(spec, &arguments, |_| None::<&str>).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "Header mismatch: the Mcp-Param-Region header is missing, but the arguments give \
///      region = \"us-west1\""
/// );
/// assert_eq!(error.json_rpc_error()["code"], headers::HEADER_MISMATCH);
/// ```
pub fn check_headers<'h, V>(
    spec: &ToolSpec,
    arguments: &Value,
    header: impl Fn(&str) -> Option<&'h V>,
) -> Result<(), HeaderMismatch>
where
    V: AsRef<[u8]> + ?Sized + 'h,
{
    let mut outcome = Ok(());
    headers::for_each(spec.input_schema(), |path, name| {
        if outcome.is_err() {
            return;
        }
        let header_name = format!("{HEADER_PREFIX}{name}");
        let mismatch = |kind| HeaderMismatch {
            parameter: path.to_string(),
            header: header_name.clone(),
            kind,
        };
        let sent = header(&header_name).map(|value| trim(value.as_ref()));
        let decoded = match sent.map(decode_value) {
            Some(Err(invalid)) => {
                let got = quote_bytes(sent.unwrap_or_default());
                outcome = Err(mismatch(MismatchKind::Invalid { got, invalid }));
                return;
            }
            Some(Ok(decoded)) => Some(decoded),
            None => None,
        };
        let value = match path.lookup(arguments) {
            Some(value @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => value,
            // Absent or `null`: no header is expected. An object or a list
            // where the schema declares a primitive is for the check of
            // the arguments to report.
            _ => return,
        };
        outcome = match decoded {
            None => Err(mismatch(MismatchKind::Missing {
                expected: crate::quote::value(value),
            })),
            Some(decoded) if agrees(&decoded, value) => Ok(()),
            Some(decoded) => Err(mismatch(MismatchKind::Differs {
                expected: crate::quote::value(value),
                got: crate::quote::value(&Value::String(bounded(&decoded).into_owned())),
            })),
        };
    });
    outcome
}

/// Whether a header's decoded text stands for the argument `value`.
fn agrees(text: &str, value: &Value) -> bool {
    match value {
        Value::String(string) => text == string,
        Value::Bool(flag) => text == if *flag { "true" } else { "false" },
        Value::Number(number) => {
            if let Some(integer) = number
                .as_i64()
                .map(i128::from)
                .or_else(|| number.as_u64().map(i128::from))
            {
                decimal_integer(text) == Some(integer)
            } else {
                is_decimal(text) && text.parse::<f64>().ok() == number.as_f64()
            }
        }
        _ => false,
    }
}

/// `-?digits(.digits)?`, the one form of a number a header is compared as.
fn is_decimal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = match digits.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (digits, None),
    };
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    all_digits(whole) && fraction.is_none_or(all_digits)
}

/// The integer a decimal stands for, when it is one (`42`, `42.0`, `-7`),
/// exactly.
fn decimal_integer(text: &str) -> Option<i128> {
    if !is_decimal(text) {
        return None;
    }
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if !fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    whole.parse().ok()
}

/// The value without the spaces and tabs HTTP allows around it.
fn trim(value: &[u8]) -> &[u8] {
    let start = value
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t'))
        .map_or(start, |end| end + 1);
    &value[start..end]
}

/// Why a header's value cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidValue {
    /// A byte outside visible ASCII, space and tab: the value should have
    /// been sent in Base64.
    Characters,
    /// The `=?base64?...?=` wrapper holds something that is not canonical
    /// Base64 (with its `=` padding).
    Base64,
    /// The Base64 decodes to bytes that are not UTF-8.
    Utf8,
}

impl fmt::Display for InvalidValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InvalidValue::Characters => {
                "it holds characters a header value cannot (only visible ASCII, spaces and tabs; \
                 other text is sent as =?base64?...?=)"
            }
            InvalidValue::Base64 => {
                "the text between =?base64? and ?= is not canonical Base64 (with its = padding)"
            }
            InvalidValue::Utf8 => "its Base64 does not decode to UTF-8 text",
        })
    }
}

impl std::error::Error for InvalidValue {}

/// The text a header's value stands for: the value itself, or what its
/// `=?base64?...?=` wrapper holds. Spaces and tabs at either end are not
/// removed here ([`check_headers`] removes them first).
///
/// ```
/// use tool_runtime::providers::mcp::headers::{decode_value, InvalidValue};
///
/// assert_eq!(decode_value(b"us-west1").unwrap(), "us-west1");
/// assert_eq!(decode_value(b"=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(), "Hello, 世界");
/// // Without the whole wrapper, the value is taken as it is.
/// assert_eq!(decode_value(b"=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
/// assert_eq!(decode_value(b"=?base64?SGVsbG8?="), Err(InvalidValue::Base64));
/// assert_eq!(decode_value("é".as_bytes()), Err(InvalidValue::Characters));
/// ```
pub fn decode_value(value: &[u8]) -> Result<Cow<'_, str>, InvalidValue> {
    if !value
        .iter()
        .all(|&b| b == b'\t' || (0x20..0x7f).contains(&b))
    {
        return Err(InvalidValue::Characters);
    }
    // Only visible ASCII, so this cannot fail.
    let text = std::str::from_utf8(value).map_err(|_| InvalidValue::Characters)?;
    let Some(encoded) = text
        .strip_prefix(BASE64_PREFIX)
        .and_then(|rest| rest.strip_suffix(BASE64_SUFFIX))
    else {
        return Ok(Cow::Borrowed(text));
    };
    let bytes = STANDARD.decode(encoded).map_err(|_| InvalidValue::Base64)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| InvalidValue::Utf8)
}

/// A text as a client sends it in a header: as it is when it is plain
/// visible ASCII (inner spaces and tabs allowed), else (non-ASCII, control
/// characters, a space or tab at either end, empty, or text in the
/// `=?base64?...?=` form itself) wrapped as `=?base64?{Base64 of its
/// UTF-8}?=`.
///
/// ```
/// use tool_runtime::providers::mcp::headers::encode_value;
///
/// assert_eq!(encode_value("us-west1"), "us-west1");
/// assert_eq!(encode_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
/// assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
/// assert_eq!(encode_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
/// ```
pub fn encode_value(text: &str) -> Cow<'_, str> {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
        && trim(text.as_bytes()).len() == text.len()
        && !(text.starts_with(BASE64_PREFIX) && text.ends_with(BASE64_SUFFIX));
    if plain {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!(
            "{BASE64_PREFIX}{}{BASE64_SUFFIX}",
            STANDARD.encode(text)
        ))
    }
}

/// The text a header carries for an argument's value: a string as it is,
/// an integer in decimal, a boolean as `true` or `false`, before
/// [`encode_value`]. `None` for anything else (`null` and absent values
/// send no header).
pub fn value_text(value: &Value) -> Option<Cow<'_, str>> {
    match value {
        Value::String(text) => Some(Cow::Borrowed(text)),
        Value::Bool(flag) => Some(Cow::Borrowed(if *flag { "true" } else { "false" })),
        Value::Number(number) => Some(Cow::Owned(number.to_string())),
        _ => None,
    }
}

/// At most [`MAX_QUOTED_BYTES`] of a text, cut at a character's boundary.
fn bounded(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_QUOTED_BYTES {
        return Cow::Borrowed(text);
    }
    let mut end = MAX_QUOTED_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &text[..end]))
}

/// A header's raw value as a message shows it: quoted, escaped and cut.
fn quote_bytes(value: &[u8]) -> String {
    let cut = &value[..value.len().min(MAX_QUOTED_BYTES)];
    let mut text = String::from_utf8_lossy(cut).into_owned();
    if cut.len() < value.len() {
        text.push('…');
    }
    crate::quote::value(&Value::String(text))
}

/// A `tools/call` whose `Mcp-Param-*` headers disagree with its arguments:
/// answer it with HTTP status [`HTTP_STATUS`] and
/// [`json_rpc_error`](Self::json_rpc_error), without running the tool.
///
/// Its `Display` names the header, the parameter, what the arguments give
/// and what the header holds, each quoted with control characters escaped
/// and cut short:
/// `Header mismatch: Mcp-Param-Region header value "eu" does not match
/// region = "us-west1" in the arguments`.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderMismatch {
    /// The parameter, its path joined with `.` (`filter.region`) for a
    /// nested one.
    pub parameter: String,
    /// The header's name as the schema spells it (`Mcp-Param-Region`).
    pub header: String,
    /// What is wrong.
    pub kind: MismatchKind,
}

/// What is wrong with a header parameter's header.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MismatchKind {
    /// The arguments give a value and the header is missing.
    Missing {
        /// The value in the arguments, as JSON text, cut short.
        expected: String,
    },
    /// The header stands for another value than the arguments give.
    Differs {
        /// The value in the arguments, as JSON text, cut short.
        expected: String,
        /// The header's text, decoded, quoted and cut short.
        got: String,
    },
    /// The header's value cannot be read.
    Invalid {
        /// The header's value as sent, quoted and cut short.
        got: String,
        /// Why.
        invalid: InvalidValue,
    },
}

impl HeaderMismatch {
    /// The `error` of the JSON-RPC response: `{"code": -32020, "message",
    /// "data": {"header", "parameter"}}`.
    pub fn json_rpc_error(&self) -> Value {
        json!({
            "code": HEADER_MISMATCH,
            "message": self.to_string(),
            "data": {
                "header": crate::quote::name(&self.header),
                "parameter": crate::quote::name(&self.parameter),
            },
        })
    }
}

impl fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = crate::quote::name(&self.header);
        let parameter = crate::quote::name(&self.parameter);
        match &self.kind {
            MismatchKind::Missing { expected } => {
                write!(
                    f,
                    "Header mismatch: the {header} header is missing, but the arguments give \
                     {parameter} = {expected}"
                )?;
                if expected
                    .parse::<i128>()
                    .is_ok_and(|n| n.unsigned_abs() > u128::from(MAX_SAFE_INTEGER))
                {
                    write!(
                        f,
                        " (an integer header carries at most {MAX_SAFE_INTEGER} either side of \
                         0, so clients may leave it out)"
                    )?;
                }
                Ok(())
            }
            MismatchKind::Differs { expected, got } => write!(
                f,
                "Header mismatch: {header} header value {got} does not match {parameter} = \
                 {expected} in the arguments"
            ),
            MismatchKind::Invalid { got, invalid } => {
                write!(
                    f,
                    "Header mismatch: {header} header value {got} is invalid: {invalid}"
                )
            }
        }
    }
}

impl std::error::Error for HeaderMismatch {}

/// The largest integer MCP lets an integer header carry, 2^53 - 1 (and its
/// negation the smallest).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(properties: Value) -> ToolSpec {
        ToolSpec::new(
            "t",
            "A tool.",
            json!({"type": "object", "properties": properties}),
        )
    }

    fn region() -> ToolSpec {
        spec(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"}
        }))
    }

    /// The check with these headers (names lowercased, as a client may
    /// send them).
    fn check(spec: &ToolSpec, arguments: Value, sent: &[(&str, &str)]) -> Result<(), String> {
        let sent: Vec<(String, &str)> = sent
            .iter()
            .map(|(name, value)| (name.to_ascii_lowercase(), *value))
            .collect();
        check_headers(spec, &arguments, |name: &str| {
            let name = name.to_ascii_lowercase();
            sent.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        })
        .map_err(|error| error.to_string())
    }

    #[test]
    fn agreeing_headers_pass() {
        let spec = region();
        let args = json!({"region": "us-west1", "query": "q"});
        assert_eq!(
            check(&spec, args.clone(), &[("Mcp-Param-Region", "us-west1")]),
            Ok(())
        );
        assert_eq!(
            check(&spec, args.clone(), &[("MCP-PARAM-REGION", "  us-west1\t")]),
            Ok(())
        );
        // Base64, and the conformance suite's cases taken as literal text.
        let hello = json!({"region": "Hello"});
        assert_eq!(
            check(&spec, hello, &[("Mcp-Param-Region", "=?base64?SGVsbG8=?=")]),
            Ok(())
        );
        let literal = json!({"region": "SGVsbG8="});
        assert_eq!(
            check(&spec, literal, &[("Mcp-Param-Region", "SGVsbG8=")]),
            Ok(())
        );
        let open = json!({"region": "=?base64?SGVsbG8="});
        assert_eq!(
            check(&spec, open, &[("Mcp-Param-Region", "=?base64?SGVsbG8=")]),
            Ok(())
        );
        let unicode = json!({"region": "Hello, 世界"});
        let encoded = encode_value("Hello, 世界");
        assert_eq!(
            check(&spec, unicode, &[("Mcp-Param-Region", &encoded)]),
            Ok(())
        );
        let empty = json!({"region": ""});
        assert_eq!(
            check(&spec, empty.clone(), &[("Mcp-Param-Region", "")]),
            Ok(())
        );
        assert_eq!(
            check(&spec, empty, &[("Mcp-Param-Region", "=?base64??=")]),
            Ok(())
        );
    }

    #[test]
    fn absent_and_null_values_expect_no_header() {
        let spec = region();
        assert_eq!(check(&spec, json!({"query": "q"}), &[]), Ok(()));
        assert_eq!(check(&spec, json!({"region": null}), &[]), Ok(()));
        assert_eq!(check(&spec, Value::Null, &[]), Ok(()));
        // A header for an absent value is not compared.
        assert_eq!(
            check(&spec, json!({}), &[("Mcp-Param-Region", "eu")]),
            Ok(())
        );
        // A value of the wrong type is the arguments' check to report.
        assert_eq!(check(&spec, json!({"region": ["eu"]}), &[]), Ok(()));
    }

    #[test]
    fn missing_different_and_invalid_headers_are_refused() {
        let spec = region();
        let args = json!({"region": "us-west1"});
        assert_eq!(
            check(&spec, args.clone(), &[]),
            Err(
                "Header mismatch: the Mcp-Param-Region header is missing, but the arguments \
                 give region = \"us-west1\""
                    .into()
            )
        );
        assert_eq!(
            check(&spec, args.clone(), &[("Mcp-Param-Region", "eu")]),
            Err(
                "Header mismatch: Mcp-Param-Region header value \"eu\" does not match region = \
                 \"us-west1\" in the arguments"
                    .into()
            )
        );
        // Values are compared with their case.
        assert!(check(&spec, args.clone(), &[("Mcp-Param-Region", "US-WEST1")]).is_err());
        let hello = json!({"region": "Hello"});
        assert_eq!(
            check(
                &spec,
                hello.clone(),
                &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")]
            ),
            Err(
                "Header mismatch: Mcp-Param-Region header value \"=?base64?SGVsbG8?=\" is \
                 invalid: the text between =?base64? and ?= is not canonical Base64 (with its \
                 = padding)"
                    .into()
            )
        );
        assert!(
            check(
                &spec,
                hello.clone(),
                &[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")]
            )
            .is_err()
        );
        // Not UTF-8 once decoded.
        assert!(
            check(&spec, hello, &[("Mcp-Param-Region", "=?base64?/w==?=")])
                .unwrap_err()
                .ends_with("does not decode to UTF-8 text")
        );
        // Invalid characters are refused even where no value is expected.
        assert!(check(&spec, json!({}), &[("Mcp-Param-Region", "caf\u{e9}")]).is_err());
        let control = check(&spec, args, &[("Mcp-Param-Region", "a\u{1b}[31m")]).unwrap_err();
        assert!(control.contains(r#""a\u001b[31m""#), "{control}");
    }

    #[test]
    fn messages_are_escaped_and_bounded() {
        let spec = spec(json!({"r\u{1b}": {"type": "string", "x-mcp-header": "R"}}));
        let long = "x".repeat(100_000);
        let error = check(&spec, json!({"r\u{1b}": long}), &[("Mcp-Param-R", &long)]);
        assert_eq!(error, Ok(()));
        let error = check(&spec, json!({"r\u{1b}": "a"}), &[("Mcp-Param-R", &long)]).unwrap_err();
        assert!(error.len() < 400, "{error}");
        assert!(error.contains(r"r\u{1b} = "), "{error}");
    }

    #[test]
    fn numbers_and_booleans() {
        let spec = spec(json!({
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry"}
        }));
        let ok = |args: Value, sent: &[(&str, &str)]| check(&spec, args, sent).is_ok();
        assert!(ok(json!({"count": 42}), &[("Mcp-Param-Count", "42")]));
        assert!(ok(json!({"count": 42}), &[("Mcp-Param-Count", "42.0")]));
        assert!(ok(json!({"count": 42.0}), &[("Mcp-Param-Count", "42")]));
        assert!(ok(json!({"count": -7}), &[("Mcp-Param-Count", "-7")]));
        assert!(ok(
            json!({"count": u64::MAX}),
            &[("Mcp-Param-Count", "18446744073709551615")]
        ));
        assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "42.5")]));
        assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "0x2a")]));
        assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "4.2e1")]));
        assert!(!ok(json!({"count": 42}), &[("Mcp-Param-Count", "+42")]));
        assert!(ok(json!({"dry": true}), &[("Mcp-Param-Dry", "true")]));
        assert!(!ok(json!({"dry": true}), &[("Mcp-Param-Dry", "True")]));
        assert!(!ok(json!({"dry": false}), &[("Mcp-Param-Dry", "0")]));
        let big = check(&spec, json!({"count": 1u64 << 60}), &[]).unwrap_err();
        assert!(big.ends_with("so clients may leave it out)"), "{big}");
    }

    #[test]
    fn nested_parameters_and_header_values() {
        let spec = spec(json!({"filter": {"type": "object", "properties": {
            "tenant": {"type": "string", "x-mcp-header": "Tenant"}
        }}}));
        let args = json!({"filter": {"tenant": "acme"}});
        assert_eq!(
            check(&spec, args.clone(), &[("Mcp-Param-Tenant", "acme")]),
            Ok(())
        );
        let error = check_headers(&spec, &args, |_| None::<&[u8]>).unwrap_err();
        assert_eq!(error.parameter, "filter.tenant");
        assert_eq!(error.header, "Mcp-Param-Tenant");
        assert_eq!(
            error.json_rpc_error(),
            json!({
                "code": -32020,
                "message": "Header mismatch: the Mcp-Param-Tenant header is missing, but the \
                            arguments give filter.tenant = \"acme\"",
                "data": {"header": "Mcp-Param-Tenant", "parameter": "filter.tenant"}
            })
        );
    }

    #[test]
    fn encoding_round_trips() {
        for text in [
            "us-west1",
            "Hello, 世界",
            " padded ",
            "line1\nline2",
            "=?base64?literal?=",
            "\tlead",
            "in ner",
            "",
        ] {
            let encoded = encode_value(text);
            assert_eq!(decode_value(encoded.as_bytes()).unwrap(), text, "{encoded}");
        }
        assert_eq!(encode_value("in ner"), "in ner");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(value_text(&json!(42)).unwrap(), "42");
        assert_eq!(value_text(&json!(false)).unwrap(), "false");
        assert!(value_text(&Value::Null).is_none());
    }
}
