#!/usr/bin/env bash
# Library source files stay readable: none over MAX lines (default 800).
# A longer file usually holds two concepts; split it by concept (see
# docs/architecture.md), not by line count. Checks every `tool-*/src/**/*.rs`
# except files under a `tests/` folder (tests, benches and generated
# snapshots are not library sources); prints each file over the limit with
# its length and exits 1 if there is one.
#
#   scripts/sizes.sh
#   MAX=600 scripts/sizes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MAX="${MAX:-800}"

offenders=0
while IFS= read -r -d '' file; do
  lines=$(wc -l <"$file")
  if ((lines > MAX)); then
    printf '%s: %d lines, more than %d\n' "$file" "$lines" "$MAX"
    offenders=$((offenders + 1))
  fi
done < <(find tool-*/src -name '*.rs' -not -path '*/tests/*' -print0 | sort -z)

if ((offenders > 0)); then
  printf '%d library file(s) over %d lines: split each by concept\n' "$offenders" "$MAX" >&2
  exit 1
fi
echo "every library file is at most $MAX lines"
