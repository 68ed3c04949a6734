//! The `auth` of an HTTP server's entry in a registry file's `mcp_servers`
//! section: an [`OAuthConfig`] as YAML (its serde form, key by key), with
//! `${VAR}` in `client_id`, `client_secret` and `private_key` read from
//! the environment; and the [`OAuth`] a proxy reaches the server with.
//!
//! Every mistake is reported at the line and column of its key, saying
//! what is expected; a secret's value is never quoted.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tool_manifest::{Location, Node, SectionReader};

use super::jwt::SigningKey;
use super::{FileTokenStore, OAuth, OAuthConfig, OAuthGrant};

/// The keys whose values may name environment variables, `${VAR}`.
const FROM_ENVIRONMENT: [&str; 3] = ["client_id", "client_secret", "private_key"];
/// The keys whose values are secrets: never quoted in a message.
const SECRETS: [&str; 2] = ["client_secret", "private_key"];

/// The `auth` of the server `server`'s entry: `node` is its value, `at`
/// where its key was written and `pointer` its JSON pointer. `None` (each
/// mistake reported) when it has a mistake.
pub(crate) fn read(
    server: &str,
    node: Node<'_>,
    at: Location,
    pointer: &str,
    reader: &mut SectionReader<'_>,
) -> Option<OAuthConfig> {
    let problem = |reader: &mut SectionReader<'_>, at: Location, message: String| {
        reader.problem(Some(at), format!("MCP server \"{server}\": {message}"));
    };
    let Some(entries) = node.entries() else {
        problem(
            reader,
            at,
            "`auth` must be a mapping: `grant` (`authorization_code` or \
             `client_credentials`), `client_id`, `client_secret` or `private_key`, \
             `scopes`..."
                .to_owned(),
        );
        return None;
    };
    let mut sound = true;
    let mut written = Map::new();
    let mut keys: BTreeMap<String, Location> = BTreeMap::new();
    for (key, value) in entries {
        let name = key.as_str();
        let json = reader.to_json(
            value,
            &format!("{pointer}/{}", tool_manifest::pointer_token(name)),
        );
        keys.insert(name.to_owned(), key.location());
        match read_value(name, json) {
            Ok(json) => {
                written.insert(name.to_owned(), json);
            }
            Err(message) => {
                problem(reader, key.location(), message);
                sound = false;
            }
        }
    }
    if !sound {
        return None;
    }
    let config: OAuthConfig = match serde_json::from_value(Value::Object(written)) {
        Ok(config) => config,
        Err(error) => {
            // Each key was taken alone above; together they are too.
            problem(reader, at, format!("`auth`: {error}"));
            return None;
        }
    };
    let mistakes = check(&config);
    for (key, message) in &mistakes {
        let place = key.and_then(|key| keys.get(key).copied()).unwrap_or(at);
        problem(reader, place, message.clone());
    }
    mistakes.is_empty().then_some(config)
}

/// One key of `auth` and its value, `${VAR}`s filled in: the value, or
/// what is wrong with it.
fn read_value(key: &str, mut value: Value) -> Result<Value, String> {
    let secret = SECRETS.contains(&key);
    if FROM_ENVIRONMENT.contains(&key) {
        match &value {
            Value::String(text) => {
                let filled = expand(text, |name| std::env::var(name).ok(), secret)
                    .map_err(|why| format!("`auth.{key}`: {why}"))?;
                value = Value::String(filled);
            }
            _ if secret => {
                return Err(format!(
                    "`auth.{key}` is text: the secret in quotes, or \"${{VAR}}\" to read it \
                     from the environment variable VAR"
                ));
            }
            _ => {}
        }
    }
    // The key alone, in the configuration's serde form: an unknown key, or
    // a value of the wrong type, is its own mistake.
    let single = Value::Object(Map::from_iter([(key.to_owned(), value.clone())]));
    if let Err(error) = serde_json::from_value::<OAuthConfig>(single) {
        let error = error.to_string();
        return Err(if error.starts_with("unknown field") {
            format!("`auth`: {}", error.replacen("field", "key", 1))
        } else if secret {
            // serde's message may quote the value.
            format!("`auth.{key}` is text")
        } else {
            format!("`auth.{key}`: {error}")
        });
    }
    Ok(value)
}

/// `text` with each `${VAR}` replaced by the value `lookup` gives for
/// `VAR`; or why not: a `${` not closed or not naming a variable, a
/// variable not set (or empty). Of a `secret` nothing is quoted.
fn expand(
    text: &str,
    lookup: impl Fn(&str) -> Option<String>,
    secret: bool,
) -> Result<String, String> {
    let mut filled = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        filled.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(
                "a `${` is not closed: `${VAR}` is the environment variable VAR".to_owned(),
            );
        };
        let name = &after[..end];
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(if secret {
                "a `${...}` does not name an environment variable (letters, digits and `_`)"
                    .to_owned()
            } else {
                format!(
                    "`${{{name}}}` does not name an environment variable (letters, digits and `_`)"
                )
            });
        }
        match lookup(name).filter(|value| !value.is_empty()) {
            Some(value) => filled.push_str(&value),
            None => return Err(format!("the environment variable `{name}` is not set")),
        }
        rest = &after[end + 1..];
    }
    filled.push_str(rest);
    Ok(filled)
}

/// What does not fit together in `config`: the key each mistake is at
/// (`None`: `auth` itself) and the message.
fn check(config: &OAuthConfig) -> Vec<(Option<&'static str>, String)> {
    let mut mistakes = Vec::new();
    let client_credentials = config.grant == OAuthGrant::ClientCredentials;
    if client_credentials {
        if config.client_id.is_none() {
            mistakes.push((
                None,
                "`auth`: the `client_credentials` grant needs `client_id`, the client \
                 registered with the authorization server"
                    .to_owned(),
            ));
        }
        if config.client_secret.is_none() && config.private_key.is_none() {
            mistakes.push((
                None,
                "`auth`: the `client_credentials` grant needs `client_secret` (such as \
                 \"${SECRET_VARIABLE}\") or `private_key`"
                    .to_owned(),
            ));
        }
    }
    if config.client_secret.is_some() && config.private_key.is_some() {
        mistakes.push((
            Some("private_key"),
            "`auth`: give `client_secret` or `private_key`, not both".to_owned(),
        ));
    }
    if config.client_id.is_none() && !client_credentials {
        for (key, given) in [
            ("client_secret", config.client_secret.is_some()),
            ("private_key", config.private_key.is_some()),
            ("client_issuer", config.client_issuer.is_some()),
        ] {
            if given {
                mistakes.push((
                    Some(key),
                    format!("`auth.{key}` belongs to `client_id`, which is not given"),
                ));
            }
        }
    }
    match (&config.private_key, &config.signing_algorithm) {
        (None, Some(_)) => mistakes.push((
            Some("signing_algorithm"),
            "`auth.signing_algorithm` goes with `private_key`, which is not given".to_owned(),
        )),
        (Some(pem), algorithm) => {
            if let Err(why) = SigningKey::from_pem(pem.expose(), algorithm.as_deref()) {
                // The algorithm's own mistakes name it first.
                let key = if why.starts_with('`') {
                    "signing_algorithm"
                } else {
                    "private_key"
                };
                mistakes.push((Some(key), format!("`auth.{key}`: {why}")));
            }
        }
        (None, None) => {}
    }
    if config.max_authorizations == 0 {
        mistakes.push((
            Some("max_authorizations"),
            "`auth.max_authorizations` is at least 1".to_owned(),
        ));
    }
    mistakes
}

/// The [`OAuth`] a program reaches a server with, as its entry's `auth`
/// says: the authorization code's tokens in the [`FileTokenStore`] under
/// the user's configuration directory (where a sign-in put them), client
/// credentials' in memory.
pub(crate) fn oauth(config: &OAuthConfig) -> OAuth {
    let oauth = OAuth::new(config.clone());
    if config.grant != OAuthGrant::AuthorizationCode {
        return oauth;
    }
    match FileTokenStore::in_config_dir() {
        Ok(store) => oauth.with_store(store),
        Err(error) => {
            tracing::warn!("{error}: the tokens are kept in memory");
            oauth
        }
    }
}
