#!/usr/bin/env bash
# MCP Apps in headless Chromium: tests/mcp/apps/browser.test.mjs drives a
# test host page (host.html, host.mjs on ext-apps' AppBridge) that shows
# the counter view of examples/apps_server in a sandboxed iframe and calls
# the server's tools for it; see that file for what it checks. A
# screenshot goes to target/apps/counter.png.
#
#   tests/mcp/apps/run.sh
#   APPS_SERVER=target/debug/examples/apps_server tests/mcp/apps/run.sh   # a binary built already
#   APPS_RUNS=10 tests/mcp/apps/run.sh                                    # the test ten times
#
# Chromium is Debian's `chromium`, installed with apt-get when the machine
# has none (as root; CHROMIUM names another binary). Node 22+,
# puppeteer-core, esbuild and @modelcontextprotocol/ext-apps come from
# tests/mcp/node.sh (tests/mcp/package.json pins them); esbuild bundles
# host.mjs for the browser into target/apps/host.js. Exits non-zero,
# saying why, on any failure.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root="$(pwd)"

log() { printf '%s\n' "$*" >&2; }
die() {
  log "tests/mcp/apps/run.sh: $*"
  exit 1
}

# The browser: the machine's, or Debian's package installed now.
if [ -z "${CHROMIUM:-}" ]; then
  if ! CHROMIUM="$(command -v chromium)"; then
    [ "$(id -u)" = 0 ] || die "no chromium, and installing it needs root: apt-get install chromium, or set CHROMIUM"
    log "== installing chromium (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2 \
      || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2; } \
      || die "apt-get could not install chromium"
    CHROMIUM="$(command -v chromium)" || die "apt-get installed no chromium binary"
  fi
fi
export CHROMIUM

# The server: the binary given, or the example built here.
if [ -z "${APPS_SERVER:-}" ]; then
  log "== building examples/apps_server"
  cargo build --quiet -p examples --example apps_server
  APPS_SERVER="$root/target/debug/examples/apps_server"
fi
[ -x "$APPS_SERVER" ] || die "no apps_server binary at $APPS_SERVER"
export APPS_SERVER

# Node and the pinned packages: sets MCP_NODE and MCP_NODE_MODULES.
. tests/mcp/node.sh

# The host's script, bundled for the browser.
export APPS_HOST_DIR="$root/target/apps"
mkdir -p "$APPS_HOST_DIR"
"$MCP_NODE" --input-type=module -e "
  const { build } = (await import('$MCP_NODE_MODULES/esbuild/lib/main.js')).default;
  await build({
    entryPoints: ['tests/mcp/apps/host.mjs'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: '$APPS_HOST_DIR/host.js',
    nodePaths: ['$MCP_NODE_MODULES'],
    logLevel: 'warning',
  });
" || die "esbuild could not bundle tests/mcp/apps/host.mjs"

runs="${APPS_RUNS:-1}"
for run in $(seq 1 "$runs"); do
  log "== MCP Apps in $("$CHROMIUM" --version 2>/dev/null || echo chromium) (run $run of $runs)"
  "$MCP_NODE" --test --test-reporter=spec tests/mcp/apps/browser.test.mjs
done
log "== the view as the host showed it: $APPS_HOST_DIR/counter.png"
