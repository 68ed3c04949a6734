#!/usr/bin/env bash
# Makes a Python virtual environment with the pinned official MCP SDK (and
# pytest) available to the MCP tests, in target/mcp-venv.
#
#   tests/mcp/venv.sh           # creates or reuses it, then prints
#                               #   MCP_PYTHON=/abs/path/to/target/mcp-venv/bin/python
#   . tests/mcp/venv.sh         # the same, and exports MCP_PYTHON
#
# Idempotent: a stamp naming the pinned versions skips the install until they
# change. Needs Python 3.10+ (PYTHON chooses the interpreter, python3 by
# default) and PyPI for the first run only. Everything goes under target/
# (MCP_VENV_DIR overrides the folder); all messages go to stderr, so stdout
# holds only the line above. Used by tests/mcp/run.sh and by the Rust MCP
# client's tests (tool-mcp/tests/client.rs).

# Sourced: install in a child shell (so its options do not leak into the
# caller's), then export what it printed.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  __mcp_venv_out="$(bash "${BASH_SOURCE[0]}")" || return 1
  eval "$__mcp_venv_out"
  export MCP_PYTHON
  unset __mcp_venv_out
  return 0
fi

set -euo pipefail

# The SDK version the tests are written against; it supports Python 3.10+.
MCP_VERSION="2.3.0"
PYTEST_VERSION="9.2.0"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${MCP_VENV_DIR:-$root/target/mcp-venv}"
python="${PYTHON:-python3}"
stamp="$venv/.installed-mcp-$MCP_VERSION-pytest-$PYTEST_VERSION"

log() { printf '%s\n' "$*" >&2; }

mkdir -p "$(dirname "$venv")"
# One install at a time: another run waits for this one and then finds the
# stamp in place.
exec 9>"$venv.lock"
if command -v flock >/dev/null; then
  flock 9
fi

if [ ! -f "$stamp" ] || [ ! -x "$venv/bin/python" ]; then
  log "== creating $venv (mcp $MCP_VERSION)"
  "$python" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "mcp==$MCP_VERSION" "pytest==$PYTEST_VERSION" >&2
  touch "$stamp"
fi

printf 'MCP_PYTHON=%q\n' "$(cd "$venv" && pwd)/bin/python"
