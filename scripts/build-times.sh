#!/usr/bin/env bash
# Compile time of 50 and 200 tools written with #[tool], by hand, and with
# rmcp's macros. Generates the crates under /tmp/toolbench (override with
# --dir); prints a markdown table. Options: see scripts/build_times.py --help.
# Runs at low priority: it builds for several minutes on a shared machine.
set -euo pipefail
cd "$(dirname "$0")"
exec nice -n 19 python3 build_times.py "$@"
