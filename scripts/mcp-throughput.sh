#!/usr/bin/env bash
# MCP server throughput, side by side: the same one-tool server, `add(a, b)`
# returning the sum as text, written four ways, each built in release and
# driven by bench's `mcp_load` in one run:
#
#   ours        tool-runtime's `#[tool] fn add` served by tool-mcp's
#               `McpServer::serve_stdio()`, or `serve_http` with `--http ADDR`
#   rmcp        rmcp alone, as its README shows: `#[tool_router(server_handler)]`
#               on an impl with one `#[tool]` method taking `Parameters<AddArgs>`;
#               stdio with `rmcp::transport::stdio()`, HTTP with rmcp's
#               `StreamableHttpService` (local sessions) nested in an axum
#               router, `axum::serve`, `TCP_NODELAY` on accepted sockets
#   flymcprust  flymcprust 0.1.1, as its README shows: `#[tool] fn add`,
#               `Server::builder(..).tool::<add>().build()?.serve_stdio()` or
#               `.serve_http(ADDR)`
#   floor       stdio only: a plain serde_json loop, a line read, parsed, its
#               answer written into a buffer flushed when no more input waits
#
# Matrix: stdio with 64 requests in flight, stdio with 1, HTTP with 16
# connections (each its own MCP session, a call at a time), for every server
# that speaks the transport. ROUNDS rounds (6 by default), each running every
# server once in turn, so that the machine's load falls on all alike; the
# table gives the median of each server's rounds, ratios of those medians,
# the lost and wrong answers over all rounds, every server's peak resident
# memory (VmHWM, the largest over its rounds) and its stripped binary's size.
#
#   scripts/mcp-throughput.sh
#   ROUNDS=3 STDIO_REQUESTS=20000 STDIO1_REQUESTS=5000 HTTP_REQUESTS=8000 scripts/mcp-throughput.sh
#   ROUNDS=0 scripts/mcp-throughput.sh     # build only
#   REV=HEAD scripts/mcp-throughput.sh     # ours from a commit (git archive), not the work tree
#   SRC=/path/to/checkout scripts/mcp-throughput.sh   # ours from another copy
#
# Scratch crates, their lock files and their shared target directory:
# target/mcp-peers/. Each peer has its own lock file (ours and rmcp's start
# from the workspace's, so they build the same rmcp, 3.11.0), so the
# workspace's own lock file and dependency tree stay as they are. `mcp_load`
# is built from bench/src/bin/mcp_load.rs in a scratch crate of its own too:
# it needs serde_json alone, not the bench crate's other dependencies.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# The tool each server offers, written once for both scripts.
PEERS="$ROOT/scripts/peers"
OUT="$ROOT/target/mcp-peers"
SRC="${SRC:-$ROOT}"
ours_from="the work tree"
[ "$SRC" = "$ROOT" ] || ours_from="$SRC"
if [ -n "${REV:-}" ]; then
    commit=$(git -C "$ROOT" rev-parse --short "$REV^{commit}")
    SRC="$OUT/src-$commit"
    if [ ! -d "$SRC" ]; then
        rm -rf "$OUT"/src-*
        mkdir -p "$SRC"
        git -C "$ROOT" archive "$commit" | tar -x -C "$SRC"
    fi
    ours_from="commit $commit"
fi
TARGET="$OUT/target"
ROUNDS="${ROUNDS:-6}"
STDIO_REQUESTS="${STDIO_REQUESTS:-50000}"
STDIO1_REQUESTS="${STDIO1_REQUESTS:-20000}"
HTTP_REQUESTS="${HTTP_REQUESTS:-30000}"
PORT="${PORT:-18950}"
command_line="${REV:+REV=$REV }ROUNDS=$ROUNDS STDIO_REQUESTS=$STDIO_REQUESTS STDIO1_REQUESTS=$STDIO1_REQUESTS HTTP_REQUESTS=$HTTP_REQUESTS scripts/mcp-throughput.sh"
mkdir -p "$OUT"/{ours,rmcp,flymcprust,floor,load}/src

tokio='tokio = { version = "1", features = ["macros", "rt-multi-thread", "net"] }'

# ---- ours: tool-runtime + tool-mcp
cat >"$OUT/ours/Cargo.toml" <<TOML
[package]
name = "mcp-ours"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
tool-runtime = { path = "$SRC/tool-runtime" }
tool-mcp = { path = "$SRC/tool-mcp", default-features = false, features = ["http"] }
$tokio

[workspace]
TOML
{ cat "$PEERS/ours_add.rs"; cat <<'RS'; } >"$OUT/ours/src/main.rs"

use tool_mcp::server::McpServer;
use tool_runtime::Registry;
use tool_runtime::context::CancellationToken;
use tool_runtime::registry::Linked;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let registry = Registry::builder()
        .linked(Linked::all())
        .build()
        .expect("the tools are set up");
    let server = McpServer::new(registry);
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--http") => {
            let listener = tokio::net::TcpListener::bind(&args[2]).await?;
            server.serve_http(listener, CancellationToken::new()).await
        }
        _ => server.serve_stdio().await,
    }
}
RS

# ---- rmcp alone
cat >"$OUT/rmcp/Cargo.toml" <<TOML
[package]
name = "mcp-rmcp"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
rmcp = { version = "=3.11.0", features = ["server", "macros", "transport-io", "transport-streamable-http-server"] }
axum = { version = "0.8", default-features = false, features = ["tokio", "http1"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
$tokio

[workspace]
TOML
{ cat "$PEERS/rmcp_calculator.rs"; cat <<'RS'; } >"$OUT/rmcp/src/main.rs"

use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::ServiceExt;
use rmcp::transport::stdio;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--http") {
        let service = StreamableHttpService::new(
            || Ok(Calculator),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        // Answers go out in several writes (headers, then SSE events): no
        // waiting on the client's delayed acknowledgements.
        let listener = tokio::net::TcpListener::bind(&args[2])
            .await?
            .tap_io(|stream| {
                let _ = stream.set_nodelay(true);
            });
        axum::serve(listener, router).await?;
        return Ok(());
    }
    let service = Calculator.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
RS

# ---- flymcprust
cat >"$OUT/flymcprust/Cargo.toml" <<TOML
[package]
name = "mcp-flymcprust"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
flymcprust = { version = "=0.1.1", features = ["stdio", "http"] }
$tokio

[workspace]
TOML
cat >"$OUT/flymcprust/src/main.rs" <<'RS'
use flymcprust::prelude::*;

/// Add two numbers.
///
/// # Arguments
/// * `a` - The first number.
/// * `b` - The second number.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("calculator", "1.0.0")
        .tool::<add>()
        .build()?;
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--http") {
        server.serve_http(args[2].clone()).await?;
    } else {
        server.serve_stdio().await?;
    }
    Ok(())
}
RS

# ---- the floor: serde_json and std alone
cat >"$OUT/floor/Cargo.toml" <<TOML
[package]
name = "mcp-floor"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[workspace]
TOML
cat >"$OUT/floor/src/main.rs" <<'RS'
//! An MCP server with one tool, `add`, over stdio, by hand: the least a
//! server must do per request.
use std::io::{self, BufRead, BufReader, BufWriter, Write};

use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Message {
    id: Option<Value>,
    method: String,
    #[serde(default)]
    params: Value,
}

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn answer(message: Message) -> Option<Value> {
    let id = message.id?; // a notification: no answer
    let result = match message.method.as_str() {
        "initialize" => json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "floor", "version": "0.0.0"}
        }),
        "ping" => json!({}),
        "tools/list" => json!({"tools": [{
            "name": "add",
            "description": "Add two numbers.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The first number"},
                    "b": {"type": "integer", "description": "The second number"}
                },
                "required": ["a", "b"]
            }
        }]}),
        "tools/call" if message.params["name"] == "add" => {
            match AddArgs::deserialize(&message.params["arguments"]) {
                Ok(AddArgs { a, b }) => json!({
                    "content": [{"type": "text", "text": (a + b).to_string()}],
                    "isError": false
                }),
                Err(error) => json!({
                    "content": [{"type": "text", "text": error.to_string()}],
                    "isError": true
                }),
            }
        }
        _ => {
            return Some(json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32601, "message": "method not found"
            }}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn main() -> io::Result<()> {
    // A buffer whose content can be seen: what waits in it is read without
    // blocking, so the answers are flushed only when it is empty.
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        let reply = match serde_json::from_str::<Message>(&line) {
            Ok(message) => answer(message),
            Err(error) => Some(json!({"jsonrpc": "2.0", "id": null, "error": {
                "code": -32700, "message": error.to_string()
            }})),
        };
        if let Some(reply) = reply {
            serde_json::to_writer(&mut output, &reply)?;
            output.write_all(b"\n")?;
        }
        // Batched: one write for every answer to the requests read at once.
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}
RS

# ---- the load generator, from bench's source
cat >"$OUT/load/Cargo.toml" <<TOML
[package]
name = "mcp-load"
version = "0.0.0"
edition = "2024"
publish = false

[[bin]]
name = "mcp_load"
path = "$ROOT/bench/src/bin/mcp_load.rs"

[dependencies]
serde_json = "1"

[workspace]
TOML

servers=(ours rmcp flymcprust floor)
declare -A bin size
for crate in "${servers[@]}" load; do
    case "$crate" in
        ours | rmcp) cp "$SRC/Cargo.lock" "$OUT/$crate/Cargo.lock" ;;
    esac
    echo "== building $crate" >&2
    (cd "$OUT/$crate" && CARGO_TARGET_DIR="$TARGET" cargo build --release --quiet)
done
bin[ours]="$TARGET/release/mcp-ours"
bin[rmcp]="$TARGET/release/mcp-rmcp"
bin[flymcprust]="$TARGET/release/mcp-flymcprust"
bin[floor]="$TARGET/release/mcp-floor"
load="$TARGET/release/mcp_load"
for server in "${servers[@]}"; do
    strip -o "${bin[$server]}.stripped" "${bin[$server]}"
    size[$server]=$(stat -c %s "${bin[$server]}.stripped")
done

# ROUNDS=0: build only.
[ "$ROUNDS" -gt 0 ] || exit 0

speaks_http() { [ "$1" != floor ]; }

# Waits for a server to accept connections on $1.
wait_port() {
    for _ in $(seq 200); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "nothing listens on port $1" >&2
    return 1
}

# run CONFIG SERVER: one run, its mcp_load line appended to $OUT/results.
results="$OUT/results"
: >"$results"
run() {
    local config=$1 server=$2 line
    case "$config" in
        stdio64)
            line=$("$load" stdio --tool add --requests "$STDIO_REQUESTS" --window 64 -- "${bin[$server]}") ;;
        stdio1)
            line=$("$load" stdio --tool add --requests "$STDIO1_REQUESTS" --window 1 -- "${bin[$server]}") ;;
        http16)
            local port=$((PORT++))
            "${bin[$server]}" --http "127.0.0.1:$port" 2>>"$OUT/http-servers.log" &
            local pid=$!
            wait_port "$port"
            line=$("$load" http --tool add --requests "$HTTP_REQUESTS" --connections 16 --pid "$pid" \
                "http://127.0.0.1:$port/mcp")
            kill "$pid"
            wait "$pid" 2>/dev/null || true ;;
    esac
    echo "$config $server $line" >>"$results"
    printf '%-7s %-10s %s\n' "$config" "$server" "$line" >&2
}

echo "== $ROUNDS rounds" >&2
for round in $(seq "$ROUNDS"); do
    echo "-- round $round" >&2
    for config in stdio64 stdio1 http16; do
        for server in "${servers[@]}"; do
            if [ "$config" = http16 ] && ! speaks_http "$server"; then continue; fi
            run "$config" "$server"
        done
    done
done

sizes=""
for server in "${servers[@]}"; do sizes+="$server=${size[$server]} "; done
python3 - "$results" "$command_line" "$ours_from" $sizes <<'PY'
import statistics
import sys

results, command, ours_from = sys.argv[1], sys.argv[2], sys.argv[3]
sizes = dict(arg.split("=") for arg in sys.argv[4:])
servers = ["ours", "rmcp", "flymcprust", "floor"]
configs = [("stdio64", "stdio", "64"), ("stdio1", "stdio", "1"), ("http16", "HTTP", "16 sessions")]
runs = {}
for line in open(results):
    config, server, *fields = line.split()
    values = dict(zip(fields[0::2], fields[1::2]))
    runs.setdefault((config, server), []).append(values)


def median(config, server):
    rates = [float(v["req/s"]) for v in runs.get((config, server), [])]
    return statistics.median(rates) if rates else None


def fmt(rate):
    return "—" if rate is None else f"{rate:,.0f}"


def ratio(a, b):
    return "—" if a is None or b is None else f"{a / b:.2f}x"


rounds = max(len(v) for v in runs.values())
print()
print(f"{rounds} rounds, median requests a second:")
print()
print("| transport | in flight | ours | rmcp | flymcprust | floor | ours / rmcp | ours / flymcprust | lost / wrong |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for config, transport, flight in configs:
    m = {server: median(config, server) for server in servers}
    lost = sum(int(v["lost"]) for (c, _), vs in runs.items() if c == config for v in vs)
    wrong = sum(int(v["wrong"]) for (c, _), vs in runs.items() if c == config for v in vs)
    print(
        f"| {transport} | {flight} | {fmt(m['ours'])} | {fmt(m['rmcp'])} | {fmt(m['flymcprust'])} | "
        f"{fmt(m['floor'])} | {ratio(m['ours'], m['rmcp'])} | {ratio(m['ours'], m['flymcprust'])} | "
        f"{lost} / {wrong} |"
    )
print()
print("Peak resident memory of the server (VmHWM, the largest of its rounds) and its stripped release binary:")
print()
print("| server | stdio, 64 in flight | stdio, 1 in flight | HTTP, 16 sessions | binary, stripped |")
print("| --- | ---: | ---: | ---: | ---: |")
for server in servers:
    cells = []
    for config, _, _ in configs:
        kib = [int(v["peak_rss_kib"]) for v in runs.get((config, server), []) if "peak_rss_kib" in v]
        cells.append(f"{max(kib) / 1024:.1f} MiB" if kib else "—")
    print(f"| {server} | {' | '.join(cells)} | {int(sizes[server]) / 1024:,.0f} KiB |")
print()
print(f"Command: `{command}` (ours from {ours_from})")
PY
