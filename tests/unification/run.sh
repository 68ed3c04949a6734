#!/usr/bin/env bash
# Builds the `app` binary of this workspace alone (`cargo build -p app`)
# and with the whole workspace (`--workspace`, where cargo unifies the
# features `neighbour` turns on), and checks that both serve the same tools:
# `list`, `list --json` and `schema --format mcp` byte for byte, with the
# library's two tools and no built-in tool.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
# The main workspace's versions of every dependency, and its target
# directory, so nothing is fetched or built twice.
cp "$root/Cargo.lock" Cargo.lock
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

outputs() {
  local bin="$CARGO_TARGET_DIR/debug/unification-app" tag="$1"
  "$bin" list >"$out/$tag.list"
  "$bin" list --json >"$out/$tag.json"
  "$bin" schema --format mcp >"$out/$tag.mcp"
}

echo "== cargo build -p unification-app"
cargo build --quiet -p unification-app
outputs alone
echo "== cargo build --workspace"
cargo build --quiet --workspace
outputs workspace

status=0
for kind in list json mcp; do
  if ! cmp -s "$out/alone.$kind" "$out/workspace.$kind"; then
    echo "FAIL: $kind differs between the two builds:" >&2
    diff "$out/alone.$kind" "$out/workspace.$kind" >&2 || true
    status=1
  fi
done
names="$(python3 -c 'import json,sys; print(" ".join(t["name"] for t in json.load(open(sys.argv[1]))))' "$out/alone.json")"
if [ "$names" != "add greet" ]; then
  echo "FAIL: the binary serves [$names], not [add greet]" >&2
  status=1
fi
[ "$status" = 0 ] && echo "ok: the binary serves [$names], the same in both builds"
exit "$status"
