//! `toolbox serve --http`'s settings on the command line: the web origins
//! and host names served besides the loopback ones, and the connection,
//! session and event stream caps, checked with raw HTTP requests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use super::toolbox;

/// `toolbox serve --http` on a port of its choosing, and its endpoint.
pub(crate) struct HttpServer {
    child: Child,
    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
}

impl HttpServer {
    /// Starts it with `flags` after `serve --http 127.0.0.1:0`.
    pub(crate) fn start(flags: &[&str]) -> Self {
        let mut args = vec!["serve", "--http", "127.0.0.1:0"];
        args.extend_from_slice(flags);
        let mut child = toolbox(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("toolbox starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines();
        let url = loop {
            let line = lines
                .next()
                .expect("toolbox says where it serves")
                .expect("stderr is UTF-8");
            if let Some((_, url)) = line.split_once(" at ") {
                break url.trim().to_owned();
            }
        };
        // The rest of stderr is drained, so the server never blocks on it.
        std::thread::spawn(move || lines.for_each(drop));
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address of an `http://ADDRESS/mcp` URL.
fn address_of(url: &str) -> &str {
    url.strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(address, _)| address)
        .expect("an http URL")
}

/// The status code of an answer's head.
fn status_of(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("an HTTP status line: {answer:?}"))
}

/// The whole answer to a POST of `initialize` to `url`, with `headers`.
fn initialize(url: &str, headers: &[(&str, &str)]) -> String {
    let address = address_of(url);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    stream
        .write_all(request.as_bytes())
        .expect("the request is sent");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// The status code of a POST of `initialize` to `url`, with `headers`.
fn post_status(url: &str, headers: &[(&str, &str)]) -> u16 {
    status_of(&initialize(url, headers))
}

/// A session opened at `url`: its id.
fn open_session(url: &str) -> String {
    let answer = initialize(url, &[]);
    assert_eq!(status_of(&answer), 200, "{answer}");
    answer
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .expect("a session id")
}

/// `GET` of session `session`'s standalone stream at `url`: the status of
/// the answer, and the connection (the stream stays open while it is
/// held).
fn standalone_stream(url: &str, session: &str) -> (u16, TcpStream) {
    let address = address_of(url);
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    let request = format!(
        "GET /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .expect("the request is sent");
    let mut head = BufReader::new(stream.try_clone().expect("the socket is cloned"));
    let mut status = String::new();
    head.read_line(&mut status).expect("an answer");
    (status_of(&status), stream)
}

#[test]
fn serve_http_takes_origins_and_hosts_from_the_command_line() {
    let plain = HttpServer::start(&[]);
    assert_eq!(
        post_status(&plain.url, &[("Origin", "https://app.example")]),
        403
    );
    assert_eq!(
        post_status(&plain.url, &[("Origin", "http://localhost:5173")]),
        200
    );
    assert_eq!(post_status(&plain.url, &[]), 200);

    let open = HttpServer::start(&[
        "--allow-origin",
        "https://app.example",
        "--allow-host",
        "mcp.example",
    ]);
    assert_eq!(
        post_status(&open.url, &[("Origin", "https://app.example")]),
        200
    );
    assert_eq!(
        post_status(&open.url, &[("Origin", "https://other.example")]),
        403
    );
}

#[test]
fn serve_http_limits_are_checked_on_the_command_line() {
    let capped = HttpServer::start(&["--max-sessions", "1"]);
    let first = open_session(&capped.url);
    // In use while its standalone stream is open.
    let (status, _standalone) = standalone_stream(&capped.url, &first);
    assert_eq!(status, 200);
    assert_eq!(
        post_status(&capped.url, &[]),
        503,
        "a second session is one too many while the first is in use"
    );

    let streamless = HttpServer::start(&["--max-event-streams", "0"]);
    let session = open_session(&streamless.url);
    assert_eq!(standalone_stream(&streamless.url, &session).0, 503);
    let output = toolbox(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--max-event-streams-per-session",
        "0",
    ])
    .output()
    .expect("toolbox runs");
    assert_eq!(output.status.code(), Some(2));

    let output = toolbox(&["serve", "--http", "127.0.0.1:0", "--max-connections", "0"])
        .output()
        .expect("toolbox runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--max-connections"), "{stderr}");
    let output = toolbox(&["serve", "--max-sessions", "8"])
        .output()
        .expect("toolbox runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--http"), "{stderr}");
}

/// `toolbox ARGS`'s exit code and stderr, with nothing on stdin.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let output = toolbox(args)
        .stdin(Stdio::null())
        .output()
        .expect("toolbox runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

#[test]
fn serve_result_limit_state_key_and_shares_that_do_not_fit_are_usage_errors() {
    let (code, stderr) = refused(&["serve", "--result-limit", "0"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--result-limit"), "{stderr}");
    let (code, stderr) = refused(&["serve", "--result-limit", "lots"]);
    assert_eq!(code, Some(2), "{stderr}");
    let never = "TOOLBOX_TEST_STATE_KEY_NEVER_SET";
    let (code, stderr) = refused(&["serve", "--request-state-key-env", never]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(&format!("{never} is not set")), "{stderr}");
    // A share of tasks needs tasks; those of sessions and calls need HTTP.
    let (code, stderr) = refused(&["serve", "--max-tasks-per-caller", "4"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--tasks"), "{stderr}");
    for flag in ["--max-sessions-per-caller", "--max-calls-per-caller"] {
        let (code, stderr) = refused(&["serve", flag, "4"]);
        assert_eq!(code, Some(2), "{flag}: {stderr}");
        assert!(stderr.contains("--http"), "{flag}: {stderr}");
        let (code, stderr) = refused(&["serve", "--http", "127.0.0.1:0", flag, "0"]);
        assert_eq!(code, Some(2), "{flag}: {stderr}");
    }
}
