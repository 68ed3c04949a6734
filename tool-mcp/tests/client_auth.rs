//! `McpClient` authorizing itself (feature `client-auth`) to this crate's
//! own server made an OAuth resource server (feature `auth`): the server
//! answers `401` and `403` as MCP says, and an authorization server of a
//! few lines on a loopback port registers clients, redirects at once,
//! issues JWT access tokens signed with a fixed key
//! (tests/fixtures/auth/rsa-1.der) and refreshes them, counting what it
//! is asked and checking each request as a real one would.

#![cfg(all(feature = "client-auth", feature = "auth"))]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tool_mcp::auth::ResourceServer;
use tool_mcp::client::oauth::{
    FileTokenStore, FollowRedirect, MemoryTokenStore, OAuth, OAuthConfig, Secret, StoredTokens,
    TokenStore,
};
use tool_mcp::client::{McpClient, McpClientErrorKind, McpClientOptions, McpServerConfig};
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::{Registry, ToolContext, context::CancellationToken, tool};

/// Says who calls: the token's client and scopes.
#[tool]
async fn whoami(ctx: &ToolContext) -> String {
    match ctx.caller() {
        Some(caller) => format!(
            "{} {}",
            caller.client_id.as_deref().unwrap_or("-"),
            caller.scopes.join(",")
        ),
        None => "anonymous".to_owned(),
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The secret of the client `m2m`.
const M2M_SECRET: &str = "m2m-secret-value";
/// Where the user is sent back (never listened on).
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// A directory of its own under the system's temporary one, removed when
/// dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "tool-mcp-client-auth-{name}-{}-{}",
            std::process::id(),
            now()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A PEM of `der` under `label`.
fn pem(label: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|line| std::str::from_utf8(line).unwrap())
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        lines.join("\n")
    )
}

/// How the test's authorization server behaves, and what it saw.
#[derive(Default)]
struct AsState {
    issuer: String,
    /// The `iss` its redirect carries: the issuer unless set.
    redirect_iss: Option<String>,
    /// The lifetime of the access tokens it issues.
    expires_in: u64,
    /// The PKCE challenge, scope and resource of the last authorization
    /// request.
    challenge: String,
    scope: String,
    resource: String,
    /// Requests by path, and token requests by grant.
    hits: HashMap<String, usize>,
    /// The scope of each client credentials request.
    client_credentials_scopes: Vec<String>,
    /// Every token issued, to look for in what the client shows.
    issued: Vec<String>,
}

/// The test's authorization server.
struct AuthServer {
    issuer: String,
    state: Arc<Mutex<AsState>>,
    task: tokio::task::JoinHandle<()>,
}

impl AuthServer {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(AsState {
            issuer: issuer.clone(),
            expires_in: 3600,
            ..AsState::default()
        }));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(answer(stream, Arc::clone(&shared)));
            }
        });
        AuthServer {
            issuer,
            state,
            task,
        }
    }

    fn hits(&self, what: &str) -> usize {
        self.state
            .lock()
            .unwrap()
            .hits
            .get(what)
            .copied()
            .unwrap_or(0)
    }

    fn with<T>(&self, change: impl FnOnce(&mut AsState) -> T) -> T {
        change(&mut self.state.lock().unwrap())
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn signing_key() -> EncodingKey {
    EncodingKey::from_rsa_der(include_bytes!("fixtures/auth/rsa-1.der"))
}

fn jwks() -> Value {
    let mut jwk = Jwk::from_encoding_key(&signing_key(), Algorithm::RS256).unwrap();
    jwk.common.key_id = Some("rsa-1".to_owned());
    json!({"keys": [jwk]})
}

/// The public key the `private_key_jwt` assertions of `m2m-jwt` are
/// checked with.
fn assertion_key() -> DecodingKey {
    let private = EncodingKey::from_ec_der(include_bytes!("fixtures/auth/ec-p256.der"));
    let jwk = Jwk::from_encoding_key(&private, Algorithm::ES256).unwrap();
    DecodingKey::from_jwk(&jwk).unwrap()
}

/// A request the test's authorization server read.
struct Request {
    method: String,
    path: String,
    query: HashMap<String, String>,
    form: HashMap<String, String>,
    authorization: String,
}

fn pairs(text: &str) -> HashMap<String, String> {
    url_pairs(text).into_iter().collect()
}

fn url_pairs(text: &str) -> Vec<(String, String)> {
    let parsed = reqwest::Url::parse(&format!("http://x/?{text}")).unwrap();
    parsed.query_pairs().into_owned().collect()
}

async fn read(stream: tokio::net::TcpStream) -> Option<(Request, tokio::net::TcpStream)> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).await.ok()?;
    let mut parts = line.split(' ');
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let (mut length, mut authorization) = (0, String::new());
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).await.unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or(("", ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "authorization" => authorization = value.trim().to_owned(),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.ok()?;
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let request = Request {
        method,
        path: path.to_owned(),
        query: pairs(query),
        form: pairs(&String::from_utf8_lossy(&body)),
        authorization,
    };
    Some((request, reader.into_inner()))
}

/// Answers one request of the test's authorization server.
async fn answer(stream: tokio::net::TcpStream, state: Arc<Mutex<AsState>>) {
    let Some((request, mut stream)) = read(stream).await else {
        return;
    };
    let (status, location, document) = {
        let mut state = state.lock().unwrap();
        *state.hits.entry(request.path.clone()).or_default() += 1;
        respond(&mut state, &request)
    };
    let body = document.to_string();
    let location = location
        .map(|to| format!("Location: {to}\r\n"))
        .unwrap_or_default();
    let response = format!(
        "HTTP/1.1 {status} X\r\n{location}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// The status, redirect and document the test's authorization server
/// answers `request` with.
fn respond(state: &mut AsState, request: &Request) -> (u16, Option<String>, Value) {
    let issuer = state.issuer.clone();
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/.well-known/oauth-authorization-server") => (
            200,
            None,
            json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": format!("{issuer}/token"),
                "registration_endpoint": format!("{issuer}/register"),
                "jwks_uri": format!("{issuer}/jwks"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt", "none"],
                "authorization_response_iss_parameter_supported": true,
            }),
        ),
        ("GET", "/jwks") => (200, None, jwks()),
        ("POST", "/register") => (
            201,
            None,
            json!({"client_id": "registered", "client_secret": "registered-secret",
                   "redirect_uris": [REDIRECT_URI]}),
        ),
        ("GET", "/authorize") => {
            let query = &request.query;
            state.challenge = query.get("code_challenge").cloned().unwrap_or_default();
            state.scope = query.get("scope").cloned().unwrap_or_default();
            state.resource = query.get("resource").cloned().unwrap_or_default();
            assert_eq!(
                query.get("code_challenge_method").map(String::as_str),
                Some("S256")
            );
            let iss = state.redirect_iss.clone().unwrap_or(issuer);
            let mut to = reqwest::Url::parse(&query["redirect_uri"]).unwrap();
            to.query_pairs_mut()
                .append_pair("code", "the-code")
                .append_pair("state", &query["state"])
                .append_pair("iss", &iss);
            (302, Some(to.to_string()), json!({}))
        }
        ("POST", "/token") => token(state, request),
        _ => (404, None, json!({"error": "not found"})),
    }
}

/// The token endpoint: checks the client and the grant, and issues a JWT
/// for the resource asked.
fn token(state: &mut AsState, request: &Request) -> (u16, Option<String>, Value) {
    let form = &request.form;
    let grant = form.get("grant_type").cloned().unwrap_or_default();
    *state.hits.entry(format!("token:{grant}")).or_default() += 1;
    let refuse = |why: &str| {
        (
            400,
            None,
            json!({"error": "invalid_grant", "error_description": why}),
        )
    };
    let basic =
        |id: &str, secret: &str| format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")));
    let (client, scope, refresh) = match grant.as_str() {
        "client_credentials" if form.contains_key("client_assertion") => {
            assert_eq!(
                form["client_assertion_type"],
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
            );
            let mut validation = Validation::new(Algorithm::ES256);
            validation.set_audience(&[&state.issuer]);
            validation.set_issuer(&["m2m-jwt"]);
            let Ok(claims) = jsonwebtoken::decode::<Value>(
                &form["client_assertion"],
                &assertion_key(),
                &validation,
            ) else {
                return refuse("the assertion does not check");
            };
            assert_eq!(claims.claims["sub"], "m2m-jwt");
            let scope = form.get("scope").cloned().unwrap_or_default();
            state.client_credentials_scopes.push(scope.clone());
            ("m2m-jwt", scope, false)
        }
        "client_credentials" => {
            if request.authorization != basic("m2m", M2M_SECRET) {
                return refuse("not the client m2m");
            }
            let scope = form.get("scope").cloned().unwrap_or_default();
            state.client_credentials_scopes.push(scope.clone());
            ("m2m", scope, false)
        }
        "authorization_code" => {
            if request.authorization != basic("registered", "registered-secret") {
                return refuse("not the registered client");
            }
            let verifier = form.get("code_verifier").cloned().unwrap_or_default();
            let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
            if form.get("code").map(String::as_str) != Some("the-code")
                || challenge != state.challenge
                || form.get("resource") != Some(&state.resource)
            {
                return refuse("the code, its verifier or the resource does not match");
            }
            ("registered", state.scope.clone(), true)
        }
        "refresh_token" => {
            let known = state
                .issued
                .iter()
                .any(|issued| Some(issued) == form.get("refresh_token"));
            if !known || form.get("resource") != Some(&state.resource) {
                return refuse("an unknown refresh token, or another resource");
            }
            ("registered", state.scope.clone(), true)
        }
        _ => return refuse("unsupported grant"),
    };
    let resource = form.get("resource").cloned().unwrap_or_default();
    let claims = json!({
        "iss": state.issuer, "aud": resource, "sub": client, "client_id": client,
        "scope": scope, "iat": now(), "exp": now() + state.expires_in,
        "jti": format!("t{}", state.issued.len()),
    });
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("rsa-1".to_owned());
    header.typ = Some("at+jwt".to_owned());
    let access = jsonwebtoken::encode(&header, &claims, &signing_key()).unwrap();
    state.issued.push(access.clone());
    let mut answer = json!({"access_token": access, "token_type": "Bearer",
        "expires_in": state.expires_in, "scope": scope});
    if refresh {
        let refresh = format!("refresh-{}", state.issued.len());
        state.issued.push(refresh.clone());
        answer["refresh_token"] = json!(refresh);
    }
    (200, None, answer)
}

/// This crate's MCP server on a loopback port, a resource server for
/// `issuer` that needs the scope `tools:call`: its URL, and what stops it.
async fn protected(issuer: &str) -> (String, CancellationToken) {
    protected_with(issuer, ResourceServer::DEFAULT_LEEWAY).await
}

/// [`protected`], taking tokens up to `leeway` past their expiry.
async fn protected_with(issuer: &str, leeway: Duration) -> (String, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let resource_server = ResourceServer::builder(issuer, &url)
        .required_scopes(["tools:call"])
        .leeway(leeway)
        .build()
        .unwrap();
    let registry = Registry::builder().tool(WhoamiTool).build().unwrap();
    let options = HttpOptions::new().resource_server(resource_server);
    let shutdown = CancellationToken::new();
    tokio::spawn(McpServer::new(registry).serve_http_with(listener, options, shutdown.clone()));
    (url, shutdown)
}

async fn whoami_of(client: &McpClient) -> String {
    let output = client
        .call("whoami", json!({}), &ToolContext::new())
        .await
        .expect("the call is answered");
    output.into_result("c").text_content()
}

/// The client credentials grant with a secret (`client_secret_basic`) and
/// with a `private_key_jwt` assertion signed by a PKCS#8 P-256 key: the
/// client discovers everything from the `401`, asks for the scope the
/// challenge names, and calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_with_a_secret_or_a_signed_assertion() {
    let auth = AuthServer::start().await;
    let (url, shutdown) = protected(&auth.issuer).await;
    let key = pem("PRIVATE KEY", include_bytes!("fixtures/auth/ec-p256.der"));
    let configs = [
        ("m2m", OAuthConfig::client_credentials("m2m", M2M_SECRET)),
        ("m2m-jwt", OAuthConfig::private_key_jwt("m2m-jwt", key)),
    ];
    for (client_id, config) in configs {
        let options = McpClientOptions::default().with_oauth(OAuth::new(config));
        let client = McpClient::connect_with("protected", McpServerConfig::http(&url), options)
            .await
            .unwrap_or_else(|error| panic!("{client_id}: {error}"));
        assert_eq!(whoami_of(&client).await, format!("{client_id} tools:call"));
        client.close().await;
    }
    assert_eq!(auth.hits("token:client_credentials"), 2);
    assert_eq!(
        auth.with(|state| state.client_credentials_scopes.clone()),
        ["tools:call", "tools:call"]
    );
    assert_eq!(auth.hits("/register"), 0);
    shutdown.cancel();
}

/// A client credentials token that has expired is refused (`401`, no
/// leeway); the client asks for a new one, once, and the call goes
/// through without an error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_client_credentials_token_is_replaced_after_the_401() {
    let auth = AuthServer::start().await;
    auth.with(|state| state.expires_in = 1);
    let (url, shutdown) = protected_with(&auth.issuer, Duration::ZERO).await;
    let config = OAuthConfig::client_credentials("m2m", M2M_SECRET);
    let options = McpClientOptions::default().with_oauth(OAuth::new(config));
    let client = McpClient::connect_with("protected", McpServerConfig::http(&url), options)
        .await
        .expect("connects");
    assert_eq!(whoami_of(&client).await, "m2m tools:call");
    let first = auth.hits("token:client_credentials");
    // Past the token's `exp`, in whole seconds.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(whoami_of(&client).await, "m2m tools:call");
    assert_eq!(auth.hits("token:client_credentials"), first + 1);
    client.close().await;
    shutdown.cancel();
}

/// Tokens a sign-in kept (here in the store before the client starts),
/// whose access token the server refuses: the `401` leads to the
/// authorization server, which refreshes them; the user is not asked (the
/// client has no handler to ask with). A refresh token of another
/// authorization server is not sent to this one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_tokens_are_refreshed_at_the_server_that_granted_them() {
    let auth = AuthServer::start().await;
    let (url, shutdown) = protected(&auth.issuer).await;
    auth.with(|state| {
        state.resource = url.clone();
        state.scope = "tools:call".to_owned();
        state.issued.push("refresh-kept".to_owned());
    });
    let kept = |issuer: &str| {
        let mut tokens = StoredTokens::new("expired-access-token", "registered");
        tokens.refresh_token = Some(Secret::new("refresh-kept"));
        tokens.expires_at = Some(now() - 10);
        tokens.scopes = vec!["tools:call".to_owned()];
        tokens.issuer = Some(issuer.to_owned());
        tokens.client_secret = Some(Secret::new("registered-secret"));
        tokens
    };
    let store = Arc::new(MemoryTokenStore::new());
    store.save(&url, &kept(&auth.issuer)).await.unwrap();
    let oauth = OAuth::new(OAuthConfig::default()).with_shared_store(store.clone());
    let options = McpClientOptions::default().with_oauth(oauth);
    let client = McpClient::connect_with("protected", McpServerConfig::http(&url), options)
        .await
        .expect("connects with the refreshed tokens");
    assert_eq!(whoami_of(&client).await, "registered tools:call");
    assert_eq!(auth.hits("token:refresh_token"), 1);
    assert_eq!(auth.hits("/authorize") + auth.hits("/register"), 0);
    let stored = store.load(&url).await.unwrap().expect("kept");
    assert_ne!(stored.access_token.expose(), "expired-access-token");
    client.close().await;

    let elsewhere = Arc::new(MemoryTokenStore::new());
    elsewhere
        .save(&url, &kept("http://127.0.0.1:9"))
        .await
        .unwrap();
    let oauth = OAuth::new(OAuthConfig::default()).with_shared_store(elsewhere);
    let options = McpClientOptions::default().with_oauth(oauth);
    let Err(error) =
        McpClient::connect_with("protected", McpServerConfig::http(&url), options).await
    else {
        panic!("connected with another authorization server's tokens");
    };
    assert_eq!(error.kind(), McpClientErrorKind::Auth, "{error}");
    assert_eq!(auth.hits("token:refresh_token"), 1);
    shutdown.cancel();
}

/// A token without the scope the server needs gets a `403
/// insufficient_scope`; the client asks again for the scopes it had and
/// those the challenge names, and the call goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insufficient_scope_steps_up_to_the_union_of_scopes() {
    let auth = AuthServer::start().await;
    let (url, shutdown) = protected(&auth.issuer).await;
    let config = OAuthConfig::client_credentials("m2m", M2M_SECRET).with_scopes(["profile"]);
    let options = McpClientOptions::default().with_oauth(OAuth::new(config));
    let client = McpClient::connect_with("protected", McpServerConfig::http(&url), options)
        .await
        .expect("connects after a step-up");
    assert_eq!(whoami_of(&client).await, "m2m profile,tools:call");
    assert_eq!(
        auth.with(|state| state.client_credentials_scopes.clone()),
        ["profile", "profile tools:call"]
    );
    client.close().await;
    shutdown.cancel();
}

/// The authorization code: dynamic registration, PKCE, the redirect read
/// by the handler, the code redeemed with its verifier for the resource;
/// an access token about to expire is refreshed before it is sent; the
/// tokens land in a file only the user can read; and a second client with
/// the same store calls without registering or authorizing again. No
/// token shows in any `Debug` output or error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_code_flow_registers_redeems_refreshes_and_keeps_tokens_in_a_private_file() {
    let auth = AuthServer::start().await;
    auth.with(|state| state.expires_in = 1);
    let (url, shutdown) = protected(&auth.issuer).await;
    let dir = Scratch::new("code");
    let store = FileTokenStore::new(dir.path().join("tokens"));
    let oauth = OAuth::new(OAuthConfig::default())
        .with_store(store.clone())
        .with_handler(FollowRedirect::new(REDIRECT_URI));
    let options = McpClientOptions::default().with_oauth(oauth);
    let client = McpClient::connect_with("protected", McpServerConfig::http(&url), options.clone())
        .await
        .expect("authorizes and connects");
    assert_eq!(whoami_of(&client).await, "registered tools:call");
    assert_eq!(auth.hits("/register"), 1);
    assert_eq!(auth.hits("/authorize"), 1);
    assert_eq!(auth.hits("token:authorization_code"), 1);
    assert_eq!(auth.with(|state| state.scope.clone()), "tools:call");
    assert_eq!(auth.with(|state| state.resource.clone()), url);
    // Each token lives a second: each request after the first refreshes.
    assert!(auth.hits("token:refresh_token") >= 1);
    client.close().await;

    let stored = store.load(&url).await.unwrap().expect("stored");
    let file = store.path(&url);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(stored.access_token.expose()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode =
            |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(store.dir()), 0o700);
    }

    // Secrets show nowhere.
    let issued = auth.with(|state| state.issued.clone());
    let shown = format!("{stored:?} {options:?} {client:?}");
    for token in &issued {
        assert!(!shown.contains(token.as_str()), "a token shows in {shown}");
    }
    assert!(shown.contains("[redacted]"));

    // A new client with the same store: the stored tokens, no new
    // registration or authorization.
    let again = McpClient::connect_with("protected", McpServerConfig::http(&url), options)
        .await
        .expect("connects with the stored tokens");
    assert_eq!(whoami_of(&again).await, "registered tools:call");
    assert_eq!(auth.hits("/register"), 1);
    assert_eq!(auth.hits("/authorize"), 1);
    again.close().await;
    shutdown.cancel();
}

/// A redirect whose `iss` is not the authorization server's (RFC 9207)
/// is not redeemed: the connection fails with an authorization error, and
/// the code never reaches the token endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_from_another_issuer_is_not_redeemed() {
    let auth = AuthServer::start().await;
    auth.with(|state| state.redirect_iss = Some("https://evil.example.com".to_owned()));
    let (url, shutdown) = protected(&auth.issuer).await;
    let oauth = OAuth::new(OAuthConfig::default()).with_handler(FollowRedirect::new(REDIRECT_URI));
    let options = McpClientOptions::default().with_oauth(oauth);
    let Err(error) =
        McpClient::connect_with("protected", McpServerConfig::http(&url), options).await
    else {
        panic!("connected with a code from another issuer");
    };
    assert_eq!(error.kind(), McpClientErrorKind::Auth, "{error}");
    assert!(error.message().contains("evil.example.com"), "{error}");
    assert_eq!(auth.hits("/authorize"), 1);
    assert_eq!(auth.hits("token:authorization_code"), 0);
    shutdown.cancel();
}

/// Without OAuth the `401` fails the connection; with the code grant but no
/// handler to ask the user with, the error says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_way_to_authorize_the_error_says_why() {
    let auth = AuthServer::start().await;
    let (url, shutdown) = protected(&auth.issuer).await;
    let Err(error) = McpClient::connect("protected", McpServerConfig::http(&url)).await else {
        panic!("connected without a token");
    };
    assert_eq!(error.kind(), McpClientErrorKind::Connect, "{error}");
    let options = McpClientOptions::default().with_oauth(OAuth::new(OAuthConfig::default()));
    let Err(error) =
        McpClient::connect_with("protected", McpServerConfig::http(&url), options).await
    else {
        panic!("connected without a handler");
    };
    assert_eq!(error.kind(), McpClientErrorKind::Auth, "{error}");
    assert!(error.message().contains("AuthorizationHandler"), "{error}");
    shutdown.cancel();
}

/// The stores keep tokens per server; `Debug` of the tokens and of a
/// configuration with secrets shows none of them.
#[tokio::test]
async fn stores_keep_tokens_per_server_and_secrets_stay_hidden() {
    let dir = Scratch::new("stores");
    let mut tokens = StoredTokens::new("access-123", "client");
    tokens.refresh_token = Some(Secret::new("refresh-456"));
    tokens.client_secret = Some(Secret::new("secret-789"));
    let stores: [Arc<dyn TokenStore>; 2] = [
        Arc::new(MemoryTokenStore::new()),
        Arc::new(FileTokenStore::new(dir.path())),
    ];
    for store in stores {
        store.save("http://a/mcp", &tokens).await.unwrap();
        assert_eq!(
            store.load("http://a/mcp").await.unwrap(),
            Some(tokens.clone())
        );
        assert_eq!(store.load("http://b/mcp").await.unwrap(), None);
        store.clear("http://a/mcp").await.unwrap();
        assert_eq!(store.load("http://a/mcp").await.unwrap(), None);
    }
    let config = OAuthConfig::client_credentials("client", "secret-789")
        .with_client("client", Some(Secret::new("secret-789")));
    let mut with_key = OAuthConfig::private_key_jwt("client", "-----BEGIN PRIVATE KEY-----x");
    with_key.client_secret = Some(Secret::new("secret-789"));
    let shown = format!(
        "{tokens:?} {config:?} {with_key:?} {:?}",
        OAuth::new(config.clone())
    );
    for secret in [
        "access-123",
        "refresh-456",
        "secret-789",
        "BEGIN PRIVATE KEY",
    ] {
        assert!(!shown.contains(secret), "{secret} shows in {shown}");
    }
}
