#!/usr/bin/env bash
# The MCP server as an OAuth 2.1 resource server, end to end, against the
# pinned authorization server (tests/mcp/auth/authorization-server.mjs,
# oidc-provider, installed into target/auth-node by tests/mcp/auth/node.sh)
# and the TypeScript SDK v2's client (tests/mcp/auth/client-credentials.mjs,
# its ClientCredentialsProvider):
#
#  1. examples/protected_server (tool-mcp's `auth` feature): the client
#     discovers it all from the 401 challenge and the protected resource
#     metadata, gets a JWT access token by the client-credentials grant,
#     lists the tools and calls one, in both protocol revisions: 2025-11-25
#     (`initialize`) and 2026-07-28 (`server/discover`, no session).
#  2. A server needing a scope the authorization server does not grant:
#     the client steps up once on the 403 `insufficient_scope` (a second
#     token request with the scopes the challenge names), gets a 403 again
#     and gives up.
#  3. `toolbox serve --http` made a resource server by its --auth-* flags:
#     the same client, a JWT token, revision 2025-11-25; then with
#     introspection (--auth-client-id, the secret from the environment)
#     and an authorization server that issues opaque tokens, revision
#     2026-07-28.
#  4. Key rotation (tests/mcp/auth/key-rotation.mjs): the authorization
#     server signs with a new key; the resource server takes its tokens
#     without a restart, and refuses the old key's once it is withdrawn and
#     the server's JWKS (1 s lifetime here) has been fetched again.
#  5. `toolbox serve` (stdio) as a proxy of a protected `toolbox serve
#     --http` (opaque tokens, introspected, 2 s lifetime): the registry
#     file's `mcp_servers` entry has `auth` (client credentials, the secret
#     a `${VAR}` of the proxy's environment). A stdio client
#     (tests/mcp/auth/proxy-client.mjs) sees the upstream's tools, calls
#     one, waits past the token's expiry and calls again: the upstream
#     refuses the expired token (401), the proxy gets a new one and the
#     call succeeds; the authorization server issued a second token, and
#     the secret shows in no output of the proxy.
#
#   tests/mcp/auth/run.sh
#
# PROTECTED_SERVER and TOOLBOX name the binaries to test (built with cargo
# otherwise, into CARGO_TARGET_DIR or target/). Logs go to a temporary
# folder, printed on failure.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"

. tests/mcp/auth/node.sh

target="${CARGO_TARGET_DIR:-$root/target}"
if [ -z "${PROTECTED_SERVER:-}" ]; then
  cargo build --quiet -p examples --example protected_server
  PROTECTED_SERVER="$target/debug/examples/protected_server"
fi
if [ -z "${TOOLBOX:-}" ]; then
  cargo build --quiet -p examples --bin toolbox
  TOOLBOX="$target/debug/toolbox"
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

# start NAME FILE CMD...: starts CMD in the background as NAME, stdout to
# $logs/NAME.out and stderr to $logs/NAME.err, and waits until FILE (out or
# err) has a line, which `line NAME FILE` then prints.
start() {
  local name="$1" file="$2"; shift 2
  "$@" >"$logs/$name.out" 2>"$logs/$name.err" </dev/null &
  local pid="$!"
  pids+=("$pid")
  for _ in $(seq 1 200); do
    if [ -s "$logs/$name.$file" ]; then return 0; fi
    kill -0 "$pid" 2>/dev/null || fail "$name exited"
    sleep 0.1
  done
  fail "$name did not start"
}
line() { head -n 1 "$logs/$1.$2"; }
field() { "$MCP_NODE" -e 'process.stdout.write(String(JSON.parse(process.argv[1])[process.argv[2]]))' "$1" "$2"; }

# client NAME URL TOOL ARGS ISSUER MODE: the SDK's client-credentials
# client against URL in protocol MODE, calling TOOL with ARGS; checks that
# it was challenged, read the protected resource metadata, got a token, and
# made every MCP request in MODE's revision (2025-11-25 in legacy mode);
# prints its result line.
client() {
  local name="$1" url="$2" tool="$3" args="$4" issuer="$5" mode="$6" out revision
  local log="$logs/client-$name.err"
  out="$("$MCP_NODE" tests/mcp/auth/client-credentials.mjs "$url" "$tool" "$args" \
    --issuer "$issuer" --mode "$mode" 2>"$log")" || fail "$name: $out"
  [ "$(field "$out" ok)" = true ] || fail "$name: $out"
  grep -q '"status":401' "$log" || fail "$name: no 401 challenge"
  grep -q 'resource_metadata=' "$log" || fail "$name: no resource_metadata in the challenge"
  grep -q '"http":"GET [^"]*/.well-known/oauth-protected-resource/mcp","[^}]*"status":200' "$log" \
    || fail "$name: the protected resource metadata was not read"
  grep -q '"grant_type":"client_credentials"' "$log" || fail "$name: no token request"
  case "$mode" in legacy) revision=2025-11-25 ;; *) revision="$mode" ;; esac
  grep '"jsonrpc":"tools/call"' "$log" | grep -q "protocol\":\"$revision\"" \
    || fail "$name: tools/call was not made in revision $revision"
  # Every MCP message in it (the SDK's metadata requests name 2025-11-25
  # whatever the mode).
  if grep '"jsonrpc"' "$log" | grep -o 'protocol":"[^"]*"' | grep -v "\"$revision\"" >/dev/null; then
    fail "$name: an MCP request in another revision than $revision"
  fi
  printf '%s\n' "$out"
}

# toolbox NAME FLAGS...: `toolbox serve --http 127.0.0.1:0 FLAGS...`;
# sets toolbox_url once it serves.
toolbox() {
  local name="$1"; shift
  start "$name" err "$TOOLBOX" serve --http 127.0.0.1:0 "$@"
  for _ in $(seq 1 50); do
    toolbox_url="$(sed -n 's/^serving MCP over .* at //p' "$logs/$name.err" | head -n 1)"
    if [ -n "$toolbox_url" ]; then return 0; fi
    sleep 0.1
  done
  fail "$name did not say where it serves"
}

start as out "$MCP_NODE" tests/mcp/auth/authorization-server.mjs --scopes "tools:read tools:call"
issuer="$(field "$(line as out)" issuer)"
start rs out "$PROTECTED_SERVER" "$issuer" "tools:call"
url="$(field "$(line rs out)" url)"
echo "authorization server $issuer, resource server $url"

# 1. Both revisions.
for mode in legacy 2026-07-28; do
  out="$(client "protected-$mode" "$url" whoami '{}' "$issuer" "$mode")"
  case "$out" in
    *'"tools":["add","whoami"]'*'\"client_id\":\"mcp-m2m\"'*'tools:call'*) ;;
    *) fail "$mode: the tools were not listed, or the tool did not see the caller: $out" ;;
  esac
  echo "ok: $mode: discovered, authorized, listed and called"
done

# 2. A scope the authorization server does not grant: step-up once, then a
# 403 the client reports.
start rs2 out "$PROTECTED_SERVER" "$issuer" "tools:call tools:admin"
url2="$(field "$(line rs2 out)" url)"
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

# 2b. A tool's own scope the first token lacks: 403 naming it, a token with
# it, and the call goes through.
start as-notes out "$MCP_NODE" tests/mcp/auth/authorization-server.mjs --scopes "tools:call notes:write"
notes_issuer="$(field "$(line as-notes out)" issuer)"
start rs-notes out "$PROTECTED_SERVER" "$notes_issuer" "tools:call"
notes_url="$(field "$(line rs-notes out)" url)"
for mode in legacy 2026-07-28; do
  out="$("$MCP_NODE" tests/mcp/auth/client-credentials.mjs "$notes_url" write_note '{"text":"hi"}' \
    --issuer "$notes_issuer" --mode "$mode" --step-up notes:write 2>"$logs/client-notes-$mode.err")" \
    || fail "a tool's scope, step-up ($mode): $out"
  echo "ok: $mode: a tool's own scope: 403 naming notes:write, stepped up, called"
done

# 3. toolbox's flags: JWT access tokens; then opaque ones, introspected.
convert='{"value":3,"from":"metre","to":"metre"}'
toolbox toolbox --auth-issuer "$issuer" --auth-scope tools:call
out="$(client toolbox "$toolbox_url" convert_length "$convert" "$issuer" legacy)"
case "$out" in *'3 metre = 3.0000 metre'*) ;; *) fail "toolbox: $out" ;; esac
echo "ok: toolbox serve --http --auth-issuer: JWT access token, revision 2025-11-25"

start as-opaque out "$MCP_NODE" tests/mcp/auth/authorization-server.mjs \
  --scopes "tools:call" --token-format opaque
opaque_issuer="$(field "$(line as-opaque out)" issuer)"
# The secret reaches toolbox through its environment, never a flag.
export AS_RS_SECRET=mcp-resource-server-secret
toolbox toolbox-introspect --auth-issuer "$opaque_issuer" --auth-scope tools:call \
  --auth-client-id mcp-resource-server --auth-client-secret-env AS_RS_SECRET
out="$(client toolbox-introspect "$toolbox_url" convert_length "$convert" "$opaque_issuer" 2026-07-28)"
case "$out" in *'3 metre = 3.0000 metre'*) ;; *) fail "toolbox with introspection: $out" ;; esac
grep -q '"request":"POST /token/introspection","status":200' "$logs/as-opaque.err" \
  || fail "toolbox with introspection: no token was introspected"
echo "ok: toolbox serve --http --auth-client-id: opaque token introspected, revision 2026-07-28"

# 4. Key rotation.
start as-rotating out "$MCP_NODE" tests/mcp/auth/authorization-server.mjs \
  --scopes "tools:call" --key-rotation
rotating_issuer="$(field "$(line as-rotating out)" issuer)"
start rs-rotating out env JWKS_CACHE_MS=1000 MIN_REFETCH_MS=0 \
  "$PROTECTED_SERVER" "$rotating_issuer" "tools:call"
rotating_url="$(field "$(line rs-rotating out)" url)"
out="$("$MCP_NODE" tests/mcp/auth/key-rotation.mjs "$rotating_url" --issuer "$rotating_issuer" \
  --scope tools:call --settle-ms 1500 2>"$logs/rotation.err")" || fail "key rotation: $out"
echo "ok: key rotation: the new key's tokens taken at once, the withdrawn key's refused"

# 5. toolbox as a proxy of a protected server, its token expiring.
start as-proxy out "$MCP_NODE" tests/mcp/auth/authorization-server.mjs \
  --scopes "tools:call" --token-format opaque --ttl 2
proxy_issuer="$(field "$(line as-proxy out)" issuer)"
export AS_RS_SECRET=mcp-resource-server-secret
toolbox toolbox-upstream --auth-issuer "$proxy_issuer" --auth-scope tools:call \
  --auth-client-id mcp-resource-server --auth-client-secret-env AS_RS_SECRET
# The client's secret reaches the proxy through its environment only.
export PROXY_CLIENT_SECRET=mcp-m2m-secret
cat >"$logs/proxy.yaml" <<EOF
mcp_servers:
  upstream:
    url: $toolbox_url
    prefix: up_
    auth:
      grant: client_credentials
      client_id: mcp-m2m
      client_secret: \${PROXY_CLIENT_SECRET}
EOF
out="$("$MCP_NODE" tests/mcp/auth/proxy-client.mjs "$TOOLBOX" "$logs/proxy.yaml" \
  up_convert_length "$convert" --wait-ms 3000 --token-log "$logs/as-proxy.err" \
  2>"$logs/proxy.err")" || fail "proxy: $out"
[ "$(field "$out" ok)" = true ] || fail "proxy: $out"
case "$(field "$out" first)|$(field "$out" second)" in
  *'3 metre = 3.0000 metre'*'|'*'3 metre = 3.0000 metre'*) ;;
  *) fail "proxy: the calls did not go through: $out" ;;
esac
before="$(field "$out" tokens_before)"
after="$(field "$out" tokens_after)"
[ "$before" -ge 1 ] && [ "$after" -gt "$before" ] \
  || fail "proxy: no new token after the first expired ($before, then $after tokens): $out"
grep -q '"request":"POST /token/introspection","status":200' "$logs/as-proxy.err" \
  || fail "proxy: the upstream introspected no token"
if grep -qF "$PROXY_CLIENT_SECRET" "$logs/proxy.err"; then
  fail "proxy: the client secret shows in the proxy's output"
fi
echo "ok: toolbox as a proxy with auth: client credentials, a new token after expiry ($before, then $after tokens)"
