//! The MCP servers of a registry file (`mcp_servers`, feature
//! `mcp-client`): their entries checked (every mistake at its line and
//! column), the servers reached with tool-mcp's client, and their tools
//! put beside the local ones.
//!
//! - `list`, `schema`, `config` and `call` (of a tool that is not local)
//!   reach every server first, all at once; a server that cannot be reached
//!   stops the command with an error naming it (exit code 1).
//! - `serve` answers its own clients at once, with the local tools: every
//!   server is reached in the background, and its tools join the served
//!   registry when it answers (its clients get
//!   `notifications/tools/list_changed`). A server that cannot be reached
//!   (or does not finish its handshake within `connect_timeout_ms`) is
//!   reported on stderr and tried again (1 s doubling to 30 s). A server's
//!   later tool list changes reach the served registry too.
//! - What a server sends is bounded by its entry's limits (tool-mcp's
//!   `McpLimits`: `max_tools`, `max_list_bytes`, `max_schema_bytes`,
//!   `max_schema_depth`, `max_result_bytes`, `max_resources`,
//!   `max_resource_templates`, `max_prompts`); the tools left out for them,
//!   or for names that become alike, are warnings on stderr, their names
//!   escaped.
//! - `serve` also serves the servers' resources, resource templates and
//!   prompts (see [`content`]).

mod content;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::task::JoinHandle;
use tool_manifest::{Location, Manifest, ManifestProblem};
use tool_mcp::client::{
    ImportOptions, LeftOut, McpClient, McpClientError, McpClientErrorKind, McpClientOptions,
    McpLimits, McpProtocol, McpServerConfig, McpServers,
};
use tool_runtime::{Registry, Tool, dynamic::DynamicTool, registry::LiveRegistry};

/// The keys an MCP server's entry may have, besides `prefix` (which the
/// manifest takes out) and the settings.
const KEYS: [&str; 6] = ["command", "args", "env", "url", "headers", "type"];

/// The keys of an entry that set how the proxy treats the server: the
/// revision it speaks, its connect timeout and its limits.
const SETTINGS: [&str; 10] = [
    "protocol",
    "connect_timeout_ms",
    "max_tools",
    "max_list_bytes",
    "max_schema_bytes",
    "max_schema_depth",
    "max_result_bytes",
    "max_resources",
    "max_resource_templates",
    "max_prompts",
];

/// One MCP server of the registry file, its entry checked.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    /// Its name (its key in `mcp_servers`).
    pub(crate) name: String,
    config: McpServerConfig,
    /// Its connect timeout and limits.
    client: McpClientOptions,
    import: ImportOptions,
    /// `FILE:LINE:COLUMN` of its name, for messages.
    pub(crate) at: String,
    /// The registry file it was read from, when its `auth` has a person
    /// sign in (the authorization code), which `toolbox auth login` does
    /// ahead of time.
    sign_in: Option<String>,
}

/// The servers of `manifest`, and the mistakes in their entries, each at
/// its line and column. `text` is the file's text, to point at keys
/// rather than at their values.
pub(crate) fn servers(manifest: &Manifest, text: &str) -> (Vec<Remote>, Vec<ManifestProblem>) {
    let mut remotes = Vec::new();
    let mut problems = Vec::new();
    for entry in manifest.section::<McpServers>().into_iter().flatten() {
        let name = &entry.name;
        let pointer = format!("/mcp_servers/{name}");
        let name_at = key_location(text, entry.location, name).unwrap_or(entry.location);
        let mut config = entry.config.clone();
        // The section read the entry's `auth` (`client_options` below).
        if let Some(object) = config.as_object_mut() {
            object.remove("auth");
        }
        let (client, mistakes) = settings(&mut config);
        for (key, message) in &mistakes {
            let location = manifest
                .location_of(&format!("{pointer}/{key}"))
                .map(|at| key_location(text, at, key).unwrap_or(at));
            problems.push(ManifestProblem {
                location: Some(location.unwrap_or(name_at)),
                message: format!("MCP server \"{name}\": {message}"),
            });
        }
        let config = match serde_path_to_error::deserialize::<_, McpServerConfig>(&config) {
            Ok(config) => config,
            Err(error) => {
                let location =
                    error_location(manifest, text, &pointer, &config, &error).unwrap_or(name_at);
                let mut message = error.inner().to_string();
                if message.starts_with("unknown key") {
                    message.push_str(
                        "; a registry file's entry may also have `prefix`, \
                         `connect_timeout_ms`, `max_tools`, `max_list_bytes`, \
                         `max_schema_bytes`, `max_schema_depth`, `max_result_bytes`, \
                         `max_resources`, `max_resource_templates`, `max_prompts`, \
                         `protocol` and, for an HTTP server, `auth`",
                    );
                }
                problems.push(ManifestProblem {
                    location: Some(location),
                    message: format!("MCP server \"{name}\": {message}"),
                });
                continue;
            }
        };
        if !mistakes.is_empty() {
            continue;
        }
        let mut import = ImportOptions::new();
        if let Some(prefix) = &entry.prefix {
            import = import.with_prefix(prefix.clone());
        }
        #[cfg(feature = "client-auth")]
        let sign_in = entry
            .auth
            .as_ref()
            .filter(|auth| {
                matches!(
                    auth.grant,
                    tool_mcp::client::oauth::OAuthGrant::AuthorizationCode
                )
            })
            .map(|_| manifest.source().to_owned());
        #[cfg(not(feature = "client-auth"))]
        let sign_in = None;
        remotes.push(Remote {
            name: name.clone(),
            config,
            client: entry.client_options(client),
            import,
            at: format!("{}:{}:{}", manifest.source(), name_at.line, name_at.column),
            sign_in,
        });
    }
    (remotes, problems)
}

/// The connect timeout and limits an entry sets (their keys taken out of
/// `config`), and the mistakes in them by key.
fn settings(config: &mut Value) -> (McpClientOptions, Vec<(&'static str, String)>) {
    let mut options = McpClientOptions::default();
    let mut limits = McpLimits::default();
    let mut mistakes = Vec::new();
    let Some(object) = config.as_object_mut() else {
        return (options, mistakes);
    };
    for key in SETTINGS {
        let Some(value) = object.remove(key) else {
            continue;
        };
        let set = if key == "protocol" {
            match serde_json::from_value::<McpProtocol>(value) {
                Ok(protocol) => {
                    options = options.with_protocol(protocol);
                    Ok(true)
                }
                Err(_) => Err("`protocol` is \"2025-11-25\" (the initialize handshake, \
                             the default), \"2026-07-28\" (server/discover) or \"auto\""
                    .to_owned()),
            }
        } else if key == "connect_timeout_ms" {
            match value.as_u64().filter(|ms| *ms >= 1) {
                Some(ms) => {
                    options = options.with_connect_timeout(Duration::from_millis(ms));
                    Ok(true)
                }
                None => Err("`connect_timeout_ms` is a whole number of milliseconds, \
                             at least 1"
                    .to_owned()),
            }
        } else {
            limits.set(key, &value)
        };
        if let Err(message) = set {
            mistakes.push((key, message));
        }
    }
    (options.with_limits(limits), mistakes)
}

/// Where the mistake `error` in a server's entry is: the key its path
/// names, else a key its message names (an unknown one first).
fn error_location(
    manifest: &Manifest,
    text: &str,
    pointer: &str,
    config: &Value,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> Option<Location> {
    let path: Vec<String> = error
        .path()
        .iter()
        .filter_map(|segment| match segment {
            serde_path_to_error::Segment::Map { key } => Some(key.clone()),
            serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
            _ => None,
        })
        .collect();
    if let [key] = path.as_slice() {
        let at = manifest.location_of(&format!("{pointer}/{key}"))?;
        return Some(key_location(text, at, key).unwrap_or(at));
    }
    if !path.is_empty() {
        return manifest.location_of(&format!("{pointer}/{}", path.join("/")));
    }
    let keys = config.as_object()?;
    let message = error.inner().to_string();
    let named: Vec<&str> = message
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| keys.contains_key(*name))
        .collect();
    let key = named
        .iter()
        .find(|name| !KEYS.contains(name))
        .or(named.first())?;
    let at = manifest.location_of(&format!("{pointer}/{key}"))?;
    Some(key_location(text, at, key).unwrap_or(at))
}

/// Where the key `key` whose value is at `value` was written: the last
/// `key:` (or `"key":`) before the value.
fn key_location(text: &str, value: Location, key: &str) -> Option<Location> {
    // The value's byte offset: its line's start plus its column in chars.
    let line_start: usize = text
        .split_inclusive('\n')
        .take(value.line.saturating_sub(1))
        .map(str::len)
        .sum();
    let line = text.get(line_start..)?;
    let column: usize = line
        .chars()
        .take(value.column.saturating_sub(1))
        .map(char::len_utf8)
        .sum();
    let before = text.get(..line_start + column)?;
    let mut search = before;
    while let Some(found) = search.rfind(key) {
        let rest = before[found + key.len()..].trim_start_matches(['"', '\'']);
        let starts = before[..found]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '{' | ','));
        if starts && rest.trim_start_matches([' ', '\t']).starts_with(':') {
            let start = before[..found]
                .strip_suffix(['"', '\''])
                .map_or(found, str::len);
            let line = before[..start].matches('\n').count() + 1;
            let line_begin = before[..start].rfind('\n').map_or(0, |i| i + 1);
            let column = before[line_begin..start].chars().count() + 1;
            return Some(Location { line, column });
        }
        search = &before[..found];
    }
    None
}

/// A client for `remote`, or what to say about why it could not be
/// reached: for a server a person signs in to, how to.
async fn connect(remote: &Remote) -> Result<McpClient, String> {
    McpClient::connect_with(
        remote.name.clone(),
        remote.config.clone(),
        remote.client.clone(),
    )
    .await
    .map_err(|error| sign_in_hint(remote, &error))
}

/// `error`, with the command that signs in when `remote` needs a person's
/// sign-in that has not been made (or has lapsed).
fn sign_in_hint(remote: &Remote, error: &McpClientError) -> String {
    match &remote.sign_in {
        Some(file) if error.kind() == McpClientErrorKind::Auth => format!(
            "{error}; sign in first with `toolbox --registry {file} auth login {}`",
            remote.name
        ),
        _ => error.to_string(),
    }
}

/// Says on stderr which of `remote`'s tools are left out, and why (the
/// server's names escaped).
fn warn_left_out(remote: &Remote, left_out: &[LeftOut]) {
    for left_out in left_out {
        eprintln!(
            "warning: {}: MCP server `{}`: {left_out}",
            remote.at, remote.name
        );
    }
}

/// The message of a server whose tools cannot join the registry.
fn refused(remote: &Remote, error: impl std::fmt::Display) -> String {
    format!(
        "{}: MCP server \"{}\": its tools cannot join the registry: {error}; \
         give the server a `prefix` for its tools' names",
        remote.at, remote.name
    )
}

/// The message for a tool of `remote` named like one `live` has already
/// (a local tool, or another server's): the registry would replace that
/// tool rather than offer both.
fn collision(live: &LiveRegistry, remote: &Remote, tools: &[DynamicTool]) -> Option<String> {
    let registry = live.snapshot();
    let name = tools
        .iter()
        .map(|tool| tool.spec().name.to_string())
        .find(|name| registry.resolve(name).is_some())?;
    Some(refused(
        remote,
        format!("its tool \"{name}\" has the name of a tool already there"),
    ))
}

/// The servers reached, their tools put into a registry beside the local
/// ones (for one command, not followed).
pub(crate) struct Reached {
    pub(crate) registry: Registry,
    /// The server each remote tool comes from, by tool name.
    pub(crate) sources: BTreeMap<String, String>,
    pub(crate) clients: Vec<McpClient>,
}

/// Why the servers' tools could not be had.
pub(crate) enum Failure {
    /// A server could not be reached (messages, each naming the server).
    Unreachable(Vec<String>),
    /// A server's tools collide with others.
    Refused(String),
}

/// Reaches every server in `remotes` at once and returns `registry` with
/// their tools added.
pub(crate) async fn reach(registry: Registry, remotes: &[Remote]) -> Result<Reached, Failure> {
    let attempts = futures_util::future::join_all(remotes.iter().map(connect)).await;
    let mut clients = Vec::new();
    let mut failures = Vec::new();
    for (remote, attempt) in remotes.iter().zip(attempts) {
        match attempt {
            Ok(client) => clients.push((remote, client)),
            Err(error) => failures.push(format!("{}: {error}", remote.at)),
        }
    }
    if !failures.is_empty() {
        close_all(clients.into_iter().map(|(_, client)| client)).await;
        return Err(Failure::Unreachable(failures));
    }
    let live = LiveRegistry::new(registry);
    let mut sources = BTreeMap::new();
    for (remote, client) in &clients {
        let import = client.import(&remote.import);
        warn_left_out(remote, &import.left_out);
        let tools = import.tools;
        if let Some(message) = collision(&live, remote, &tools) {
            close_all(clients.into_iter().map(|(_, client)| client)).await;
            return Err(Failure::Refused(message));
        }
        for tool in &tools {
            sources.insert(tool.spec().name.to_string(), remote.name.clone());
        }
        let added = tools
            .into_iter()
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>);
        if let Err(error) = live.update(added, &[]) {
            let message = refused(remote, error);
            close_all(clients.into_iter().map(|(_, client)| client)).await;
            return Err(Failure::Refused(message));
        }
    }
    Ok(Reached {
        registry: (*live.snapshot()).clone(),
        sources,
        clients: clients.into_iter().map(|(_, client)| client).collect(),
    })
}

/// Stops the servers (a spawned one is killed).
pub(crate) async fn close_all(clients: impl IntoIterator<Item = McpClient>) {
    futures_util::future::join_all(clients.into_iter().map(|client| async move {
        client.close().await;
    }))
    .await;
}

/// The servers followed into a live registry for `serve`.
pub(crate) struct Following {
    tasks: Vec<JoinHandle<()>>,
    /// The clients of the servers reached so far.
    clients: Arc<Mutex<Vec<McpClient>>>,
    /// Their resources, resource templates and prompts, which `serve`
    /// serves by [`Offers::serve_into`](content::Offers::serve_into).
    pub(crate) content: Arc<content::Offers>,
}

impl Following {
    /// Stops following the servers, and stops them.
    pub(crate) async fn stop(self) {
        self.content.withdraw();
        for task in &self.tasks {
            task.abort();
        }
        for task in self.tasks {
            let _ = task.await;
        }
        let clients =
            std::mem::take(&mut *self.clients.lock().unwrap_or_else(PoisonError::into_inner));
        close_all(clients).await;
    }
}

/// Reaches every server in `remotes` in the background, and keeps `live`
/// in step with their tool lists: nothing here waits for a server, so
/// `serve` answers its clients at once. A server that cannot be reached is
/// reported on stderr and tried again; one whose tools collide with others
/// is reported as an error and not served.
pub(crate) fn follow(live: &LiveRegistry, remotes: &[Remote]) -> Following {
    let clients = Arc::new(Mutex::new(Vec::new()));
    let content = Arc::new(content::Offers::new(remotes.len()));
    let tasks = remotes
        .iter()
        .enumerate()
        .map(|(index, remote)| {
            tokio::spawn(follow_one(
                remote.clone(),
                live.clone(),
                Arc::clone(&clients),
                (index, Arc::clone(&content)),
            ))
        })
        .collect();
    Following {
        tasks,
        clients,
        content,
    }
}

/// Reaches `remote`, trying again until it answers (1 s doubling to 30 s
/// between attempts), then follows its tools into `live`, and its
/// resources and prompts into `content` (where it is the `index`th
/// server), until aborted.
async fn follow_one(
    remote: Remote,
    live: LiveRegistry,
    clients: Arc<Mutex<Vec<McpClient>>>,
    (index, content): (usize, Arc<content::Offers>),
) {
    let mut wait = Duration::from_secs(1);
    let mut failed = false;
    let client = loop {
        match connect(&remote).await {
            Ok(client) => break client,
            Err(error) if !failed => eprintln!(
                "warning: {}: {error}\nwarning: serving without the tools of MCP server \
                 \"{}\" for now; trying again in the background",
                remote.at, remote.name
            ),
            Err(error) => eprintln!("warning: {}: {error}; trying again in {wait:?}", remote.at),
        }
        failed = true;
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(30));
    };
    let import = client.import(&remote.import);
    warn_left_out(&remote, &import.left_out);
    let joined = match collision(&live, &remote, &import.tools) {
        Some(message) => Err(message),
        None => client
            .sync_into(live, remote.import.clone())
            .map_err(|error| refused(&remote, error)),
    };
    match joined {
        Ok(task) => {
            if failed {
                eprintln!(
                    "note: MCP server \"{}\" answered; its tools are served",
                    remote.name
                );
            }
            clients
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(client.clone());
            // Aborting this task aborts the following, and `stop` closes
            // the client.
            let _content = AbortOnDrop(content.follow(index, &remote, client.clone()));
            let mut following = AbortOnDrop(task);
            let _ = (&mut following.0).await;
        }
        Err(message) => {
            eprintln!("error: {message}");
            client.close().await;
        }
    }
}

/// A task aborted when this is dropped.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
