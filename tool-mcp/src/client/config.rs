//! How to reach one MCP server: the entry MCP hosts keep in their
//! configuration files (`mcpServers` in Claude Desktop, Cursor, VS Code...).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// How to start or reach one MCP server, in the shape MCP hosts use in
/// their configuration files: a command to spawn (the `stdio` transport) or
/// a URL (the streamable HTTP transport).
///
/// Which one is decided by the key present: `command` or `url` (exactly one
/// of them). An optional `type` key (`"stdio"`, `"http"`,
/// `"streamable-http"` or `"streamableHttp"`, as VS Code and others write
/// it) must agree with it. Any other key is refused with a message that
/// names it and lists the keys allowed.
///
/// ```
/// use tool_mcp::client::McpServerConfig;
///
/// let config: McpServerConfig = serde_json::from_str(r#"{
///     "command": "npx",
///     "args": ["-y", "@modelcontextprotocol/server-everything"],
///     "env": {"LOG_LEVEL": "info"}
/// }"#)?;
/// assert!(matches!(config, McpServerConfig::Stdio { ref command, .. } if command == "npx"));
///
/// let config: McpServerConfig = serde_json::from_str(r#"{
///     "url": "http://127.0.0.1:3001/mcp",
///     "headers": {"Authorization": "Bearer secret"}
/// }"#)?;
/// assert_eq!(config, McpServerConfig::http("http://127.0.0.1:3001/mcp").with_header("Authorization", "Bearer secret"));
///
/// let error = serde_json::from_str::<McpServerConfig>(r#"{"command": "x", "cwd": "/tmp"}"#).unwrap_err();
/// assert!(error.to_string().starts_with("unknown key `cwd` in an MCP server's configuration"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum McpServerConfig {
    /// A server spawned as a child process, speaking MCP on its stdin and
    /// stdout. It inherits this process's environment, with `env` added on
    /// top; its stderr is logged (`tracing`, debug level) and its last lines
    /// are quoted when it fails to start or exits.
    Stdio {
        /// The program to run, looked up on `PATH` when it has no slash.
        command: String,
        /// Its arguments.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// Environment variables set for it, on top of the inherited ones.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
    },
    /// A server reached over MCP's streamable HTTP transport.
    Http {
        /// The endpoint, e.g. `http://127.0.0.1:3001/mcp`; `https` works
        /// too (rustls, with the platform's certificate verifier). When the
        /// program has not installed a rustls crypto provider, connecting
        /// installs ring's as the process default.
        url: String,
        /// HTTP headers sent with every request (an `Authorization`
        /// header, say). `Accept`, `Mcp-Session-Id` and `Last-Event-ID`
        /// belong to the transport and are refused.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
    },
}

impl McpServerConfig {
    /// A server to spawn: `command` with `args`, no extra environment.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        McpServerConfig::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
        }
    }

    /// A server at `url`, over streamable HTTP, with no extra headers.
    pub fn http(url: impl Into<String>) -> Self {
        McpServerConfig::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// Adds an environment variable (a stdio server; ignored for HTTP).
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpServerConfig::Stdio { env, .. } = &mut self {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Adds an HTTP header (an HTTP server; ignored for stdio).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpServerConfig::Http { headers, .. } = &mut self {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// A short description for logs and errors: the command line or the
    /// URL (never the environment or the headers, which may hold secrets).
    pub fn describe(&self) -> String {
        match self {
            McpServerConfig::Stdio { command, args, .. } => {
                let mut out = command.clone();
                for arg in args {
                    out.push(' ');
                    out.push_str(arg);
                }
                out
            }
            McpServerConfig::Http { url, .. } => url.clone(),
        }
    }
}

/// The keys an entry may have, for error messages.
const KEYS: &str = "a stdio server takes `command`, `args` and `env`; \
                    an HTTP server takes `url` and `headers`; either may say `type`";

impl<'de> Deserialize<'de> for McpServerConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ConfigVisitor)
    }
}

struct ConfigVisitor;

impl<'de> Visitor<'de> for ConfigVisitor {
    type Value = McpServerConfig;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an MCP server's configuration: a map with `command` (stdio) or `url` (HTTP)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut command: Option<String> = None;
        let mut args: Option<Vec<String>> = None;
        let mut env: Option<BTreeMap<String, String>> = None;
        let mut url: Option<String> = None;
        let mut headers: Option<BTreeMap<String, String>> = None;
        let mut kind: Option<String> = None;
        while let Some(key) = map.next_key::<String>()? {
            fn set<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
                map: &mut A,
                slot: &mut Option<T>,
                key: &str,
            ) -> Result<(), A::Error> {
                if slot.is_some() {
                    return Err(de::Error::custom(format_args!(
                        "the key `{key}` appears twice in an MCP server's configuration"
                    )));
                }
                *slot = Some(map.next_value()?);
                Ok(())
            }
            match key.as_str() {
                "command" => set(&mut map, &mut command, &key)?,
                "args" => set(&mut map, &mut args, &key)?,
                "env" => set(&mut map, &mut env, &key)?,
                "url" => set(&mut map, &mut url, &key)?,
                "headers" => set(&mut map, &mut headers, &key)?,
                "type" => set(&mut map, &mut kind, &key)?,
                other => {
                    return Err(de::Error::custom(format_args!(
                        "unknown key `{other}` in an MCP server's configuration: {KEYS}"
                    )));
                }
            }
        }
        let stdio_type = matches!(kind.as_deref(), None | Some("stdio"));
        let http_type = matches!(
            kind.as_deref(),
            None | Some("http" | "streamable-http" | "streamableHttp")
        );
        if let Some(kind) = &kind
            && !stdio_type
            && !http_type
        {
            return Err(de::Error::custom(format_args!(
                "unsupported `type` `{kind}` in an MCP server's configuration: \
                 `stdio` and `http` (streamable HTTP) are supported"
            )));
        }
        match (command, url) {
            (Some(_), Some(_)) => Err(de::Error::custom(
                "an MCP server's configuration has both `command` and `url`: \
                 give `command` for a server to spawn (stdio) or `url` for one \
                 to reach over HTTP, not both",
            )),
            (None, None) => Err(de::Error::custom(
                "an MCP server's configuration needs `command` (a server to spawn, \
                 stdio) or `url` (a server to reach over streamable HTTP)",
            )),
            (Some(command), None) => {
                if !stdio_type {
                    return Err(de::Error::custom(
                        "an MCP server's configuration says an HTTP `type` but gives \
                         a `command`: an HTTP server needs a `url`",
                    ));
                }
                if headers.is_some() {
                    return Err(de::Error::custom(
                        "`headers` in an MCP server's configuration belongs to an HTTP \
                         server (`url`), not to a spawned one (`command`)",
                    ));
                }
                Ok(McpServerConfig::Stdio {
                    command,
                    args: args.unwrap_or_default(),
                    env: env.unwrap_or_default(),
                })
            }
            (None, Some(url)) => {
                if !http_type {
                    return Err(de::Error::custom(
                        "an MCP server's configuration says `type: stdio` but gives a \
                         `url`: a stdio server needs a `command`",
                    ));
                }
                if let Some(key) = [("args", args.is_some()), ("env", env.is_some())]
                    .into_iter()
                    .find_map(|(key, present)| present.then_some(key))
                {
                    return Err(de::Error::custom(format_args!(
                        "`{key}` in an MCP server's configuration belongs to a spawned \
                         server (`command`), not to an HTTP one (`url`)"
                    )));
                }
                Ok(McpServerConfig::Http {
                    url,
                    headers: headers.unwrap_or_default(),
                })
            }
        }
    }
}
