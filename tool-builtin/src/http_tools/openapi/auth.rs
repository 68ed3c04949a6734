//! Credentials: the entry's `auth`, read against the document's security
//! schemes, and which of them an operation takes.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{Map, Value};
use tool_manifest::pointer_token;

use super::super::template::{Env, Part, Template};
use super::super::{Context, Problems, read_env};

/// How a credential of `auth` is sent.
#[derive(Debug, Clone)]
pub(super) enum Credential {
    Header(String, Template),
    Query(String, Template),
}

/// The credentials of `auth`, by security scheme name.
pub(super) fn auth(
    context: &Context<'_>,
    definition: &Value,
    doc: &Value,
    env: &mut Env,
    problems: &mut Problems<'_>,
) -> BTreeMap<String, Credential> {
    let mut out = BTreeMap::new();
    let Some(given) = definition.get("auth") else {
        return out;
    };
    let Some(given) = given.as_object() else {
        problems.at_value("auth", "`auth` maps a security scheme's name to its credential, such as `api_key: ${PETSTORE_KEY}`");
        return out;
    };
    let schemes = doc
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    for (scheme_name, value) in given {
        let key = format!("auth/{}", pointer_token(scheme_name));
        let Some(scheme) = schemes.and_then(|s| s.get(scheme_name)) else {
            let names: Vec<&str> = schemes
                .into_iter()
                .flatten()
                .map(|(n, _)| n.as_str())
                .collect();
            let suggestion =
                tool_runtime::__private::names::closest(scheme_name, names.iter().copied())
                    .map(|s| format!("did you mean `{s}`? "))
                    .unwrap_or_default();
            problems.at_key(
                &key,
                format!(
                    "the document has no security scheme `{scheme_name}`; {suggestion}its schemes are: {}",
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ),
            );
            continue;
        };
        let Some(template) = credential_template(value, &key, problems) else {
            continue;
        };
        read_env(context, [(key.clone(), &template)], env, problems);
        if let Some(credential) = credential(scheme_name, scheme, template, &key, env, problems) {
            out.insert(scheme_name.clone(), credential);
        }
    }
    out
}

/// A credential's value: a template of `${VAR}` and text.
fn credential_template(value: &Value, key: &str, problems: &mut Problems<'_>) -> Option<Template> {
    match value.as_str().map(Template::parse) {
        Some(Ok(template)) if template.params().next().is_none() => Some(template),
        Some(Ok(_)) => {
            problems.at_value(
                key,
                "a credential takes `${VAR}` and text, not `{parameter}`",
            );
            None
        }
        Some(Err(message)) => {
            problems.at_value(key, message);
            None
        }
        None => {
            problems.at_value(key, "a credential is text, such as \"${PETSTORE_KEY}\"");
            None
        }
    }
}

/// How the security scheme `scheme` sends `template`: an API key in a
/// header or the query, HTTP basic (encoded into `env` as a secret of its
/// own) or a bearer token; `None` for a scheme that is not supported.
fn credential(
    scheme_name: &str,
    scheme: &Value,
    template: Template,
    key: &str,
    env: &mut Env,
    problems: &mut Problems<'_>,
) -> Option<Credential> {
    let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
    let http_scheme = scheme
        .get("scheme")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_ascii_lowercase();
    let credential = match kind {
        "apiKey" => {
            let name = scheme
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            match scheme.get("in").and_then(Value::as_str) {
                Some("header") => Credential::Header(name, template),
                Some("query") => Credential::Query(name, template),
                _ => {
                    problems.at_key(key, format!("security scheme `{scheme_name}` sends its key in a cookie, which is not supported"));
                    return None;
                }
            }
        }
        "http" if http_scheme == "basic" => {
            // `user:password`, sent base64-encoded; the encoded form is
            // a secret too.
            let plain = template
                .render(&Map::new(), env, str::to_owned)
                .unwrap_or_default();
            let encoded = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(plain.as_bytes())
            );
            let secret = format!("{scheme_name}#basic");
            env.insert(secret.clone(), encoded);
            Credential::Header(
                "Authorization".into(),
                Template {
                    parts: vec![Part::Env(secret)],
                },
            )
        }
        "http" | "oauth2" | "openIdConnect" if kind != "http" || http_scheme == "bearer" => {
            let mut parts = vec![Part::Text("Bearer ".into())];
            parts.extend(template.parts);
            Credential::Header("Authorization".into(), Template { parts })
        }
        _ => {
            problems.at_key(key, format!("security scheme `{scheme_name}` ({kind} {http_scheme}) is not supported; use `headers` instead"));
            return None;
        }
    };
    Some(credential)
}

/// The credentials an operation takes: those of its first security
/// requirement (or the document's) that `credentials` covers whole.
pub(super) fn applied<'c>(
    op: &Value,
    doc: &Value,
    credentials: &'c BTreeMap<String, Credential>,
) -> Vec<&'c Credential> {
    let security = op.get("security").or_else(|| doc.get("security"));
    let mut applied: Vec<&Credential> = Vec::new();
    if let Some(requirements) = security.and_then(Value::as_array) {
        let covered = requirements
            .iter()
            .filter_map(Value::as_object)
            .find(|requirement| {
                !requirement.is_empty()
                    && requirement
                        .keys()
                        .all(|scheme| credentials.contains_key(scheme))
            });
        if let Some(requirement) = covered {
            applied.extend(
                requirement
                    .keys()
                    .filter_map(|scheme| credentials.get(scheme)),
            );
        }
    }
    applied
}

/// Whether one of `applied` gives the parameter `name` in `inside`
/// (`header`, `query`).
pub(super) fn supplies(applied: &[&Credential], inside: &str, name: &str) -> bool {
    applied.iter().any(|credential| match credential {
        Credential::Header(header, _) => inside == "header" && header.eq_ignore_ascii_case(name),
        Credential::Query(param, _) => inside == "query" && param == name,
    })
}
