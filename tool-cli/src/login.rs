//! `auth login|logout|status` (feature `client-auth`): a person signs in to
//! an MCP server that asks for OAuth, and the tokens are kept for the
//! client, in tool-mcp's [`FileTokenStore`] under the user's configuration
//! directory (`$XDG_CONFIG_HOME/tool-mcp/oauth` on Linux).
//!
//! `login` connects with tool-mcp's client, which does the rest as it
//! would for any call: the server's `401` names the authorization server
//! (discovery), the client registers if it must (a client id given, a
//! client ID metadata document, or dynamic registration) and asks for the
//! authorization code with PKCE (S256). Its handler here is a listener on
//! the loopback address (`http://127.0.0.1:PORT/callback`, see
//! [`loopback`]): the authorization URL is printed on stderr (and opened
//! in a browser unless `--no-browser`), and the browser's return ends the
//! wait. The client then checks the `state` and `iss` and redeems the code.
//!
//! A server is named by its URL, or by the name of an `mcp_servers` entry
//! of the registry file; its tokens are kept under its URL exactly as
//! written, the key the client of that entry looks them up by.

mod loopback;

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tool_manifest::Manifest;
use tool_mcp::client::oauth::{
    FileTokenStore, OAuth, OAuthConfig, OAuthGrant, StoreFuture, StoredTokens, TokenStore,
};
use tool_mcp::client::{McpClient, McpClientOptions, McpServerConfig, McpServers};

use crate::command::{AuthCommand, LoginArgs};
use crate::{EXIT_TOOL_ERROR, sections, usage_error};

/// Runs `auth login|logout|status`; `registry` is the registry file whose
/// `mcp_servers` entries name servers, `program` the program's name (the
/// client's name in a dynamic registration).
pub(crate) async fn auth(command: AuthCommand, registry: Option<&Path>, program: &str) -> ExitCode {
    let store = match FileTokenStore::in_config_dir() {
        Ok(store) => store,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
    };
    match command {
        AuthCommand::Login(args) => match target(&args.server, registry) {
            Ok(target) => login(&args, target, store, program).await,
            Err(code) => code,
        },
        AuthCommand::Logout { server } => match target(&server, registry) {
            Ok(target) => logout(&target.url, &store).await,
            Err(code) => code,
        },
        AuthCommand::Status { server } => match server.map(|s| target(&s, registry)) {
            None => status(None, &store).await,
            Some(Ok(target)) => status(Some(&target.url), &store).await,
            Some(Err(code)) => code,
        },
    }
}

/// A server to sign in to: its name in messages, its URL, the headers its
/// entry sends, and the OAuth settings its entry gives.
#[derive(Debug)]
struct Target {
    name: String,
    url: String,
    headers: Vec<(String, String)>,
    config: OAuthConfig,
}

/// The server `server` names: a URL (it has `://`), or the name of an
/// `mcp_servers` entry of the registry file; or the exit code of why not.
fn target(server: &str, registry: Option<&Path>) -> Result<Target, ExitCode> {
    if server.contains("://") {
        return match url::Url::parse(server) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(Target {
                name: match (url.host_str(), url.port()) {
                    (Some(host), Some(port)) => format!("{host}:{port}"),
                    (host, _) => host.unwrap_or(server).to_owned(),
                },
                url: server.to_owned(),
                headers: Vec::new(),
                config: OAuthConfig::default(),
            }),
            _ => Err(usage_error(format!(
                "{}: an MCP server's URL is http:// or https://",
                quoted(server)
            ))),
        };
    }
    let Some(path) = registry else {
        return Err(usage_error(format!(
            "{}: give the server's URL, or the name of an `mcp_servers` entry with \
             --registry FILE",
            quoted(server)
        )));
    };
    let manifest = Manifest::from_path_with(path, &sections::read_with())
        .map_err(|error| usage_error(format!("bad registry file: {error}")))?;
    let entries = manifest.section::<McpServers>().into_iter().flatten();
    let Some(entry) = entries.into_iter().find(|entry| entry.name == server) else {
        return Err(usage_error(format!(
            "{} has no MCP server \"{}\" in `mcp_servers`",
            path.display(),
            quoted(server)
        )));
    };
    from_entry(server, &entry.config, entry.auth.as_ref()).map_err(usage_error)
}

/// The sign-in target of the `mcp_servers` entry `name`, whose
/// configuration (as written) is `config` and whose `auth`, read by the
/// section (`${VAR}`s filled in), is `auth`.
fn from_entry(name: &str, config: &Value, auth: Option<&OAuthConfig>) -> Result<Target, String> {
    let Some(url) = config.get("url").and_then(Value::as_str) else {
        return Err(format!(
            "MCP server \"{name}\" is not reached over HTTP (it has no `url`): a server \
             spawned over stdio takes its credentials from its environment"
        ));
    };
    if let Some(auth) = auth
        && auth.grant != OAuthGrant::AuthorizationCode
    {
        return Err(format!(
            "MCP server \"{name}\" authorizes itself with client credentials: no one signs \
             in for it (`auth login` is for `grant: authorization_code`)"
        ));
    }
    let headers = config
        .get("headers")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect();
    Ok(Target {
        name: name.to_owned(),
        url: url.to_owned(),
        headers,
        config: auth.cloned().unwrap_or_default(),
    })
}

/// `auth login`: connects to the server with a fresh authorization, the
/// user's part through the loopback listener, and keeps the tokens.
async fn login(args: &LoginArgs, target: Target, store: FileTokenStore, program: &str) -> ExitCode {
    let listener = match loopback::Loopback::bind(args.redirect_port, !args.no_browser).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!(
                "error: cannot listen on 127.0.0.1:{} for the browser's return: {error}",
                args.redirect_port
            );
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
    };
    let mut config = target.config;
    if config.client_name == OAuthConfig::default().client_name {
        config.client_name = program.to_owned();
    }
    if let Some(client_id) = &args.client_id {
        config = config.with_client(client_id.clone(), None);
    }
    if !args.scopes.is_empty() {
        config = config.with_scopes(args.scopes.clone());
    }
    config = config.with_authorization_timeout(Duration::from_secs(args.timeout));
    let kept = Arc::new(Fresh::new(store.clone()));
    let oauth = OAuth::new(config)
        .with_shared_store(kept.clone())
        .with_handler(listener);
    let mut server = McpServerConfig::http(&target.url);
    for (name, value) in target.headers {
        server = server.with_header(name, value);
    }
    let options = McpClientOptions::default().with_oauth(oauth);
    match McpClient::connect_with(target.name, server, options).await {
        Ok(client) => client.close().await,
        Err(error) => {
            eprintln!("error: could not sign in: {error}");
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
    }
    match kept.outcome() {
        Some(Ok(tokens)) => {
            eprintln!(
                "signed in to {}: the tokens are kept in {}; access token: {}",
                target.url,
                store.path(&target.url).display(),
                expiry(&tokens, now())
            );
            ExitCode::SUCCESS
        }
        Some(Err(error)) => {
            eprintln!("error: signed in to {}, but {error}", target.url);
            ExitCode::from(EXIT_TOOL_ERROR)
        }
        None => {
            eprintln!(
                "error: {} did not ask for authorization: no tokens to keep",
                target.url
            );
            ExitCode::from(EXIT_TOOL_ERROR)
        }
    }
}

/// `auth logout`: forgets the tokens kept for `url`.
async fn logout(url: &str, store: &FileTokenStore) -> ExitCode {
    let held = match store.load(url).await {
        Ok(held) => held.is_some(),
        Err(error) => {
            eprintln!("warning: {error}");
            true
        }
    };
    if !held {
        eprintln!("no tokens are kept for {url}");
        return ExitCode::SUCCESS;
    }
    match store.clear(url).await {
        Ok(()) => {
            eprintln!("signed out of {url}: removed {}", store.path(url).display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(EXIT_TOOL_ERROR)
        }
    }
}

/// `auth status [SERVER]`: the servers with tokens kept (only `only`, when
/// given), each with its issuer, client, scopes and when its access token
/// expires; never a token. Exit code 1 when `only` has none.
async fn status(only: Option<&str>, store: &FileTokenStore) -> ExitCode {
    let servers = match only {
        Some(url) => vec![url.to_owned()],
        None => match store.servers() {
            Ok(servers) => servers,
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(EXIT_TOOL_ERROR);
            }
        },
    };
    if servers.is_empty() {
        println!("no tokens are kept (in {})", store.dir().display());
        return ExitCode::SUCCESS;
    }
    let mut code = ExitCode::SUCCESS;
    for server in servers {
        match store.load(&server).await {
            Ok(Some(tokens)) => println!("{}", describe(&server, &tokens, now())),
            Ok(None) => {
                println!("{server}\n  not signed in");
                code = ExitCode::from(EXIT_TOOL_ERROR);
            }
            Err(error) => {
                eprintln!("error: {error}");
                code = ExitCode::from(EXIT_TOOL_ERROR);
            }
        }
    }
    code
}

/// What `auth status` says of `server`'s `tokens` at `now`: everything but
/// the tokens and the client's secret.
fn describe(server: &str, tokens: &StoredTokens, now: u64) -> String {
    let mut lines = vec![server.to_owned()];
    if let Some(issuer) = &tokens.issuer {
        lines.push(format!("  issuer: {issuer}"));
    }
    lines.push(format!("  client: {}", tokens.client_id));
    if !tokens.scopes.is_empty() {
        lines.push(format!("  scopes: {}", tokens.scopes.join(" ")));
    }
    lines.push(format!("  access token: {}", expiry(tokens, now)));
    let refresh = if tokens.refresh_token.is_some() {
        "kept (the client refreshes the access token)"
    } else {
        "none (sign in again when the access token expires)"
    };
    lines.push(format!("  refresh token: {refresh}"));
    lines.join("\n")
}

/// When the access token of `tokens` expires, as of `now`.
fn expiry(tokens: &StoredTokens, now: u64) -> String {
    let Some(at) = tokens.expires_at else {
        return "no expiry given".to_owned();
    };
    let date = httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(at));
    if at <= now {
        format!("expired {date}")
    } else {
        let minutes = (at - now).div_ceil(60);
        format!("expires {date} (in {minutes} min)")
    }
}

/// The now, in seconds since the Unix epoch.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// `text` escaped and cut short, to quote back.
fn quoted(text: &str) -> String {
    tool_runtime::__private::quote::name(text)
}

/// The store of a sign-in: it holds nothing at first, so that the client
/// authorizes anew whatever is kept, and keeps what the authorization
/// gives in the file store, noting it (or why it could not).
struct Fresh {
    files: FileTokenStore,
    outcome: Mutex<Option<Result<StoredTokens, String>>>,
}

impl Fresh {
    fn new(files: FileTokenStore) -> Self {
        Self {
            files,
            outcome: Mutex::new(None),
        }
    }

    /// The tokens kept last, or why they could not be; `None` when the
    /// server asked for no authorization.
    fn outcome(&self) -> Option<Result<StoredTokens, String>> {
        self.outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl TokenStore for Fresh {
    fn load<'a>(&'a self, _server: &'a str) -> StoreFuture<'a, Option<StoredTokens>> {
        Box::pin(async { Ok(None) })
    }

    fn save<'a>(&'a self, server: &'a str, tokens: &'a StoredTokens) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let saved = self.files.save(server, tokens).await;
            let outcome = match &saved {
                Ok(()) => Ok(tokens.clone()),
                Err(error) => Err(format!("the tokens could not be kept: {error}")),
            };
            *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
            saved
        })
    }

    fn clear<'a>(&'a self, server: &'a str) -> StoreFuture<'a, ()> {
        self.files.clear(server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn status_shows_no_token() {
        let mut tokens = StoredTokens::new("access-SECRET", "mcp-interactive");
        tokens.refresh_token = Some("refresh-SECRET".into());
        tokens.client_secret = Some("client-SECRET".into());
        tokens.expires_at = Some(1_000_600);
        tokens.scopes = vec!["tools:call".to_owned()];
        tokens.issuer = Some("https://auth.example.com".to_owned());
        let shown = describe("https://mcp.example.com/mcp", &tokens, 1_000_000);
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("client: mcp-interactive"), "{shown}");
        assert!(shown.contains("(in 10 min)"), "{shown}");
        assert!(shown.contains("scopes: tools:call"), "{shown}");
        assert!(expiry(&tokens, 2_000_000).starts_with("expired "));
    }

    #[test]
    fn an_entry_gives_its_url_headers_and_client() {
        let config = json!({
            "url": "https://mcp.example.com/mcp",
            "headers": {"X-Team": "blue"},
            "auth": {"grant": "authorization_code", "client_id": "cli", "scopes": ["a", "b"]},
        });
        let auth = OAuthConfig::default()
            .with_client("cli", None)
            .with_scopes(["a", "b"]);
        let target = from_entry("remote", &config, Some(&auth)).unwrap();
        assert_eq!(target.url, "https://mcp.example.com/mcp");
        assert_eq!(target.headers, [("X-Team".to_owned(), "blue".to_owned())]);
        assert_eq!(target.config, auth);
        let bare = from_entry("remote", &config, None).unwrap();
        assert_eq!(bare.config, OAuthConfig::default());

        let stdio = from_entry("local", &json!({"command": "npx"}), None).unwrap_err();
        assert!(stdio.contains("not reached over HTTP"), "{stdio}");
        let machine = OAuthConfig::client_credentials("m2m", "secret");
        let error =
            from_entry("m2m", &json!({"url": "https://x/mcp"}), Some(&machine)).unwrap_err();
        assert!(error.contains("no one signs in"), "{error}");
    }
}
