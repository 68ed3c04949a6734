//! Throughput of an MCP server: a load generator for `toolbox serve` (or any
//! server with the example tools, or any server with a tool `add`), over
//! stdio or streamable HTTP.
//!
//! Every request is a `tools/call` whose answer depends on the request, so
//! each answer can be checked against its request: an answer that does not
//! come is *lost*, one that is not the expected text (or is an error, or
//! answers no request sent, or a request twice) is *wrong*. The tool, with
//! `--tool`:
//!
//! - `convert_length` (the default): from metres to metres with the
//!   request's number as the value; the answer `"{n} metre = {n}.0000 metre"`.
//! - `add`: `a` the request's number, `b` one more; the answer their sum as
//!   text, and not an error.
//!
//! - `stdio`: spawns the server command, handshakes, then keeps `WINDOW`
//!   requests in flight on its stdin (one write each), matching the answers
//!   on its stdout to their requests by id.
//! - `http`: `CONNECTIONS` clients, each on its own keep-alive connection
//!   and MCP session, each sending its calls one after another (POST, the
//!   answer as JSON or as an SSE stream); with `--bearer-env VAR`, every
//!   request carries `Authorization: Bearer` and the access token the
//!   environment variable `VAR` holds, for a server that asks for one.
//!
//! ```sh
//! cargo build --release -p examples --bin toolbox -p bench --bin mcp_load
//! target/release/mcp_load stdio [--requests N] [--window N] [--tool T] -- target/release/toolbox serve
//! target/release/toolbox serve --http 127.0.0.1:8931 &
//! target/release/mcp_load http [--requests N] [--connections N] [--tool T] [--pid PID] [--bearer-env VAR] http://127.0.0.1:8931/mcp
//! ```
//!
//! Prints one line: requests, seconds, requests a second, lost, wrong, and
//! the server's peak resident memory (`VmHWM` in `/proc/PID/status`, read
//! once the last answer is in): over stdio of the server it spawned, over
//! HTTP of the process `--pid` names (none without it).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The tool every request calls, and so the answer it expects.
#[derive(Clone, Copy)]
enum Tool {
    ConvertLength,
    Add,
}

impl Tool {
    fn parse(name: &str) -> Result<Self, Error> {
        match name {
            "convert_length" => Ok(Tool::ConvertLength),
            "add" => Ok(Tool::Add),
            _ => Err(format!("unknown tool {name:?}: convert_length or add").into()),
        }
    }

    /// The request for call `id`.
    fn call(self, id: u64) -> Value {
        let params = match self {
            Tool::ConvertLength => json!({
                "name": "convert_length",
                "arguments": {"value": id, "from": "metre", "to": "metre"}
            }),
            Tool::Add => json!({"name": "add", "arguments": {"a": id, "b": id + 1}}),
        };
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    }

    /// Whether `answer` is the right one for call `id`.
    fn is_right(self, id: u64, answer: &Value) -> bool {
        let result = &answer["result"];
        let text = &result["content"][0]["text"];
        match self {
            Tool::ConvertLength => {
                result["isError"] == false
                    && *text == format!("{id} metre = {:.4} metre", id as f64)
            }
            // Some servers leave `isError` out of a result that is not one.
            Tool::Add => {
                result.get("isError").is_none_or(|error| *error == false)
                    && text.as_str() == Some(&(2 * id + 1).to_string())
            }
        }
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "mcp_load", "version": "1"}
    }})
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The outcome of a run.
#[derive(Default)]
struct Tally {
    answered: AtomicU64,
    wrong: AtomicU64,
}

fn report(requests: u64, elapsed: Duration, tally: &Tally, peak_rss_kib: Option<u64>) {
    let answered = tally.answered.load(Ordering::Relaxed);
    let seconds = elapsed.as_secs_f64();
    let mut line = format!(
        "requests {requests}  seconds {seconds:.3}  req/s {:.0}  lost {}  wrong {}",
        answered as f64 / seconds,
        requests.saturating_sub(answered),
        tally.wrong.load(Ordering::Relaxed),
    );
    if let Some(kib) = peak_rss_kib {
        line.push_str(&format!("  peak_rss_kib {kib}"));
    }
    println!("{line}");
}

/// The peak resident memory of process `pid` so far, in KiB (`VmHWM`), if
/// `/proc` tells it.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Options {
    requests: u64,
    window: u64,
    connections: u64,
    tool: Tool,
    /// Over HTTP, the server's process, for its peak memory.
    pid: Option<u32>,
    /// Over HTTP, the access token every request carries.
    bearer: Option<String>,
    rest: Vec<String>,
}

fn options(args: &[String]) -> Result<Options, Error> {
    let mut options = Options {
        requests: 100_000,
        window: 64,
        connections: 16,
        tool: Tool::ConvertLength,
        pid: None,
        bearer: None,
        rest: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut number =
            || -> Result<u64, Error> { Ok(args.next().ok_or("a number is missing")?.parse()?) };
        match arg.as_str() {
            "--requests" => options.requests = number()?,
            "--window" => options.window = number()?.max(1),
            "--connections" => options.connections = number()?.max(1),
            "--pid" => options.pid = Some(u32::try_from(number()?)?),
            "--tool" => options.tool = Tool::parse(args.next().ok_or("a tool is missing")?)?,
            "--bearer-env" => {
                let name = args.next().ok_or("a variable is missing")?;
                let token = std::env::var(name).map_err(|_| format!("{name} is not set"))?;
                options.bearer = Some(token);
            }
            "--" => {
                options.rest.extend(args.cloned());
                break;
            }
            _ => options.rest.push(arg.clone()),
        }
    }
    Ok(options)
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: mcp_load stdio [--requests N] [--window N] [--tool convert_length|add] -- COMMAND...\n       mcp_load http [--requests N] [--connections N] [--tool convert_length|add] [--pid PID] [--bearer-env VAR] URL";
    let (mode, rest) = args.split_first().ok_or(usage)?;
    let options = options(rest)?;
    match mode.as_str() {
        "stdio" => stdio(&options),
        "http" => http(&options),
        _ => Err(usage.into()),
    }
}

/// Pipelined calls over a spawned server's stdin and stdout.
fn stdio(options: &Options) -> Result<(), Error> {
    let (program, arguments) = options.rest.split_first().ok_or("no server command")?;
    let mut child = Command::new(program)
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut input = child.stdin.take().ok_or("no stdin")?;
    let mut output = BufReader::new(child.stdout.take().ok_or("no stdout")?);

    writeln!(input, "{}", initialize())?;
    let mut line = String::new();
    loop {
        line.clear();
        if output.read_line(&mut line)? == 0 {
            return Err("the server ended before answering initialize".into());
        }
        if serde_json::from_str::<Value>(&line)?.get("id") == Some(&json!(0)) {
            break;
        }
    }
    writeln!(input, "{INITIALIZED}")?;

    let requests = options.requests;
    let tool = options.tool;
    let tally = Arc::new(Tally::default());
    // A slot in the window: taken for each request sent, given back for
    // each answer.
    let (take, give) = mpsc::sync_channel::<()>(options.window as usize);
    let start = Instant::now();
    let reader = {
        let tally = Arc::clone(&tally);
        std::thread::spawn(move || -> Result<(), Error> {
            let mut seen = vec![false; requests as usize + 1];
            let mut line = String::new();
            while tally.answered.load(Ordering::Relaxed) < requests {
                line.clear();
                if output.read_line(&mut line)? == 0 {
                    break;
                }
                let answer: Value = serde_json::from_str(&line)?;
                let Some(id) = answer.get("id") else {
                    continue; // a notification
                };
                tally.answered.fetch_add(1, Ordering::Relaxed);
                let fresh = id
                    .as_u64()
                    .filter(|&id| (1..=requests).contains(&id))
                    .is_some_and(|id| !std::mem::replace(&mut seen[id as usize], true));
                if !fresh || !tool.is_right(id.as_u64().unwrap_or(0), &answer) {
                    tally.wrong.fetch_add(1, Ordering::Relaxed);
                }
                if give.recv().is_err() {
                    break;
                }
            }
            Ok(())
        })
    };
    for id in 1..=requests {
        if take.send(()).is_err() {
            break; // the reader is gone
        }
        let mut request = tool.call(id).to_string();
        request.push('\n');
        input.write_all(request.as_bytes())?;
    }
    drop(take);
    reader.join().map_err(|_| "the reader panicked")??;
    let elapsed = start.elapsed();
    // Before its stdin closes: once it has ended, /proc forgets it.
    let peak = peak_rss_kib(child.id());
    drop(input);
    child.wait()?;
    report(requests, elapsed, &tally, peak);
    Ok(())
}

/// Concurrent sessions over streamable HTTP, each on a connection of its
/// own, each calling one call after another.
fn http(options: &Options) -> Result<(), Error> {
    let url = options.rest.first().ok_or("no URL")?;
    let rest = url
        .strip_prefix("http://")
        .ok_or("the URL is not http://")?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let tool = options.tool;
    let tally = Arc::new(Tally::default());
    let per_connection = options.requests / options.connections;
    let requests = per_connection * options.connections;
    let mut sessions = Vec::new();
    for _ in 0..options.connections {
        sessions.push(Session::open(authority, path, options.bearer.as_deref())?);
    }
    let start = Instant::now();
    let workers: Vec<_> = sessions
        .into_iter()
        .enumerate()
        .map(|(n, mut session)| {
            let tally = Arc::clone(&tally);
            std::thread::spawn(move || -> Result<(), Error> {
                let first = n as u64 * per_connection + 1;
                for id in first..first + per_connection {
                    let answers = session.post(&tool.call(id).to_string())?;
                    let answer = answers
                        .into_iter()
                        .find(|answer| answer.get("id") == Some(&json!(id)));
                    if let Some(answer) = answer {
                        tally.answered.fetch_add(1, Ordering::Relaxed);
                        if !tool.is_right(id, &answer) {
                            tally.wrong.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                Ok(())
            })
        })
        .collect();
    for worker in workers {
        worker.join().map_err(|_| "a client panicked")??;
    }
    let elapsed = start.elapsed();
    report(
        requests,
        elapsed,
        &tally,
        options.pid.and_then(peak_rss_kib),
    );
    Ok(())
}

/// One MCP session on one keep-alive HTTP/1.1 connection.
struct Session {
    stream: BufReader<TcpStream>,
    authority: String,
    path: String,
    id: Option<String>,
    /// The `Authorization` header's line, if requests carry a token.
    authorization: String,
}

impl Session {
    fn open(authority: &str, path: &str, bearer: Option<&str>) -> Result<Self, Error> {
        let stream = TcpStream::connect(authority)?;
        // The client's own writes are whole requests; no need to wait.
        stream.set_nodelay(true)?;
        let mut session = Session {
            stream: BufReader::new(stream),
            authority: authority.to_owned(),
            path: path.to_owned(),
            id: None,
            authorization: bearer
                .map(|token| format!("Authorization: Bearer {token}\r\n"))
                .unwrap_or_default(),
        };
        session.post(&initialize().to_string())?;
        if session.id.is_none() {
            return Err("the server gave no Mcp-Session-Id".into());
        }
        session.post(INITIALIZED)?;
        Ok(session)
    }

    /// POSTs `body`; the JSON-RPC messages of the answer.
    fn post(&mut self, body: &str) -> Result<Vec<Value>, Error> {
        let mut request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.path,
            self.authority,
            body.len()
        );
        request.push_str(&self.authorization);
        if let Some(id) = &self.id {
            request.push_str(&format!(
                "Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"
            ));
        }
        request.push_str("\r\n");
        request.push_str(body);
        self.stream.get_mut().write_all(request.as_bytes())?;

        let mut line = String::new();
        self.stream.read_line(&mut line)?;
        let status: u16 = line
            .split(' ')
            .nth(1)
            .ok_or("no HTTP status line")?
            .parse()?;
        let (mut length, mut chunked) = (None, false);
        loop {
            line.clear();
            self.stream.read_line(&mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').ok_or("a malformed header")?;
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = Some(value.parse::<usize>()?),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "mcp-session-id" => self.id = Some(value.to_owned()),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.stream.read_line(&mut line)?;
                let size =
                    usize::from_str_radix(line.trim_end().split(';').next().unwrap_or(""), 16)?;
                let start = body.len();
                body.resize(start + size, 0);
                self.stream.read_exact(&mut body[start..])?;
                line.clear();
                self.stream.read_line(&mut line)?; // the chunk's CRLF
                if size == 0 {
                    break;
                }
            }
        } else if let Some(length) = length {
            body.resize(length, 0);
            self.stream.read_exact(&mut body)?;
        }
        if !(200..300).contains(&status) {
            return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&body)).into());
        }
        let body = String::from_utf8(body)?;
        let trimmed = body.trim_start();
        if trimmed.starts_with('{') {
            return Ok(vec![serde_json::from_str(trimmed)?]);
        }
        // An SSE stream: the data of each event.
        Ok(body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect())
    }
}
