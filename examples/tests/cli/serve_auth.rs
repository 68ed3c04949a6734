//! `toolbox serve --http` and authorization: an address other than
//! loopback refused without an authorization server or
//! `--allow-anonymous`; the `--auth-*` flags and a registry file's `auth`
//! section making the server ask for access tokens, checked with raw HTTP
//! requests (the tokens themselves are checked end to end against a real
//! authorization server by tests/mcp/auth/run.sh).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Output, Stdio};

use serde_json::{Value, json};

use super::{code, registry_file, stderr, toolbox};

/// `toolbox serve --http ADDRESS ...` started: the process, the port it
/// listens on and the lines it printed on stderr before serving.
struct Serving {
    child: Child,
    port: u16,
    said: Vec<String>,
}

impl Serving {
    /// Starts `toolbox ARGS` (`serve --http ADDRESS:0 ...` among them) with
    /// `env`, and waits until it says where it serves; panics with what it
    /// printed if it exits instead.
    fn start(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = toolbox(args);
        command.envs(env.iter().copied());
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("toolbox starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines();
        let mut said = Vec::new();
        let port = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.wait();
                panic!("toolbox ended before serving: {said:?}");
            };
            said.push(line.clone());
            if let Some((_, url)) = line.split_once(" at http://") {
                let address = url.trim_end_matches("/mcp");
                break address
                    .parse::<SocketAddr>()
                    .expect("a socket address")
                    .port();
            }
        };
        // The line after the address, if it says how requests are served.
        if let Some(Ok(line)) = lines.next() {
            said.push(line);
        }
        std::thread::spawn(move || lines.for_each(drop));
        Serving { child, port, said }
    }

    /// The answer to `METHOD PATH` on 127.0.0.1, with `headers` (`Host`
    /// 127.0.0.1:PORT unless given) and `body`: its status, its
    /// `WWW-Authenticate` header and its body as JSON (`null` if it is
    /// not).
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> (u16, Option<String>, Value) {
        let body = body.map(Value::to_string).unwrap_or_default();
        let host = format!("127.0.0.1:{}", self.port);
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n",
            body.len()
        );
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("Host: {host}\r\n"));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("the server accepts");
        stream
            .write_all(request.as_bytes())
            .expect("the request is sent");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("an HTTP answer: {answer:?}"));
        let challenge = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("www-authenticate")
                .then(|| value.trim().to_owned())
        });
        (
            status,
            challenge,
            serde_json::from_str(body).unwrap_or(Value::Null),
        )
    }

    /// The answer to a POST of `initialize` with `headers`.
    fn initialize(&self, headers: &[(&str, &str)]) -> (u16, Option<String>, Value) {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
        self.request("POST", "/mcp", headers, Some(&message))
    }

    /// The protected resource metadata at its path-inserted location.
    fn metadata(&self) -> Value {
        let (status, _, document) = self.request(
            "GET",
            "/.well-known/oauth-protected-resource/mcp",
            &[],
            None,
        );
        assert_eq!(status, 200, "{document}");
        document
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `toolbox ARGS` run to its end with `env`.
fn refused(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = toolbox(args);
    command.envs(env.iter().copied());
    command.stdin(Stdio::null()).output().expect("toolbox runs")
}

/// Asserts that `output` is a usage error whose message has each of
/// `parts`.
fn assert_usage_error(output: &Output, parts: &[&str]) {
    let text = stderr(output);
    assert_eq!(code(output), 2, "{text}");
    for part in parts {
        assert!(text.contains(part), "{part:?} not in {text}");
    }
}

/// An issuer nothing answers at: the server fetches nothing before a token
/// comes, and a token it cannot check gets 503.
const ISSUER: &str = "http://127.0.0.1:9";

#[test]
fn serve_http_beyond_loopback_needs_an_authorization_server_or_allow_anonymous() {
    let output = refused(&["serve", "--http", "0.0.0.0:0"], &[]);
    assert_usage_error(
        &output,
        &[
            "--http 0.0.0.0:0 is not a loopback address",
            "--auth-issuer",
            "--allow-anonymous",
        ],
    );
    // An issuer alone: the resource cannot be guessed from 0.0.0.0.
    let output = refused(
        &["serve", "--http", "0.0.0.0:0", "--auth-issuer", ISSUER],
        &[],
    );
    assert_usage_error(&output, &["--auth-resource"]);

    // Anyone, as asked, with a warning.
    let open = Serving::start(&["serve", "--http", "0.0.0.0:0", "--allow-anonymous"], &[]);
    assert!(
        open.said
            .iter()
            .any(|line| line.contains("without authorization (--allow-anonymous)")),
        "{:?}",
        open.said
    );
    assert_eq!(open.initialize(&[]).0, 200);

    // With an authorization server: tokens asked for, and the resource's
    // host taken in the Host header.
    let protected = Serving::start(
        &[
            "serve",
            "--http",
            "0.0.0.0:0",
            "--auth-issuer",
            "https://auth.example.com",
            "--auth-resource",
            "https://tools.example.com/mcp",
        ],
        &[],
    );
    let (status, challenge, _) = protected.initialize(&[("Host", "tools.example.com")]);
    assert_eq!(status, 401);
    assert_eq!(
        challenge.as_deref(),
        Some(
            "Bearer resource_metadata=\"https://tools.example.com/.well-known/oauth-protected-resource/mcp\""
        )
    );
    assert_eq!(
        protected.initialize(&[("Host", "other.example.com")]).0,
        403
    );
    assert_eq!(
        protected.metadata()["resource"],
        "https://tools.example.com/mcp"
    );
}

#[test]
fn serve_http_auth_flags_make_a_resource_server() {
    let server = Serving::start(
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            ISSUER,
            "--auth-scope",
            "tools:call",
            "--auth-scope",
            "tools:read",
        ],
        &[],
    );
    let port = server.port;
    let resource = format!("http://127.0.0.1:{port}/mcp");
    assert!(
        server.said.iter().any(|line| line
            == &format!(
                "asking every request for an access token of {ISSUER}, issued for {resource}"
            )),
        "{:?}",
        server.said
    );
    let (status, challenge, body) = server.initialize(&[]);
    assert_eq!(status, 401);
    assert_eq!(
        challenge.as_deref(),
        Some(
            format!(
                "Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", \
                 scope=\"tools:call tools:read\""
            )
            .as_str()
        )
    );
    assert_eq!(body["error"], "unauthorized");
    assert_eq!(
        server.metadata(),
        json!({
            "resource": resource,
            "authorization_servers": [ISSUER],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["tools:call", "tools:read"],
            "resource_name": "toolbox",
        })
    );
    // A token that is no JWT, with no introspection: refused.
    let (status, challenge, _) = server.initialize(&[("Authorization", "Bearer opaque-token")]);
    assert_eq!(status, 401);
    assert!(
        challenge
            .unwrap()
            .starts_with("Bearer error=\"invalid_token\"")
    );

    // With introspection, the same token is sent to the authorization
    // server, which cannot be reached: 503.
    let introspecting = Serving::start(
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            ISSUER,
            "--auth-client-id",
            "tools-server",
            "--auth-client-secret-env",
            "TOOLBOX_TEST_SECRET",
            "--auth-introspection-endpoint",
            "http://127.0.0.1:9/introspect",
        ],
        &[("TOOLBOX_TEST_SECRET", "s3cret")],
    );
    let (status, _, _) = introspecting.initialize(&[("Authorization", "Bearer opaque-token")]);
    assert_eq!(status, 503);
}

#[test]
fn serve_http_auth_flags_that_do_not_fit_are_usage_errors() {
    let serve = |flags: &[&str]| {
        let mut args = vec!["serve", "--http", "127.0.0.1:0"];
        args.extend_from_slice(flags);
        refused(&args, &[])
    };
    assert_usage_error(
        &serve(&["--auth-scope", "tools:call"]),
        &[
            "--auth-scope needs an authorization server",
            "--auth-issuer",
        ],
    );
    assert_usage_error(
        &serve(&["--auth-issuer", "auth.example.com"]),
        &["--auth-issuer: invalid issuer"],
    );
    assert_usage_error(
        &serve(&["--auth-issuer", "http://auth.example.com"]),
        &["--auth-issuer: invalid issuer", "https"],
    );
    assert_usage_error(
        &serve(&[
            "--auth-issuer",
            ISSUER,
            "--auth-resource",
            "http://tools.example.com/mcp",
        ]),
        &["--auth-resource: invalid resource"],
    );
    assert_usage_error(
        &serve(&["--auth-issuer", ISSUER, "--allow-anonymous"]),
        &["--allow-anonymous"],
    );
    assert_usage_error(
        &serve(&["--auth-issuer", ISSUER, "--auth-client-id", "rs"]),
        &["--auth-client-secret-env"],
    );
    assert_usage_error(
        &serve(&[
            "--auth-issuer",
            ISSUER,
            "--auth-client-id",
            "rs",
            "--auth-client-secret-env",
            "TOOLBOX_TEST_UNSET_SECRET",
        ]),
        &["the environment variable TOOLBOX_TEST_UNSET_SECRET holds no secret"],
    );
    // Beside --http only.
    assert_usage_error(
        &refused(&["serve", "--auth-issuer", ISSUER], &[]),
        &["--http"],
    );
}

#[test]
fn a_registry_files_auth_section_is_served_and_the_flags_override_it() {
    let (_dir, file) = registry_file(&format!(
        "tools: [convert_length]\nauth:\n  issuer: {ISSUER}\n  scopes: [tools:read]\n"
    ));
    let server = Serving::start(
        &["--registry", &file, "serve", "--http", "127.0.0.1:0"],
        &[],
    );
    let (status, challenge, _) = server.initialize(&[]);
    assert_eq!(status, 401);
    assert!(
        challenge.unwrap().ends_with("scope=\"tools:read\""),
        "the file's scopes"
    );
    assert_eq!(server.metadata()["authorization_servers"], json!([ISSUER]));
    drop(server);

    let server = Serving::start(
        &[
            "--registry",
            &file,
            "serve",
            "--http",
            "127.0.0.1:0",
            "--auth-scope",
            "tools:call",
        ],
        &[],
    );
    let (_, challenge, _) = server.initialize(&[]);
    assert!(
        challenge.unwrap().ends_with("scope=\"tools:call\""),
        "the flag's scopes"
    );
    drop(server);

    // A file that asks for tokens is not served anonymously.
    let output = refused(
        &[
            "--registry",
            &file,
            "serve",
            "--http",
            "127.0.0.1:0",
            "--allow-anonymous",
        ],
        &[],
    );
    assert_usage_error(&output, &["--allow-anonymous", "`auth` section"]);
}

#[test]
fn mistakes_in_a_registry_files_auth_section_are_reported_at_their_place() {
    let (_dir, file) = registry_file(
        "tools: [convert_length]\n\
         auth:\n  \
           isuer: https://auth.example.com\n  \
           scopes: tools:call\n  \
           introspection:\n    \
             client_id: rs\n    \
             client_secret_env: not a variable\n",
    );
    let output = refused(&["--registry", &file, "list"], &[]);
    assert_usage_error(
        &output,
        &[
            "tools.yaml:3:3: unknown key \"isuer\" in `auth`; did you mean \"issuer\"? \
             the keys are issuer, resource, scopes, introspection",
            "tools.yaml:4:11: `auth.scopes` is a list of scopes",
            "tools.yaml:7:24: `auth.introspection.client_secret_env` names an environment \
             variable",
        ],
    );
    let (_dir, file) =
        registry_file("tools: [convert_length]\nauth:\n  resource: http://127.0.0.1/mcp\n");
    assert_usage_error(
        &refused(&["--registry", &file, "list"], &[]),
        &["tools.yaml:3:3: `auth` needs `issuer`"],
    );
    let (_dir, file) = registry_file("tools: [convert_length]\nauth: [https://auth.example.com]\n");
    assert_usage_error(
        &refused(&["--registry", &file, "list"], &[]),
        &["tools.yaml:2:7: `auth` must be a mapping"],
    );
    // What the values mean is checked when serving, still at their place.
    let (_dir, file) =
        registry_file("tools: [convert_length]\nauth:\n  issuer: ftp://auth.example.com\n");
    assert_usage_error(
        &refused(
            &["--registry", &file, "serve", "--http", "127.0.0.1:0"],
            &[],
        ),
        &[
            "bad registry file: ",
            "tools.yaml:3:11: `auth.issuer`: invalid issuer",
        ],
    );
}
