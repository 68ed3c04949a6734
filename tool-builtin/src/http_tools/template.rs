//! Templates: `{name}` for an argument, `${VAR}` for a value from the
//! environment (a secret: kept out of every message), `{{` and `}}` for
//! braces; and JSON body templates built from them.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

/// One piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// Text sent as written.
    Text(String),
    /// `{name}`: the argument `name`'s value.
    Param(String),
    /// `${VAR}`: the environment variable `VAR`'s value, read at load.
    Env(String),
}

/// A text with placeholders.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Template {
    pub(crate) parts: Vec<Part>,
}

impl Template {
    /// The template as it was written: `{name}` placeholders and `${VAR}`
    /// references as they are, no value filled in.
    pub(crate) fn as_written(&self) -> String {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.clone(),
                Part::Param(name) => format!("{{{name}}}"),
                Part::Env(name) => format!("${{{name}}}"),
            })
            .collect()
    }

    /// Reads `text`; the error says what is wrong with it.
    pub(crate) fn parse(text: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with("{{") || rest.starts_with("}}") {
                literal.push(c);
                rest = &rest[2..];
            } else if rest.starts_with("${") || c == '{' {
                let env = rest.starts_with("${");
                let open = if env { 2 } else { 1 };
                let Some(end) = rest.find('}') else {
                    return Err(format!(
                        "an unclosed `{}` in {text:?}; write `{{{{` for a literal brace",
                        &rest[..open]
                    ));
                };
                let name = &rest[open..end];
                let valid = if env {
                    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                } else {
                    valid_parameter_name(name)
                };
                if !valid {
                    return Err(if env {
                        format!(
                            "`${{{name}}}` is not an environment variable's name (letters, digits and `_`)"
                        )
                    } else {
                        format!(
                            "`{{{name}}}` is not a parameter's name (1 to 64 letters, digits, `_`, `-` or `.`); write `{{{{` for a literal brace"
                        )
                    });
                }
                if !literal.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut literal)));
                }
                parts.push(if env {
                    Part::Env(name.to_owned())
                } else {
                    Part::Param(name.to_owned())
                });
                rest = &rest[end + 1..];
            } else if c == '}' {
                return Err(format!(
                    "a `}}` with no `{{` in {text:?}; write `}}}}` for a literal brace"
                ));
            } else {
                literal.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(Template { parts })
    }

    /// A template of one argument's value.
    pub(crate) fn param(name: impl Into<String>) -> Template {
        Template {
            parts: vec![Part::Param(name.into())],
        }
    }

    /// The arguments it names.
    pub(crate) fn params(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Param(name) => Some(name.as_str()),
            _ => None,
        })
    }

    /// The environment variables it names.
    pub(crate) fn envs(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Env(name) => Some(name.as_str()),
            _ => None,
        })
    }

    /// The argument it is made of alone (`"{id}"`), if it is.
    pub(crate) fn single_param(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Param(name)] => Some(name),
            _ => None,
        }
    }

    /// The text with every placeholder filled, each argument's text passed
    /// through `encode`; `None` when an argument has no value.
    pub(crate) fn render(
        &self,
        args: &Map<String, Value>,
        env: &Env,
        encode: impl Fn(&str) -> String,
    ) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Param(name) => out.push_str(&encode(&text_of(args.get(name)?)?)),
                Part::Env(name) => out.push_str(env.get(name)),
            }
        }
        Some(out)
    }
}

/// Whether `name` may name a parameter: 1 to 64 letters, digits, `_`, `-`
/// or `.` (what every provider takes as a property name).
pub(crate) fn valid_parameter_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// An argument's value as text: a string as it is, numbers and booleans
/// as JSON writes them, a list's items joined with `,`, an object as JSON;
/// `None` for `null`.
pub(crate) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(text_of)
                .collect::<Vec<_>>()
                .join(","),
        ),
        other => Some(other.to_string()),
    }
}

/// `text` percent-encoded for a URL path segment: everything but
/// RFC 3986's unreserved characters (letters, digits, `-`, `.`, `_`, `~`).
pub(crate) fn encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The environment variables a tool's templates name, read at load. Their
/// values are secrets: `Debug` does not show them, and [`Env::redact`]
/// takes them out of any text.
#[derive(Clone, Default)]
pub(crate) struct Env {
    values: BTreeMap<String, String>,
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.values.keys().map(|name| (name, "[redacted]")))
            .finish()
    }
}

impl Env {
    pub(crate) fn insert(&mut self, name: String, value: String) {
        self.values.insert(name, value);
    }

    pub(crate) fn get(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    /// `text` with every secret value (as written, percent-encoded or
    /// form-encoded) replaced by `[redacted]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for value in self.values.values().filter(|value| !value.is_empty()) {
            let form: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            for form in [value.clone(), encode_segment(value), form] {
                if out.contains(&form) {
                    out = out.replace(&form, "[redacted]");
                }
            }
        }
        out
    }

    /// `value` with [`redact`](Self::redact) applied to every string in it.
    pub(crate) fn redact_value(&self, value: &mut Value) {
        if self.values.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                let redacted = self.redact(text);
                if redacted != *text {
                    *text = redacted;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact_value(item)),
            Value::Object(map) => map.values_mut().for_each(|item| self.redact_value(item)),
            _ => {}
        }
    }
}

/// A JSON body with placeholders: a string that is one `"{name}"` is the
/// argument's value as it is (any JSON type), left out when absent; other
/// strings are text templates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonTemplate {
    Literal(Value),
    Param(String),
    Text(Template),
    Array(Vec<JsonTemplate>),
    Object(Vec<(String, JsonTemplate)>),
}

impl JsonTemplate {
    /// Reads a body template; `Err` holds (JSON pointer below the body,
    /// what is wrong) for every bad string.
    pub(crate) fn parse(value: &Value) -> Result<JsonTemplate, Vec<(String, String)>> {
        let mut problems = Vec::new();
        let template = Self::read(value, "", &mut problems);
        if problems.is_empty() {
            Ok(template)
        } else {
            Err(problems)
        }
    }

    fn read(value: &Value, at: &str, problems: &mut Vec<(String, String)>) -> JsonTemplate {
        match value {
            Value::String(text) => match Template::parse(text) {
                Ok(template) => match template.single_param() {
                    Some(name) => JsonTemplate::Param(name.to_owned()),
                    None if template.params().count() + template.envs().count() == 0 => {
                        JsonTemplate::Literal(Value::String(
                            text.replace("{{", "{").replace("}}", "}"),
                        ))
                    }
                    None => JsonTemplate::Text(template),
                },
                Err(message) => {
                    problems.push((at.to_owned(), message));
                    JsonTemplate::Literal(Value::Null)
                }
            },
            Value::Array(items) => JsonTemplate::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| Self::read(item, &format!("{at}/{i}"), problems))
                    .collect(),
            ),
            Value::Object(map) => JsonTemplate::Object(
                map.iter()
                    .map(|(key, item)| {
                        let child = format!("{at}/{}", tool_manifest::pointer_token(key));
                        (key.clone(), Self::read(item, &child, problems))
                    })
                    .collect(),
            ),
            other => JsonTemplate::Literal(other.clone()),
        }
    }

    /// Every template in it, for the checks made at load.
    pub(crate) fn templates(&self) -> Vec<Template> {
        match self {
            JsonTemplate::Literal(_) => Vec::new(),
            JsonTemplate::Param(name) => vec![Template::param(name.clone())],
            JsonTemplate::Text(template) => vec![template.clone()],
            JsonTemplate::Array(items) => items.iter().flat_map(Self::templates).collect(),
            JsonTemplate::Object(members) => members
                .iter()
                .flat_map(|(_, item)| item.templates())
                .collect(),
        }
    }

    /// The body for `args`; `None` when it is one argument that is absent.
    pub(crate) fn render(&self, args: &Map<String, Value>, env: &Env) -> Option<Value> {
        match self {
            JsonTemplate::Literal(value) => Some(value.clone()),
            JsonTemplate::Param(name) => args.get(name).filter(|v| !v.is_null()).cloned(),
            JsonTemplate::Text(template) => {
                template.render(args, env, str::to_owned).map(Value::String)
            }
            JsonTemplate::Array(items) => Some(Value::Array(
                items
                    .iter()
                    .filter_map(|item| item.render(args, env))
                    .collect(),
            )),
            JsonTemplate::Object(members) => Some(Value::Object(
                members
                    .iter()
                    .filter_map(|(key, item)| Some((key.clone(), item.render(args, env)?)))
                    .collect(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_read_placeholders_and_escapes() {
        let template = Template::parse("Bearer ${API_TOKEN} for {user.id} {{literal}}").unwrap();
        assert_eq!(
            template.parts,
            [
                Part::Text("Bearer ".into()),
                Part::Env("API_TOKEN".into()),
                Part::Text(" for ".into()),
                Part::Param("user.id".into()),
                Part::Text(" {literal}".into()),
            ]
        );
        assert!(
            Template::parse("{unclosed")
                .unwrap_err()
                .contains("unclosed")
        );
        assert!(Template::parse("a } b").unwrap_err().contains("no `{`"));
        assert!(
            Template::parse("{bad name}")
                .unwrap_err()
                .contains("not a parameter")
        );
        assert!(
            Template::parse("${1X}")
                .unwrap_err()
                .contains("environment")
        );
    }

    #[test]
    fn rendering_encodes_and_leaves_out_absent_values() {
        let mut env = Env::default();
        env.insert("TOKEN".into(), "s3cr/t".into());
        let args = json!({"id": "a b/c", "n": 3, "tags": ["x", "y"]});
        let args = args.as_object().unwrap();
        let template = Template::parse("/items/{id}/{n}").unwrap();
        assert_eq!(
            template.render(args, &env, encode_segment).unwrap(),
            "/items/a%20b%2Fc/3"
        );
        assert_eq!(
            Template::parse("{tags}")
                .unwrap()
                .render(args, &env, str::to_owned)
                .unwrap(),
            "x,y"
        );
        assert!(
            Template::parse("{missing}")
                .unwrap()
                .render(args, &env, str::to_owned)
                .is_none()
        );
        assert_eq!(
            env.redact("token s3cr/t, s3cr%2Ft and s3cr%2Ft"),
            "token [redacted], [redacted] and [redacted]"
        );
        assert_eq!(format!("{env:?}"), "{\"TOKEN\": \"[redacted]\"}");
    }

    #[test]
    fn body_templates_keep_types_and_drop_absent_members() {
        let body = JsonTemplate::parse(&json!({
            "title": "{title}",
            "count": "{count}",
            "note": "by {user}",
            "fixed": {"a": 1},
            "missing": "{absent}"
        }))
        .unwrap();
        let args = json!({"title": "Hi", "count": 2, "user": "ann"});
        assert_eq!(
            body.render(args.as_object().unwrap(), &Env::default())
                .unwrap(),
            json!({"title": "Hi", "count": 2, "note": "by ann", "fixed": {"a": 1}})
        );
        let problems = JsonTemplate::parse(&json!({"a": ["{ok}", "{bad"]})).unwrap_err();
        assert_eq!(problems[0].0, "/a/1");
    }
}
