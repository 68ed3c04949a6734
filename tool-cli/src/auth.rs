//! `serve --http` as an OAuth 2.1 resource server (feature `auth`): the
//! settings of a registry file's `auth` section ([`AuthSection`]) and of
//! the `--auth-*` flags, which override the file's key by key, made into
//! tool-mcp's [`ResourceServer`].

use std::net::SocketAddr;

use schemars::JsonSchema;
use serde_json::Value;
use tool_manifest::{Key, Location, Node, Section, SectionReader};
use tool_mcp::auth::{Introspection, ResourceServer};

use crate::command::AuthArgs;

/// The `auth` section of a registry file: the authorization server whose
/// access tokens `serve --http` asks every request for.
///
/// ```yaml
/// auth:
///   issuer: https://auth.example.com
///   resource: https://tools.example.com/mcp
///   scopes: [tools:call]
///   introspection:
///     client_id: tools-server
///     client_secret_env: TOOLS_INTROSPECTION_SECRET
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AuthSection;

/// A value of the section, and where it was written (none for a flag's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    pub(crate) value: String,
    pub(crate) at: Option<Location>,
}

impl Located {
    fn flag(value: &str) -> Self {
        Located {
            value: value.to_owned(),
            at: None,
        }
    }
}

/// What a registry file's `auth` section says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthSetting {
    /// The file's name, for messages about its values.
    pub(crate) source: String,
    pub(crate) issuer: Located,
    pub(crate) resource: Option<Located>,
    pub(crate) scopes: Vec<String>,
    pub(crate) introspection: Option<IntrospectionSetting>,
}

/// The section's `introspection`: the server's own client at the
/// authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IntrospectionSetting {
    pub(crate) client_id: Located,
    pub(crate) client_secret_env: Located,
    pub(crate) endpoint: Option<Located>,
}

impl AuthSetting {
    /// The setting, read from the file named `source`.
    pub(crate) fn read_from(mut self, source: &str) -> Self {
        self.source = source.to_owned();
        self
    }
}

const KEYS: [&str; 4] = ["issuer", "resource", "scopes", "introspection"];
const INTROSPECTION_KEYS: [&str; 3] = ["client_id", "client_secret_env", "endpoint"];

impl Section for AuthSection {
    /// `None` when the section has a mistake (reported).
    type Entries = Option<AuthSetting>;

    fn key(&self) -> &'static str {
        "auth"
    }

    fn description(&self) -> &'static str {
        "an `auth` mapping"
    }

    fn schema(&self) -> Value {
        tool_manifest::section_schema::<AuthForm>()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Option<AuthSetting> {
        let Some(entries) = node.entries() else {
            reader.problem(
                Some(node.location()),
                "`auth` must be a mapping: `issuer`, and optionally `resource`, `scopes` and \
                 `introspection`",
            );
            return None;
        };
        let mut sound = true;
        let (mut issuer, mut resource, mut scopes, mut introspection) = (None, None, None, None);
        // A mapping's own place is its first value's: a missing key is
        // reported at its first key.
        let mut start = None;
        for (key, value) in entries {
            start = start.or(Some(key.location()));
            let pointer = format!("/auth/{}", tool_manifest::pointer_token(key.as_str()));
            let json = reader.to_json(value, &pointer);
            let read = match key.as_str() {
                "issuer" => text("auth", key, value, &json, reader).map(|v| issuer = Some(v)),
                "resource" => text("auth", key, value, &json, reader).map(|v| resource = Some(v)),
                "scopes" => read_scopes(value, &json, reader).map(|v| scopes = Some(v)),
                "introspection" => {
                    read_introspection(value, reader).map(|v| introspection = Some(v))
                }
                _ => {
                    unknown_key("auth", key, &KEYS, reader);
                    None
                }
            };
            sound &= read.is_some();
        }
        let Some(issuer) = issuer else {
            if sound {
                reader.problem(
                    start.or(Some(node.location())),
                    "`auth` needs `issuer`: the authorization server whose tokens to take",
                );
            }
            return None;
        };
        sound.then(|| AuthSetting {
            source: String::new(),
            issuer,
            resource,
            scopes: scopes.unwrap_or_default(),
            introspection,
        })
    }
}

/// A key the mapping `section` does not have, at its place, with the
/// closest one.
fn unknown_key(section: &str, key: Key<'_>, keys: &[&str], reader: &mut SectionReader<'_>) {
    let name = tool_runtime::__private::quote::name(key.as_str());
    let mut message = format!("unknown key \"{name}\" in `{section}`");
    if let Some(close) = tool_runtime::__private::names::closest(key.as_str(), keys.iter().copied())
    {
        message.push_str(&format!("; did you mean \"{close}\"?"));
    }
    message.push_str(&format!(" the keys are {}", keys.join(", ")));
    reader.problem(Some(key.location()), message);
}

/// The text of `key`'s value, or a problem at the value.
fn text(
    section: &str,
    key: Key<'_>,
    value: Node<'_>,
    json: &Value,
    reader: &mut SectionReader<'_>,
) -> Option<Located> {
    match json {
        Value::String(text) if !text.trim().is_empty() => Some(Located {
            value: text.trim().to_owned(),
            at: Some(value.location()),
        }),
        _ => {
            reader.problem(
                Some(value.location()),
                format!("`{section}.{}` is text, not empty", key.as_str()),
            );
            None
        }
    }
}

fn read_scopes(
    value: Node<'_>,
    json: &Value,
    reader: &mut SectionReader<'_>,
) -> Option<Vec<String>> {
    let scopes: Option<Vec<String>> = json.as_array().and_then(|items| {
        items
            .iter()
            .map(|item| {
                item.as_str()
                    .filter(|scope| is_scope(scope))
                    .map(str::to_owned)
            })
            .collect()
    });
    if scopes.is_none() {
        reader.problem(
            Some(value.location()),
            "`auth.scopes` is a list of scopes, each a word without spaces or quotes \
             ([tools:call])",
        );
    }
    scopes
}

/// Whether `scope` is a scope token (RFC 6749 §3.3): printable ASCII
/// without space, `"` or `\`.
fn is_scope(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == b'!' || (b'#'..=b'[').contains(&b) || (b']'..=b'~').contains(&b))
}

fn read_introspection(
    node: Node<'_>,
    reader: &mut SectionReader<'_>,
) -> Option<IntrospectionSetting> {
    let Some(entries) = node.entries() else {
        reader.problem(
            Some(node.location()),
            "`auth.introspection` must be a mapping: `client_id`, `client_secret_env` and \
             optionally `endpoint`",
        );
        return None;
    };
    let mut sound = true;
    let (mut client_id, mut secret, mut endpoint) = (None, None, None);
    let mut start = None;
    for (key, value) in entries {
        start = start.or(Some(key.location()));
        let pointer = format!(
            "/auth/introspection/{}",
            tool_manifest::pointer_token(key.as_str())
        );
        let json = reader.to_json(value, &pointer);
        let section = "auth.introspection";
        let read = match key.as_str() {
            "client_id" => text(section, key, value, &json, reader).map(|v| client_id = Some(v)),
            "endpoint" => text(section, key, value, &json, reader).map(|v| endpoint = Some(v)),
            "client_secret_env" => match text(section, key, value, &json, reader) {
                Some(name) if is_variable(&name.value) => {
                    secret = Some(name);
                    Some(())
                }
                Some(_) => {
                    reader.problem(
                        Some(value.location()),
                        "`auth.introspection.client_secret_env` names an environment variable \
                         (letters, digits and `_`), which holds the secret",
                    );
                    None
                }
                None => None,
            },
            _ => {
                unknown_key(section, key, &INTROSPECTION_KEYS, reader);
                None
            }
        };
        sound &= read.is_some();
    }
    match (client_id, secret) {
        (Some(client_id), Some(client_secret_env)) if sound => Some(IntrospectionSetting {
            client_id,
            client_secret_env,
            endpoint,
        }),
        (client_id, _) => {
            if sound {
                let missing = if client_id.is_none() {
                    "client_id"
                } else {
                    "client_secret_env"
                };
                reader.problem(
                    start.or(Some(node.location())),
                    format!("`auth.introspection` needs `{missing}`"),
                );
            }
            None
        }
    }
}

/// Whether `name` is an environment variable's name as a shell writes it.
fn is_variable(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The resource server's settings, the flags' over the file's.
#[derive(Debug)]
pub(crate) struct Settings {
    source: String,
    issuer: Located,
    resource: Option<Located>,
    scopes: Vec<String>,
    introspection: Option<(Located, Located, Option<Located>)>,
}

/// The settings `args` and the registry file's section `file` make: `None`
/// when neither names an issuer, an error when a flag needs one.
pub(crate) fn settings(
    args: &AuthArgs,
    file: Option<&AuthSetting>,
) -> Result<Option<Settings>, String> {
    let issuer = match (&args.auth_issuer, file) {
        (Some(issuer), _) => Located::flag(issuer),
        (None, Some(file)) => file.issuer.clone(),
        (None, None) => {
            let flags = [
                ("--auth-resource", args.auth_resource.is_some()),
                ("--auth-scope", !args.auth_scopes.is_empty()),
                ("--auth-client-id", args.auth_client_id.is_some()),
                (
                    "--auth-client-secret-env",
                    args.auth_client_secret_env.is_some(),
                ),
                (
                    "--auth-introspection-endpoint",
                    args.auth_introspection_endpoint.is_some(),
                ),
            ];
            if let Some((flag, _)) = flags.iter().find(|(_, given)| *given) {
                return Err(format!(
                    "{flag} needs an authorization server: give --auth-issuer, or a registry \
                     file with an `auth` section"
                ));
            }
            return Ok(None);
        }
    };
    let from_file = file.and_then(|file| file.introspection.clone());
    let client_id = args
        .auth_client_id
        .as_deref()
        .map(Located::flag)
        .or_else(|| from_file.as_ref().map(|i| i.client_id.clone()));
    let secret = args
        .auth_client_secret_env
        .as_deref()
        .map(Located::flag)
        .or_else(|| from_file.as_ref().map(|i| i.client_secret_env.clone()));
    let endpoint = args
        .auth_introspection_endpoint
        .as_deref()
        .map(Located::flag)
        .or_else(|| from_file.and_then(|i| i.endpoint));
    let introspection = match (client_id, secret, endpoint) {
        (Some(id), Some(secret), endpoint) => Some((id, secret, endpoint)),
        (None, None, None) => None,
        (None, _, _) => {
            return Err(
                "--auth-client-secret-env and --auth-introspection-endpoint go with \
                 --auth-client-id, the client that introspects tokens"
                    .to_owned(),
            );
        }
        (Some(_), None, _) => {
            return Err(
                "--auth-client-id needs --auth-client-secret-env VAR, the environment variable \
                 that holds the client's secret"
                    .to_owned(),
            );
        }
    };
    Ok(Some(Settings {
        source: file.map(|file| file.source.clone()).unwrap_or_default(),
        issuer,
        resource: args
            .auth_resource
            .as_deref()
            .map(Located::flag)
            .or_else(|| file.and_then(|file| file.resource.clone())),
        scopes: if args.auth_scopes.is_empty() {
            file.map(|file| file.scopes.clone()).unwrap_or_default()
        } else {
            args.auth_scopes.clone()
        },
        introspection,
    }))
}

impl Settings {
    /// Whether the settings name this server's resource URL.
    pub(crate) fn has_resource(&self) -> bool {
        self.resource.is_some()
    }

    /// Says where `value` was written, before `message`: the file's line
    /// and column, or the flag.
    fn at(
        &self,
        value: &Located,
        key: &str,
        flag: &str,
        message: impl std::fmt::Display,
    ) -> String {
        match value.at {
            Some(at) => format!(
                "bad registry file: {}:{at}: `{key}`: {message}",
                self.source
            ),
            None => format!("{flag}: {message}"),
        }
    }

    /// The resource server for a server listening on `bound`, named
    /// `program` in its metadata, and the host its resource URL names (for
    /// the `Host` guard).
    pub(crate) fn resource_server(
        &self,
        bound: SocketAddr,
        program: &str,
    ) -> Result<(ResourceServer, Option<String>), String> {
        use tool_mcp::auth::BuildError;
        let resource = self.resource.clone().unwrap_or_else(|| {
            Located::flag(&format!("http://{bound}{}", tool_mcp::server::MCP_PATH))
        });
        let mut builder = ResourceServer::builder(&self.issuer.value, &resource.value)
            .required_scopes(self.scopes.iter().cloned())
            .resource_name(program);
        if let Some((client_id, secret, endpoint)) = &self.introspection {
            let value = std::env::var(&secret.value).unwrap_or_default();
            if value.is_empty() {
                return Err(self.at(
                    secret,
                    "auth.introspection.client_secret_env",
                    "--auth-client-secret-env",
                    format!(
                        "the environment variable {} holds no secret for the client {}",
                        secret.value, client_id.value
                    ),
                ));
            }
            let mut introspection = Introspection::new(&client_id.value, value);
            if let Some(endpoint) = endpoint {
                introspection = introspection.endpoint(&endpoint.value);
            }
            builder = builder.introspection(introspection);
        }
        let server = builder.build().map_err(|error| match &error {
            BuildError::Issuer(_) => self.at(&self.issuer, "auth.issuer", "--auth-issuer", &error),
            BuildError::Resource(_) => {
                self.at(&resource, "auth.resource", "--auth-resource", &error)
            }
            BuildError::Introspection(_) => {
                match self.introspection.as_ref().and_then(|i| i.2.as_ref()) {
                    Some(endpoint) => self.at(
                        endpoint,
                        "auth.introspection.endpoint",
                        "--auth-introspection-endpoint",
                        &error,
                    ),
                    None => error.to_string(),
                }
            }
            _ => error.to_string(),
        })?;
        Ok((server, authority(&resource.value)))
    }
}

/// The `host[:port]` of an absolute URL.
fn authority(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    (!host.is_empty()).then(|| host.to_owned())
}

// The section's form, for its schema: each doc comment is a description.

/// The authorization server whose OAuth access tokens `serve --http` asks
/// every request for; each key is overridden by its `--auth-*` flag.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: the section is read from the YAML"
)]
struct AuthForm {
    /// The authorization server's issuer identifier, exactly as its
    /// metadata says (https://auth.example.com).
    issuer: String,
    /// This server's canonical URL, as clients reach it
    /// (https://tools.example.com/mcp): the audience its tokens must name.
    /// Defaults to http://ADDR/mcp on a loopback address; needed on any
    /// other.
    resource: Option<String>,
    /// The scopes every request's token must grant.
    scopes: Option<Vec<String>>,
    /// Opaque tokens introspected (RFC 7662) as this client of the
    /// authorization server; without it only JWT access tokens are taken.
    introspection: Option<IntrospectionForm>,
}

/// The server's own client at the authorization server, for token
/// introspection.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: the section is read from the YAML"
)]
struct IntrospectionForm {
    /// The client's id.
    client_id: String,
    /// The environment variable that holds the client's secret.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"))]
    client_secret_env: String,
    /// The introspection endpoint, instead of the one the authorization
    /// server's metadata names.
    endpoint: Option<String>,
}
