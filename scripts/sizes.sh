#!/usr/bin/env bash
# Library source files stay readable: none over MAX lines (default 800).
# A longer file usually holds two concepts; split it by concept (see
# docs/architecture.md), not by line count. Checks every `tool-*/src/**/*.rs`
# except files under a `tests/` folder (tests, benches and generated
# snapshots are not library sources); prints each file over the limit with
# its length. Then scripts/fn_sizes.py does the same for functions: none
# over FN_MAX lines (default 150). Last, `Registry`'s inherent methods stay
# in at most three files of tool-runtime-core (its constructors and reads,
# its calls, its renderings), so a reader finds them. Exits 1 if any check
# fails.
#
#   scripts/sizes.sh
#   MAX=600 FN_MAX=120 scripts/sizes.sh
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

status=0
if ((offenders > 0)); then
  printf '%d library file(s) over %d lines: split each by concept\n' "$offenders" "$MAX" >&2
  status=1
else
  echo "every library file is at most $MAX lines"
fi

MAX="${FN_MAX:-150}" python3 scripts/fn_sizes.py || status=1

mapfile -t registry_files < <(grep -rl '^impl Registry {' tool-runtime-core/src | sort)
if ((${#registry_files[@]} > 3)); then
  printf "Registry's inherent methods are in %d files, more than 3: %s\n" \
    "${#registry_files[@]}" "${registry_files[*]}" >&2
  status=1
else
  echo "Registry's inherent methods are in ${#registry_files[@]} files"
fi
exit "$status"
