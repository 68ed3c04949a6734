#!/usr/bin/env bash
# The MCP server as an OAuth 2.1 resource server, end to end: the pinned
# authorization server (tests/mcp/auth/authorization-server.mjs,
# oidc-provider) issues JWT access tokens by the client-credentials grant,
# the example resource server (examples/protected_server, tool-mcp's `auth`
# feature) checks them, and the TypeScript SDK v2 client
# (tests/mcp/auth/client-credentials.mjs) discovers it all from the 401
# challenge, gets a token, lists the tools and calls one, in both protocol
# modes (legacy `initialize`, revision 2026-07-28). Then a server needing a
# scope the authorization server does not grant: the client steps up once
# on the 403 `insufficient_scope` (a second token request with the scopes
# the challenge names), gets a 403 again and gives up.
#
#   tests/mcp/auth/run.sh
#
# PROTECTED_SERVER names the example's binary (built with cargo otherwise,
# into CARGO_TARGET_DIR or target/). Logs go to a temporary folder, printed
# on failure.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"

. tests/mcp/auth/node.sh

if [ -z "${PROTECTED_SERVER:-}" ]; then
  cargo build --quiet -p examples --example protected_server
  PROTECTED_SERVER="${CARGO_TARGET_DIR:-$root/target}/debug/examples/protected_server"
fi

logs="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$logs"
}
trap cleanup EXIT
fail() {
  echo "tests/mcp/auth/run.sh: FAILED: $*" >&2
  for log in "$logs"/*; do echo "== $log" >&2; tail -n 40 "$log" >&2; done
  exit 1
}

# Starts "$@" in the background as NAME, stdout to $logs/NAME.out, and
# waits for its first line (JSON), which `line NAME` then prints.
start() {
  local name="$1"; shift
  "$@" >"$logs/$name.out" 2>"$logs/$name.err" </dev/null &
  local pid="$!"
  pids+=("$pid")
  for _ in $(seq 1 200); do
    if [ -s "$logs/$name.out" ]; then return 0; fi
    kill -0 "$pid" 2>/dev/null || fail "$name exited"
    sleep 0.1
  done
  fail "$name did not start"
}
line() { head -n 1 "$logs/$1.out"; }
field() { "$MCP_NODE" -e 'process.stdout.write(String(JSON.parse(process.argv[1])[process.argv[2]]))' "$1" "$2"; }

start as "$MCP_NODE" tests/mcp/auth/authorization-server.mjs --scopes "tools:read tools:call"
as_line="$(line as)"
issuer="$(field "$as_line" issuer)"
start rs "$PROTECTED_SERVER" "$issuer" "tools:call"
rs_line="$(line rs)"
url="$(field "$rs_line" url)"
echo "authorization server $issuer, resource server $url"

for mode in legacy 2026-07-28; do
  out="$("$MCP_NODE" tests/mcp/auth/client-credentials.mjs "$url" whoami '{}' \
    --issuer "$issuer" --mode "$mode" 2>"$logs/client-$mode.err")" || fail "$mode: $out"
  ok="$(field "$out" ok)"
  [ "$ok" = true ] || fail "$mode: $out"
  case "$out" in
    *'\"client_id\":\"mcp-m2m\"'*'tools:call'*) ;;
    *) fail "$mode: the tool did not see the caller: $out" ;;
  esac
  grep -q '"status":401' "$logs/client-$mode.err" || fail "$mode: no 401 challenge"
  grep -q 'resource_metadata=' "$logs/client-$mode.err" || fail "$mode: no resource_metadata"
  grep -q '"grant_type":"client_credentials"' "$logs/client-$mode.err" || fail "$mode: no token request"
  echo "ok: $mode: discovered, authorized, listed and called"
done

# A scope the authorization server does not grant: step-up once, then a
# 403 the client reports.
start rs2 "$PROTECTED_SERVER" "$issuer" "tools:call tools:admin"
rs2_line="$(line rs2)"
url2="$(field "$rs2_line" url)"
if out="$("$MCP_NODE" tests/mcp/auth/client-credentials.mjs "$url2" whoami '{}' \
  --issuer "$issuer" --mode legacy 2>"$logs/client-stepup.err")"; then
  fail "step-up: a token without tools:admin was accepted: $out"
fi
forbidden="$(grep -c '"status":403' "$logs/client-stepup.err" || true)"
tokens="$(grep -c '"grant_type":"client_credentials"' "$logs/client-stepup.err" || true)"
grep -q 'insufficient_scope' "$logs/client-stepup.err" || fail "step-up: no insufficient_scope challenge"
[ "$forbidden" = 2 ] || fail "step-up: $forbidden answers 403, not 2"
[ "$tokens" = 2 ] || fail "step-up: $tokens token requests, not 2"
echo "ok: step-up: 403 insufficient_scope, one more token request, then the client gives up"
