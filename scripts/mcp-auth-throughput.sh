#!/usr/bin/env bash
# What asking for access tokens costs an MCP server over streamable HTTP.
# The one-tool server of scripts/mcp-throughput.sh (`#[tool] fn add`,
# tool-mcp's `serve_http_with`), built in release with tool-mcp's `auth`
# feature, is served two ways in every round:
#
#   anonymous   no token asked for
#   protected   an OAuth resource server (`HttpOptions::resource_server`) of
#               the pinned authorization server of tests/mcp/auth
#               (oidc-provider, tests/mcp/auth/node.sh), every request
#               carrying one RS256 JWT access token got by the
#               client-credentials grant before the run
#
# and driven by bench's `mcp_load http --tool add` with 16 connections, each
# its own MCP session making one call at a time. ROUNDS rounds (6 by
# default), the two servers in turn, the first of them alternating; prints
# every run, each server's median and the ratio of the medians.
#
#   scripts/mcp-auth-throughput.sh
#   ROUNDS=4 HTTP_REQUESTS=20000 scripts/mcp-auth-throughput.sh
#   SRC=/path/to/checkout scripts/mcp-auth-throughput.sh   # the crates of another copy
#
# Scratch crates in target/mcp-peers/ (ours-auth, load), built into the
# target directory scripts/mcp-throughput.sh uses, with the workspace's lock
# file.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="${SRC:-$ROOT}"
OUT="$ROOT/target/mcp-peers"
TARGET="$OUT/target"
ROUNDS="${ROUNDS:-6}"
HTTP_REQUESTS="${HTTP_REQUESTS:-30000}"
PORT="${PORT:-18990}"
command_line="ROUNDS=$ROUNDS HTTP_REQUESTS=$HTTP_REQUESTS scripts/mcp-auth-throughput.sh"
mkdir -p "$OUT"/{ours-auth,load}/src

cat >"$OUT/ours-auth/Cargo.toml" <<TOML
[package]
name = "mcp-ours-auth"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
tool-runtime = { path = "$SRC/tool-runtime" }
tool-mcp = { path = "$SRC/tool-mcp", default-features = false, features = ["http", "auth"] }
tokio = { version = "1", features = ["macros", "rt-multi-thread", "net"] }

[workspace]
TOML
{ cat "$ROOT/scripts/peers/ours_add.rs"; cat <<'RS'; } >"$OUT/ours-auth/src/main.rs"

use tool_mcp::auth::ResourceServer;
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::{Registry, context::CancellationToken};

/// `--http ADDR [ISSUER]`: anonymous, or a resource server of ISSUER whose
/// tokens name http://ADDR/mcp.
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().linked(tool_runtime::registry::Linked::all()).build()?;
    let args: Vec<String> = std::env::args().collect();
    let listener = tokio::net::TcpListener::bind(&args[2]).await?;
    let mut options = HttpOptions::new();
    if let Some(issuer) = args.get(3) {
        let resource = format!("http://{}/mcp", listener.local_addr()?);
        options = options.resource_server(ResourceServer::builder(issuer, resource).build()?);
    }
    McpServer::new(registry)
        .serve_http_with(listener, options, CancellationToken::new())
        .await?;
    Ok(())
}
RS

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

cp "$SRC/Cargo.lock" "$OUT/ours-auth/Cargo.lock"
for crate in ours-auth load; do
    echo "== building $crate" >&2
    (cd "$OUT/$crate" && CARGO_TARGET_DIR="$TARGET" cargo build --release --quiet)
done
server="$TARGET/release/mcp-ours-auth"
load="$TARGET/release/mcp_load"

# The authorization server, and a token for each port the protected server
# will listen on (its resource, the token's audience).
. "$ROOT/tests/mcp/auth/node.sh"
as_out="$(mktemp)"
"$MCP_NODE" "$ROOT/tests/mcp/auth/authorization-server.mjs" --ttl 86400 >"$as_out" 2>/dev/null &
as_pid=$!
trap 'kill "$as_pid" 2>/dev/null || true; rm -f "$as_out"' EXIT
for _ in $(seq 100); do [ -s "$as_out" ] && break; sleep 0.1; done
issuer="$("$MCP_NODE" -e 'process.stdout.write(JSON.parse(process.argv[1]).issuer)' "$(head -n 1 "$as_out")")"
token_for() {
    "$MCP_NODE" -e '
      const [issuer, resource] = process.argv.slice(1);
      const body = new URLSearchParams({ grant_type: "client_credentials", resource });
      const auth = Buffer.from("mcp-m2m:mcp-m2m-secret").toString("base64");
      fetch(`${issuer}/token`, { method: "POST", headers: { authorization: `Basic ${auth}` }, body })
        .then((r) => r.json()).then((t) => process.stdout.write(t.access_token));' "$issuer" "$1"
}

wait_port() {
    for _ in $(seq 200); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "nothing listens on port $1" >&2
    return 1
}

results="$OUT/auth-results"
: >"$results"
run() {
    local kind=$1 port=$((PORT++)) pid line
    if [ "$kind" = protected ]; then
        MCP_LOAD_TOKEN="$(token_for "http://127.0.0.1:$port/mcp")"
        export MCP_LOAD_TOKEN
        "$server" --http "127.0.0.1:$port" "$issuer" &
    else
        "$server" --http "127.0.0.1:$port" &
    fi
    pid=$!
    wait_port "$port"
    local bearer=()
    [ "$kind" = protected ] && bearer=(--bearer-env MCP_LOAD_TOKEN)
    line=$("$load" http --tool add --requests "$HTTP_REQUESTS" --connections 16 --pid "$pid" \
        "${bearer[@]}" "http://127.0.0.1:$port/mcp")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    echo "$kind $line" >>"$results"
    printf '%-10s %s\n' "$kind" "$line" >&2
}

echo "== $ROUNDS rounds" >&2
for round in $(seq "$ROUNDS"); do
    if [ $((round % 2)) = 1 ]; then order=(anonymous protected); else order=(protected anonymous); fi
    for kind in "${order[@]}"; do run "$kind"; done
done

python3 - "$results" "$command_line" <<'PY'
import statistics
import sys

results, command = sys.argv[1], sys.argv[2]
rates = {}
lost = wrong = 0
for line in open(results):
    kind, *fields = line.split()
    values = dict(zip(fields[0::2], fields[1::2]))
    rates.setdefault(kind, []).append(float(values["req/s"]))
    lost += int(values["lost"])
    wrong += int(values["wrong"])
anonymous = statistics.median(rates["anonymous"])
protected = statistics.median(rates["protected"])
print()
print(f"{len(rates['anonymous'])} rounds, median calls a second over HTTP, 16 sessions:")
print(f"  anonymous  {anonymous:,.0f}  (runs: {', '.join(f'{r:,.0f}' for r in rates['anonymous'])})")
print(f"  protected  {protected:,.0f}  (runs: {', '.join(f'{r:,.0f}' for r in rates['protected'])})")
print(f"  a protected call costs {anonymous / protected:.3f}x an anonymous one; lost {lost}, wrong {wrong}")
print(f"Command: `{command}`")
PY
