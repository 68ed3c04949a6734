#!/usr/bin/env bash
# What tool-runtime adds to a user's build: a crate with one #[tool]
# function (tool-runtime by path, serde, schemars, serde_json, tokio) against
# the same shape written with serde and schemars derives alone. Each is built
# clean in debug, RUNS times (default 3), back to back so both see the same
# load; prints each time, the medians and their ratio, and the number of
# crates in tool-runtime's normal dependency tree.
#
#   scripts/lean-core.sh                      # this checkout
#   RUNS=5 scripts/lean-core.sh
#   TOOL_RUNTIME=/path/to/tool-runtime scripts/lean-core.sh   # another copy
#
# Scratch crates and their target directories: target/lean-core/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-3}"
TOOL_RUNTIME="${TOOL_RUNTIME:-$ROOT/tool-runtime}"
OUT="$ROOT/target/lean-core"
mkdir -p "$OUT/with-tool/src" "$OUT/plain/src"

cat >"$OUT/with-tool/Cargo.toml" <<TOML
[package]
name = "with-tool"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
tool-runtime = { path = "$TOOL_RUNTIME" }
serde = { version = "1", features = ["derive"] }
schemars = "1"
serde_json = "1"
tokio = { version = "1", features = ["macros", "rt"] }

[workspace]
TOML
cat >"$OUT/with-tool/src/main.rs" <<'RS'
use tool_runtime::{tool, ToolError};

/// Add two numbers.
#[tool]
async fn add(
    /// The first number
    a: f64,
    /// The second number
    b: f64,
) -> Result<f64, ToolError> {
    Ok(a + b)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    println!("{}", serde_json::to_string(&AddTool::SPEC.name).unwrap());
    println!("{}", add(1.0, 2.0).await.unwrap());
}
RS

cat >"$OUT/plain/Cargo.toml" <<TOML
[package]
name = "plain"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
schemars = "1"
serde_json = "1"
tokio = { version = "1", features = ["macros", "rt"] }

[workspace]
TOML
cat >"$OUT/plain/src/main.rs" <<'RS'
use schemars::JsonSchema;
use serde::Deserialize;

/// Add two numbers.
#[derive(Deserialize, JsonSchema)]
struct Add {
    /// The first number
    a: f64,
    /// The second number
    b: f64,
}

async fn add(args: Add) -> Result<f64, String> {
    Ok(args.a + args.b)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let schema = schemars::schema_for!(Add);
    println!("{}", serde_json::to_string(&schema).unwrap());
    let args: Add = serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap();
    println!("{}", add(args).await.unwrap());
}
RS

# The workspace's lock file, so both crates build the versions it does.
for crate in with-tool plain; do
    cp "$ROOT/Cargo.lock" "$OUT/$crate/Cargo.lock"
    (cd "$OUT/$crate" && cargo fetch --quiet)
done

# Seconds of one clean debug build of `crate`.
build() {
    local crate="$1" target="$OUT/target-$1"
    rm -rf "$target"
    local start end
    start=$(date +%s.%N)
    (cd "$OUT/$crate" && CARGO_TARGET_DIR="$target" cargo build --quiet --offline)
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
with=() plain=()
for run in $(seq "$RUNS"); do
    w=$(build with-tool)
    p=$(build plain)
    with+=("$w") plain+=("$p")
    printf 'run %d: with tool-runtime %6.1f s, plain %6.1f s\n' "$run" "$w" "$p"
done
mw=$(printf '%s\n' "${with[@]}" | median)
mp=$(printf '%s\n' "${plain[@]}" | median)
printf 'median: with tool-runtime %.1f s, plain %.1f s, ratio %.2fx\n' "$mw" "$mp" "$(echo "$mw / $mp" | bc -l)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
crates=$(cd "$OUT/with-tool" && cargo tree --offline -p tool-runtime -e normal --prefix none | sort -u | wc -l)
echo "crates in tool-runtime's normal tree: $crates"
