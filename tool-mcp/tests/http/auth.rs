//! The server as an OAuth 2.1 resource server (feature `auth`): tokens
//! signed in the test with fixed keys (tests/fixtures/auth: RSA keys in
//! PKCS#1 DER, a P-256 and an Ed25519 key in PKCS#8 DER, made with
//! openssl), an authorization server of a few lines on a loopback port
//! serving its metadata, its JWKS (swapped to rotate keys) and
//! introspection, and counting what it is asked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tool_mcp::auth::{BuildError, Introspection, ResourceServer, ResourceServerBuilder};
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::{Registry, ToolContext, context::CancellationToken, tool};

use super::{Answer, Server, Stream, call, modern_headers, modern_meta};

#[path = "owners.rs"]
mod owners;
#[path = "scopes.rs"]
mod scopes;

/// Says who calls: the caller's subject, client and scopes.
#[tool]
async fn whoami(ctx: &ToolContext) -> String {
    match ctx.caller() {
        Some(caller) => format!(
            "{} {} {}",
            caller.subject.as_deref().unwrap_or("-"),
            caller.client_id.as_deref().unwrap_or("-"),
            caller.scopes.join(",")
        ),
        None => "anonymous".to_owned(),
    }
}

/// A signing key of the test and its public JWK.
struct Key {
    kid: &'static str,
    alg: Algorithm,
    encoding: EncodingKey,
    jwk: Value,
}

impl Key {
    fn new(kid: &'static str, alg: Algorithm) -> Self {
        let encoding = match kid {
            "rsa-1" => EncodingKey::from_rsa_der(include_bytes!("../fixtures/auth/rsa-1.der")),
            "rsa-2" => EncodingKey::from_rsa_der(include_bytes!("../fixtures/auth/rsa-2.der")),
            "ec" => EncodingKey::from_ec_der(include_bytes!("../fixtures/auth/ec-p256.der")),
            "ed" => EncodingKey::from_ed_der(include_bytes!("../fixtures/auth/ed25519.der")),
            _ => unreachable!(),
        };
        let mut jwk = Jwk::from_encoding_key(&encoding, alg).unwrap();
        jwk.common.key_id = Some(kid.to_owned());
        let jwk = serde_json::to_value(&jwk).unwrap();
        Key {
            kid,
            alg,
            encoding,
            jwk,
        }
    }

    /// A token of `claims` signed with this key, `typ` at+jwt.
    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.to_owned());
        header.typ = Some("at+jwt".to_owned());
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// What the test authorization server answers, and what it was asked.
struct AsState {
    issuer: String,
    /// The `issuer` its metadata names (the real one unless changed).
    metadata_issuer: Option<String>,
    jwks: Vec<Value>,
    /// Introspection answers by token.
    introspection: HashMap<String, Value>,
    /// Requests by path.
    hits: HashMap<String, usize>,
}

/// The test's authorization server.
struct AuthServer {
    issuer: String,
    state: Arc<Mutex<AsState>>,
    task: tokio::task::JoinHandle<()>,
}

impl AuthServer {
    async fn start(keys: &[&Key]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(AsState {
            issuer: issuer.clone(),
            metadata_issuer: None,
            jwks: keys.iter().map(|key| key.jwk.clone()).collect(),
            introspection: HashMap::new(),
            hits: HashMap::new(),
        }));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(answer(stream, Arc::clone(&shared)));
            }
        });
        AuthServer {
            issuer,
            state,
            task,
        }
    }

    fn hits(&self, path: &str) -> usize {
        let state = self.state.lock().unwrap();
        state.hits.get(path).copied().unwrap_or(0)
    }

    fn set_keys(&self, keys: &[&Key]) {
        self.state.lock().unwrap().jwks = keys.iter().map(|key| key.jwk.clone()).collect();
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Answers one request of the test's authorization server.
async fn answer(stream: tokio::net::TcpStream, state: Arc<Mutex<AsState>>) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).await.is_err() {
        return;
    }
    let path = line.split(' ').nth(1).unwrap_or("").to_owned();
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
    let _ = reader.read_exact(&mut body).await;
    let body = String::from_utf8_lossy(&body).into_owned();
    let (status, document) = {
        let mut state = state.lock().unwrap();
        *state.hits.entry(path.clone()).or_default() += 1;
        let issuer = state.issuer.clone();
        match path.as_str() {
            "/.well-known/oauth-authorization-server" => (
                200,
                json!({
                    "issuer": state.metadata_issuer.clone().unwrap_or(issuer.clone()),
                    "jwks_uri": format!("{issuer}/jwks"),
                    "introspection_endpoint": format!("{issuer}/introspect"),
                    "token_endpoint": format!("{issuer}/token"),
                }),
            ),
            "/jwks" => (200, json!({"keys": state.jwks})),
            "/introspect" if authorization.starts_with("Basic ") => {
                let token = body
                    .split('&')
                    .find_map(|pair| pair.strip_prefix("token="))
                    .unwrap_or("");
                let answer = state.introspection.get(token).cloned();
                (200, answer.unwrap_or(json!({"active": false})))
            }
            "/introspect" => (401, json!({"error": "invalid_client"})),
            _ => (404, json!({"error": "not found"})),
        }
    };
    let body = document.to_string();
    let response = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = reader.into_inner();
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// An MCP server on a loopback port, a resource server for `issuer` as
/// `configure` makes it; its resource URI.
async fn protected(
    issuer: &str,
    configure: impl FnOnce(ResourceServerBuilder) -> ResourceServerBuilder,
) -> (Server, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let resource = format!("http://{address}/mcp");
    let resource_server = configure(ResourceServer::builder(issuer, &resource))
        .build()
        .unwrap();
    let registry = Registry::builder().tool(WhoamiTool).build().unwrap();
    let options = HttpOptions::new().resource_server(resource_server);
    let shutdown = CancellationToken::new();
    let task =
        tokio::spawn(McpServer::new(registry).serve_http_with(listener, options, shutdown.clone()));
    let server = Server {
        address,
        shutdown,
        task,
    };
    (server, resource)
}

fn scoped(builder: ResourceServerBuilder) -> ResourceServerBuilder {
    builder.required_scopes(["tools:call"])
}

/// Claims of a good token for `resource` from `issuer`.
fn claims(issuer: &str, resource: &str) -> Value {
    json!({
        "iss": issuer, "aud": resource, "sub": "alice", "client_id": "m2m",
        "scope": "tools:read tools:call", "iat": now(), "exp": now() + 300,
    })
}

/// A revision 2026-07-28 call of `whoami` with `token` (if any).
async fn call_whoami(server: &Server, token: Option<&str>) -> Answer {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": modern_meta()}});
    let bearer = token.map(|token| format!("Bearer {token}"));
    let mut headers = modern_headers("tools/call", Some("whoami"));
    if let Some(bearer) = &bearer {
        headers.push(("Authorization", bearer));
    }
    server.send("POST", &headers, Some(&message)).await
}

/// The text of a call's result.
fn text(answer: &Answer) -> String {
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.message()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", answer.body))
        .to_owned()
}

#[tokio::test]
async fn a_valid_token_is_served_and_its_caller_reaches_the_tool_in_both_eras() {
    let (rsa, ec, ed, ps) = (
        Key::new("rsa-1", Algorithm::RS256),
        Key::new("ec", Algorithm::ES256),
        Key::new("ed", Algorithm::EdDSA),
        Key::new("rsa-2", Algorithm::PS256),
    );
    let auth = AuthServer::start(&[&rsa, &ec, &ed, &ps]).await;
    let (server, resource) = protected(&auth.issuer, scoped).await;
    for key in [&rsa, &ec, &ed, &ps] {
        let token = key.sign(&claims(&auth.issuer, &resource));
        let answer = call_whoami(&server, Some(&token)).await;
        assert_eq!(
            text(&answer),
            "alice m2m tools:read,tools:call",
            "{}",
            key.kid
        );
    }
    // One discovery, one JWKS fetch for all of them.
    assert_eq!(auth.hits("/.well-known/oauth-authorization-server"), 1);
    assert_eq!(auth.hits("/jwks"), 1);

    // A session of revision 2025-06-18, the token on every request.
    let token = rsa.sign(&claims(&auth.issuer, &resource));
    let bearer = format!("Bearer {token}");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let opened = server
        .send("POST", &[("Authorization", &bearer)], Some(&init))
        .await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
        ("Authorization", bearer.as_str()),
    ];
    let called = server
        .send("POST", &headers, Some(&call(json!(7), "whoami", json!({}))))
        .await;
    assert_eq!(text(&called), "alice m2m tools:read,tools:call");
    // The same session without the token is refused.
    let refused = server
        .send(
            "POST",
            &headers[..2],
            Some(&call(json!(8), "whoami", json!({}))),
        )
        .await;
    assert_eq!(refused.status, 401);
    server.stop().await;
}

#[tokio::test]
async fn no_token_gets_401_with_the_exact_challenge_on_every_method_and_nothing_is_fetched() {
    let auth = AuthServer::start(&[]).await;
    let (server, _) = protected(&auth.issuer, scoped).await;
    let port = server.address.port();
    let expected = format!(
        "Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", \
         scope=\"tools:call\""
    );
    let answer = call_whoami(&server, None).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(answer.header("www-authenticate"), Some(expected.as_str()));
    assert_eq!(answer.message()["error"], "unauthorized");
    for method in ["GET", "DELETE"] {
        let answer = server.send(method, &[("Mcp-Session-Id", "x")], None).await;
        assert_eq!(answer.status, 401, "{method}");
        assert_eq!(answer.header("www-authenticate"), Some(expected.as_str()));
    }
    // Another scheme is no bearer token either.
    let basic = server
        .send("POST", &[("Authorization", "Basic bTJtOnNlY3JldA==")], None)
        .await;
    assert_eq!(basic.status, 401);
    assert_eq!(basic.header("www-authenticate"), Some(expected.as_str()));
    // The authorization server is asked nothing for requests without a
    // token.
    assert!(auth.state.lock().unwrap().hits.is_empty());
    server.stop().await;
}

/// A token from `header` and `claims`, signed with HMAC-SHA256 under
/// `secret`, or unsigned (`alg: none`) when `secret` is `None`.
fn forged(header: &Value, claims: &Value, secret: Option<&[u8]>) -> String {
    let head = URL_SAFE_NO_PAD.encode(header.to_string());
    let body = URL_SAFE_NO_PAD.encode(claims.to_string());
    match secret {
        None => format!("{head}.{body}."),
        Some(secret) => {
            let key = EncodingKey::from_secret(secret).unwrap();
            let mut jwt_header = Header::new(Algorithm::HS256);
            jwt_header.kid = header["kid"].as_str().map(str::to_owned);
            jsonwebtoken::encode(&jwt_header, claims, &key).unwrap()
        }
    }
}

/// The parameters of a `Bearer` challenge (`name="value", ...`), in order.
fn challenge_params(challenge: &str) -> Vec<(String, String)> {
    let mut rest = challenge
        .strip_prefix("Bearer ")
        .unwrap_or_else(|| panic!("not a Bearer challenge: {challenge}"));
    let mut params = Vec::new();
    while !rest.is_empty() {
        let (name, after) = rest.split_once("=\"").expect("name=\"value\"");
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            match chars.next() {
                Some((_, '\\')) => value.push(chars.next().expect("an escaped character").1),
                Some((at, '"')) => break at,
                Some((_, c)) => value.push(c),
                None => panic!("an unterminated value in {challenge}"),
            }
        };
        params.push((name.trim().to_owned(), value));
        rest = after[end + 1..].trim_start_matches([',', ' ']);
    }
    params
}

#[tokio::test]
async fn tokens_that_are_not_good_get_401_invalid_token() {
    let rsa = Key::new("rsa-1", Algorithm::RS256);
    let other = Key::new("rsa-2", Algorithm::RS256);
    let auth = AuthServer::start(&[&rsa]).await;
    let (server, resource) = protected(&auth.issuer, scoped).await;
    let metadata = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.address
    );
    let good = claims(&auth.issuer, &resource);
    let with = |name: &str, value: Value| {
        let mut claims = good.clone();
        claims[name] = value;
        claims
    };
    let without = |name: &str| {
        let mut claims = good.clone();
        claims.as_object_mut().unwrap().remove(name);
        claims
    };
    let n = rsa.jwk["n"].as_str().unwrap().as_bytes().to_vec();
    let jwk_text = rsa.jwk.to_string().into_bytes();
    // Signed by another key, under the known key's id.
    let mut stolen_kid = Header::new(Algorithm::RS256);
    stolen_kid.kid = Some("rsa-1".to_owned());
    let mut id_token = Header::new(Algorithm::RS256);
    id_token.kid = Some("rsa-1".to_owned());
    id_token.typ = Some("id+jwt".to_owned());
    let not_for_us = "the token was not issued for this resource (aud)";
    let unreadable =
        "the token's header cannot be read, or names an algorithm that is not supported";
    // Each case and the start of the `error_description` it gets.
    let cases = [
        (
            "another issuer",
            rsa.sign(&with("iss", json!("http://127.0.0.1:1"))),
            "the token was issued by another issuer",
        ),
        (
            "another audience",
            rsa.sign(&with("aud", json!("http://127.0.0.1:1/mcp"))),
            not_for_us,
        ),
        (
            "minted for another resource of the same server",
            rsa.sign(&with(
                "aud",
                json!(format!("http://{}/other", server.address)),
            )),
            not_for_us,
        ),
        (
            "minted for other resources, as a list",
            rsa.sign(&with(
                "aud",
                json!(["https://a.example.com/mcp", "https://b.example.com/mcp"]),
            )),
            not_for_us,
        ),
        (
            "an audience with a slash",
            rsa.sign(&with("aud", json!(format!("{resource}/")))),
            not_for_us,
        ),
        (
            "no audience",
            rsa.sign(&without("aud")),
            "the token has no \"aud\" claim",
        ),
        (
            "no expiry",
            rsa.sign(&without("exp")),
            "the token has no \"exp\" claim",
        ),
        (
            "expired",
            rsa.sign(&with("exp", json!(now() - 120))),
            "the token has expired",
        ),
        (
            "not valid yet",
            rsa.sign(&with("nbf", json!(now() + 600))),
            "the token is not valid yet (nbf)",
        ),
        (
            "alg none",
            forged(
                &json!({"alg": "none", "typ": "at+jwt", "kid": "rsa-1"}),
                &good,
                None,
            ),
            unreadable,
        ),
        (
            "HS256 keyed with the public key's modulus",
            forged(&json!({"kid": "rsa-1"}), &good, Some(&n)),
            "the token is signed with HS256, which this server does not accept",
        ),
        (
            "HS256 keyed with the public JWK",
            forged(&json!({"kid": "rsa-1"}), &good, Some(&jwk_text)),
            "the token is signed with HS256, which this server does not accept",
        ),
        (
            "another key's signature",
            jsonwebtoken::encode(&stolen_kid, &good, &other.encoding).unwrap(),
            "the token's signature does not verify",
        ),
        (
            "an ID token",
            jsonwebtoken::encode(&id_token, &good, &rsa.encoding).unwrap(),
            "the token's type \"id+jwt\" is not that of an access token",
        ),
        ("garbage", "a.b.c".to_owned(), unreadable),
    ];
    for (case, token, description) in cases {
        let answer = call_whoami(&server, Some(&token)).await;
        assert_eq!(answer.status, 401, "{case}: {}", answer.body);
        let challenge = answer.header("www-authenticate").unwrap();
        let params = challenge_params(challenge);
        let names: Vec<&str> = params.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            ["error", "error_description", "resource_metadata", "scope"],
            "{case}: {challenge}"
        );
        assert_eq!(params[0].1, "invalid_token", "{case}");
        assert!(params[1].1.starts_with(description), "{case}: {challenge}");
        assert_eq!(params[2].1, metadata, "{case}");
        assert_eq!(params[3].1, "tools:call", "{case}");
        assert_eq!(answer.message()["error"], "invalid_token", "{case}");
        assert_eq!(answer.message()["error_description"], params[1].1, "{case}");
    }
    // The good token, for contrast.
    assert_eq!(
        text(&call_whoami(&server, Some(&rsa.sign(&good))).await),
        "alice m2m tools:read,tools:call"
    );
    // A malformed header is a bad request.
    let answer = server
        .send("POST", &[("Authorization", "Bearer two tokens")], None)
        .await;
    assert_eq!(answer.status, 400);
    assert!(
        answer
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer error=\"invalid_request\"")
    );
    server.stop().await;
}

#[tokio::test]
async fn a_token_without_a_required_scope_gets_403_naming_the_scopes_needed() {
    let rsa = Key::new("rsa-1", Algorithm::RS256);
    let auth = AuthServer::start(&[&rsa]).await;
    let (server, resource) = protected(&auth.issuer, |builder| {
        builder
            .required_scopes(["tools:read", "tools:call"])
            .scope_implies("tools:admin", ["tools:call"])
    })
    .await;
    let port = server.address.port();
    let mut read_only = claims(&auth.issuer, &resource);
    read_only["scope"] = json!("tools:read");
    let answer = call_whoami(&server, Some(&rsa.sign(&read_only))).await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate").unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"the access token lacks a \
             scope this request needs (it needs tools:read tools:call)\", \
             resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", \
             scope=\"tools:read tools:call\""
        )
    );
    // A broader scope implies the narrower one.
    let mut admin = claims(&auth.issuer, &resource);
    admin["scope"] = json!("tools:read tools:admin");
    let answer = call_whoami(&server, Some(&rsa.sign(&admin))).await;
    // The caller has the scopes its scopes imply.
    assert_eq!(text(&answer), "alice m2m tools:read,tools:admin,tools:call");
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_key_id_fetches_the_jwks_again_once_so_a_rotated_key_is_taken() {
    let old = Key::new("rsa-1", Algorithm::RS256);
    let new = Key::new("rsa-2", Algorithm::RS256);
    let auth = AuthServer::start(&[&old]).await;
    let (server, resource) = protected(&auth.issuer, |builder| {
        builder.min_refetch_interval(Duration::ZERO)
    })
    .await;
    let good = claims(&auth.issuer, &resource);
    assert_eq!(
        call_whoami(&server, Some(&old.sign(&good))).await.status,
        200
    );
    assert_eq!(auth.hits("/jwks"), 1);
    // The authorization server rotates its key.
    auth.set_keys(&[&new]);
    for _ in 0..3 {
        assert_eq!(
            call_whoami(&server, Some(&new.sign(&good))).await.status,
            200
        );
    }
    assert_eq!(auth.hits("/jwks"), 2, "fetched again once, then kept");
    assert_eq!(auth.hits("/.well-known/oauth-authorization-server"), 1);
    server.stop().await;

    // With the default interval, made-up key ids do not make the server
    // ask again.
    let auth = AuthServer::start(&[&old]).await;
    let (server, resource) = protected(&auth.issuer, |builder| builder).await;
    let good = claims(&auth.issuer, &resource);
    assert_eq!(
        call_whoami(&server, Some(&old.sign(&good))).await.status,
        200
    );
    let mut made_up = Header::new(Algorithm::RS256);
    for kid in ["made-up-1", "made-up-2", "made-up-3"] {
        made_up.kid = Some(kid.to_owned());
        let token = jsonwebtoken::encode(&made_up, &good, &old.encoding).unwrap();
        let answer = call_whoami(&server, Some(&token)).await;
        assert_eq!(answer.status, 401, "{}", answer.body);
    }
    assert_eq!(auth.hits("/jwks"), 1);
    server.stop().await;
}

#[tokio::test]
async fn an_authorization_server_out_of_reach_or_lying_gets_503_not_a_hang() {
    let rsa = Key::new("rsa-1", Algorithm::RS256);
    // A port nothing listens on.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (server, resource) = protected(&issuer, |builder| builder).await;
    let answer = call_whoami(&server, Some(&rsa.sign(&claims(&issuer, &resource)))).await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert_eq!(answer.header("retry-after"), Some("30"));
    assert_eq!(answer.header("www-authenticate"), None);
    server.stop().await;

    // Metadata naming another issuer is not used (RFC 8414 §3.3).
    let auth = AuthServer::start(&[&rsa]).await;
    auth.state.lock().unwrap().metadata_issuer = Some("http://127.0.0.1:1".to_owned());
    let (server, resource) = protected(&auth.issuer, |builder| builder).await;
    let answer = call_whoami(&server, Some(&rsa.sign(&claims(&auth.issuer, &resource)))).await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert_eq!(auth.hits("/jwks"), 0);
    server.stop().await;
}

#[tokio::test]
async fn opaque_tokens_are_introspected_when_the_server_may() {
    let auth = AuthServer::start(&[]).await;
    let (server, resource) = protected(&auth.issuer, |builder| {
        scoped(builder).introspection(Introspection::new("rs", "rs-secret"))
    })
    .await;
    {
        let mut state = auth.state.lock().unwrap();
        let active = json!({"active": true, "client_id": "m2m", "scope": "tools:call",
            "aud": resource, "iss": auth.issuer, "exp": now() + 300});
        let mut elsewhere = active.clone();
        elsewhere["aud"] = json!("http://127.0.0.1:1/mcp");
        state.introspection.insert("good-opaque".into(), active);
        state.introspection.insert("elsewhere".into(), elsewhere);
    }
    assert_eq!(
        text(&call_whoami(&server, Some("good-opaque")).await),
        "- m2m tools:call"
    );
    for token in ["elsewhere", "unknown"] {
        assert_eq!(
            call_whoami(&server, Some(token)).await.status,
            401,
            "{token}"
        );
    }
    assert_eq!(auth.hits("/introspect"), 3);
    server.stop().await;

    // Without introspection, an opaque token is refused.
    let (server, _) = protected(&auth.issuer, scoped).await;
    assert_eq!(call_whoami(&server, Some("good-opaque")).await.status, 401);
    server.stop().await;
}

#[tokio::test]
async fn an_accepted_token_is_checked_once_while_the_cache_holds_it() {
    let auth = AuthServer::start(&[]).await;
    let active = |auth: &AuthServer, resource: &str, exp: u64| {
        json!({"active": true, "client_id": "m2m", "scope": "tools:call",
            "aud": resource, "iss": auth.issuer, "exp": exp})
    };
    let introspecting =
        |builder| scoped(builder).introspection(Introspection::new("rs", "rs-secret"));
    // Room for two tokens.
    let (server, resource) = protected(&auth.issuer, |builder| {
        introspecting(builder).verification_cache_size(2)
    })
    .await;
    for token in ["a", "b", "c"] {
        let answer = active(&auth, &resource, now() + 300);
        auth.state
            .lock()
            .unwrap()
            .introspection
            .insert(token.into(), answer);
    }
    let introspected = || auth.hits("/introspect");
    for _ in 0..3 {
        assert_eq!(
            text(&call_whoami(&server, Some("a")).await),
            "- m2m tools:call"
        );
    }
    assert_eq!(introspected(), 1, "introspected once, then remembered");
    assert_eq!(call_whoami(&server, Some("b")).await.status, 200);
    assert_eq!(call_whoami(&server, Some("c")).await.status, 200);
    assert_eq!(introspected(), 3);
    // Full: `a`, which would have been forgotten first, made room for `c`.
    assert_eq!(call_whoami(&server, Some("b")).await.status, 200);
    assert_eq!(introspected(), 3);
    assert_eq!(call_whoami(&server, Some("a")).await.status, 200);
    assert_eq!(introspected(), 4);
    // A refused token is not remembered.
    assert_eq!(call_whoami(&server, Some("unknown")).await.status, 401);
    assert_eq!(call_whoami(&server, Some("unknown")).await.status, 401);
    assert_eq!(introspected(), 6);
    server.stop().await;

    // Remembered no longer than the lifetime, nor past the token's `exp`.
    let (server, resource) = protected(&auth.issuer, |builder| {
        introspecting(builder).verification_cache_lifetime(Duration::from_millis(100))
    })
    .await;
    let exp = now() + 1;
    {
        let mut state = auth.state.lock().unwrap();
        state
            .introspection
            .insert("d".into(), active(&auth, &resource, now() + 300));
        state
            .introspection
            .insert("brief".into(), active(&auth, &resource, exp));
    }
    let before = introspected();
    assert_eq!(call_whoami(&server, Some("d")).await.status, 200);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(call_whoami(&server, Some("d")).await.status, 200);
    assert_eq!(
        introspected(),
        before + 2,
        "introspected again after the lifetime"
    );
    server.stop().await;
    let (server, resource) = protected(&auth.issuer, introspecting).await;
    auth.state
        .lock()
        .unwrap()
        .introspection
        .insert("brief".into(), active(&auth, &resource, exp));
    let before = introspected();
    assert_eq!(call_whoami(&server, Some("brief")).await.status, 200);
    while now() <= exp {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Past `exp`, within the leeway: introspected again, still served.
    assert_eq!(call_whoami(&server, Some("brief")).await.status, 200);
    assert_eq!(introspected(), before + 2, "introspected again after exp");
    server.stop().await;

    // Without the cache, every request's token is checked.
    let (server, resource) = protected(&auth.issuer, |builder| {
        introspecting(builder).verification_cache_size(0)
    })
    .await;
    let answer = active(&auth, &resource, now() + 300);
    auth.state
        .lock()
        .unwrap()
        .introspection
        .insert("e".into(), answer);
    let before = introspected();
    for _ in 0..2 {
        assert_eq!(call_whoami(&server, Some("e")).await.status, 200);
    }
    assert_eq!(introspected(), before + 2);
    server.stop().await;
}

#[tokio::test]
async fn a_remembered_token_is_refused_once_its_key_is_withdrawn_and_the_keys_fetched_again() {
    let old = Key::new("rsa-1", Algorithm::RS256);
    let new = Key::new("rsa-2", Algorithm::RS256);
    let auth = AuthServer::start(&[&old, &new]).await;
    let lifetime = Duration::from_millis(300);
    let (server, resource) = protected(&auth.issuer, |builder| {
        builder
            .jwks_cache_lifetime(lifetime)
            .min_refetch_interval(Duration::ZERO)
    })
    .await;
    let good = claims(&auth.issuer, &resource);
    let (old_token, new_token) = (old.sign(&good), new.sign(&good));
    assert_eq!(call_whoami(&server, Some(&old_token)).await.status, 200);
    assert_eq!(call_whoami(&server, Some(&new_token)).await.status, 200);
    assert_eq!(auth.hits("/jwks"), 1);
    // The old key is withdrawn; once the keys have outlived their lifetime
    // they are fetched again, and the old key's token, remembered as good
    // until then, is refused.
    auth.set_keys(&[&new]);
    tokio::time::sleep(lifetime + Duration::from_millis(100)).await;
    let answer = call_whoami(&server, Some(&old_token)).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.message()["error_description"],
        "no key of the authorization server has the id \"rsa-1\""
    );
    assert_eq!(auth.hits("/jwks"), 2);
    assert_eq!(call_whoami(&server, Some(&new_token)).await.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn the_protected_resource_metadata_is_served_at_both_well_known_paths() {
    let auth = AuthServer::start(&[]).await;
    let (server, resource) = protected(&auth.issuer, |builder| {
        scoped(builder)
            .scopes_supported(["tools:read", "tools:call", "offline_access"])
            .resource_name("Test tools")
    })
    .await;
    let expected = json!({
        "resource": resource,
        "authorization_servers": [auth.issuer],
        "scopes_supported": ["tools:read", "tools:call"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Test tools",
    });
    let port = server.address.port();
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
        let answer = Stream::open(server.address, &request).await.whole().await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        assert_eq!(answer.header("content-type"), Some("application/json"));
        assert_eq!(answer.message(), &expected, "{path}");
        let request =
            format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\r\n");
        let answer = Stream::open(server.address, &request).await.whole().await;
        assert_eq!(answer.status, 405, "{path}");
    }
    let request = format!(
        "GET /.well-known/oauth-protected-resource/other HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    );
    let answer = Stream::open(server.address, &request).await.whole().await;
    assert_eq!(answer.status, 404);
    server.stop().await;
}

#[test]
fn a_configuration_that_is_not_safe_does_not_build() {
    let builder =
        || ResourceServer::builder("https://auth.example.com", "https://tools.example.com/mcp");
    assert!(builder().build().is_ok());
    for algorithms in [
        vec![Algorithm::HS256],
        vec![Algorithm::RS256, Algorithm::HS512],
        vec![],
    ] {
        let built = builder().algorithms(algorithms.clone()).build();
        assert!(
            matches!(built, Err(BuildError::Algorithms(_))),
            "{algorithms:?}"
        );
    }
    for issuer in [
        "http://auth.example.com",
        "https://auth.example.com?x=1",
        "auth.example.com",
    ] {
        let built = ResourceServer::builder(issuer, "https://tools.example.com/mcp").build();
        assert!(matches!(built, Err(BuildError::Issuer(_))), "{issuer}");
    }
    for resource in [
        "http://tools.example.com/mcp",
        "https://tools.example.com/mcp#x",
    ] {
        let built = ResourceServer::builder("https://auth.example.com", resource).build();
        assert!(matches!(built, Err(BuildError::Resource(_))), "{resource}");
    }
    let server = builder().build().unwrap();
    assert_eq!(
        server.metadata_url(),
        "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
    );
}
