//! The server's check of a `tools/call`'s `Mcp-Param-*` headers against
//! its arguments ([`check_headers`]), and the error that refuses the call
//! ([`HeaderMismatch`]).

use std::borrow::Cow;
use std::fmt;

use serde_json::{Value, json};
use tool_runtime::{__private::quote, ToolSpec};

use super::values::{InvalidValue, decode_value, trim};
use super::{HEADER_MISMATCH, HEADER_PREFIX, MAX_SAFE_INTEGER, for_each};

/// The most bytes of a header's value an error message looks at.
const MAX_QUOTED_BYTES: usize = 256;

/// Checks the `Mcp-Param-*` headers of one `tools/call` of `spec`'s tool
/// against the call's `arguments` (see the [module documentation](super)).
///
/// `header` gives the value of the header of a name, or `None` when the
/// request has no such header; it must compare names ignoring case, as
/// `http::HeaderMap::get` does (so `|name| headers.get(name)` will do). A
/// value is read as bytes: a `&str`, a `&[u8]` or an
/// `&http::HeaderValue`. Spaces and tabs at either end of a value are
/// ignored, as HTTP parsers drop them.
///
/// The header parameters are those of `spec`'s input schema
/// ([`for_each`]), so this works the same for a `#[tool]`, a `DynamicTool`
/// and a tool imported from another server; a tool without any costs a look at the top-level
/// properties of its schema. The first disagreement found is the error.
///
/// ```
/// use serde_json::json;
/// use tool_mcp::headers::{self, check_headers};
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
    for_each(spec.input_schema(), |path, name| {
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
                expected: quote::value(value),
            })),
            Some(decoded) if agrees(&decoded, value) => Ok(()),
            Some(decoded) => Err(mismatch(MismatchKind::Differs {
                expected: quote::value(value),
                got: quote::value(&Value::String(bounded(&decoded).into_owned())),
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
    quote::value(&Value::String(text))
}

/// A `tools/call` whose `Mcp-Param-*` headers disagree with its arguments:
/// answer it with HTTP status [`HTTP_STATUS`](super::HTTP_STATUS) and
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
                "header": quote::name(&self.header),
                "parameter": quote::name(&self.parameter),
            },
        })
    }
}

impl fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = quote::name(&self.header);
        let parameter = quote::name(&self.parameter);
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
