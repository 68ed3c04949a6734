#!/usr/bin/env bash
# Two stateless `toolbox serve` instances behind nginx, round robin, and the
# official TypeScript MCP SDK's client making 1,000 `tools/call`s through
# it: every answer must be right, and each instance must have served a fair
# share, as nginx's access log tells (the upstream of each request, with the
# JSON-RPC method of its body). Then MCP's tasks extension through the same
# balancer: the instances keep their tasks in a redis-server of the script's
# own (tests/mcp/redis.sh finds or fetches one), and tests/mcp/lb_tasks.mjs
# makes 100 task calls through the balancer, polls each until it has ended
# and checks its result, cancels through one instance a task another runs,
# and, once the script has restarted an instance, checks that its finished
# task still reads as completed and its running one as failed. Last, two
# callers through a balancer in front of two instances that ask for access
# tokens of the pinned authorization server (tests/mcp/auth/, started by
# the script), which sends each caller to one instance (it hashes the
# Authorization header), and a third such instance on its own, whose
# per-caller shares are one call and one running task:
# tests/mcp/lb_kept.mjs checks, as alice and bob, that bob cannot read
# alice's kept result (cut by --result-limit) nor answer her input request
# (her requestState), through the balancer or on either instance, each
# refused exactly as an id never issued is, that alice's retry is taken by
# both instances (they share --request-state-key-env's key), and that the
# third instance's shares hold alice and not bob; then
# tests/mcp/lb_owners.mjs checks that bob cannot get, update or cancel
# alice's task on either instance, and that bob's 10,000 task calls leave
# alice room (LB_OWNERS=0 skips this part; LB_FLOOD sets the number of
# calls).
#
#   tests/mcp/load-balancer.sh
#   TOOLBOX=target/debug/toolbox tests/mcp/load-balancer.sh   # a binary built already
#   LB_CALLS=200 tests/mcp/load-balancer.sh                   # fewer calls
#   LB_FLOOD=1000 tests/mcp/load-balancer.sh                  # a smaller flood
#
# nginx comes from Debian's packages without installing it: `apt-get
# download` and `dpkg -x` into target/lb/nginx (reused by later runs; the
# libraries it links are fetched the same way when the machine lacks them).
# Only when that cannot give a working nginx is it installed with
# `apt-get install`. Node 22+ and the SDK come from tests/mcp/node.sh.
# The instances listen on free loopback ports they pick themselves, nginx on
# a free loopback port; its configuration, pid file, logs and temporary
# files are under target/lb/run, kept after the run for a look. Whatever
# the script started is stopped on every way out. Exits non-zero, saying
# why, on any failure. Needs python3 and apt-get (with Debian's mirrors for
# the first run).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"

CALLS="${LB_CALLS:-1000}"
FLOOD="${LB_FLOOD:-10000}"
# The least share of the calls each of the two instances must serve; round
# robin gives each half of them.
MIN_SHARE=0.4

lb="$root/target/lb"
run="$lb/run"
log() { printf '%s\n' "$*" >&2; }
die() {
  log "tests/mcp/load-balancer.sh: $*"
  exit 1
}

# Everything started, stopped on the way out, however the script ends.
pids=()
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ] && [ -d "$run" ]; then
    for file in "$run"/*.log; do
      [ -s "$file" ] || continue
      log "--- the end of $file"
      tail -n 20 "$file" >&2
    done
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'log "tests/mcp/load-balancer.sh: interrupted"; exit 130' INT
trap 'log "tests/mcp/load-balancer.sh: terminated"; exit 143' TERM

# --- nginx from Debian's packages, unpacked under target/lb/nginx.
nginx_root="$lb/nginx"
nginx="$nginx_root/usr/sbin/nginx"
libs="$nginx_root/lib/x86_64-linux-gnu:$nginx_root/usr/lib/x86_64-linux-gnu"
libs="$libs:$nginx_root/lib/aarch64-linux-gnu:$nginx_root/usr/lib/aarch64-linux-gnu"
nginx_runs() { LD_LIBRARY_PATH="$libs" "$nginx" -v >/dev/null 2>&1; }

# Downloads the packages named and unpacks them into target/lb/nginx.
unpack() {
  local debs="$lb/debs"
  rm -rf "$debs"
  mkdir -p "$debs"
  # The package lists may be missing (a fresh container): fetch them once.
  if ! (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$@" >&2); then
    log "== apt-get update"
    apt-get update -qq >&2 || return 1
    (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$@" >&2) || return 1
  fi
  for deb in "$debs"/*.deb; do
    dpkg -x "$deb" "$nginx_root" || return 1
  done
  rm -rf "$debs"
}

if ! nginx_runs; then
  command -v apt-get >/dev/null || die "no apt-get to fetch nginx with"
  log "== fetching nginx from Debian's packages into $nginx_root"
  rm -rf "$nginx_root"
  mkdir -p "$nginx_root"
  unpack nginx || log "apt-get download nginx failed"
  if [ -x "$nginx" ] && ! nginx_runs; then
    # The machine lacks a library nginx links: fetch those packages too.
    deps="$(apt-cache depends --important nginx 2>/dev/null |
      sed -n 's/^ *Depends: \(lib[^ ]*\|zlib[^ ]*\)$/\1/p' | sort -u)"
    log "== nginx does not run as it is; fetching its libraries too:" $deps
    # shellcheck disable=SC2086 # one package a word
    unpack $deps || log "apt-get download of nginx's libraries failed"
  fi
  if ! nginx_runs; then
    log "== an unpacked nginx does not run; installing Debian's nginx with apt-get"
    rm -rf "$nginx_root"
    # RUNLEVEL=1: the package's scripts do not start the system's nginx.
    RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends nginx >&2 ||
      die "nginx could not be installed with apt-get either"
    nginx=/usr/sbin/nginx
    nginx_runs || die "$nginx does not run"
  fi
fi
log "== $(LD_LIBRARY_PATH="$libs" "$nginx" -v 2>&1) ($nginx)"

# --- the toolbox binary, and Node with the TypeScript SDK.
if [ -z "${TOOLBOX:-}" ]; then
  log "== building toolbox"
  cargo build --quiet -p examples --bin toolbox
  target_dir="$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
  TOOLBOX="$target_dir/debug/toolbox"
fi
[ -x "$TOOLBOX" ] || die "no toolbox binary at $TOOLBOX"
. tests/mcp/node.sh

rm -rf "$run"
mkdir -p "$run"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
accepts() {
  python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
    "$1" 2>/dev/null
}

# --- a redis-server for the instances' tasks, on a free loopback port, with
# no persistence.
eval "$(tests/mcp/redis.sh)"
redis_port="$(free_port)"
"$REDIS_SERVER" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
  >"$run/redis.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do
  accepts "$redis_port" && break
  sleep 0.1
done
accepts "$redis_port" || die "redis-server did not start (see $run/redis.log)"
tasks="redis://127.0.0.1:$redis_port/"
log "== redis-server on $tasks"

# --- two stateless instances, each on a free loopback port of its own
# choosing, which it prints on stderr; their tasks in Redis. start_instance
# NAME [FLAGS...] sets `port` and adds the process to `pids`; the flags go
# after `serve`.
start_instance() {
  local name="$1"
  shift
  "$TOOLBOX" serve --http 127.0.0.1:0 --stateless --tasks "$tasks" "$@" \
    </dev/null 2>"$run/toolbox-$name.log" &
  pids+=("$!")
  port=""
  for _ in $(seq 300); do
    port="$(sed -n 's|^serving MCP over stateless streamable HTTP at http://127\.0\.0\.1:\([0-9]*\)/mcp$|\1|p' \
      "$run/toolbox-$name.log")"
    [ -n "$port" ] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || die "toolbox instance $name exited at startup"
    sleep 0.1
  done
  die "toolbox instance $name did not say where it listens"
}
ports=()
instance_pids=()
for name in a b; do
  start_instance "$name"
  ports+=("$port")
  instance_pids+=("${pids[-1]}")
done
log "== toolbox instances on 127.0.0.1:${ports[0]} and 127.0.0.1:${ports[1]}"

# --- nginx, round robin over both, on a free loopback port. start_nginx
# PORT [NAME [BALANCE]] balances over the instances `ports` names; NAME
# (nginx by default) names its configuration, pid file, logs and temporary
# files; BALANCE, an nginx directive of the upstream block, chooses the
# instance of each request (round robin without it).
start_nginx() {
  local port="$1" name="${2:-nginx}" balance="${3:-}"
  local access="$run/access.log"
  [ "$name" = nginx ] || access="$run/access-$name.log"
  mkdir -p "$run/temp-$name"
  cat >"$run/$name.conf" <<EOF
# Written by tests/mcp/load-balancer.sh.
daemon off;
master_process on;
worker_processes 1;
pid $run/$name.pid;
error_log $run/$name-error.log notice;
events { worker_connections 256; }
http {
    # Each request: the instance that answered, its status, and the
    # JSON-RPC body it carried.
    log_format upstreams escape=json
        '{"upstream":"\$upstream_addr","status":"\$status",'
        '"method":"\$request_method","body":"\$request_body"}';
    access_log $access upstreams;
    client_body_temp_path $run/temp-$name/client_body;
    proxy_temp_path $run/temp-$name/proxy;
    fastcgi_temp_path $run/temp-$name/fastcgi;
    uwsgi_temp_path $run/temp-$name/uwsgi;
    scgi_temp_path $run/temp-$name/scgi;

    upstream toolbox {
        $balance
        server 127.0.0.1:${ports[0]};
        server 127.0.0.1:${ports[1]};
        keepalive 16;
    }
    server {
        listen 127.0.0.1:$port;
        location /mcp {
            proxy_pass http://toolbox;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The instances accept only loopback names in Host.
            proxy_set_header Host localhost;
            # Progress and log messages stream as they come.
            proxy_buffering off;
        }
    }
}
EOF
  LD_LIBRARY_PATH="$libs" "$nginx" -p "$run" -e "$run/$name-error.log" -c "$run/$name.conf" &
  pids+=("$!")
  local pid="$!"
  for _ in $(seq 100); do
    if accepts "$port"; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# A port found free may be taken before nginx binds it: try another.
started=""
for _ in 1 2 3; do
  port="$(free_port)"
  if start_nginx "$port"; then
    started=yes
    break
  fi
done
[ -n "$started" ] || die "nginx did not start (see $run/nginx-error.log)"
url="http://127.0.0.1:$port/mcp"
log "== nginx on $url"

# --- the client: the TypeScript SDK's, through the balancer.
log "== $CALLS tools/call through the balancer (TypeScript SDK, Node $("$MCP_NODE" --version))"
# In the background, so that a signal reaches the trap at once.
"$MCP_NODE" tests/mcp/lb_client.mjs "$url" "$CALLS" >"$run/client.out" &
pids+=("$!")
wait "$!" || die "the client failed"
summary="$(cat "$run/client.out")"

# --- what nginx saw: who answered what.
python3 - "$run/access.log" "$CALLS" "$MIN_SHARE" "127.0.0.1:${ports[0]}" \
  "127.0.0.1:${ports[1]}" "$summary" <<'EOF' || die "the balancer's log does not show the calls shared fairly"
import json, sys

log, calls, min_share, a, b, summary = sys.argv[1:]
calls, min_share, summary = int(calls), float(min_share), json.loads(summary)
served = {a: 0, b: 0}
handshake = []
problems = []
for number, line in enumerate(open(log), 1):
    entry = json.loads(line)
    upstream = entry["upstream"]
    method = entry["method"]
    if entry["body"]:
        method = json.loads(entry["body"]).get("method", "(response)")
    if len(handshake) < 4:
        handshake.append(f"{method} -> {upstream}")
    if upstream not in served:
        problems.append(f"line {number}: {method} answered by {upstream!r}, not one instance")
        continue
    if method == "tools/call":
        if entry["status"] != "200":
            problems.append(f"line {number}: tools/call got HTTP {entry['status']}")
        served[upstream] += 1
total = sum(served.values())
if total != calls:
    problems.append(f"the log shows {total} tools/call, the client made {calls}")
for upstream, count in served.items():
    if count < min_share * calls:
        problems.append(f"{upstream} served {count} of {calls} calls, under {min_share:.0%}")
print(f"first requests: {'; '.join(handshake)}")
print(f"tools/call served: {a} {served[a]}, {b} {served[b]}; "
      f"{calls} calls in {summary['seconds']:.2f} s ({calls / summary['seconds']:.0f}/s)")
for problem in problems:
    print(f"problem: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

# --- tasks through the balancer, shared by the instances through Redis.
log "== 100 task calls through the balancer, polled until done; a cancel across instances"
"$MCP_NODE" tests/mcp/lb_tasks.mjs "$url" "http://127.0.0.1:${ports[0]}/mcp" \
  "http://127.0.0.1:${ports[1]}/mcp" 100 >"$run/tasks.out" &
pids+=("$!")
wait "$!" || die "the tasks client failed"
read -r finished running seconds < <(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))
print(s["finished"], s["running"], s["seconds"])' "$run/tasks.out")
log "100 tasks made and read in $seconds s"

# --- instance a stops while its task runs, and starts again.
log "== instance a restarted while its task runs"
kill "${instance_pids[0]}"
wait "${instance_pids[0]}" 2>/dev/null || true
start_instance a-again
"$MCP_NODE" tests/mcp/lb_tasks.mjs restarted "http://127.0.0.1:$port/mcp" "$finished" "$running" \
  >"$run/restarted.out" &
pids+=("$!")
wait "$!" || die "after the restart, the tasks do not read as they should"

# --- two callers, through a balancer in front of two instances that ask
# for access tokens of the pinned authorization server.
if [ "${LB_OWNERS:-1}" != 0 ]; then
  log "== alice and bob through a balancer in front of instances that ask for access tokens"
  [[ "$("$TOOLBOX" serve --help)" == *--auth-issuer* ]] ||
    die "$TOOLBOX serve has no --auth-issuer (tool-cli's feature auth); LB_OWNERS=0 skips this part"
  . tests/mcp/auth/node.sh
  "$MCP_NODE" tests/mcp/auth/authorization-server.mjs --scopes "tools:call" \
    >"$run/authorization-server.out" 2>"$run/authorization-server.log" &
  pids+=("$!")
  for _ in $(seq 300); do
    [ -s "$run/authorization-server.out" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || die "the authorization server exited at startup"
    sleep 0.1
  done
  as_info="$(head -n 1 "$run/authorization-server.out")"
  [ -n "$as_info" ] || die "the authorization server did not say where it listens"
  issuer="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["issuer"])' "$as_info")"
  # The instances take tokens issued for the balancer's URL, which clients
  # reach: its port is chosen first.
  owners_port="$(free_port)"
  owners_url="http://127.0.0.1:$owners_port/mcp"
  owners=(--auth-issuer "$issuer" --auth-resource "$owners_url" --auth-scope tools:call)
  # The key the instances seal request states with, one for both, from
  # the environment.
  LB_REQUEST_STATE_KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
  ports=()
  for name in c d; do
    LB_REQUEST_STATE_KEY="$LB_REQUEST_STATE_KEY" start_instance "$name" "${owners[@]}" \
      --result-limit 8KB --request-state-key-env LB_REQUEST_STATE_KEY
    ports+=("$port")
  done
  start_instance e "${owners[@]}" --max-calls-per-caller 1 --max-tasks-per-caller 1
  shares_url="http://127.0.0.1:$port/mcp"
  log "== toolbox instances on 127.0.0.1:${ports[0]} and 127.0.0.1:${ports[1]}, tokens of $issuer"
  # A caller's kept results are in the memory of the instance that made
  # them: each caller goes to one instance, by its Authorization header.
  start_nginx "$owners_port" nginx-owners 'hash $http_authorization consistent;' ||
    die "nginx did not start (see $run/nginx-owners-error.log)"
  log "== nginx on $owners_url; kept results, request states and shares"
  "$MCP_NODE" tests/mcp/lb_kept.mjs "$owners_url" "http://127.0.0.1:${ports[0]}/mcp" \
    "http://127.0.0.1:${ports[1]}/mcp" "$shares_url" "$as_info" >"$run/kept.out" &
  pids+=("$!")
  wait "$!" || die "a caller reached another's kept result or request state, or a share did not hold"
  log "kept: $(cat "$run/kept.out")"
  log "== $FLOOD task calls of bob's"
  "$MCP_NODE" tests/mcp/lb_owners.mjs "$owners_url" "http://127.0.0.1:${ports[0]}/mcp" \
    "http://127.0.0.1:${ports[1]}/mcp" "$as_info" "$FLOOD" >"$run/owners.out" &
  pids+=("$!")
  wait "$!" || die "a caller reached another's task or state, or was kept out by another's"
  log "owners: $(cat "$run/owners.out")"
fi
log "== load balancer test passed"
