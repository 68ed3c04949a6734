#!/usr/bin/env bash
# `toolbox auth login|status|logout`, end to end, against the pinned
# authorization server (tests/mcp/auth/authorization-server.mjs,
# oidc-provider, installed into target/auth-node by tests/mcp/auth/node.sh)
# and a protected `toolbox serve --http --auth-issuer ...`:
#
#  1. `auth login URL --no-browser --client-id mcp-interactive` (a
#     pre-registered public client): the authorization URL it prints on
#     stderr is driven through login and consent by
#     tests/mcp/auth/authorize-headless.mjs --follow, whose last request
#     (the redirect) reaches toolbox's loopback listener. toolbox exits 0,
#     keeps one token file with mode 0600 under XDG_CONFIG_HOME, and says no
#     token; the server takes the kept access token; `auth status` (all,
#     and the one server) names the server and shows no token; and toolbox
#     as a proxy (a registry file's `mcp_servers` entry with
#     `auth: {grant: authorization_code}`) calls the server's tool with the
#     kept token, which without a sign-in it cannot.
#  2. The same without a client id (dynamic registration, RFC 7591), the
#     server named by its entry in a registry file's `mcp_servers`: the
#     tokens are kept under the entry's URL.
#  3. Consent denied: toolbox exits 1 saying access_denied, and keeps
#     nothing.
#  4. A callback with another `state`: refused, exit 1, nothing kept.
#  5. No browser ever comes back: `--timeout 1` ends the wait, exit 1.
#  6. `auth logout URL` removes the file; `auth status URL` then exits 1.
#
#   tests/mcp/auth/login.sh
#
# TOOLBOX names the binary to test (built with cargo otherwise, into
# CARGO_TARGET_DIR or target/). Logs go to a temporary folder, printed on
# failure.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"

. tests/mcp/auth/node.sh

target="${CARGO_TARGET_DIR:-$root/target}"
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
  echo "tests/mcp/auth/login.sh: FAILED: $*" >&2
  for log in "$logs"/*.out "$logs"/*.err; do
    [ -f "$log" ] || continue
    echo "== $log" >&2; tail -n 40 "$log" >&2
  done
  exit 1
}

# start NAME FILE CMD...: starts CMD in the background as NAME, stdout to
# $logs/NAME.out and stderr to $logs/NAME.err, and waits until FILE (out or
# err) has a line.
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

# tb CONFIG ARGS...: toolbox with its configuration directory in CONFIG.
tb() {
  local config="$1"; shift
  XDG_CONFIG_HOME="$config" HOME="$logs/home" "$TOOLBOX" "$@"
}

# login NAME CONFIG ARGS...: starts `toolbox auth login ARGS...` in the
# background as NAME; sets login_pid, and auth_url once it prints the
# authorization URL.
login() {
  local name="$1" config="$2"; shift 2
  tb "$config" auth login "$@" >"$logs/$name.out" 2>"$logs/$name.err" </dev/null &
  login_pid="$!"
  pids+=("$login_pid")
  auth_url=""
  for _ in $(seq 1 300); do
    auth_url="$(sed -n 's/^    \(https\{0,1\}:\/\/.*\)$/\1/p' "$logs/$name.err" | head -n 1)"
    if [ -n "$auth_url" ]; then return 0; fi
    kill -0 "$login_pid" 2>/dev/null || fail "$name exited before printing the authorization URL"
    sleep 0.1
  done
  fail "$name printed no authorization URL"
}

# finish NAME: waits (60 s at most) for the login started last; sets code.
finish() {
  for _ in $(seq 1 600); do
    kill -0 "$login_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$login_pid" 2>/dev/null && fail "$1 did not end"
  code=0
  wait "$login_pid" || code=$?
}

# token_files CONFIG: the token files under CONFIG.
token_files() { find "$1/tool-mcp/oauth" -name '*.json' 2>/dev/null | sort; }

# initialize URL TOKEN: the status the server answers an `initialize` with
# `Authorization: Bearer TOKEN` (none when TOKEN is empty).
initialize() {
  "$MCP_NODE" -e '
    const [url, token] = process.argv.slice(1);
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (token) headers.authorization = `Bearer ${token}`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
      protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "login.sh", version: "0" } } });
    fetch(url, { method: "POST", headers, body }).then(async (r) => {
      await r.body?.cancel();
      process.stdout.write(String(r.status));
    });' "$1" "$2"
}

start as out "$MCP_NODE" tests/mcp/auth/authorization-server.mjs --scopes "tools:read tools:call" --registration
issuer="$(field "$(line as out)" issuer)"
start rs err "$TOOLBOX" serve --http 127.0.0.1:0 --auth-issuer "$issuer" --auth-scope tools:call
url=""
for _ in $(seq 1 50); do
  url="$(sed -n 's/^serving MCP over .* at //p' "$logs/rs.err" | head -n 1)"
  if [ -n "$url" ]; then break; fi
  sleep 0.1
done
[ -n "$url" ] || fail "toolbox serve did not say where it serves"
echo "authorization server $issuer, toolbox serve at $url"

# 1. A pre-registered public client.
config="$logs/config"
login login "$config" "$url" --no-browser --client-id mcp-interactive
"$MCP_NODE" tests/mcp/auth/authorize-headless.mjs "$auth_url" alice --follow >"$logs/headless.out" \
  2>"$logs/headless.err" || fail "authorize-headless failed"
grep -q '^callback: 200$' "$logs/headless.out" || fail "the callback was not answered 200"
finish login
[ "$code" = 0 ] || fail "auth login exited $code"
grep -q "^signed in to $url: the tokens are kept in " "$logs/login.err" || fail "auth login did not say it signed in"
files="$(token_files "$config")"
[ "$(printf '%s\n' "$files" | grep -c .)" = 1 ] || fail "not one token file: $files"
mode="$(stat -c %a "$files")"
[ "$mode" = 600 ] || fail "the token file has mode $mode, not 600"
access="$("$MCP_NODE" -e 'const f = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(f.tokens.access_token)' "$files")"
server="$("$MCP_NODE" -e 'const f = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(f.server + " " + f.tokens.client_id)' "$files")"
[ "$server" = "$url mcp-interactive" ] || fail "the token file is for $server"
[ "${#access}" -gt 20 ] || fail "no access token in the token file"
grep -qF "$access" "$logs/login.out" "$logs/login.err" && fail "auth login printed the access token"
[ "$(initialize "$url" "")" = 401 ] || fail "the server took a request without a token"
[ "$(initialize "$url" "$access")" = 200 ] || fail "the server refused the kept access token"
tb "$config" auth status >"$logs/status.out" 2>"$logs/status.err" || fail "auth status failed"
grep -qx "$url" "$logs/status.out" || fail "auth status does not list $url"
grep -q "client: mcp-interactive" "$logs/status.out" || fail "auth status does not name the client"
grep -q "access token: expires " "$logs/status.out" || fail "auth status does not say when the token expires"
tb "$config" auth status "$url" >"$logs/status-one.out" 2>>"$logs/status.err" || fail "auth status URL failed"
grep -qx "$url" "$logs/status-one.out" || fail "auth status URL does not name $url"
grep -qF "$access" "$logs/status.out" "$logs/status-one.out" "$logs/status.err" \
  && fail "auth status printed the access token"
echo "ok: auth login (client mcp-interactive): signed in, one token file (0600), the server takes the token, status shows no token"

# 1b. The proxy reads the kept tokens by the entry's URL.
cat >"$logs/proxy.yaml" <<EOF
tools: []
mcp_servers:
  remote:
    url: $url
    prefix: remote_
    auth:
      grant: authorization_code
      client_id: mcp-interactive
EOF
convert='{"value":3,"from":"metre","to":"metre"}'
out="$(tb "$config" --registry "$logs/proxy.yaml" call remote_convert_length --args "$convert" 2>"$logs/proxy.err")" \
  || fail "the proxy could not call with the kept token: $out"
case "$out" in *'3 metre = 3.0000 metre'*) ;; *) fail "the proxy's call answered $out" ;; esac
grep -qF "$access" "$logs/proxy.err" && fail "the proxy printed the access token"
code=0
tb "$logs/config-none" --registry "$logs/proxy.yaml" call remote_convert_length --args "$convert" \
  >"$logs/proxy-none.out" 2>"$logs/proxy-none.err" || code=$?
[ "$code" = 1 ] || fail "the proxy without a sign-in exited $code, not 1"
grep -q 'could not authorize' "$logs/proxy-none.err" || fail "the proxy without a sign-in did not say why"
grep -qF "sign in first with \`toolbox --registry $logs/proxy.yaml auth login remote\`" "$logs/proxy-none.err" ||
  fail "the proxy without a sign-in did not say how to sign in: $(cat "$logs/proxy-none.err")"
echo "ok: toolbox --registry (mcp_servers auth: authorization_code) calls with the kept token, and without one cannot"

# 2. Dynamic registration, the server named by its registry entry.
config2="$logs/config-dcr"
printf 'mcp_servers:\n  remote:\n    url: %s\n' "$url" >"$logs/tools.yaml"
login login-dcr "$config2" remote --registry "$logs/tools.yaml" --no-browser
"$MCP_NODE" tests/mcp/auth/authorize-headless.mjs "$auth_url" bob --follow >"$logs/headless-dcr.out" \
  2>"$logs/headless-dcr.err" || fail "authorize-headless (registration) failed"
finish login-dcr
[ "$code" = 0 ] || fail "auth login with dynamic registration exited $code"
grep -q 'POST /reg' "$logs/as.err" || fail "the client did not register"
[ -n "$(token_files "$config2")" ] || fail "no token file after dynamic registration"
tb "$config2" auth status remote --registry "$logs/tools.yaml" >"$logs/status-dcr.out" 2>&1 \
  || fail "auth status remote --registry failed"
grep -qx "$url" "$logs/status-dcr.out" || fail "the entry's tokens are not kept under its URL"
grep -q "client: mcp-interactive" "$logs/status-dcr.out" && fail "dynamic registration used the static client"
echo "ok: auth login NAME --registry FILE with dynamic registration"

# 3. Consent denied.
config3="$logs/config-denied"
login login-denied "$config3" "$url" --no-browser --client-id mcp-interactive
"$MCP_NODE" tests/mcp/auth/authorize-headless.mjs "$auth_url" alice --deny --follow \
  >"$logs/headless-denied.out" 2>"$logs/headless-denied.err" || fail "authorize-headless --deny failed"
grep -q 'error=access_denied' "$logs/headless-denied.out" || fail "the denial did not redirect with access_denied"
finish login-denied
[ "$code" = 1 ] || fail "auth login after a denial exited $code, not 1"
grep -q 'refused the sign-in: access_denied' "$logs/login-denied.err" || fail "auth login did not say access_denied"
[ -z "$(token_files "$config3")" ] || fail "a token file after a denial"
echo "ok: consent denied: exit 1, access_denied said, nothing kept"

# 4. Another state.
config4="$logs/config-state"
login login-state "$config4" "$url" --no-browser --client-id mcp-interactive
"$MCP_NODE" tests/mcp/auth/authorize-headless.mjs "$auth_url" alice >"$logs/headless-state.out" \
  2>"$logs/headless-state.err" || fail "authorize-headless (state) failed"
redirect="$(head -n 1 "$logs/headless-state.out")"
forged="$("$MCP_NODE" -e 'const u = new URL(process.argv[1]); u.searchParams.set("state", "forged"); process.stdout.write(u.href)' "$redirect")"
status="$("$MCP_NODE" -e 'fetch(process.argv[1]).then(async (r) => { await r.body?.cancel(); process.stdout.write(String(r.status)); })' "$forged")"
[ "$status" = 400 ] || fail "a callback with another state was answered $status, not 400"
finish login-state
[ "$code" = 1 ] || fail "auth login after another state exited $code, not 1"
grep -q "another sign-in's \`state\`: refused" "$logs/login-state.err" || fail "auth login did not refuse the state"
[ -z "$(token_files "$config4")" ] || fail "a token file after another state"
echo "ok: a callback with another state: refused, exit 1, nothing kept"

# 5. Nobody comes back.
config5="$logs/config-timeout"
login login-timeout "$config5" "$url" --no-browser --client-id mcp-interactive --timeout 1
finish login-timeout
[ "$code" = 1 ] || fail "auth login --timeout 1 exited $code, not 1"
grep -q 'did not come back within' "$logs/login-timeout.err" || fail "auth login did not say it timed out"
echo "ok: --timeout 1: exit 1, said so"

# 6. Sign out.
tb "$config" auth logout "$url" >"$logs/logout.out" 2>"$logs/logout.err" || fail "auth logout failed"
grep -q "^signed out of $url" "$logs/logout.err" || fail "auth logout did not say it signed out"
[ -z "$(token_files "$config")" ] || fail "a token file after auth logout"
code=0
tb "$config" auth status "$url" >"$logs/status-out.out" 2>&1 || code=$?
[ "$code" = 1 ] || fail "auth status of a server signed out of exited $code, not 1"
grep -q "not signed in" "$logs/status-out.out" || fail "auth status does not say not signed in"
echo "ok: auth logout removed the token file; status says not signed in"
