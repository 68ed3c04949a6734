#!/usr/bin/env bash
# The public surface of each published crate, recorded in api/CRATE.txt (one
# item a line, by scripts/public_api.py from rustdoc's JSON output, every
# feature on as the workspace builds it). With --check, fails when the
# surface differs from the record, printing the difference: a change of the
# public API is made on purpose, by running this script and committing what
# it writes.
#
#   scripts/public-api.sh            # writes api/
#   scripts/public-api.sh --check    # compares with api/
set -euo pipefail
cd "$(dirname "$0")/.."
crates=(tool-runtime-macros tool-runtime-core tool-runtime tool-tasks tool-manifest tool-tokens
  tool-builtin tool-mcp tool-cli tool-adapters)
packages=()
for crate in "${crates[@]}"; do packages+=(-p "$crate"); done
RUSTDOC="$PWD/scripts/rustdoc-json" RUSTDOCFLAGS="-Z unstable-options --output-format json --document-hidden-items" \
  cargo doc --quiet --no-deps --all-features "${packages[@]}"
libs=()
for crate in "${crates[@]}"; do libs+=("${crate//-/_}"); done
if [ "${1:-}" = "--check" ]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
  scripts/public_api.py --write "$out" "${libs[@]}"
  if ! diff -ru api "$out"; then
    echo "The public API above differs from the record in api/. If the change is" >&2
    echo "meant, run scripts/public-api.sh and commit api/." >&2
    exit 1
  fi
else
  rm -rf api
  scripts/public_api.py --write api "${libs[@]}"
  wc -l api/*.txt
fi
