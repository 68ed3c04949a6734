#!/usr/bin/env bash
# Compile time of 50 and 200 tools written with #[tool], by hand, and with
# rmcp's macros. Generates the crates under /tmp/toolbench (override with
# --dir); prints a markdown table. Options: see scripts/build_times.py --help.
# Runs at low priority: it builds for several minutes on a shared machine
# (about 7 minutes on 2 cores from a cold scratch directory).
set -euo pipefail
# Paths given as options (--json, --dir) are relative to the caller's
# directory, so stay in it.
exec nice -n 19 python3 "$(dirname "$0")/build_times.py" "$@"
