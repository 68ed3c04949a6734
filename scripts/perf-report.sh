#!/usr/bin/env bash
# Runs the performance suites and rewrites docs/performance.md from their
# results. Everything runs at low priority (nice 19).
#
#   scripts/perf-report.sh [options]
#
#   --no-peers          skip the criterion run with rmcp and rig
#   --no-build-times    skip scripts/build-times.sh (about 7 minutes on 2 cores)
#   --report-only       run nothing; rewrite the report from earlier results
#   --instructions-only count instructions again (callgrind), reuse the rest
#   --results DIR       where results go (default: target/perf-results)
#
# Steps: criterion (default build), the scale and concurrency harnesses,
# instruction counts under callgrind (when valgrind is installed), criterion
# again with --features peers, build times. The peers run builds in its own
# target directory (target-bench beside the workspace, or
# $PEERS_TARGET_DIR) so the peer crates do not churn the shared one.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

peers=1
build_times=1
run=1
instructions=0
results="$repo/target/perf-results"
while [ $# -gt 0 ]; do
  case "$1" in
    --no-peers) peers=0 ;;
    --no-build-times) build_times=0 ;;
    --report-only) run=0 ;;
    --results) results="$2"; shift ;;
    --instructions-only) run=0; instructions=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$results"
results=$(cd "$results" && pwd)

# Instruction counts under callgrind.
#   count_instructions OUT [FEATURES [TARGET_DIR [PATH...]]]
# counts every path (or the ones given) with the profile harness built with
# FEATURES in TARGET_DIR, into OUT.
count_instructions() {
  local out=$1 features=${2:-} target_dir=${3:-}
  shift $(( $# < 3 ? $# : 3 ))
  if ! command -v valgrind > /dev/null; then
    echo "== instruction counts skipped: valgrind is not installed" >&2
    return
  fi
  echo "== instruction counts${features:+ (features: $features)}" >&2
  local -a build=(cargo build --release -q -p bench --bin profile)
  [ -n "$features" ] && build+=(--features "$features")
  if [ -n "$target_dir" ]; then
    CARGO_TARGET_DIR="$target_dir" nice -n 19 "${build[@]}"
  else
    nice -n 19 "${build[@]}"
    target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
  fi
  python3 - "$target_dir/release/profile" "$out" "$@" <<'EOF'
import json, re, subprocess, sys, tempfile, os
binary, out, chosen = sys.argv[1], sys.argv[2], sys.argv[3:]
iterations = 20000
def count(path, n):
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["nice", "-n", "19", "valgrind", "--tool=callgrind",
             f"--callgrind-out-file={os.path.join(tmp, 'out')}", binary, path, str(n)],
            capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))
base = count("invoke", 0)
paths = chosen or ["floor_str", "floor_value", "floor_tool_use", "call_json", "call_str",
                   "registry_call_json", "invoke", "invoke_cancellable", "invoke_ctx",
                   "floor_async", "invoke_async",
                   "invoke_str", "invalid", "clone_value", "clone_tool_use", "clone_lookup_use"]
result = {p: round((count(p, iterations) - base) / iterations) for p in paths}
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
json.dump({"iterations": iterations, "paths": result, "commit": commit}, open(out, "w"), indent=2)
EOF
}

# The counts of both builds: the default one, and, for the paths that set
# the agent path against its floor, the one with the peers' crates, whose
# feature unification changes serde_json's maps.
count_all_instructions() {
  count_instructions "$results/profile.json"
  if [ "$peers" = 1 ]; then
    count_instructions "$results/profile-peers.json" peers "${PEERS_TARGET_DIR:-$repo/../target-bench}" \
      floor_tool_use clone_tool_use invoke
  fi
}

if [ "$run" = 1 ]; then
  python3 - "$results/machine.json" <<'EOF'
import json, os, subprocess, sys, time
def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
def first(path, prefix):
    try:
        for line in open(path):
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""
memory = first("/proc/meminfo", "MemTotal")
info = {
    "date": time.strftime("%Y-%m-%d"),
    "commit": sh("git", "rev-parse", "--short", "HEAD"),
    "cpu": first("/proc/cpuinfo", "model name"),
    "nproc": sh("nproc"),
    "memory": f"{int(memory.split()[0]) / 1024 / 1024:.0f} GiB" if memory else "",
    "rustc": sh("rustc", "--version"),
    "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
}
json.dump(info, open(sys.argv[1], "w"), indent=2)
EOF

  echo "== criterion" >&2
  rm -rf "$results/criterion"
  CRITERION_HOME="$results/criterion" nice -n 19 cargo bench -p bench --bench runtime

  echo "== registry scale" >&2
  nice -n 19 cargo run --release -q -p bench --bin scale -- --runs 5 --json > "$results/scale.json"
  echo "== concurrency" >&2
  nice -n 19 cargo run --release -q -p bench --bin concurrency -- --json > "$results/concurrency.json"

  count_all_instructions

  if [ "$peers" = 1 ]; then
    echo "== criterion with rmcp and rig" >&2
    rm -rf "$results/criterion-peers"
    CRITERION_HOME="$results/criterion-peers" \
      CARGO_TARGET_DIR="${PEERS_TARGET_DIR:-$repo/../target-bench}" \
      nice -n 19 cargo bench -p bench --features peers --bench runtime -- 'call|invalid'
  fi

  if [ "$build_times" = 1 ]; then
    echo "== build times" >&2
    scripts/build-times.sh --json "$results/build-times.json"
  fi
fi

if [ "$instructions" = 1 ]; then
  count_all_instructions
fi

python3 scripts/perf_report.py --results "$results" --out docs/performance.md
echo "wrote docs/performance.md" >&2
