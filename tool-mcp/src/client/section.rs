//! The `mcp_servers` section of a registry file: MCP servers whose tools a
//! program offers beside its own ([`McpServers`], [`McpServerEntry`]), and
//! the section's JSON Schema, derived from the entries' form.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde_json::Value;
use tool_manifest::{Location, Node, Section, SectionReader};

use super::McpClientOptions;

/// The `mcp_servers` section of a registry file, for
/// [`Manifest::parse_with`](tool_manifest::Manifest::parse_with):
/// MCP servers by name, in the shape MCP hosts use, each with an optional
/// `prefix` for its tools' names and the settings of the client that
/// reaches it.
///
/// ```yaml
/// mcp_servers:
///   everything:
///     command: npx
///     args: ["-y", "@modelcontextprotocol/server-everything"]
///     prefix: everything_
///   remote:
///     url: http://127.0.0.1:3001/mcp
///     headers: {X-Tenant: acme}
///     connect_timeout_ms: 5000
///   protected:
///     url: https://mcp.example.com/mcp
///     auth:
///       grant: client_credentials
///       client_id: my-agent
///       client_secret: ${PROTECTED_SECRET}
///       scopes: [tools:read]
/// ```
///
/// Reading checks each entry's name and shape; the rest of an entry (the
/// server's [`McpServerConfig`](super::McpServerConfig), its settings) is
/// kept as written, with the place of every value
/// ([`Manifest::location_of`](tool_manifest::Manifest::location_of)
/// at `/mcp_servers/NAME/KEY`), for the program that reaches the servers
/// to check and report.
///
/// An HTTP server's `auth` is read here, with feature `client-auth`: an
/// `oauth::OAuthConfig` in its serde form, where
/// `${VAR}` in `client_id`, `client_secret` and `private_key` is the
/// environment variable `VAR`; each mistake (an unknown key, a value of
/// the wrong type, a grant without what it needs, a variable not set) is
/// reported at the line and column of its key, and no secret is quoted.
/// The entry gives it as `McpServerEntry::auth`, and
/// [`McpServerEntry::client_options`] makes the client's OAuth of it.
/// Without the feature an `auth` key is a mistake at its place, naming it.
///
/// ```
/// use tool_mcp::client::McpServers;
/// use tool_manifest::Manifest;
///
/// let text = "mcp_servers:\n  everything:\n    command: npx\n    prefix: everything_\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&McpServers]).unwrap();
/// let servers = manifest.section::<McpServers>().unwrap();
/// assert_eq!(servers[0].name, "everything");
/// assert_eq!(servers[0].prefix.as_deref(), Some("everything_"));
/// assert_eq!(servers[0].config, serde_json::json!({"command": "npx"}));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct McpServers;

/// One entry of a registry file's `mcp_servers` section: an MCP server
/// whose tools the registry offers beside its own.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerEntry {
    /// The server's name: its key in `mcp_servers`.
    pub name: String,
    /// How to reach it, as written, less `prefix`: `{command, args, env}`
    /// for a server to spawn, `{url, headers, auth}` for one reached over
    /// streamable HTTP, with the client's settings (`connect_timeout_ms`,
    /// the [`McpLimits`](super::McpLimits) keys).
    pub config: Value,
    /// A prefix for the names of the server's tools (`prefix:`), if any.
    pub prefix: Option<String>,
    /// How the client authorizes itself to the server (`auth:`, an HTTP
    /// server's, feature `client-auth`), read and checked, `${VAR}`s
    /// filled in from the environment. [`config`](Self::config) has it as
    /// written.
    #[cfg(feature = "client-auth")]
    pub auth: Option<super::oauth::OAuthConfig>,
    /// Where the entry starts.
    pub location: Location,
}

impl McpServerEntry {
    /// `options` with what the entry adds to a client's options: the
    /// OAuth of its `auth` (feature `client-auth`), whose authorization
    /// code tokens are kept in `oauth::FileTokenStore::in_config_dir()`
    /// (where a sign-in put them, by the server's URL) and client
    /// credentials tokens in memory. Without `auth`, `options` as they are.
    pub fn client_options(&self, options: McpClientOptions) -> McpClientOptions {
        #[cfg(feature = "client-auth")]
        if let Some(config) = &self.auth {
            return options.with_oauth(super::oauth::entry::oauth(config));
        }
        options
    }
}

impl Section for McpServers {
    type Entries = Vec<McpServerEntry>;

    fn key(&self) -> &'static str {
        "mcp_servers"
    }

    fn description(&self) -> &'static str {
        "an `mcp_servers` mapping"
    }

    fn schema(&self) -> Value {
        tool_manifest::section_schema::<ServersForm>()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Vec<McpServerEntry> {
        let Some(servers) = node.entries() else {
            reader.problem(
                Some(node.location()),
                "`mcp_servers` must be a mapping from each server's name to how to reach it",
            );
            return Vec::new();
        };
        servers
            .filter_map(|(name, server)| read_server(name.as_str(), server, reader))
            .collect()
    }
}

/// One server's entry, when its name is valid and it is a mapping.
fn read_server(
    name: &str,
    node: Node<'_>,
    reader: &mut SectionReader<'_>,
) -> Option<McpServerEntry> {
    let at = node.location();
    if !tool_manifest::is_entry_name(name) {
        reader.problem(
            Some(at),
            format!(
                "MCP server \"{}\": a server's name is 1 to 64 letters, digits, `_` or `-`",
                tool_runtime::__private::quote::name(name)
            ),
        );
        return None;
    }
    if !node.is_mapping() {
        reader.problem(
            Some(at),
            format!(
                "MCP server \"{name}\" must be a mapping: `command` (with `args`, `env`) \
                 or `url` (with `headers`)"
            ),
        );
        return None;
    }
    let pointer = format!("/mcp_servers/{name}");
    let mut config = reader.to_json(node, &pointer);
    #[cfg(feature = "client-auth")]
    let auth = read_auth(name, node, &pointer, &config, reader);
    #[cfg(not(feature = "client-auth"))]
    refuse_auth(name, node, reader);
    let prefix = match config.as_object_mut().and_then(|c| c.remove("prefix")) {
        None => None,
        Some(Value::String(prefix)) => Some(prefix),
        Some(_) => {
            let location = reader.location_of(&format!("{pointer}/prefix"));
            reader.problem(location, format!("MCP server \"{name}\": `prefix` is text"));
            None
        }
    };
    Some(McpServerEntry {
        name: name.to_owned(),
        config,
        prefix,
        #[cfg(feature = "client-auth")]
        auth,
        location: at,
    })
}

/// Where the entry's `auth` key was written, and its value.
fn auth_of(node: Node<'_>) -> Option<(Location, Node<'_>)> {
    node.entries()?
        .find(|(key, _)| key.as_str() == "auth")
        .map(|(key, value)| (key.location(), value))
}

/// A mistake about the `auth` of the server `name`, at `at`.
fn auth_problem(reader: &mut SectionReader<'_>, name: &str, at: Location, message: &str) {
    reader.problem(Some(at), format!("MCP server \"{name}\": {message}"));
}

/// The entry's `auth`: a mistake, without feature `client-auth`.
#[cfg(not(feature = "client-auth"))]
fn refuse_auth(name: &str, node: Node<'_>, reader: &mut SectionReader<'_>) {
    if let Some((at, _)) = auth_of(node) {
        auth_problem(
            reader,
            name,
            at,
            "`auth` (OAuth for the client) needs tool-mcp's `client-auth` feature, \
             which this program is built without",
        );
    }
}

/// The entry's `auth`, read (feature `client-auth`): `None` when there is
/// none, or after a mistake (reported). `config` is the entry as JSON.
#[cfg(feature = "client-auth")]
fn read_auth(
    name: &str,
    node: Node<'_>,
    pointer: &str,
    config: &Value,
    reader: &mut SectionReader<'_>,
) -> Option<super::oauth::OAuthConfig> {
    let (at, value) = auth_of(node)?;
    let config = config.as_object()?;
    if config.contains_key("command") {
        auth_problem(
            reader,
            name,
            at,
            "`auth` belongs to a server reached over HTTP (`url`); a spawned server \
             (`command`) takes its credentials from its `env`",
        );
        return None;
    }
    let authorization = config
        .get("headers")
        .and_then(Value::as_object)
        .is_some_and(|headers| {
            headers
                .keys()
                .any(|header| header.eq_ignore_ascii_case("authorization"))
        });
    if authorization {
        auth_problem(
            reader,
            name,
            at,
            "give `auth` or an `Authorization` header, not both: `auth` sends the access \
             token it obtains as the `Authorization` header",
        );
        return None;
    }
    super::oauth::entry::read(name, value, at, &format!("{pointer}/auth"), reader)
}

// The section's form, for its schema: each doc comment is a description.

/// MCP servers whose tools the registry offers too, by name, in the shape
/// MCP hosts use.
#[derive(JsonSchema)]
#[schemars(extend("propertyNames" = {"pattern": "^[a-zA-Z0-9_-]{1,64}$"}))]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct ServersForm(BTreeMap<String, ServerForm>);

/// How to reach one MCP server.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
enum ServerForm {
    /// A server to spawn, speaking MCP on its stdin and stdout.
    Stdio(StdioForm),
    /// A server reached over streamable HTTP.
    Http(HttpForm),
}

/// A server to spawn, speaking MCP on its stdin and stdout.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct StdioForm {
    /// The transport, `stdio` when `command` is given.
    #[schemars(rename = "type")]
    kind: Option<StdioKind>,
    /// The program to run.
    command: String,
    /// Its arguments.
    args: Option<Vec<String>>,
    /// Environment variables set for it.
    env: Option<BTreeMap<String, String>>,
    /// A prefix for the names of its tools.
    prefix: Option<String>,
    #[schemars(flatten)]
    settings: SettingsForm,
}

/// A server reached over streamable HTTP.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct HttpForm {
    /// The transport, streamable HTTP when `url` is given.
    #[schemars(rename = "type")]
    kind: Option<HttpKind>,
    /// The endpoint, such as http://127.0.0.1:3001/mcp.
    url: String,
    /// HTTP headers sent with every request.
    headers: Option<BTreeMap<String, String>>,
    /// How the client authorizes itself with OAuth 2.1 when the server
    /// answers 401 (tool-mcp's feature client-auth): the authorization
    /// code (tokens from a sign-in, kept under the user's configuration
    /// directory) or client credentials. ${VAR} in client_id,
    /// client_secret and private_key is read from the environment.
    #[cfg(feature = "client-auth")]
    auth: Option<super::oauth::OAuthConfig>,
    /// A prefix for the names of its tools.
    prefix: Option<String>,
    #[schemars(flatten)]
    settings: SettingsForm,
}

/// The transport of a server to spawn.
#[derive(JsonSchema)]
#[schemars(rename_all = "lowercase")]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
enum StdioKind {
    Stdio,
}

/// The transport of a server reached over HTTP, as MCP hosts write it.
#[derive(JsonSchema)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
enum HttpKind {
    #[schemars(rename = "http")]
    Http,
    #[schemars(rename = "streamable-http")]
    StreamableHttp,
    #[schemars(rename = "streamableHttp")]
    StreamableHttpCamel,
}

/// How the client treats a server: its time limit to answer, and what it
/// takes in from it ([`McpLimits`](super::McpLimits)).
#[derive(JsonSchema)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct SettingsForm {
    /// The revision of MCP to speak with the server: "2025-11-25" (the
    /// initialize handshake, which every server knows), "2026-07-28"
    /// (server/discover) or "auto" (server/discover, then initialize).
    #[schemars(default = "defaults::protocol")]
    protocol: super::McpProtocol,
    /// How long starting or reaching the server, its handshake and its
    /// first tool listing may take, in milliseconds. `serve` does not wait
    /// for it.
    #[schemars(range(min = 1), default = "defaults::connect_timeout_ms")]
    connect_timeout_ms: u64,
    /// The most tools the server may list; a longer list is refused, paging
    /// stops there.
    #[schemars(range(min = 1), default = "defaults::max_tools")]
    max_tools: usize,
    /// The most bytes its whole tool list may take, as JSON; a larger list
    /// is refused, paging stops there.
    #[schemars(range(min = 1), default = "defaults::max_list_bytes")]
    max_list_bytes: usize,
    /// The most bytes of one tool's input or output schema, as JSON; a tool
    /// over it is left out.
    #[schemars(range(min = 1), default = "defaults::max_schema_bytes")]
    max_schema_bytes: usize,
    /// How deep one tool's input or output schema may nest; a deeper tool
    /// is left out.
    #[schemars(range(min = 1, max = 64), default = "defaults::max_schema_depth")]
    max_schema_depth: usize,
    /// The most bytes of one message from the server, such as a call's
    /// answer or a page of its tool list; a call whose answer is larger
    /// fails at once.
    #[schemars(range(min = 1), default = "defaults::max_result_bytes")]
    max_result_bytes: usize,
    /// The most resources the server may list; a longer list is refused,
    /// paging stops there.
    #[schemars(range(min = 1), default = "defaults::max_resources")]
    max_resources: usize,
    /// The most resource templates the server may list; a longer list is
    /// refused, paging stops there.
    #[schemars(range(min = 1), default = "defaults::max_resource_templates")]
    max_resource_templates: usize,
    /// The most prompts the server may list; a longer list is refused,
    /// paging stops there.
    #[schemars(range(min = 1), default = "defaults::max_prompts")]
    max_prompts: usize,
}

/// The settings' defaults, for the schema.
mod defaults {
    use super::super::{McpClientOptions, McpLimits};

    pub(super) fn protocol() -> super::super::McpProtocol {
        McpClientOptions::default().protocol
    }

    pub(super) fn connect_timeout_ms() -> u64 {
        let timeout = McpClientOptions::default().connect_timeout;
        u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)
    }

    pub(super) fn max_tools() -> usize {
        McpLimits::default().max_tools
    }

    pub(super) fn max_list_bytes() -> usize {
        McpLimits::default().max_list_bytes
    }

    pub(super) fn max_schema_bytes() -> usize {
        McpLimits::default().max_schema_bytes
    }

    pub(super) fn max_schema_depth() -> usize {
        McpLimits::default().max_schema_depth
    }

    pub(super) fn max_result_bytes() -> usize {
        McpLimits::default().max_result_bytes
    }

    pub(super) fn max_resources() -> usize {
        McpLimits::default().max_resources
    }

    pub(super) fn max_resource_templates() -> usize {
        McpLimits::default().max_resource_templates
    }

    pub(super) fn max_prompts() -> usize {
        McpLimits::default().max_prompts
    }
}
