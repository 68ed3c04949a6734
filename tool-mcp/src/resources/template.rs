//! URI templates (a subset of RFC 6570): the URIs a template resource
//! answers for, matched against the URI a client reads, and expanded from
//! values.

use std::collections::BTreeMap;
use std::fmt;

/// A URI template of RFC 6570's simplest forms, for the resources a
/// template stands for (`test://template/{id}/data`).
///
/// What it may hold:
///
/// - literal text (any character but `{` and `}`), starting with the URI's
///   scheme (`scheme:`, RFC 3986);
/// - `{var}`: one or more characters, none of `/`, `?` and `#`;
/// - `{+var}`: one or more characters, none of `?` and `#` (so `/` too);
/// - `{?a,b}` at the end: an optional query with those keys, each optional.
///
/// Two variables need literal text between them, and a name appears once.
/// Matching is deterministic: a `{var}` takes the shortest value after
/// which the template's next literal text follows, a `{+var}` the longest.
/// Values are percent-decoded; a decoded `{var}` value holding `/` (a `%2F`
/// that would climb a path) does not match, nor does one that is not UTF-8.
///
/// ```
/// use tool_mcp::resources::UriTemplate;
///
/// let template = UriTemplate::parse("test://template/{id}/data").unwrap();
/// let params = template.matches("test://template/123/data").unwrap();
/// assert_eq!(params.get("id"), Some("123"));
/// assert!(template.matches("test://template/1/2/data").is_none());
/// assert_eq!(template.expand(&params), "test://template/123/data");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

/// One part of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `{var}`.
    Simple(String),
    /// `{+var}`.
    Reserved(String),
    /// `{?a,b}`.
    Query(Vec<String>),
}

/// The values a URI gives a template's variables, by name: what
/// [`UriTemplate::matches`] finds, and what [`UriTemplate::expand`] writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UriParams(BTreeMap<String, String>);

impl UriParams {
    /// No values.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value of variable `name`, when the URI gave one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Sets variable `name` to `value`.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }

    /// Every variable with a value, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }
}

/// Why a URI template was refused (see [`UriTemplate`] for what one may
/// hold).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    template: String,
    reason: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid URI template `{}`: {}",
            self.template, self.reason
        )
    }
}

impl std::error::Error for TemplateError {}

/// Whether `text` starts with a URI scheme and its colon (RFC 3986:
/// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`).
fn has_scheme(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

impl UriTemplate {
    /// Reads `template`, refusing what [`UriTemplate`] does not accept
    /// (another operator, a variable without literal text before it, a
    /// name twice, a missing scheme), with why.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let error = |reason: &str| TemplateError {
            template: template.to_owned(),
            reason: reason.to_owned(),
        };
        let mut parts = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            if matches!(parts.last(), Some(Part::Query(_))) {
                return Err(error("`{?...}` must come last"));
            }
            if let Some(expression) = rest.strip_prefix('{') {
                let end = expression
                    .find('}')
                    .ok_or_else(|| error("a `{` is not closed"))?;
                let (body, after) = (&expression[..end], &expression[end + 1..]);
                if matches!(parts.last(), Some(Part::Simple(_) | Part::Reserved(_))) {
                    return Err(error("two variables need literal text between them"));
                }
                let part = match body.chars().next() {
                    Some('+') => Part::Reserved(body[1..].to_owned()),
                    Some('?') => Part::Query(body[1..].split(',').map(str::to_owned).collect()),
                    _ => Part::Simple(body.to_owned()),
                };
                let new_names = match &part {
                    Part::Simple(name) | Part::Reserved(name) => vec![name.clone()],
                    Part::Query(keys) => keys.clone(),
                    Part::Literal(_) => Vec::new(),
                };
                for name in new_names {
                    if !valid_name(&name) {
                        return Err(error(
                            "a variable is `{name}`, `{+name}` or `{?a,b}`, names of letters, \
                             digits, `_` and `.`",
                        ));
                    }
                    if names.contains(&name) {
                        return Err(error("a variable's name appears twice"));
                    }
                    names.push(name);
                }
                parts.push(part);
                rest = after;
            } else {
                let end = rest.find(['{', '}']).unwrap_or(rest.len());
                if end == 0 {
                    return Err(error("a `}` is not opened"));
                }
                parts.push(Part::Literal(rest[..end].to_owned()));
                rest = &rest[end..];
            }
        }
        match parts.first() {
            Some(Part::Literal(first)) if has_scheme(first) => {}
            _ => return Err(error("it must start with the URI's scheme, as `scheme://`")),
        }
        Ok(Self {
            text: template.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The names of its variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .flat_map(|part| match part {
                Part::Simple(name) | Part::Reserved(name) => std::slice::from_ref(name).iter(),
                Part::Query(keys) => keys.iter(),
                Part::Literal(_) => [].iter(),
            })
            .map(String::as_str)
    }

    /// The values `uri` gives the template's variables, when it is one of
    /// the template's URIs.
    pub fn matches(&self, uri: &str) -> Option<UriParams> {
        let mut params = UriParams::new();
        let (path, query) = match self.parts.last() {
            Some(Part::Query(_)) => match uri.split_once('?') {
                Some((path, query)) => (path, Some(query)),
                None => (uri, None),
            },
            _ => (uri, None),
        };
        let mut rest = path;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(literal) => rest = rest.strip_prefix(literal.as_str())?,
                Part::Simple(name) | Part::Reserved(name) => {
                    let reserved = matches!(part, Part::Reserved(_));
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) if reserved => rest.rfind(next.as_str())?,
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let raw = &rest[..end];
                    let forbidden: &[char] = if reserved {
                        &['?', '#']
                    } else {
                        &['/', '?', '#']
                    };
                    if raw.is_empty() || raw.contains(forbidden) {
                        return None;
                    }
                    let value = decode(raw)?;
                    if !reserved && value.contains('/') {
                        return None;
                    }
                    params.insert(name.as_str(), value);
                    rest = &rest[end..];
                }
                Part::Query(keys) => {
                    for pair in query.unwrap_or_default().split('&') {
                        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                        if keys.iter().any(|wanted| wanted == key) {
                            params.insert(key, decode(value)?);
                        }
                    }
                }
            }
        }
        rest.is_empty().then_some(params)
    }

    /// The URI of the template with `params`' values, percent-encoded
    /// (`{+var}` keeps reserved characters such as `/`); a variable without
    /// a value is left out (as RFC 6570 does).
    pub fn expand(&self, params: &UriParams) -> String {
        let mut uri = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(literal) => uri.push_str(literal),
                Part::Simple(name) => uri.push_str(&encode(params.get(name).unwrap_or(""), false)),
                Part::Reserved(name) => uri.push_str(&encode(params.get(name).unwrap_or(""), true)),
                Part::Query(keys) => {
                    let mut first = true;
                    for key in keys {
                        if let Some(value) = params.get(key) {
                            uri.push(if first { '?' } else { '&' });
                            first = false;
                            uri.push_str(key);
                            uri.push('=');
                            uri.push_str(&encode(value, false));
                        }
                    }
                }
            }
        }
        uri
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether `name` is a variable name (RFC 6570 `varname`, without
/// percent-encoded characters).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// `text` percent-decoded; `None` when a `%` is not followed by two hex
/// digits or the bytes are not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `text` percent-encoded but for RFC 3986's unreserved characters (and
/// its reserved ones when `reserved`).
fn encode(text: &str, reserved: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~')
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&byte));
        if keep {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
