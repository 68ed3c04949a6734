#!/usr/bin/env bash
# Runs the MCP client tests against `toolbox serve` (stdio and streamable
# HTTP): the official Python MCP SDK (pytest), then the official TypeScript
# MCP SDK (Node's test runner, tests/mcp/ts_client.test.mjs); then the
# official MCP conformance suite against the `conformance-server` example,
# and its client scenarios against the `conformance-client` example
# (tests/mcp/conformance.sh).
#
#   tests/mcp/run.sh [pytest arguments...]
#   TOOLBOX=target/debug/toolbox tests/mcp/run.sh   # test a binary built already
#   (CONFORMANCE_SERVER=target/debug/conformance-server and
#   CONFORMANCE_CLIENT=target/debug/conformance-client likewise)
#
# Creates (or reuses) a virtual environment in target/mcp-venv with the
# pinned Python SDK, and Node 22+ with the pinned npm packages in
# target/mcp-node (tests/mcp/node.sh); builds the toolbox binary; runs both
# suites, the second even when the first fails. Needs Python 3.10+, PyPI and
# the npm registry for the first run only (and the machine's npm when its
# Node is older than 22). Set PYTHON to choose the interpreter.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The virtual environment with the pinned Python SDK: sets MCP_PYTHON.
. tests/mcp/venv.sh
venv="$(dirname "$(dirname "$MCP_PYTHON")")"

# A binary given in TOOLBOX is used as it is (say, the one `cargo test
# --workspace` just built, which saves building it again with other
# features); otherwise it is built here.
# CONFORMANCE_SERVER and CONFORMANCE_CLIENT likewise, for the
# conformance-server and conformance-client examples.
if [ -z "${TOOLBOX:-}" ] || [ -z "${CONFORMANCE_SERVER:-}" ] || [ -z "${CONFORMANCE_CLIENT:-}" ]; then
  echo "== building toolbox, conformance-server and conformance-client"
  cargo build --quiet -p examples --bin toolbox --bin conformance-server --bin conformance-client
  target_dir="$(cargo metadata --format-version 1 --no-deps \
    | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
  TOOLBOX="${TOOLBOX:-$target_dir/debug/toolbox}"
  CONFORMANCE_SERVER="${CONFORMANCE_SERVER:-$target_dir/debug/conformance-server}"
  CONFORMANCE_CLIENT="${CONFORMANCE_CLIENT:-$target_dir/debug/conformance-client}"
fi
export TOOLBOX CONFORMANCE_SERVER CONFORMANCE_CLIENT

# Node and the TypeScript SDK: sets MCP_NODE and MCP_NODE_MODULES.
. tests/mcp/node.sh

status=0

echo "== MCP client tests: Python SDK"
export PYTHONDONTWRITEBYTECODE=1
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/mcp/test_mcp_client.py "$@" || status=$?

echo "== MCP client tests: TypeScript SDK (Node $("$MCP_NODE" --version))"
"$MCP_NODE" --test --test-reporter=spec tests/mcp/ts_client.test.mjs || status=$?

# The official conformance suite against the conformance-server example.
tests/mcp/conformance.sh || status=$?

exit "$status"
