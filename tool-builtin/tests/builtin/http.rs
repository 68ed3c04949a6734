//! `http_request` against a small HTTP server on 127.0.0.1 (the only
//! address these tests ever connect to).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use serde_json::{Value, json};

use tool_runtime::{Registry, registry::Linked};

use crate::{call, refused, registry};

/// Starts a server on 127.0.0.1 that answers by path, and returns its port.
/// It serves until the test process ends.
fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = answer(stream, port);
            });
        }
    });
    port
}

fn answer(mut stream: TcpStream, port: u16) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = serde_json::Map::new();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            if name == "content-length" {
                length = value.trim().parse().unwrap_or(0);
            }
            headers.insert(name, Value::String(value.trim().to_owned()));
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();

    let (status, extra, content_type, payload): (&str, String, &str, Vec<u8>) = match path.as_str()
    {
        "/echo" => (
            "200 OK",
            String::new(),
            "application/json",
            json!({"method": method, "headers": headers, "body": body})
                .to_string()
                .into_bytes(),
        ),
        "/text" => (
            "200 OK",
            String::new(),
            "text/plain",
            b"plain words".to_vec(),
        ),
        "/big" => ("200 OK", String::new(), "text/plain", vec![b'x'; 100_000]),
        "/redirect" => (
            "302 Found",
            "Location: /echo\r\n".into(),
            "text/plain",
            Vec::new(),
        ),
        "/redirect-absolute" => (
            "307 Temporary Redirect",
            format!("Location: http://127.0.0.1:{port}/echo\r\n"),
            "text/plain",
            Vec::new(),
        ),
        "/see-other" => (
            "303 See Other",
            "Location: /echo\r\n".into(),
            "text/plain",
            Vec::new(),
        ),
        "/away" => (
            "302 Found",
            "Location: http://not-allowed.invalid/steal\r\n".into(),
            "text/plain",
            Vec::new(),
        ),
        "/away-localhost" => (
            "302 Found",
            format!("Location: http://localhost:{port}/echo\r\n"),
            "text/plain",
            Vec::new(),
        ),
        "/loop" => (
            "302 Found",
            "Location: /loop\r\n".into(),
            "text/plain",
            Vec::new(),
        ),
        "/slow" => {
            std::thread::sleep(Duration::from_secs(3));
            ("200 OK", String::new(), "text/plain", b"late".to_vec())
        }
        _ => (
            "404 Not Found",
            String::new(),
            "text/plain",
            b"no such page".to_vec(),
        ),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nX-Test: yes\r\nConnection: close\r\n{extra}\r\n",
        payload.len()
    )?;
    stream.write_all(&payload)?;
    stream.flush()
}

fn allowing(port: u16, extra: Value) -> tool_runtime::Registry {
    let mut config = json!({"allowed_hosts": [format!("127.0.0.1:{port}")]});
    tool_runtime::config::merge(&mut config, extra);
    registry("http_request", config)
}

#[tokio::test]
async fn get_and_post_to_an_allowed_host() {
    let port = serve();
    let registry = allowing(port, json!({}));
    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/text")}),
    )
    .await
    .unwrap();
    assert_eq!(response["status"], 200);
    assert_eq!(response["body"], "plain words");
    assert_eq!(response["headers"]["x-test"], "yes");
    assert_eq!(response["truncated"], false);

    let response = call(
        &registry,
        "http_request",
        json!({
            "url": format!("http://127.0.0.1:{port}/echo"),
            "method": "POST",
            "headers": {"X-Token": "abc"},
            "body": {"name": "Ada"},
        }),
    )
    .await
    .unwrap();
    let echo = &response["body"];
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["headers"]["x-token"], "abc");
    assert_eq!(echo["headers"]["content-type"], "application/json");
    assert_eq!(
        serde_json::from_str::<Value>(echo["body"].as_str().unwrap()).unwrap(),
        json!({"name": "Ada"})
    );

    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/echo"), "method": "PUT", "body": "raw text"}),
    )
    .await
    .unwrap();
    assert_eq!(response["body"]["body"], "raw text");
    assert_eq!(
        response["body"]["headers"]["content-type"],
        "text/plain; charset=utf-8"
    );

    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/missing")}),
    )
    .await
    .unwrap();
    assert_eq!(
        response["status"], 404,
        "an HTTP error status is an answer, not a failure"
    );
}

#[tokio::test]
async fn hosts_outside_the_allowlist_are_refused() {
    let port = serve();
    let registry = allowing(port, json!({}));
    let text = refused(
        &registry,
        "http_request",
        json!({"url": format!("http://localhost:{port}/text")}),
    )
    .await;
    assert!(text.contains("refused: localhost"), "{text}");
    assert!(
        text.contains(&format!("127.0.0.1:{port}")),
        "the allowed hosts are listed: {text}"
    );
    let other_port = if port == 65535 { 1 } else { port + 1 };
    let text = refused(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{other_port}/")}),
    )
    .await;
    assert!(text.contains("is not an allowed host"), "{text}");

    let nothing = crate::registry("http_request", json!({}));
    let text = refused(
        &nothing,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/text")}),
    )
    .await;
    assert!(text.contains("no host is allowed yet"), "{text}");

    let text = refused(
        &registry,
        "http_request",
        json!({"url": "file:///etc/passwd"}),
    )
    .await;
    assert!(text.contains("only http:// and https://"), "{text}");
    let text = refused(
        &registry,
        "http_request",
        json!({"url": format!("http://user:pw@127.0.0.1:{port}/")}),
    )
    .await;
    assert!(text.contains("credentials"), "{text}");
    let text = refused(&registry, "http_request", json!({"url": "not a url"})).await;
    assert!(text.contains("not a valid URL"), "{text}");
}

#[tokio::test]
async fn redirects_are_followed_only_to_allowed_hosts() {
    let port = serve();
    let registry = allowing(port, json!({}));
    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/redirect")}),
    )
    .await
    .unwrap();
    assert_eq!(response["status"], 200);
    assert_eq!(response["url"], format!("http://127.0.0.1:{port}/echo"));

    // 307 keeps the method and body; 303 turns them into a GET.
    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/redirect-absolute"), "method": "POST", "body": "kept"}),
    )
    .await
    .unwrap();
    assert_eq!(response["body"]["method"], "POST");
    assert_eq!(response["body"]["body"], "kept");
    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/see-other"), "method": "POST", "body": "dropped"}),
    )
    .await
    .unwrap();
    assert_eq!(response["body"]["method"], "GET");
    assert_eq!(response["body"]["body"], "");

    for path in ["/away", "/away-localhost"] {
        let text = refused(
            &registry,
            "http_request",
            json!({"url": format!("http://127.0.0.1:{port}{path}")}),
        )
        .await;
        assert!(text.contains("redirects to"), "{text}");
        assert!(text.contains("is not an allowed host"), "{text}");
    }
    let text = refused(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/loop")}),
    )
    .await;
    assert!(text.contains("stopped after 5 redirects"), "{text}");

    let no_follow = allowing(port, json!({"max_redirects": 0}));
    let response = call(
        &no_follow,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/away")}),
    )
    .await
    .unwrap();
    assert_eq!(response["status"], 302);
    assert_eq!(
        response["headers"]["location"],
        "http://not-allowed.invalid/steal"
    );
}

#[tokio::test]
async fn the_response_size_cap_is_honoured() {
    let port = serve();
    let registry = allowing(port, json!({"max_response_bytes": 1000}));
    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/big")}),
    )
    .await
    .unwrap();
    assert_eq!(response["truncated"], true);
    assert_eq!(response["body"].as_str().unwrap().len(), 1000);
    let response = call(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/text")}),
    )
    .await
    .unwrap();
    assert_eq!(response["truncated"], false);
}

#[tokio::test]
async fn slow_servers_time_out() {
    let port = serve();
    let registry = allowing(port, json!({"timeout_ms": 300}));
    let text = refused(
        &registry,
        "http_request",
        json!({"url": format!("http://127.0.0.1:{port}/slow")}),
    )
    .await;
    assert!(text.contains("timed out"), "{text}");
}

#[tokio::test]
async fn request_limits_and_reserved_headers() {
    let port = serve();
    let registry = allowing(port, json!({"max_request_bytes": 4}));
    let url = format!("http://127.0.0.1:{port}/echo");
    let text = refused(
        &registry,
        "http_request",
        json!({"url": url, "method": "POST", "body": "too long"}),
    )
    .await;
    assert!(text.contains("more than the limit of 4 bytes"), "{text}");
    let text = refused(
        &registry,
        "http_request",
        json!({"url": url, "headers": {"Host": "evil.example"}}),
    )
    .await;
    assert!(text.contains("is set by the tool"), "{text}");
    let text = refused(
        &registry,
        "http_request",
        json!({"url": url, "headers": {"X-Bad": "a\r\nInjected: 1"}}),
    )
    .await;
    assert!(text.contains("is not valid"), "{text}");
}

#[test]
fn invalid_allowlist_entries_fail_the_registry_build() {
    let error = tool_runtime::Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named(["http_request"]))
        .configure(
            "http_request",
            json!({"allowed_hosts": ["https://api.example.com/v1"]}),
        )
        .config_from_env(false)
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("is a URL, not a host"), "{error}");
}

#[tokio::test]
async fn a_strict_call_round_trips_to_the_same_request() {
    let port = serve();
    let strict = Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named(["http_request"]))
        .configure(
            "http_request",
            json!({"allowed_hosts": [format!("127.0.0.1:{port}")]}),
        )
        .config_from_env(false)
        .strict(true)
        .build()
        .unwrap();
    // The strict schema: headers as key/value objects, the body as JSON text.
    let tools = strict.render(tool_runtime::Provider::OpenAiChat);
    let function = &tools[0]["function"];
    assert_eq!(function["strict"], true);
    assert!(tool_runtime::schema::strict::check(&function["parameters"]).is_empty());
    assert_eq!(
        function["parameters"]["properties"]["headers"]["type"],
        json!(["array", "null"])
    );
    assert_eq!(
        function["parameters"]["properties"]["body"]["type"],
        json!(["string", "null"])
    );

    let url = format!("http://127.0.0.1:{port}/echo");
    let ordinary = call(
        &allowing(port, json!({})),
        "http_request",
        json!({"url": url, "method": "POST", "headers": {"X-Token": "abc", "Accept": "application/json"}, "body": {"name": "Ada", "tags": [1, 2]}}),
    )
    .await
    .unwrap();
    let strict_call = call(
        &strict,
        "http_request",
        json!({
            "url": url,
            "method": "POST",
            "headers": [{"key": "X-Token", "value": "abc"}, {"key": "Accept", "value": "application/json"}],
            "body": "{\"name\": \"Ada\", \"tags\": [1, 2]}"
        }),
    )
    .await
    .unwrap();
    let (ordinary, strict_call) = (&ordinary["body"], &strict_call["body"]);
    assert_eq!(ordinary["method"], strict_call["method"]);
    assert_eq!(ordinary["headers"], strict_call["headers"]);
    assert_eq!(ordinary["body"], strict_call["body"]);
    assert_eq!(strict_call["headers"]["x-token"], "abc");
    assert_eq!(strict_call["headers"]["content-type"], "application/json");

    // A strict call that leaves the optional parts out (`null`) is a GET.
    let response = call(
        &strict,
        "http_request",
        json!({"url": url, "method": null, "headers": null, "body": null}),
    )
    .await
    .unwrap();
    assert_eq!(response["body"]["method"], "GET");
}
