#!/usr/bin/env bash
# Runs the MCP client tests: the official Python MCP SDK against
# `toolbox serve` (stdio and streamable HTTP).
#
#   tests/mcp/run.sh [pytest arguments...]
#   TOOLBOX=target/debug/toolbox tests/mcp/run.sh   # test a binary built already
#
# Creates (or reuses) a virtual environment in target/mcp-venv with the
# pinned SDK, builds the toolbox binary, and runs pytest. Needs Python 3.10+
# and PyPI for the first run only. Set PYTHON to choose the interpreter.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The SDK version the tests are written against; it supports Python 3.10+.
MCP_VERSION="2.3.0"
PYTEST_VERSION="9.2.0"

venv="target/mcp-venv"
python="${PYTHON:-python3}"
stamp="$venv/.installed-mcp-$MCP_VERSION-pytest-$PYTEST_VERSION"

if [ ! -f "$stamp" ]; then
  echo "== creating $venv (mcp $MCP_VERSION)"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "mcp==$MCP_VERSION" "pytest==$PYTEST_VERSION"
  touch "$stamp"
fi

# A binary given in TOOLBOX is used as it is (say, the one `cargo test
# --workspace` just built, which saves building it again with other
# features); otherwise it is built here.
if [ -z "${TOOLBOX:-}" ]; then
  echo "== building toolbox"
  cargo build --quiet -p examples --bin toolbox
  target_dir="$(cargo metadata --format-version 1 --no-deps \
    | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
  TOOLBOX="$target_dir/debug/toolbox"
fi
export TOOLBOX

echo "== MCP client tests"
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/mcp/test_mcp_client.py "$@"
