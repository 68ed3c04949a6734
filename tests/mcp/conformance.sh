#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in tests/mcp/package.json; it needs Node 22+, which
# tests/mcp/node.sh provides) against the `conformance-server` example over
# streamable HTTP, and its client scenarios against the `conformance-client`
# example (tool_mcp's McpClient): the scenarios each protocol revision
# requires (`--requirements 2025-11-25`, then `--requirements 2026-07-28`),
# with the known failures of tests/mcp/conformance-REVISION.yml (one line of
# reason each); then the client-credentials scenarios of the OAuth extension
# (`auth/client-credentials-basic`, `auth/client-credentials-jwt`), which
# no revision requires. Fails on any other failure and on a listed scenario
# that starts passing; runs everything either way. Then the skills
# extension's scenarios (`sep-2640-skills-*`, which no revision requires
# either) against conformance-server, failing on any check that is not a
# success: a server that does not declare the extension gets every check
# SKIPPED, which the suite's own verdict counts as a pass.
#
#   tests/mcp/conformance.sh
#   CONFORMANCE_SERVER=target/debug/conformance-server \
#   CONFORMANCE_CLIENT=target/debug/conformance-client tests/mcp/conformance.sh
#   tests/mcp/conformance.sh 2026-07-28      # one revision
#
# Results of each scenario (checks.json) go to target/conformance/REVISION
# (the server's) and target/conformance/client-REVISION.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Node 22+ and the pinned packages: sets MCP_NODE and MCP_NODE_MODULES.
. tests/mcp/node.sh

if [ -z "${CONFORMANCE_SERVER:-}" ] || [ -z "${CONFORMANCE_CLIENT:-}" ]; then
  echo "== building conformance-server and conformance-client"
  cargo build --quiet -p examples --bin conformance-server --bin conformance-client
  target_dir="$(cargo metadata --format-version 1 --no-deps \
    | "$MCP_NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
  CONFORMANCE_SERVER="${CONFORMANCE_SERVER:-$target_dir/debug/conformance-server}"
  CONFORMANCE_CLIENT="${CONFORMANCE_CLIENT:-$target_dir/debug/conformance-client}"
fi

# A free loopback port, chosen by the kernel.
port="$("$MCP_NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
log="$(mktemp)"
"$CONFORMANCE_SERVER" --http "127.0.0.1:$port" 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT

# Wait until it listens.
for _ in $(seq 1 100); do
  if grep -q "http://" "$log"; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "conformance-server exited:" >&2; cat "$log" >&2; exit 1
  fi
  sleep 0.1
done

out=target/conformance
rm -rf "$out"
version="$(grep -o '"version": "[^"]*"' "$MCP_NODE_MODULES/@modelcontextprotocol/conformance/package.json")"
status=0
revisions=("$@")
[ "${#revisions[@]}" -gt 0 ] || revisions=(2025-11-25 2026-07-28)
for revision in "${revisions[@]}"; do
  echo "== MCP conformance suite $version, --requirements $revision, against conformance-server"
  PATH="$(dirname "$MCP_NODE"):$PATH" "$MCP_NODE_MODULES/.bin/conformance" server \
    --url "http://127.0.0.1:$port/mcp" \
    --requirements "$revision" \
    --expected-failures "tests/mcp/conformance-$revision.yml" \
    --output-dir "$out/$revision" \
    | grep -v '^Running client scenario\|^Results saved to\|^=== Running scenario\|^$' \
    || status=$?
  echo "== MCP conformance suite $version, --requirements $revision, against conformance-client"
  PATH="$(dirname "$MCP_NODE"):$PATH" "$MCP_NODE_MODULES/.bin/conformance" client \
    --command "$CONFORMANCE_CLIENT" \
    --requirements "$revision" \
    --expected-failures "tests/mcp/conformance-$revision.yml" \
    --output-dir "$out/client-$revision" 2>"$out/client-$revision.log" \
    | grep -v '^Results saved to\|^$' \
    || { status=1; echo "(the runner's and the client's stderr: $out/client-$revision.log)"; }
done
# The client-credentials grant (an OAuth extension no revision requires),
# with a client secret and with a signed JWT (private_key_jwt).
for scenario in auth/client-credentials-basic auth/client-credentials-jwt; do
  echo "== MCP conformance suite $version, $scenario, against conformance-client"
  log="$out/client-${scenario//\//-}.log"
  # (A single scenario's report goes to stderr.)
  if ! PATH="$(dirname "$MCP_NODE"):$PATH" "$MCP_NODE_MODULES/.bin/conformance" client \
    --command "$CONFORMANCE_CLIENT" \
    --scenario "$scenario" \
    --output-dir "$out/client-extensions" >"$log" 2>&1; then
    status=1
    cat "$log"
  fi
  grep -E '^Passed:|OVERALL' "$log" || true
done
# The skills extension (SEP-2640): every check of each scenario must be a
# success; SKIPPED, WARNING and FAILURE all fail (checks.json of each run).
for scenario in sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest; do
  echo "== MCP conformance suite $version, $scenario, against conformance-server"
  log="$out/$scenario.log"
  PATH="$(dirname "$MCP_NODE"):$PATH" "$MCP_NODE_MODULES/.bin/conformance" server \
    --url "http://127.0.0.1:$port/mcp" \
    --scenario "$scenario" \
    --output-dir "$out/extensions" >"$log" 2>&1 || true
  if ! "$MCP_NODE" -e '
    const fs = require("fs"), path = require("path");
    const [dir, scenario] = process.argv.slice(1);
    const runs = fs.existsSync(dir)
      ? fs.readdirSync(dir).filter((name) => name.startsWith(`server-${scenario}-`))
      : [];
    if (runs.length !== 1) {
      console.log(`${scenario}: ${runs.length} results in ${dir}, expected one`);
      process.exit(1);
    }
    const checks = JSON.parse(fs.readFileSync(path.join(dir, runs[0], "checks.json"), "utf8"));
    const bad = checks.filter((check) => check.status !== "SUCCESS");
    for (const check of bad) {
      console.log(`${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
    }
    console.log(`Passed: ${checks.length - bad.length}/${checks.length} checks of ${scenario}`);
    process.exit(bad.length === 0 && checks.length > 0 ? 0 : 1);
  ' "$out/extensions" "$scenario"; then
    status=1
    cat "$log"
  fi
done
exit "$status"
