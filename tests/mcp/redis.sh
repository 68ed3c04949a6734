#!/usr/bin/env bash
# Prints the path of a redis-server that runs on this machine: the one on
# PATH, or Debian's package unpacked (not installed) into target/redis
# (`apt-get download` and `dpkg -x`, reused by later runs), or, when the
# unpacked one lacks a library, Debian's package installed with apt-get.
#
#   tests/mcp/redis.sh            # prints REDIS_SERVER=/abs/path/to/redis-server
#
# The tests that need Redis run this themselves and start their own server
# on a loopback port, with no persistence, ended by its process id.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD/target/redis"
# The tests that need Redis run at once, each running this script: one at a
# time fetches, unpacks and writes the wrapper.
mkdir -p target
exec 9>"$root.lock"
flock 9
log() { printf '%s\n' "$*" >&2; }
die() { log "tests/mcp/redis.sh: $*"; exit 1; }

libs="$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu"
libs="$libs:$root/lib/aarch64-linux-gnu:$root/usr/lib/aarch64-linux-gnu"
runs() { LD_LIBRARY_PATH="$libs" "$1" --version >/dev/null 2>&1; }

# Downloads the packages named and unpacks them into target/redis.
unpack() {
  local debs="$root.debs"
  rm -rf "$debs"
  mkdir -p "$debs"
  if ! (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$@" >&2); then
    log "== apt-get update"
    apt-get update -qq >&2 || return 1
    (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$@" >&2) || return 1
  fi
  for deb in "$debs"/*.deb; do
    dpkg -x "$deb" "$root" || return 1
  done
  rm -rf "$debs"
}

if command -v redis-server >/dev/null && runs "$(command -v redis-server)"; then
  echo "REDIS_SERVER=$(command -v redis-server)"
  exit 0
fi
server="$root/usr/bin/redis-server"
if ! runs "$server"; then
  command -v apt-get >/dev/null || die "no apt-get to fetch redis-server with"
  log "== fetching redis-server from Debian's packages into $root"
  rm -rf "$root"
  mkdir -p "$root"
  unpack redis-server redis-tools || log "apt-get download redis-server failed"
  if [ -e "$server" ] && ! runs "$server"; then
    deps="$(apt-cache depends --important redis-tools 2>/dev/null |
      sed -n 's/^ *Depends: \(lib[^ ]*\)$/\1/p' | grep -v '^libc6$' | sort -u)"
    log "== redis-server does not run as it is; fetching its libraries too:" $deps
    # shellcheck disable=SC2086 # one package a word
    unpack $deps || log "apt-get download of redis-server's libraries failed"
  fi
  if ! runs "$server"; then
    log "== an unpacked redis-server does not run; installing Debian's with apt-get"
    rm -rf "$root"
    RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends redis-server >&2 ||
      die "redis-server could not be installed with apt-get either"
    server=/usr/bin/redis-server
    runs "$server" || die "$server does not run"
  fi
fi
if [ "$server" != /usr/bin/redis-server ] && [ -d "$root/usr/lib" ]; then
  # A wrapper that finds the unpacked libraries.
  wrapper="$root/redis-server"
  # Written beside it and renamed over it, so that a server started from it
  # meanwhile runs the whole file, never one half written.
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$libs" "$server" >"$wrapper.$$"
  chmod +x "$wrapper.$$"
  mv -f "$wrapper.$$" "$wrapper"
  server="$wrapper"
fi
echo "REDIS_SERVER=$server"
