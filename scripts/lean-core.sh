#!/usr/bin/env bash
# What tool-runtime adds to a user's build: a crate with one #[tool]
# function (tool-runtime, serde, schemars, serde_json, tokio) against the same
# shape written with serde and schemars derives alone. Each is built clean in
# debug, RUNS times (default 3), back to back so both see the same load;
# prints each run's times and ratio, the median times and the median of the
# runs' ratios, the CPU time (user + system, which the machine's load moves far
# less than the wall-clock time) and its ratio, and the number of crates in
# tool-runtime's normal dependency tree.
#
# By default the crate gets tool-runtime as a user does from a registry:
# `cargo package` packs tool-runtime-macros, tool-runtime-core and tool-runtime, and a
# local registry serves them, so cargo builds them like any registry
# dependency (no incremental compilation, lints capped). FROM=path depends on
# the checkout by path instead, as a crate inside a workspace would: cargo
# then compiles them incrementally and runs every lint, which costs more.
#
#   scripts/lean-core.sh                      # this checkout, as from a registry
#   RUNS=5 scripts/lean-core.sh
#   FROM=path scripts/lean-core.sh            # by path
#   CHECKOUT=/path/to/checkout scripts/lean-core.sh   # another copy
#
# Scratch crates, the packed crates, the local registries and the target
# directories: target/lean-core/. Cargo keeps its copy of each registry's
# crates under $CARGO_HOME/registry, one small directory per packed state.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-3}"
CHECKOUT="$(cd "${CHECKOUT:-$ROOT}" && pwd)"
FROM="${FROM:-registry}"
OUT="$ROOT/target/lean-core"
mkdir -p "$OUT/with-tool/src" "$OUT/plain/src"

case "$FROM" in
path)
    dependency="{ path = \"$CHECKOUT/tool-runtime\" }"
    rm -rf "$OUT/with-tool/.cargo"
    ;;
registry)
    # Pack the crates tool-runtime is made of (tool-runtime-core only
    # where the checkout has it). Packing them together lets cargo resolve
    # the ones not yet published against each other.
    packages=()
    for crate in tool-macros tool-runtime-core tool-runtime; do
        manifest="$CHECKOUT/$crate/Cargo.toml"
        [ -f "$manifest" ] || continue
        # The folder's package (tool-macros holds tool-runtime-macros).
        packages+=(-p "$(sed -n 's/^name = "\(.*\)"$/\1/p' "$manifest" | head -n 1)")
    done
    rm -rf "$OUT/package"
    (cd "$CHECKOUT" && cargo package --quiet --no-verify --allow-dirty \
        --target-dir "$OUT/package" "${packages[@]}")
    packed="$OUT/package/package"
    # A registry per packed state: cargo caches a registry's crates by name
    # and version, so a changed crate needs a registry of its own.
    sum=$(cat "$packed"/*.crate | sha256sum | cut -c1-16)
    registry="$OUT/registry/$sum"
    if [ ! -d "$registry/index/.git" ]; then
        rm -rf "$registry"
        mkdir -p "$registry/index"
        cp "$packed"/*.crate "$registry/"
        # `cargo package` wrote an index of the packed crates for its own
        # resolution, with every dependency on crates.io; here the packed
        # crates come from this registry and the rest from crates.io.
        python3 - "$packed/tmp-registry/index" "$registry" <<'PY'
import json, os, sys

source, registry = sys.argv[1], sys.argv[2]
entries = {}
for folder, _, files in os.walk(source):
    for name in files:
        with open(os.path.join(folder, name)) as f:
            entries[name] = [json.loads(line) for line in f if line.strip()]
if not entries:
    sys.exit(f"no index entries under {source}")
for name, versions in entries.items():
    for version in versions:
        for dep in version["deps"]:
            if dep["name"] in entries:
                dep.pop("registry", None)
    # The index layout: 1/, 2/, 3/<first letter>/, then ab/cd/.
    prefix = (
        [str(len(name))] if len(name) < 3
        else ["3", name[0]] if len(name) == 3
        else [name[:2], name[2:4]]
    )
    folder = os.path.join(registry, "index", *prefix)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w") as f:
        f.writelines(json.dumps(v) + "\n" for v in versions)
with open(os.path.join(registry, "index", "config.json"), "w") as f:
    json.dump({"dl": "file://" + registry + "/{crate}-{version}.crate"}, f)
PY
        # A registry's index on disk is read as a git repository.
        git -C "$registry/index" init --quiet
        git -C "$registry/index" add --all
        git -C "$registry/index" -c user.name=lean-core -c user.email=lean-core@localhost \
            commit --quiet --message index
    fi
    dependency='{ version = "*", registry = "lean-core" }'
    mkdir -p "$OUT/with-tool/.cargo"
    cat >"$OUT/with-tool/.cargo/config.toml" <<TOML
[registries.lean-core]
index = "file://$registry/index"
TOML
    ;;
*)
    echo "FROM is path or registry, not \`$FROM\`" >&2
    exit 2
    ;;
esac

# manifest NAME [DEPENDENCY]: the crate's manifest, with the dependencies both
# crates share, and DEPENDENCY (a line) before them.
manifest() {
    cat >"$OUT/$1/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
${2:+$2
}serde = { version = "1", features = ["derive"] }
schemars = "1"
serde_json = "1"
tokio = { version = "1", features = ["macros", "rt"] }

[workspace]
TOML
}

manifest with-tool "tool-runtime = $dependency"
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

manifest plain
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
    cp "$CHECKOUT/Cargo.lock" "$OUT/$crate/Cargo.lock"
    (cd "$OUT/$crate" && cargo fetch --quiet)
done

# "wall cpu": seconds of one clean debug build of `crate`, elapsed and
# user + system of cargo and the compilers it ran.
build() {
    local crate="$1" target="$OUT/target-$1"
    rm -rf "$target"
    local TIMEFORMAT='%R %U %S' times
    # `time` reports on this block's stderr; cargo's own goes to ours (fd 3).
    # A user's default profile (full debug information), not this
    # checkout's (.cargo/config.toml), which would apply under target/.
    times=$({ time (cd "$OUT/$crate" && CARGO_TARGET_DIR="$target" cargo build --quiet --offline \
        --config 'profile.dev.debug=true' --config 'profile.dev.package."*".debug=true' 2>&3); } 3>&2 2>&1) || return 1
    echo "$times" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
with=() plain=() ratios=() with_cpu=() plain_cpu=()
for run in $(seq "$RUNS"); do
    times=$(build with-tool)
    read -r w wc <<<"$times"
    times=$(build plain)
    read -r p pc <<<"$times"
    with+=("$w") plain+=("$p") with_cpu+=("$wc") plain_cpu+=("$pc")
    r=$(echo "$w / $p" | bc -l)
    ratios+=("$r")
    printf 'run %d: with tool-runtime %6.1f s (CPU %6.1f s), plain %6.1f s (CPU %6.1f s), ratio %.2fx\n' \
        "$run" "$w" "$wc" "$p" "$pc" "$r"
done
mw=$(printf '%s\n' "${with[@]}" | median)
mp=$(printf '%s\n' "${plain[@]}" | median)
mr=$(printf '%s\n' "${ratios[@]}" | median)
mwc=$(printf '%s\n' "${with_cpu[@]}" | median)
mpc=$(printf '%s\n' "${plain_cpu[@]}" | median)
printf 'median: with tool-runtime %.1f s, plain %.1f s; median of the runs'"'"' ratios %.2fx\n' "$mw" "$mp" "$mr"
printf 'median CPU time: with tool-runtime %.1f s, plain %.1f s, ratio %.2fx\n' "$mwc" "$mpc" "$(echo "$mwc / $mpc" | bc -l)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
crates=$(cd "$OUT/with-tool" && cargo tree --offline -p tool-runtime -e normal --prefix none | sort -u | wc -l)
echo "crates in tool-runtime's normal tree: $crates"
