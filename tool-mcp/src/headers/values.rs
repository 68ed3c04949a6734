//! A header's value both ways: the text an argument's value becomes
//! ([`value_text`]), wrapped in `=?base64?...?=` when it is not plain
//! visible ASCII ([`encode_value`]), and read back ([`decode_value`]).

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

const BASE64_PREFIX: &str = "=?base64?";
const BASE64_SUFFIX: &str = "?=";

/// The value without the spaces and tabs HTTP allows around it.
pub(super) fn trim(value: &[u8]) -> &[u8] {
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
/// removed here ([`check_headers`](super::check_headers) removes them
/// first).
///
/// ```
/// use tool_mcp::headers::{decode_value, InvalidValue};
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
/// use tool_mcp::headers::encode_value;
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
