#!/usr/bin/env bash
# Makes the pinned OAuth 2.1 authorization server of the MCP authorization
# tests (tests/mcp/auth/package.json: `oidc-provider`) available, next to the
# Node 22+ and the TypeScript SDK that tests/mcp/node.sh provides.
#
#   tests/mcp/auth/node.sh      # installs what is missing, then prints
#                               #   MCP_NODE=/abs/path/to/node
#                               #   MCP_NODE_MODULES=/abs/path/to/node_modules
#                               #   AUTH_NODE_MODULES=/abs/path/to/node_modules
#   . tests/mcp/auth/node.sh    # the same, and exports the three variables
#
# Node and the SDK come from tests/mcp/node.sh (target/mcp-node; the Node
# there is the machine's when it is 22 or newer, else npm's `node` package,
# 24.x), so nothing is installed twice. An MCP_NODE and MCP_NODE_MODULES
# already in the environment are used as they are.
#
# Packages: tests/mcp/auth/package.json and package-lock.json are copied into
# target/auth-node (AUTH_NODE_DIR overrides the folder) and installed there
# with `npm ci --ignore-scripts`; a stamp holding the files' checksum and the
# Node version skips that until either changes. They pin:
#   oidc-provider    an OpenID Certified OAuth 2.0 / OpenID Connect server
#                    (panva/node-oidc-provider), run by
#                    tests/mcp/auth/authorization-server.mjs
#
# All messages go to stderr, so stdout holds only the three lines above.

# Sourced: install in a child shell (so its options do not leak into the
# caller's), then export what it printed.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  __auth_node_out="$(bash "${BASH_SOURCE[0]}")" || return 1
  eval "$__auth_node_out"
  export MCP_NODE MCP_NODE_MODULES AUTH_NODE_MODULES
  unset __auth_node_out
  return 0
fi

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
dir="${AUTH_NODE_DIR:-$root/target/auth-node}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

log() { printf '%s\n' "$*" >&2; }
die() { log "tests/mcp/auth/node.sh: $*"; exit 1; }

# Node 22+ and the TypeScript SDK.
if [ -z "${MCP_NODE:-}" ] || [ -z "${MCP_NODE_MODULES:-}" ]; then
  eval "$(bash "$here/../node.sh")" || die "tests/mcp/node.sh failed"
fi
[ -x "$MCP_NODE" ] || die "no Node at $MCP_NODE"

# One install at a time: another run waits for this one and then finds the
# stamp in place.
exec 9>"$dir/.lock"
if command -v flock >/dev/null; then
  flock 9
fi

# The pinned packages, installed as tests/mcp/node.sh installs its own.
. "$here/../npm-ci.sh"
npm_ci_locked "$here" "$dir" "$MCP_NODE"

printf 'MCP_NODE=%q\nMCP_NODE_MODULES=%q\nAUTH_NODE_MODULES=%q\n' \
  "$MCP_NODE" "$MCP_NODE_MODULES" "$dir/node_modules"
