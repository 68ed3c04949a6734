//! A stand-in for an LLM provider: an HTTP/1.1 server on 127.0.0.1 that
//! answers each request with the next scripted JSON response, the shapes the
//! provider documents, so an agent loop runs whole without a network or a
//! key. Each step may check the request it answers (that the tools are
//! there, that an error text reached the model); a failed check is answered
//! with HTTP 400 and an OpenAI-style error body, so the client fails too,
//! and is kept for [`StandIn::finish`].
//!
//! Standard library only. Shared by the examples (`mod standin;`) and
//! tests/adapters.rs (`#[path = ...]`). It serves its steps in
//! order, one connection each (`Connection: close`), and stops when they are
//! served or after a minute, whichever comes first.

#![allow(dead_code)]

pub mod weather;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long the stand-in waits for all its requests.
const DEADLINE: Duration = Duration::from_secs(60);

/// A check of a request's JSON body: `Err` says what is wrong.
pub type Check = Box<dyn Fn(&Value) -> Result<(), String> + Send>;

/// One scripted exchange: what to check in the request, what to answer.
pub struct Step {
    check: Option<Check>,
    reply: Value,
}

impl Step {
    /// Answers with `reply`, whatever came.
    pub fn reply(reply: Value) -> Self {
        Self { check: None, reply }
    }

    /// Answers with `reply` if `check` accepts the request's body.
    pub fn check(
        check: impl Fn(&Value) -> Result<(), String> + Send + 'static,
        reply: Value,
    ) -> Self {
        Self {
            check: Some(Box::new(check)),
            reply,
        }
    }
}

/// One request the stand-in received.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The request line's method and path, `POST /v1/chat/completions`.
    pub request_line: String,
    /// The request's body, as JSON (`null` when empty or not JSON).
    pub body: Value,
}

/// A running stand-in.
pub struct StandIn {
    url: String,
    server: JoinHandle<(Vec<Exchange>, Vec<String>)>,
}

impl StandIn {
    /// Starts serving `steps` on a free port of 127.0.0.1.
    pub fn start(steps: Vec<Step>) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let url = format!("http://{}", listener.local_addr()?);
        let server = std::thread::spawn(move || serve(&listener, steps));
        Ok(Self { url, server })
    }

    /// The server's URL, `http://127.0.0.1:PORT`, with no trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Waits for the server to stop and returns what it received, in order;
    /// `Err` lists the checks that failed and the requests that never came.
    pub fn finish(self) -> Result<Vec<Exchange>, String> {
        let (exchanges, failures) = self
            .server
            .join()
            .map_err(|_| "the stand-in's thread panicked".to_owned())?;
        if failures.is_empty() {
            Ok(exchanges)
        } else {
            Err(failures.join("\n"))
        }
    }
}

fn serve(listener: &TcpListener, steps: Vec<Step>) -> (Vec<Exchange>, Vec<String>) {
    let deadline = Instant::now() + DEADLINE;
    let mut exchanges = Vec::new();
    let mut failures = Vec::new();
    for (number, step) in steps.into_iter().enumerate() {
        let number = number + 1;
        let stream = loop {
            match listener.accept() {
                Ok((stream, _)) => break Some(stream),
                Err(error)
                    if error.kind() == io::ErrorKind::WouldBlock && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => break None,
            }
        };
        let Some(stream) = stream else {
            failures.push(format!("request {number} never came"));
            break;
        };
        match exchange(stream, &step) {
            Ok((received, failure)) => {
                exchanges.push(received);
                if let Some(failure) = failure {
                    failures.push(format!("request {number}: {failure}"));
                }
            }
            Err(error) => failures.push(format!("request {number}: {error}")),
        }
    }
    (exchanges, failures)
}

/// Reads one request from `stream`, answers it, closes the connection.
fn exchange(stream: TcpStream, step: &Step) -> io::Result<(Exchange, Option<String>)> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let failure = step.check.as_ref().and_then(|check| check(&body).err());
    let (status, reply) = match &failure {
        None => ("200 OK", step.reply.to_string()),
        Some(failure) => (
            "400 Bad Request",
            json!({"error": {"message": format!("stand-in: {failure}"), "type": "invalid_request_error", "param": null, "code": null}})
                .to_string(),
        ),
    };
    let mut stream = reader.into_inner();
    write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
        reply.len()
    )?;
    stream.flush()?;
    let request_line = request_line
        .trim_end()
        .trim_end_matches(" HTTP/1.1")
        .to_owned();
    Ok((Exchange { request_line, body }, failure))
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?;
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

/// Whether `haystack`, written as JSON text, contains `needle`: a check
/// that does not depend on where a client puts a message's text.
/// A client may hand the text on as a JSON string inside another (rig's
/// JSON output, say), so the needle is looked for escaped twice as well.
pub fn mentions(haystack: &Value, needle: &str) -> bool {
    let text = haystack.to_string();
    let once = escaped(needle);
    text.contains(needle) || text.contains(&once) || text.contains(&escaped(&once))
}

/// `text` as it appears inside a JSON string (quotes escaped).
fn escaped(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}
