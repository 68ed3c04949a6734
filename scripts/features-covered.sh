#!/usr/bin/env bash
# Every feature of each published crate is on in the workspace's own build
# (its examples, tests and benches name them), so that the lint, docs and
# test steps build each crate with all its features together; .ci/run's
# features step then checks each feature alone and none.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while read -r name manifest; do
    declared=$(python3 -c 'import sys, tomllib
print("\n".join(sorted(tomllib.load(open(sys.argv[1], "rb")).get("features", {}))))' "$manifest")
    enabled=$(cargo tree --quiet -e features --workspace -i "$name" --prefix none |
        sed -n "s/^$name feature \"\([^\"]*\)\".*/\1/p" | sort -u)
    missing=$(comm -23 <(printf '%s\n' "$declared" | sed '/^$/d') <(printf '%s\n' "$enabled" | sed '/^$/d'))
    if [ -n "$missing" ]; then
        echo "$name: the workspace's build never turns on: $(echo $missing)" >&2
        echo "  (name them in examples/, tests/ or bench/'s Cargo.toml)" >&2
        status=1
    fi
done < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p.get("publish") != []:
        print(p["name"], p["manifest_path"])')
exit $status
