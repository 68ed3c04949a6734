//! Where the client keeps its tokens between runs: the [`TokenStore`]
//! trait, an in-memory store and a file store under the user's
//! configuration directory.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Secret;

/// The future a [`TokenStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TokenStoreError>> + Send + 'a>>;

/// Where an OAuth client keeps what it was granted, per MCP server: the
/// program supplies one (a keychain, a database) or takes
/// [`FileTokenStore`] or [`MemoryTokenStore`].
///
/// `server` is the server's URL as configured (`McpServerConfig::Http`'s
/// `url`). The client loads the tokens before its first request, saves them
/// after each grant or refresh, and never logs them.
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept for `server`, if any.
    fn load<'a>(&'a self, server: &'a str) -> StoreFuture<'a, Option<StoredTokens>>;

    /// Keeps `tokens` for `server`, in place of any before.
    fn save<'a>(&'a self, server: &'a str, tokens: &'a StoredTokens) -> StoreFuture<'a, ()>;

    /// Forgets the tokens of `server` (a sign-out).
    fn clear<'a>(&'a self, server: &'a str) -> StoreFuture<'a, ()>;
}

/// What an authorization gave the client for one server: the tokens, when
/// the access token expires, the scopes granted, and the client it was
/// granted to at which authorization server. `Debug` shows no secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredTokens {
    /// The access token, sent as `Authorization: Bearer`.
    pub access_token: Secret,
    /// The refresh token, when the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the Unix epoch;
    /// `None` when the authorization server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (those asked for, when the authorization server
    /// did not say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// The authorization server's issuer identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The client the tokens were granted to.
    pub client_id: String,
    /// The client's secret, when the authorization server registered the
    /// client with one (dynamic registration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
}

impl StoredTokens {
    /// Tokens holding `access_token` only, granted to `client_id`.
    pub fn new(access_token: impl Into<Secret>, client_id: impl Into<String>) -> Self {
        Self {
            access_token: access_token.into(),
            refresh_token: None,
            expires_at: None,
            scopes: Vec::new(),
            issuer: None,
            client_id: client_id.into(),
            client_secret: None,
        }
    }

    /// Whether the access token has expired, or will within `margin`
    /// seconds, at `now` (seconds since the Unix epoch).
    pub fn expires_within(&self, margin: u64, now: u64) -> bool {
        self.expires_at
            .is_some_and(|at| at <= now.saturating_add(margin))
    }
}

/// Why a [`TokenStore`] could not load, save or clear.
#[derive(Debug)]
pub struct TokenStoreError(String);

impl TokenStoreError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl fmt::Display for TokenStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TokenStoreError {}

/// Keeps tokens in memory, for the life of the process: the default of an
/// [`OAuth`](super::OAuth) given no store.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, StoredTokens>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load<'a>(&'a self, server: &'a str) -> StoreFuture<'a, Option<StoredTokens>> {
        let tokens = self.tokens.lock().unwrap_or_else(PoisonError::into_inner);
        let found = tokens.get(server).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn save<'a>(&'a self, server: &'a str, tokens: &'a StoredTokens) -> StoreFuture<'a, ()> {
        self.tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(server.to_owned(), tokens.clone());
        Box::pin(async { Ok(()) })
    }

    fn clear<'a>(&'a self, server: &'a str) -> StoreFuture<'a, ()> {
        self.tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(server);
        Box::pin(async { Ok(()) })
    }
}

/// Keeps each server's tokens in a JSON file of its own in a directory:
/// by default `tool-mcp/oauth` under the user's configuration directory
/// (`$XDG_CONFIG_HOME` or `~/.config` on Linux, `~/Library/Application
/// Support` on macOS, `%APPDATA%` on Windows).
///
/// On Unix the directory is made with mode 0700 and each file is written
/// with mode 0600 (readable by the user alone), through a new file renamed
/// over the old, so that a crash never leaves half a file. A file is named
/// by a digest of the server's URL and holds the URL, so it can be read
/// by hand.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    dir: PathBuf,
}

/// What a [`FileTokenStore`] file holds.
#[derive(Serialize, Deserialize)]
struct TokenFile {
    server: String,
    tokens: StoredTokens,
}

impl FileTokenStore {
    /// A store keeping its files in `dir` (made when first saving).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// A store in `tool-mcp/oauth` under the user's configuration
    /// directory; an error when the platform has none (no home directory).
    pub fn in_config_dir() -> Result<Self, TokenStoreError> {
        let base = dirs::config_dir().ok_or_else(|| {
            TokenStoreError::new("there is no configuration directory to keep tokens in")
        })?;
        Ok(Self::new(base.join("tool-mcp").join("oauth")))
    }

    /// The directory the files are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `server`'s tokens.
    pub fn path(&self, server: &str) -> PathBuf {
        let digest = Sha256::digest(server.as_bytes());
        let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.json"))
    }

    /// The servers whose tokens the directory holds, sorted: the URL each
    /// token file names. Files that are not token files are passed over;
    /// an empty list when the directory does not exist yet.
    ///
    /// ```
    /// use tool_mcp::client::oauth::{FileTokenStore, StoredTokens, TokenStore};
    ///
    /// # let dir = std::env::temp_dir().join(format!("tool-mcp-servers-{}", std::process::id()));
    /// let store = FileTokenStore::new(&dir);
    /// assert!(store.servers()?.is_empty());
    /// let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    /// let tokens = StoredTokens::new("token", "client");
    /// for server in ["https://b.example/mcp", "https://a.example/mcp"] {
    ///     runtime.block_on(store.save(server, &tokens))?;
    /// }
    /// std::fs::write(dir.join("notes.json"), "{}")?; // not a token file
    /// assert_eq!(store.servers()?, ["https://a.example/mcp", "https://b.example/mcp"]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn servers(&self) -> Result<Vec<String>, TokenStoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io_error("read", &self.dir, &error)),
        };
        let mut servers = Vec::new();
        for entry in entries {
            let path = entry
                .map_err(|error| io_error("read", &self.dir, &error))?
                .path();
            if path.extension().is_none_or(|extension| extension != "json") {
                continue;
            }
            let Ok(text) = std::fs::read(&path) else {
                continue;
            };
            if let Ok(file) = serde_json::from_slice::<TokenFile>(&text)
                && self.path(&file.server) == path
            {
                servers.push(file.server);
            }
        }
        servers.sort();
        Ok(servers)
    }

    fn read(&self, server: &str) -> Result<Option<StoredTokens>, TokenStoreError> {
        let path = self.path(server);
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(io_error("read", &path, &error)),
        };
        let file: TokenFile = serde_json::from_slice(&text).map_err(|error| {
            TokenStoreError::new(format!("{} is not a token file: {error}", path.display()))
        })?;
        // A digest that collides names another server: not these tokens.
        Ok((file.server == server).then_some(file.tokens))
    }

    fn write(&self, server: &str, tokens: &StoredTokens) -> Result<(), TokenStoreError> {
        make_private_dir(&self.dir)?;
        let path = self.path(server);
        let file = TokenFile {
            server: server.to_owned(),
            tokens: tokens.clone(),
        };
        let text = serde_json::to_vec_pretty(&file)
            .map_err(|error| TokenStoreError::new(format!("could not encode tokens: {error}")))?;
        let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
        // Left by a crash of a process of the same id, if there.
        let _ = std::fs::remove_file(&temporary);
        let written =
            write_private(&temporary, &text).and_then(|()| std::fs::rename(&temporary, &path));
        if let Err(error) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(io_error("write", &path, &error));
        }
        Ok(())
    }

    fn remove(&self, server: &str) -> Result<(), TokenStoreError> {
        let path = self.path(server);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(io_error("remove", &path, &error)),
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load<'a>(&'a self, server: &'a str) -> StoreFuture<'a, Option<StoredTokens>> {
        let store = self.clone();
        let server = server.to_owned();
        Box::pin(blocking(move || store.read(&server)))
    }

    fn save<'a>(&'a self, server: &'a str, tokens: &'a StoredTokens) -> StoreFuture<'a, ()> {
        let store = self.clone();
        let server = server.to_owned();
        let tokens = tokens.clone();
        Box::pin(blocking(move || store.write(&server, &tokens)))
    }

    fn clear<'a>(&'a self, server: &'a str) -> StoreFuture<'a, ()> {
        let store = self.clone();
        let server = server.to_owned();
        Box::pin(blocking(move || store.remove(&server)))
    }
}

/// Runs file work off the runtime's threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, TokenStoreError> + Send + 'static,
) -> Result<T, TokenStoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| TokenStoreError::new(format!("the token file work failed: {error}")))?
}

fn io_error(what: &str, path: &Path, error: &std::io::Error) -> TokenStoreError {
    TokenStoreError::new(format!("could not {what} {}: {error}", path.display()))
}

/// Makes `dir` (and its parents), readable by the user alone on Unix.
fn make_private_dir(dir: &Path) -> Result<(), TokenStoreError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|error| io_error("make", dir, &error))
}

/// Writes `text` to the new file `path`, readable and writable by the user
/// alone on Unix.
fn write_private(path: &Path, text: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(text)?;
    file.sync_all()
}
