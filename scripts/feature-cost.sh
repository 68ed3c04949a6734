#!/usr/bin/env bash
# What a crate's features cost to build: the CPU time (user + system) of a
# clean debug build of a scratch crate depending on CRATE by path with
# BASE features, and what each FEATURE adds to it, with the crates it
# brings in.
#
#   scripts/feature-cost.sh CRATE_DIR 'BASE,FEATURES' FEATURE...
#   scripts/feature-cost.sh tool-runtime text-args dynamic tokens
#   scripts/feature-cost.sh tool-mcp '' http client
#
# The scratch crate stands outside the workspace (its own `[workspace]`)
# and takes a copy of the workspace's Cargo.lock, so it builds the same
# versions. The base is built clean once, in
# target/feature-cost/CRATE_DIR/base. For each feature, a copy of it is
# built again with the feature on: the crates the feature brings compile
# from nothing, and the workspace's own crates compile again (their
# fingerprints are removed first). A copy rebuilt with no feature added
# gives the second part alone, so a feature's cost is its rebuild less
# that one. Runs at low priority; the machine may be shared.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
crate_dir=$1
base=$2
shift 2
package=$(sed -n 's/^name = "\(.*\)"/\1/p' "$crate_dir/Cargo.toml" | head -1)
work=$root/target/feature-cost/$crate_dir
scratch=$work/scratch
mkdir -p "$scratch/src"
: >"$scratch/src/lib.rs"
cp Cargo.lock "$scratch/Cargo.lock"

quoted() { # "a,b" -> "a", "b"
  local list=$1 out="" item
  IFS=, read -ra items <<<"$list"
  for item in "${items[@]}"; do
    [[ -n $item ]] && out+="${out:+, }\"$item\""
  done
  printf '%s' "$out"
}

manifest() { # features
  cat >"$scratch/Cargo.toml" <<EOF
[package]
name = "feature-cost"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
$package = { path = "$root/$crate_dir", default-features = false, features = [$(quoted "$1")] }
EOF
}

# Builds the scratch crate into $1, with a user's default profile (full
# debug information, not this checkout's .cargo/config.toml); prints "CPU-seconds crate crate ...".
build() {
  local target=$1 log
  log=$(mktemp)
  (cd "$scratch" && CARGO_TARGET_DIR=$target CARGO_INCREMENTAL=0 nice -n 19 \
    /usr/bin/time -f 'cpu %U %S' cargo build -v \
      --config 'profile.dev.debug=true' --config 'profile.dev.package."*".debug=true' \
      2>"$log") || { cat "$log" >&2; exit 1; }
  local cpu
  cpu=$(awk '/^cpu /{printf "%.1f", $2 + $3}' "$log")
  local crates
  crates=$(sed -n 's/^ *Running `[^`]*--crate-name \([a-z0-9_]*\) .*/\1/p' "$log" | sort -u |
    grep -v -e '^build_script_' -e '^tool_' -e '^feature_cost$' | tr '\n' ' ' || true)
  rm -f "$log"
  printf '%s %s\n' "$cpu" "$crates"
}

rebuild() { # features -> prints like build
  manifest "$1"
  rm -rf "$work/run"
  cp -a "$work/base" "$work/run"
  rm -rf "$work"/run/debug/.fingerprint/tool-* "$work"/run/debug/.fingerprint/feature-cost-*
  build "$work/run"
}

manifest "$base"
if [[ ! -d $work/base ]]; then
  read -r cpu _ < <(build "$work/base")
  echo "$package [$base], clean: ${cpu} s CPU"
fi
read -r again _ < <(rebuild "$base")
echo "$package [$base], its workspace crates again: ${again} s CPU"
for feature in "$@"; do
  read -r cpu crates < <(rebuild "$base${base:+,}$feature")
  delta=$(awk -v a="$cpu" -v b="$again" 'BEGIN{printf "%.1f", a - b}')
  echo "+ $feature: ${delta} s CPU (${cpu} s rebuilt); compiles ${crates:-nothing more}"
done
rm -rf "$work/run"
