#!/usr/bin/env bash
# The release binary of a one-tool MCP server over stdio, two ways: with
# tool-runtime and tool-mcp (`#[tool] fn add`, `McpServer::serve_stdio`,
# tool-mcp without its default `http` feature, which stdio does not need),
# and with rmcp alone (`#[tool_router(server_handler)]` with one `#[tool]`
# method, served with `rmcp::transport::stdio`, as rmcp's README shows), at
# the rmcp version of the workspace's lock file. Both use the same Tokio
# features and the default release profile, each in its own directory and
# target directory; each binary answers `initialize` and one `tools/call`
# before it is measured. Prints the sizes as built and stripped, and the
# ratios ours / rmcp's.
#
# A third build, `rmcp-ordered`, is the rmcp server again with serde_json's
# and schemars' `preserve_order`, which tool-runtime turns on (its schemas
# keep their properties in declaration order; without it rmcp lists them in
# alphabetical order): the same dependency features as ours, for reference.
# Its ratio is printed on a line of its own; the headline ratio is against
# plain rmcp.
#
#   scripts/binary-size.sh
#   SRC=/path/to/checkout scripts/binary-size.sh   # tool-runtime and tool-mcp from another copy
#
# Scratch crates and their target directories: target/binary-size/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# The tool each server offers, written once for both scripts.
PEERS="$ROOT/scripts/peers"
SRC="${SRC:-$ROOT}"
OUT="$ROOT/target/binary-size"
mkdir -p "$OUT/ours/src" "$OUT/rmcp/src" "$OUT/rmcp-ordered/src"

rmcp_version=$(awk '/^name = "rmcp"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$ROOT/Cargo.lock")

cat >"$OUT/ours/Cargo.toml" <<TOML
[package]
name = "ours"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
tool-runtime = { path = "$SRC/tool-runtime" }
tool-mcp = { path = "$SRC/tool-mcp", default-features = false }
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

[workspace]
TOML
{ cat "$PEERS/ours_add.rs"; cat <<'RS'; } >"$OUT/ours/src/main.rs"

use tool_mcp::server::McpServer;
use tool_runtime::Registry;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let registry = Registry::builder().global().build().expect("the tools are set up");
    McpServer::new(registry).serve_stdio().await
}
RS

cat >"$OUT/rmcp/Cargo.toml" <<TOML
[package]
name = "rmcp-server"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
rmcp = { version = "=$rmcp_version", features = ["server", "macros", "transport-io"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

[workspace]
TOML
{ cat "$PEERS/rmcp_calculator.rs"; cat <<'RS'; } >"$OUT/rmcp/src/main.rs"

use rmcp::ServiceExt;
use rmcp::transport::stdio;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Calculator.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
RS

# The same server, with the dependency features tool-runtime turns on.
sed -e 's/^name = "rmcp-server"$/name = "rmcp-ordered"/' \
    -e 's/^schemars = "1"$/schemars = { version = "1", features = ["preserve_order"] }\
serde_json = { version = "1", features = ["preserve_order"] }/' \
    "$OUT/rmcp/Cargo.toml" >"$OUT/rmcp-ordered/Cargo.toml"
cp "$OUT/rmcp/src/main.rs" "$OUT/rmcp-ordered/src/main.rs"

# Session: initialize, initialized, call add(2, 3).
session='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"size","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}'

size_of() { stat -c %s "$1"; }
kib() { echo "scale=1; $1 / 1024" | bc; }

declare -A built stripped
for crate in ours rmcp rmcp-ordered; do
    cp "$ROOT/Cargo.lock" "$OUT/$crate/Cargo.lock"
    case "$crate" in
        ours) target="$OUT/target-ours" name=ours ;;
        rmcp) target="$OUT/target-rmcp" name=rmcp-server ;;
        # Shares rmcp's target directory: only what the features change is
        # built again.
        rmcp-ordered) target="$OUT/target-rmcp" name=rmcp-ordered ;;
    esac
    (cd "$OUT/$crate" && CARGO_TARGET_DIR="$target" cargo build --release --quiet)
    bin="$target/release/$name"
    # A working server: the call's answer holds 5.
    answer=$( { printf '%s\n' "$session"; sleep 1; } | timeout 10 "$bin" 2>/dev/null | grep '"id":2' || true)
    case "$answer" in
        *'"text":"5"'*) ;;
        *) echo "$crate: no answer 5 to tools/call: $answer" >&2; exit 1 ;;
    esac
    strip -o "$bin.stripped" "$bin"
    built[$crate]=$(size_of "$bin")
    stripped[$crate]=$(size_of "$bin.stripped")
    printf '%-12s as built %8s KiB, stripped %8s KiB\n' "$crate" "$(kib "${built[$crate]}")" "$(kib "${stripped[$crate]}")"
done
printf 'rmcp %s; ours / rmcp: as built %.2fx, stripped %.2fx\n' "$rmcp_version" \
    "$(echo "${built[ours]} / ${built[rmcp]}" | bc -l)" \
    "$(echo "${stripped[ours]} / ${stripped[rmcp]}" | bc -l)"
printf 'ours / rmcp-ordered: as built %.2fx, stripped %.2fx\n' \
    "$(echo "${built[ours]} / ${built[rmcp-ordered]}" | bc -l)" \
    "$(echo "${stripped[ours]} / ${stripped[rmcp-ordered]}" | bc -l)"
