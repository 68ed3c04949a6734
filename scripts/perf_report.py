#!/usr/bin/env python3
"""Writes docs/performance.md from the results scripts/perf-report.sh left.

Reads, from the results directory:
- criterion/<group>/<bench>/new/estimates.json (benches/runtime.rs),
- scale.json (the `scale` harness), concurrency.json (the `concurrency`
  harness), build-times.json (scripts/build-times.sh), machine.json.
Anything missing is reported as not measured.
"""

import argparse
import json
from pathlib import Path

# (group, bench, label, what is timed, floor to compare with)
CALL_ROWS = [
    ("call", "body_only", "the function body alone", "`search_body` called directly: the work every path shares", None),
    ("call", "floor_str", "**(a) hand-written floor**", "`serde_json::from_str` into a `#[derive(Deserialize)]` struct, call, `serde_json::to_value` of the output", "floor_str"),
    ("call", "floor_value", "(a′) hand-written, from a `Value`", "the same decoding from an already parsed `serde_json::Value`", "floor_value"),
    ("call", "floor_value_owned", "(a′, owned) hand-written, from an owned `Value`", "as (a′), from a `Value` made outside the timed loop and dropped inside it", "floor_value_owned"),
    ("call", "floor_tool_use_str", "(a″) hand-written dispatch, from text", "parse a whole tool use from text, `match` the name, decode, call, build the `toolResult` JSON", "floor_tool_use_str"),
    ("call", "floor_tool_use_owned", "(a‴) hand-written dispatch, parsed `ToolUse`", "take an owned `ToolUse`, `match` the name, decode, call, build a `ToolResult`", "floor_tool_use_owned"),
    ("call", "ours_invoke_str", "(b) `Registry::invoke`, from text", "`serde_json::from_str::<ToolUse>` of the whole tool use, then `invoke` to a `ToolResult`", "floor_tool_use_str"),
    ("call", "ours_invoke_tool_use", "(b′) `Registry::invoke`, parsed `ToolUse`", "`invoke` of an already parsed `ToolUse` (its input a `Value`)", "floor_tool_use_owned"),
    ("call", "ours_invoke_tool_use_1000", "(b″) the same, registry of 1,000+ tools", "as (b′), in the global registry with every generated tool", "floor_tool_use_owned"),
    ("call", "ours_invoke_tool_use_cancellable", "(b‴) the same, the caller holding its token", "as (b′), with a context whose cancellation token the caller asked for (`ctx.cancellation_token()`), so every call reads it under its lock", "floor_tool_use_owned"),
    ("call", "ours_call_json", "(c) `Tool::call_json`", "the typed direct path: `SearchTool.call_json(&value, &ctx)` to a `Value`", "floor_value"),
    ("call", "ours_call_json_str", "(c′) `Tool::call_json`, from text", "`serde_json::from_str::<Value>` of the arguments, then `call_json`", "floor_str"),
    ("call", "ours_call_str", "(c⁗) `Tool::call_str`, from text", "the arguments as JSON text decoded straight into the tool's arguments (feature `text-args`), to a `ToolOutput`", "floor_str"),
    ("call", "ours_call_json_owned", "(c‴) `Tool::call_json`, owned `Value`", "as (c), from a `Value` made outside the timed loop and dropped inside it", "floor_value_owned"),
    ("call", "ours_registry_call_json", "(c″) `Registry::call_json`", "lookup by name, then the direct path, from an owned `Value` (dropped inside the timed loop)", "floor_value_owned"),
    ("call", "rmcp_str", "(d) rmcp `ToolRouter::call`, from text", "parse `CallToolRequestParams` (`{name, arguments}`) from text, build a `ToolCallContext`, `ToolRouter::call` to a `CallToolResult`", "floor_tool_use_str"),
    ("call", "rmcp_params", "(d′) rmcp `ToolRouter::call`, parsed params", "`ToolRouter::call` with already parsed params (arguments a JSON object)", "floor_tool_use_owned"),
    ("call", "rig_str", "(e) rig `#[rig_tool]`, from text", "`ErasedTool::execute` with the arguments as a JSON `String`, to a `ToolResult`", "floor_str"),
]

INVALID_ROWS = [
    ("floor_str", "hand-written floor (serde's first error)", "floor_str"),
    ("ours_invoke_str", "`Registry::invoke`, from text", "ours_invoke_str"),
    ("ours_call_json", "`Tool::call_json`", "ours_call_json"),
    ("ours_call_str", "`Tool::call_str`, from text", "ours_call_str"),
    ("rmcp_str", "rmcp `ToolRouter::call`, from text", "rmcp_str"),
    ("rig_str", "rig `ErasedTool::execute`", "rig_str"),
]

SCALE_ROWS = [
    ("build_global", "`Registry::builder().global().build()`: collect, sort and index every linked tool"),
    ("lookup_hit", "`registry.get(name)` of an existing tool"),
    ("lookup_miss", "`registry.get(name)` of a missing name"),
    ("invoke_unknown_name", "`invoke` of a misspelt name: the error suggests the closest of all names"),
    ("input_schemas_uncached", "build every tool's input schema from scratch (what the first `input_schema()` call does)"),
    ("input_schemas_cached", "`spec.input_schema()` of every tool, cached"),
    ("render_anthropic_uncached", "`providers::render_tools(Provider::Anthropic, …)` of every tool"),
    ("render_anthropic_cached", "`registry.render(Provider::Anthropic)`, cached"),
    ("render_openai_strict_uncached", "`providers::render_tools(Provider::OpenAiStrict, …)`: strict-mode schema conversion of every tool"),
    ("render_openai_strict_cached", "`registry.render(Provider::OpenAiStrict)`, cached"),
    ("tool_list_json", "a hand-built `[{name, description, input_schema}]` list of every tool, serialised to text"),
]


# The figures of the previous report (same machine and compiler), before a
# context's token was read without its lock while it had never been handed
# out. Kept so the report can say what changed; ratios are within each run,
# against that run's floor.
BEFORE = {
    "call": {
        "floor_tool_use_owned": 230, "ours_invoke_tool_use": 284,
        "floor_tool_use_str": 563, "ours_invoke_str": 471,
        "floor_value": 91, "ours_call_json": 115, "ours_registry_call_json": 233,
        "floor_value_owned": 223, "floor_str": 145, "ours_call_str": 176,
        "ours_call_json_str": 323,
    },
    "peers": {
        "rmcp_params": 463, "ours_invoke_tool_use": 258, "rmcp_str": 689,
        "ours_invoke_str": 492, "rig_str": 288, "ours_call_json_str": 333,
        "ours_call_str": 161, "floor_str": 149, "floor_tool_use_owned": 162,
    },
    "concurrency_throughput": {
        (0, "hand-written"): 584300, (0, "Registry::invoke"): 477798,
        (1000, "hand-written"): 410317, (1000, "Registry::invoke"): 260719,
    },
    "concurrency_p99_ms": {
        (0, "hand-written"): 17.09, (0, "Registry::invoke"): 21.03,
        (1000, "hand-written"): 25.64, (1000, "Registry::invoke"): 43.22,
    },
    "instructions": {
        "floor_value": 2220, "call_json": 2223, "call_str": 3187, "registry_call_json": 4276,
        "invoke": 5044, "invoke_ctx": 5297, "invoke_str": 8002, "clone_value": 1666,
        "clone_tool_use": 2091, "clone_lookup_use": 1280, "floor_tool_use": 4413,
        "invoke_async": 7193, "floor_async": 3562, "floor_str": 3113,
    },
    # (style, tools): (full rebuild s, after one edit s).
    "build": {
        ("ours", 50): (1.3, 0.6), ("ours-lean", 50): (1.4, 0.6),
        ("hand", 50): (1.3, 0.6), ("rmcp", 50): (1.8, 0.7),
        ("ours", 200): (4.6, 2.2), ("ours-lean", 200): (4.5, 2.2),
        ("hand", 200): (5.3, 2.2), ("rmcp", 200): (6.4, 2.6),
    },
}

# Instruction-count rows: (path, input copy to subtract, hand-written path from the same input).
PROFILE_BASES = {
    "floor_tool_use": ("clone_tool_use", None),
    "call_json": (None, "floor_value"),
    "registry_call_json": ("clone_value", "call_json"),
    "invoke": ("clone_tool_use", "floor_tool_use"),
    "invoke_ctx": ("clone_tool_use", "floor_tool_use"),
    "invoke_cancellable": ("clone_tool_use", "floor_tool_use"),
    "invoke_async": ("clone_lookup_use", "floor_async"),
    "call_str": (None, "floor_str"),
}


def net_instructions(paths, path):
    """Instructions per call less the input copy the harness makes for it."""
    if path not in paths:
        return None
    copy = PROFILE_BASES.get(path, (None, None))[0]
    return paths[path] - (paths.get(copy, 0) if copy else 0)


def load_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def estimate(criterion, group, bench):
    """Median time in ns and the 95% interval of the median, or None."""
    data = load_json(criterion / group / bench / "new" / "estimates.json")
    if not data:
        return None
    median = data["median"]
    ci = median["confidence_interval"]
    return median["point_estimate"], ci["lower_bound"], ci["upper_bound"]


def fmt_time(ns):
    if ns is None:
        return "—"
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1e3:.2f} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def fmt_ratio(value):
    return "—" if value is None else f"{value:.2f}×"


def fmt_bytes(n):
    if n is None:
        return "—"
    if n < 1024:
        return f"{n:.0f} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 / 1024:.2f} MiB"


def call_section(criterion, peers_dir, out):
    times = {bench: estimate(criterion, group, bench) for group, bench, *_ in CALL_ROWS}
    peer_times = {bench: estimate(peers_dir, group, bench) for group, bench, *_ in CALL_ROWS}
    floor = times.get("floor_str")
    floor_ns = floor[0] if floor else None
    peer_floor = peer_times.get("floor_str")
    out.append("## The cost of one valid call\n")
    out.append(
        "The same tool, `search(query: String, limit: u32, mode: Mode) -> String` "
        "(`Mode` an enum of three variants), called with "
        "`{\"query\":\"rust tool calling\",\"limit\":5,\"mode\":\"fuzzy\"}` by every path. "
        "Each path is checked to return the expected text before it is timed. "
        "“vs (a)” is the ratio to the hand-written floor from text; “vs same input” "
        "compares with the hand-written path that starts from the same input and "
        "returns the same kind of answer (arguments as text, a parsed `Value`, a whole "
        "tool use as text, or a parsed `ToolUse`).\n"
    )
    out.append(
        "Two criterion runs: the default build (`cargo bench -p bench`), and the build with "
        "rmcp and rig (`--features peers`). rig-core turns on serde_json's `preserve_order` "
        "feature, and Cargo unifies features, so in the second run *every* path, the floor "
        "included, uses insertion-ordered JSON maps; compare the peers with the other paths "
        "inside that run only. A dash means the path was not part of that run (the peers "
        "are built only in the second)."
    )
    missing = [
        label for _, bench, label, *_ in CALL_ROWS
        if times.get(bench) and not peer_times.get(bench) and any(peer_times.values())
    ]
    if missing:
        out[-1] += (
            " The run with peers predates these rows, which it therefore lacks: "
            + ", ".join(missing) + "."
        )
    out[-1] += "\n"
    out.append("| path | what is timed | median | vs (a) | vs same input | with peers: median | with peers: vs (a) |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for _, bench, label, what, same in CALL_ROWS:
        t = times.get(bench)
        p = peer_times.get(bench)
        cells = []
        if t is None:
            cells += ["—", "—", "—"]
        else:
            base = times.get(same) if same else None
            cells += [
                fmt_time(t[0]),
                fmt_ratio(t[0] / floor_ns if floor_ns else None),
                fmt_ratio(t[0] / base[0] if base else None),
            ]
        if p is None:
            cells += ["—", "—"]
        else:
            cells += [fmt_time(p[0]), fmt_ratio(p[0] / peer_floor[0] if peer_floor else None)]
        out.append(f"| {label} | {what} | " + " | ".join(cells) + " |")
    out.append("")
    return times, peer_times


def invalid_section(criterion, peers_dir, call_times, peer_call_times, out):
    out.append("## Invalid arguments: the cost of reporting every mistake\n")
    out.append(
        "The arguments `{\"query\":5,\"mode\":\"fuzy\",\"verbose\":true}` hold four "
        "mistakes: `query` has the wrong type, `limit` is missing, `mode` is not a "
        "variant, `verbose` is unknown. The runtime reports all four, each worded "
        "from the schema; serde, rmcp and rig stop at the first. The runtime's and the "
        "floor's rows come from the default run, the peers' from the run with peers "
        "(“vs floor” always within one run).\n"
    )
    out.append("| path | valid call | invalid call | invalid ÷ valid | vs floor's invalid call |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    invalid = {}
    for bench, label, valid_bench in INVALID_ROWS:
        peer = bench.startswith(("rmcp", "rig"))
        directory, valid_times = (peers_dir, peer_call_times) if peer else (criterion, call_times)
        floor_invalid = estimate(directory, "invalid", "floor_str")
        bad = estimate(directory, "invalid", bench)
        good = valid_times.get(valid_bench)
        invalid[bench] = bad
        if bad is None:
            out.append(f"| {label} | {fmt_time(good[0]) if good else '—'} | not measured | — | — |")
            continue
        ratio = bad[0] / good[0] if good else None
        vs_floor = bad[0] / floor_invalid[0] if floor_invalid else None
        out.append(
            f"| {label} | {fmt_time(good[0]) if good else '—'} | {fmt_time(bad[0])} | "
            f"{fmt_ratio(ratio)} | {fmt_ratio(vs_floor)} |"
        )
    out.append("")
    return invalid


def scale_section(criterion, scale, out):
    tools = int(scale["tools"]) if scale else None
    out.append("## Registry scale\n")
    out.append(
        f"A build script generates {tools - 2 if tools else 'a thousand'} `#[tool]` functions "
        "(one to four parameters each, drawn from text, an integer with a default, a flag, "
        "an optional enum, a list and a number; every tenth async); with the two sample "
        f"tools the global registry holds {tools if tools else 'them all'}.\n"
    )
    if scale:
        out.append(
            f"In a fresh process (`scale` harness, median of {int(scale['runs'])} processes; "
            "memory counted by a counting global allocator as bytes still held afterwards):\n"
        )
        out.append("| measure | time | memory held |")
        out.append("| --- | ---: | ---: |")
        out.append(
            f"| `Registry::global()`, first use | {fmt_time(scale['first_use_ns'])} | "
            f"{fmt_bytes(scale['registry_live_bytes'])} |"
        )
        out.append(
            f"| every input schema, first `input_schema()` | {fmt_time(scale['schemas_first_ns'])} | "
            f"{fmt_bytes(scale['schemas_live_bytes'])} (as JSON text: {fmt_bytes(scale['schema_text_bytes'])}) |"
        )
        out.append(f"| every input schema, cached | {fmt_time(scale['schemas_cached_ns'])} | — |")
        for key, name in [("anthropic", "anthropic"), ("openai_strict", "openai-strict")]:
            first = scale.get(f"render_{key}_first_ns")
            if first is None:
                continue
            out.append(
                f"| `registry.render(\"{name}\")`, first use | {fmt_time(first)} | "
                f"{fmt_bytes(scale.get(f'render_{key}_live_bytes'))} "
                f"(as JSON text: {fmt_bytes(scale.get(f'render_{key}_text_bytes'))}) |"
            )
        out.append(f"| name lookup, average over every name | {fmt_time(scale['lookup_ns_per_name'])} | — |")
        out.append("")
    else:
        out.append("The `scale` harness was not run.\n")
    out.append("Repeated in the criterion run (median of 20 samples):\n")
    out.append("| operation | median |")
    out.append("| --- | ---: |")
    for bench, what in SCALE_ROWS:
        t = estimate(criterion, "scale", bench)
        out.append(f"| {what} | {fmt_time(t[0]) if t else 'not measured'} |")
    out.append("")


def concurrency_section(rows, out):
    out.append("## Concurrency\n")
    if not rows:
        out.append("The `concurrency` harness was not run.\n")
        return
    first = rows[0]
    out.append(
        f"{first['calls_per_round']:,} calls of the async tool `lookup` spawned at once on a "
        f"multi-threaded tokio runtime with {first['workers']} worker threads, "
        f"{first['rounds']} rounds after a warm-up round. The tasks are spawned first and wait "
        "behind a closed gate (a tokio `RwLock`), so spawning is not measured; throughput is the "
        "calls divided by the time from opening the gate to the last call's end. Latency runs "
        "from the gate opening to a call's end, so it includes waiting behind the rest of the "
        "burst; service time runs from the task passing the gate to the end of its call. Two "
        "tools: one that yields to the scheduler once (the runtime's own cost shows), one that "
        "waits 1 ms on a tokio timer (an I/O-bound tool). The hand-written path decodes with "
        "serde and awaits the same body.\n"
    )
    out.append("| workload | path | calls/s | latency p50 | latency p99 | service p50 | service p99 |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        out.append(
            f"| {row['workload']} | {row['path']} | {row['throughput_per_s']:,.0f} | "
            f"{fmt_time(row['latency_p50_us'] * 1e3)} | {fmt_time(row['latency_p99_us'] * 1e3)} | "
            f"{fmt_time(row['service_p50_us'] * 1e3)} | {fmt_time(row['service_p99_us'] * 1e3)} |"
        )
    out.append("")


def build_section(data, out):
    out.append("## Build time\n")
    if not data:
        out.append("`scripts/build-times.sh` was not run.\n")
        return
    labels = {
        "ours": "`#[tool]`",
        "ours-lean": "`#[tool]` without `text-args`",
        "hand": "hand-written serde + `match`",
        "rmcp": "rmcp `#[tool_router]`",
    }
    out.append(
        "Generated crates with the same tools in three styles (`scripts/build-times.sh`): "
        "`#[tool]` functions (also without tool-runtime's default `text-args` feature, which "
        "gives each tool a second decoder, from JSON text); by hand, a struct deriving `Deserialize` and `JsonSchema` per "
        "tool plus a `match` on names and a list of `schema_for!` specs; rmcp, a "
        "`Deserialize + JsonSchema` struct and a `#[tool]` method per tool in one "
        "`#[tool_router]` impl. Debug builds with dependencies already built; median of "
        f"{data['runs']} runs. “Full” is `cargo clean -p <crate>` then `cargo build -p <crate>`; "
        "“after editing one tool” changes one tool's body and builds again (incremental).\n"
    )
    if data.get("total_s") is not None:
        wall = data.get("wall_s", data["total_s"])
        out.append(
            f"The whole script, building the generated crates' dependencies first, ran in "
            f"{wall / 60:.1f} min on this machine ({data['runs']} runs per figure, "
            f"{len(data['rows'])} crates; it is kept under 20 minutes on 2 cores).\n"
        )
    out.append(
        "“Previous report” gives the same two figures (full / after one edit) from the last "
        "report, for the same style built with the same features.\n"
    )
    out.append("| style | tools | source lines | full rebuild | after editing one tool | previous report |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for row in data["rows"]:
        before = BEFORE["build"].get((row["style"], row["tools"]))
        before = f"{before[0]:.1f} s / {before[1]:.1f} s" if before else "—"
        out.append(
            f"| {labels.get(row['style'], row['style'])} | {row['tools']} | {row['lines']} | "
            f"{row['full_s']:.1f} s | {row['incremental_s']:.1f} s | {before} |"
        )
    out.append("")


# Measured by scripts/lean-core.sh, which perf-report does not run; update
# the figures here when running it again.
ONE_TOOL_CRATE = """## Building a one-tool crate

What depending on tool-runtime adds to a user's clean build: a crate with one `#[tool]` function (tool-runtime, serde, schemars, serde_json, tokio) against the same shape written with serde and schemars derives alone, each built clean in debug with its own target directory, the two back to back in each run:

```sh
scripts/lean-core.sh                   # RUNS=5 for more runs; crates in target/lean-core/
FROM=path scripts/lean-core.sh         # tool-runtime by path instead of from a registry
CHECKOUT=/path/to/checkout scripts/lean-core.sh   # another copy, e.g. an older commit
```

By default the one-tool crate gets tool-runtime the way a user gets it from crates.io: the script packs tool-runtime-macros, tool-runtime-core and tool-runtime with `cargo package` and serves them from a local registry, so cargo builds them like any registry dependency, without incremental compilation and with their lints capped. With `FROM=path` the crate names the checkout by path, as a crate in the same workspace would; cargo then compiles the three incrementally and runs all their lints, which costs about a second more of CPU time. The script prints each run's elapsed time and ratio, the median of those ratios, and the CPU time (user + system of cargo and the compilers) with its ratio.

Three commits, 5 runs each, one after the other in one session on an idle machine (load average 0.7 before, 2.2 after): the commit before the work on the default build (cb37dfc), the last one before the core moved into a crate of its own (1d2f4d6), and now; then now again by path.

| tool-runtime | one `#[tool]` crate | plain serde + schemars crate | ratio, elapsed | ratio, CPU time | crates in `cargo tree -p tool-runtime -e normal --prefix none \\| sort -u` |
| --- | ---: | ---: | ---: | ---: | ---: |
| cb37dfc, from a registry | 21.7 s (CPU 39.2 s) | 7.5 s (CPU 13.9 s) | 2.91x | 2.82x | 74 |
| 1d2f4d6, from a registry | 12.8 s (CPU 22.3 s) | 8.0 s (CPU 14.8 s) | 1.65x | 1.50x | 40 |
| now, from a registry | 11.4 s (CPU 21.3 s) | 7.6 s (CPU 14.0 s) | 1.47x | 1.52x | 41 |
| now, by path | 12.2 s (CPU 22.7 s) | 7.5 s (CPU 13.8 s) | 1.62x | 1.65x | 41 |

A later session of 7 runs from a registry (load average 0.4 before, 2.2 after) gave 11.1 s (CPU 20.8 s) against 7.3 s (CPU 13.6 s): 1.54x elapsed and 1.53x CPU time, single runs between 1.42x and 1.57x. The plain crate's CPU time moved by a second between the runs of one session, so compare CPU time in seconds rather than in ratios: 1d2f4d6 and now do the same work (22.3 s and 21.3 s), and what the split changed is when it is done. Before, `tool-runtime` waited for the macro and `schemars` and then built alone on one core; now `tool-runtime-core` names neither, so it builds beside them.

By `cargo build --timings` of the one-tool crate from a registry, the core starts at 7.5 s, once serde_json, Tokio, tokio-util, serde_path_to_error and base64 are built, and takes 3.8 s; the macro (1.6 s) and `schemars` (1.2 s) build on the other core meanwhile, then `tool-runtime` (0.2 s) and the crate itself (0.5 s). Both cores are busy until the end, so the elapsed time follows the CPU time. What tool-runtime adds to the plain crate's units: the core 3.8 s, the macro 1.6 s, `indexmap` and `hashbrown` for `preserve_order` (schemas list their properties in declaration order) 0.7 s, `bytes`, `tokio-util` and `futures-sink` for the `CancellationToken` that servers and Tokio programs share with tools 0.6 s, and `strsim`, `serde_path_to_error`, `base64` and `tool-runtime` about 0.2 s each. More than half of the core's LLVM IR is generic code of `std` instantiated for its iterators and collections (`cargo llvm-lines`), spread thinly: no one function makes more than 3 % of it.

### How it got here

Earlier measurements, by path (the script's only mode then), each pair one after the other in one session; many sessions were under heavy load from other builds (load average 4 to 8 on 2 cores), which moves elapsed times by up to five times and CPU time far less, so compare within a pair. The first two rows give the median elapsed times, as the script then did.

| tool-runtime's default build | one `#[tool]` crate | plain serde + schemars crate | ratio, elapsed | ratio, CPU time | crates in tool-runtime's normal tree |
| --- | ---: | ---: | ---: | ---: | ---: |
| before: regex, registry files, futures-util | 82.2 s | 27.8 s | 2.96x | — | 74 |
| then: regex-lite; registry files behind `files`; futures-core | 61.5 s | 27.5 s | 2.24x | — | 54 |
| before: darling, regex-syntax, syn's `extra-traits`, Tokio's multi-thread runtime | 52.4 s (CPU 39.9 s) | 29.7 s (CPU 18.6 s) | 1.91x | 2.15x | 54 |
| then: attribute keys read by the macro itself; patterns checked with regex-lite alone; syn without `extra-traits`; Tokio with `rt`, `sync`, `time` and `macros` only | 46.1 s (CPU 35.3 s) | 30.6 s (CPU 18.2 s) | 1.56x | 1.94x | 49 |
| before: syn 2 with `full` for the macro and for async-stream's macro | 68.7 s (CPU 38.7 s) | 37.2 s (CPU 19.7 s) | 1.96x | 1.97x | 49 |
| then: the macro on syn 3 (`full` only), the one serde's, schemars' and Tokio's macros use; `stream!` and `try_stream!` of tool-runtime's own, without async-stream | 51.8 s (CPU 32.2 s) | 35.9 s (CPU 18.9 s) | 1.43x | 1.71x | 45 |
| before: `pattern` (regex-lite) and `tracing` always built | 26.0 s (CPU 26.1 s) | 14.6 s (CPU 14.6 s) | 1.75x | 1.79x | 44 |
| then: `pattern` and `tracing` features of their own, off by default (on in tool-cli; `tracing` on in tool-mcp) | 22.4 s (CPU 23.1 s) | 14.5 s (CPU 14.2 s) | 1.51x | 1.63x | 40 |
| before, idle machine: commit 1d2f4d6 | 15.7 s (CPU 26.8 s) | 8.2 s (CPU 15.3 s) | 1.87x | 1.76x | 40 |
| then, idle machine: the core in `tool-runtime-core`, which builds beside the macros and `schemars` | 13.6 s (CPU 25.3 s) | 7.9 s (CPU 14.6 s) | 1.71x | 1.73x | 41 |

What each step took out:

- Registry files (the manifest, marked-yaml with yaml-rust2 and encoding_rs) moved behind the feature `files`, which tool-cli turns on; `pattern` constraints use regex-lite instead of the regex stack; `futures-core` replaced `futures-util`.
- The macro reads its attribute keys itself instead of through darling, checks patterns with regex-lite alone, and uses syn without `extra-traits`; Tokio is built with `rt`, `sync`, `time` and `macros` only, so its multi-thread scheduler is built only when the user's crate asks for it.
- The macro moved to syn 3, the one serde's, schemars' and Tokio's macros already use, walking types by hand instead of with syn's `visit`, and `stream!`/`try_stream!` became tool-runtime's own (the macro rewrites `yield` token by token; the stream takes each item from a slot it shares with the body): syn 2, async-stream and async-stream-impl left the build.
- `pattern` (regex-lite) and `tracing` (tracing, tracing-core, once_cell) became features of their own, off by default; a `pattern` without the feature fails to compile, saying to turn it on. `LiveRegistry`, with arc-swap and rustversion, went behind `live`, which tool-mcp and tool-cli turn on.
- The core moved into `tool-runtime-core`, as described above.
- Tool search (`search`) and the schema comparison behind lockfiles (`schema::compat`) became features of their own, off by default (tool-cli turns on `compat`): against the commit before, 7 runs each, 13.5 s to 13.2 s elapsed and 25.2 s to 24.7 s of CPU time.

Two attempts did not help and were not kept:

- Splitting the core once more, with the registry, the providers, strict mode and search in a crate of their own, made things worse: in two alternating sessions the elapsed ratio was 1.74x and 1.77x against 1.67x and 1.66x, with more CPU time. Each crate boundary instantiates the same generic code (iterators, collections, `serde_json`) again, and cargo's scheduler starts the macro last, because fewer units depend on it.
- A stand-in for tokio-util's `CancellationToken` saved 0.7 s of CPU time (1.65x, 7 runs, by path). tokio-util's is the type Tokio programs already hold, and it stays.
"""

# Measured by scripts/binary-size.sh, which perf-report does not run; update
# the figures here when running it again.
BINARY_SIZE = """## A one-tool MCP server's binary

The same MCP server over stdio, one tool `add(a: i64, b: i64)`, built in release twice: with tool-runtime and tool-mcp (`#[tool] fn add`, `McpServer::new(registry).serve_stdio()`, tool-mcp without its default features, which stdio does not need), and with rmcp alone (`#[tool_router(server_handler)]` on an impl with one `#[tool]` method taking `Parameters<AddArgs>`, served with `rmcp::transport::stdio()`, as rmcp's README shows). The rmcp server uses rmcp 3.11.0 (the workspace's lock file); both use Tokio with the same features (`macros` and `rt-multi-thread` asked for; the same set once unified) and the default release profile (no debug info, `panic = "unwind"`, 16 codegen units, no LTO), each in its own target directory; each binary must answer a `tools/call` before it is measured. A third build, `rmcp-ordered`, is the rmcp server with serde_json's and schemars' `preserve_order`, which tool-runtime turns on so that schemas keep their properties in declaration order (rmcp's own server lists them in alphabetical order): the same dependency features as ours.

```sh
scripts/binary-size.sh                 # crates in target/binary-size/; SRC=/path/to/checkout for another copy
```

| server | as built | stripped |
| --- | ---: | ---: |
| tool-runtime + tool-mcp | 0.62x (2,553 KiB) | 0.62x (1,913 KiB) |
| rmcp with `preserve_order` | 1.05x (4,352 KiB) | 1.06x (3,255 KiB) |
| rmcp alone | 1.00x (4,129 KiB) | 1.00x (3,063 KiB) |

The comparison is like with like in its build: same profile, same panic strategy, no debug info in either, the same Tokio features. Before this figure ours was 1.59x (4,869 KiB stripped): `cargo bloat --release --crates` gave 984 KiB of its code to tool-mcp, nearly all of it rmcp's serde model instantiated for the server (its request, result and notification enums, their (de)serializers and drop glue), 466 KiB to rmcp itself, and 1.0 MiB to `std`, against 773 KiB in rmcp's own server (generic code of rmcp's types counted there). A server on rmcp cannot be smaller than rmcp's own.

So the stdio server now speaks MCP itself (`tool_mcp::server`'s session core): JSON-RPC lines read into `serde_json` values, or, for `tools/call`, in one pass straight into the call's parts; answers written from small borrowed structs; `initialize`, `ping`, `tools/list`, `tools/call`, `logging/setLevel`, cancellation, progress and log notifications, `notifications/tools/list_changed`, sampling and elicitation requests to the client and their answers, and requests of the 2026-07-28 revision. rmcp is compiled only with tool-mcp's `http` (its streamable HTTP transport) or `client` features. The Python and TypeScript SDK client tests and the server's protocol tests pass unchanged over it. What the binary holds now, by `cargo bloat --release --crates` (code only): `std` 444 KiB, tool-runtime 336 KiB, tool-mcp 194 KiB, Tokio 173 KiB, serde_json 57 KiB, regex-lite 55 KiB (for `pattern` constraints), schemars 30 KiB; 1.3 MiB of code against 2.0 MiB in rmcp's server.
"""


RUNTIME_TOOLS = """## Run-time tools and the MCP client

What a tool defined at run time costs beside a `#[tool]` function, and what the MCP client adds to a call of a remote tool.

Instructions per call, counted with `valgrind --tool=callgrind` on the `profile` harness as in [Instructions per call](#instructions-per-call) (20,000 calls, less a run with none):

```sh
cargo build --release -p bench --bin profile
valgrind --tool=callgrind target/release/profile invoke_dynamic 20000
```

| path | instructions per call | net of the input copy | ratio to `invoke` |
| --- | ---: | ---: | ---: |
| `invoke` (the `#[tool]` function `search`) | 5,288 | 2,881 | 1.00x |
| `invoke_dynamic` (`search` as a `DynamicTool`: the same input schema, arguments validated with `jsonschema`, then read from the JSON value) | 9,397 | 6,990 | 1.78x (net 2.43x) |

The macro tool's path did not move with owned specs: `invoke` 5,288 instructions against 5,196 on the commit before (1.02x; net of the input copy 1.01x), `invoke_ctx` 1.02x, `call_json` 1.00x.

A call through the MCP client, against rmcp's own client calling the same server (a one-tool `McpServer` over stdio, spawned by each), one call in flight, 7 rounds of 2,000 calls per side, interleaved, median of the rounds' means:

```sh
cargo run --release -p bench --bin mcp_client -- 7 2000
```

| path | per call | ratio |
| --- | ---: | ---: |
| rmcp's client, `tools/call` | 154.9 µs | 1.00x |
| `McpClient` tools imported into a `Registry`, `Registry::invoke` (argument validation against the remote schema, the registry's policies, result conversion) | 154.5 µs | 1.00x |

The round trip through the server's process dominates; what the client and the registry add is within the noise of the pipe.
"""


# Measured by bench's `mcp_load` against two builds of `toolbox`, which
# perf-report does not run; update the figures here when running it again.
MCP_LOAD = """## MCP server throughput

Calls per second through `toolbox serve`, over stdio and over streamable HTTP, measured with `mcp_load`: every request a `tools/call` of `convert_length` whose answer depends on the request, each answer matched to its request by id and checked (no run lost or got wrong a single answer). Before: commit 2df908a (rmcp's stream transport over Tokio's `stdin()` and `stdout()`; HTTP connections with Nagle's algorithm on). After: the same with the server's own stdio transport (stdin and stdout through Tokio's reactor when they are pipes, one write per message, a flush when no more wait) and `TCP_NODELAY` on accepted connections. Both release builds, runs interleaved, 3 of each, the median given.

```sh
cargo build --release -p examples --bin toolbox -p bench --bin mcp_load
target/release/mcp_load stdio --requests 30000 --window 64 -- target/release/toolbox serve
target/release/mcp_load stdio --requests 10000 --window 1 -- target/release/toolbox serve
target/release/toolbox serve --http 127.0.0.1:18931 &
target/release/mcp_load http --requests 20000 --connections 16 http://127.0.0.1:18931/mcp
target/release/mcp_load http --requests 3000 --connections 1 http://127.0.0.1:18931/mcp
```

| transport, load | before | after | ratio |
| --- | ---: | ---: | ---: |
| stdio, 64 requests in flight | 9,128 calls/s | 38,375 calls/s | 4.2x |
| stdio, one request in flight | 8,962 calls/s | 13,915 calls/s | 1.55x |
| HTTP, 16 sessions on a connection each, a call at a time | 348 calls/s | 14,127 calls/s | 41x |
| HTTP, one session, a call at a time | 22 calls/s (45 ms a call) | 3,427 calls/s (0.29 ms a call) | 156x |

The server's CPU time over stdio at 64 in flight (`/usr/bin/time` around `toolbox serve`, 30,000 calls): 3.25 s before, 0.43 s after, 108 µs against 14 µs a call (7.6x less), with 7.8 voluntary context switches a call before and 0.33 after: Tokio's `stdin()` and `stdout()` hand every read, write and flush to a thread of the blocking pool. Over HTTP, each answer's server-sent events went out in several small writes, and Nagle's algorithm held the later ones until the client's delayed acknowledgement, some 40 ms. The official TypeScript SDK's client (Node and the packages of `tests/mcp/node.sh`, a `Client` on a `StreamableHTTPClientTransport`) took 4.53 s for 200 sequential `callTool`s before and 0.30 s after (15x; a second pair of runs: 4.60 s and 0.43 s). The machine was loaded by other builds (load average 4 to 7 on 2 cores), so single figures move; the one-connection HTTP figure after the change ranged from 2,485 to 7,609 calls/s.
"""


# Measured by scripts/mcp-throughput.sh, which perf-report does not run;
# update the figures here when running it again.
MCP_SIDE_BY_SIDE = """## MCP server throughput, side by side

The same one-tool MCP server, `add(a: i64, b: i64)` answering the sum as text, written with three libraries and once by hand, each built in release and driven by `mcp_load --tool add` in one run, so that the ratios compare servers under the same load (on this 2-core machine the load generator and the server share the cores):

- **ours**: `#[tool] fn add` in a `Registry`, served by `McpServer::serve_stdio()`, or by `serve_http` on a `tokio::net::TcpListener` with `--http ADDR` (tool-mcp with its `http` feature alone).
- **rmcp**: rmcp 3.11.0 alone, as its README shows: `#[tool_router(server_handler)]` on an impl with one `#[tool]` method taking `Parameters<AddArgs>` and returning a `String`; over stdio with `rmcp::transport::stdio()`; over HTTP its `StreamableHttpService` with a `LocalSessionManager` and the default configuration, nested at `/mcp` in an axum router served by `axum::serve`, `TCP_NODELAY` set on every accepted socket.
- **flymcprust**: flymcprust 0.1.1, as its README shows: `#[tool] fn add`, `Server::builder(..).tool::<add>().build()?`, then `serve_stdio()` or `serve_http(ADDR)`.
- **floor**: stdio only, by hand: each line read from a 64 KiB buffer, parsed by serde_json into a message, its answer built with `json!` and written into a `BufWriter` that is flushed when no more input waits in the buffer.

Each server is a scratch crate under `target/mcp-peers/` with its own lock file (ours and rmcp's start from the workspace's), built with the default release profile into one shared target directory: the workspace's lock file gains neither flymcprust nor axum. Over stdio, `mcp_load` spawns the server and keeps 64 requests, or one, in flight on its stdin; over HTTP it opens 16 connections, each with an MCP session of its own (`initialize` at protocol 2025-06-18, then `notifications/initialized`), each making its calls one after another. Call `n` is `add(n, n + 1)`; its answer must be the text `2n + 1`, not an error, matched to the request by id. Six rounds, each running every server once in turn, a fresh server process for every run: 50,000 calls a stdio run with 64 in flight, 20,000 with one, 30,000 an HTTP run. Ours was built from commit cca742b (`REV=HEAD`: the commit's sources, not the work tree).

```sh
REV=HEAD scripts/mcp-throughput.sh     # ROUNDS=6 STDIO_REQUESTS=50000 STDIO1_REQUESTS=20000 HTTP_REQUESTS=30000 by default
```

| transport | in flight | ours | rmcp | flymcprust | floor | ours / rmcp | ours / flymcprust | lost / wrong |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| stdio | 64 | 95,904 | 10,757 | 76,086 | 223,962 | 8.92x | 1.26x | 0 / 0 |
| stdio | 1 | 13,602 | 8,322 | 9,703 | 52,852 | 1.63x | 1.40x | 0 / 0 |
| HTTP | 16 sessions | 40,340 | 14,662 | 30,886 | — | 2.75x | 1.31x | 0 / 0 |

| server | peak memory: stdio, 64 in flight | stdio, 1 in flight | HTTP, 16 sessions | binary, stripped |
| --- | ---: | ---: | ---: | ---: |
| ours | 6.3 MiB | 5.9 MiB | 9.2 MiB | 6,781 KiB |
| rmcp | 7.6 MiB | 6.7 MiB | 10.0 MiB | 5,239 KiB |
| flymcprust | 5.3 MiB | 5.1 MiB | 5.4 MiB | 2,720 KiB |
| floor | 2.1 MiB | 2.1 MiB | — | 494 KiB |

The columns: *in flight*, the requests the client keeps outstanding on the server's stdin, or over HTTP the sessions, each on its own connection with one call outstanding; *ours* to *floor*, calls answered a second, the median of the six rounds; the ratios, ours' median over the peer's, above 1 when ours is faster; *lost / wrong*, answers that never came and answers that were not the expected one, summed over every server and round of the row. *Peak memory* is the server process's `VmHWM` from `/proc/PID/status` once the run's last answer is in (read by `mcp_load` before it closes a stdio server's stdin, and through `--pid` for an HTTP server), the largest of the six rounds. *Binary* is the stripped release binary, which serves both transports (ours with tool-mcp's `http` feature, rmcp's with axum and its streamable HTTP server), so it is larger than the stdio-only binaries of [A one-tool MCP server's binary](#a-one-tool-mcp-servers-binary).

- Over stdio ours answers 8.9x as many calls as rmcp's server with 64 in flight and 1.63x with one, and 1.26x and 1.40x as many as flymcprust. Our stdio server speaks MCP itself (tool-mcp's session core, on serde_json; no rmcp underneath): a `tools/call` line is read in one pass straight into the call's parts (rmcp's generic decoder of client messages tries each message kind and method in turn: some 40,000 instructions a call, measured with callgrind) and runs on a task of its own, its answer written from borrowed parts. Its stdin and stdout are driven by the reactor (one `read`, one `write` and one `epoll_wait` per call with one in flight), where rmcp's `stdio()` (Tokio's `stdin()` and `stdout()`) and flymcprust hand every read and write to a thread of the blocking pool; `#[tool_router(server_handler)]` also builds rmcp's tool router, the tool's schema included, again in every `call_tool` and `list_tools`.
- Over HTTP ours answers 2.75x as many calls as rmcp's server and 1.31x as many as flymcprust. A POST holding one plain `tools/call` of a session set up is run by our transport and answered at once (one write of a priming event and the answer), where rmcp's `StreamableHttpService`, which ours used for every request before, parses the message through serde's buffered content for its untagged and flattened enums, hands it to the session's worker task through a channel, spawns a task for it, and writes the event stream in two `writev`s. Calls with a progress token, and every other request, still go through rmcp's service.
- Peak memory: ours is 0.83x rmcp's over stdio with 64 in flight, 0.88x with one, and 0.92x over HTTP; flymcprust stays at about 5 MiB. Most of a small server's resident memory is its binary's pages: the stdio server no longer links rmcp's message model (see [A one-tool MCP server's binary](#a-one-tool-mcp-servers-binary), where the stdio-only server is 0.62x rmcp's), so it touches fewer of them. This binary serves both transports, and streamable HTTP is still rmcp's transport underneath, so it carries rmcp's model as well as our stdio core: 1.29x rmcp's two-transport server and 2.5x flymcprust's.
- The figures of single runs move with the machine's load (the floor's with one in flight ranged from 44,507 to 63,846 calls a second over the six rounds, and its median was 52,852 here against 13,916 in the previous run, with the same code). The medians of interleaved rounds and their ratios are the figures to compare.
"""


# Measured by scripts/mcp-auth-throughput.sh, which perf-report does not
# run; update the figures here when running it again.
AUTHORIZED_CALLS = """## Authorized calls

What asking for access tokens costs a server over streamable HTTP: the one-tool server of the side-by-side comparison (`#[tool] fn add`, tool-mcp's `serve_http_with`, built in release with its `http` and `auth` features) served anonymously, and as an OAuth resource server (`HttpOptions::resource_server`) of the pinned authorization server of `tests/mcp/auth` (oidc-provider on loopback), every request carrying one RS256 JWT access token got by the client-credentials grant. `mcp_load http --tool add --connections 16` (each connection its own MCP session making one call at a time; `--bearer-env` for the token), the two servers in turn in each round, the first alternating; the median of the rounds. Measured on 2026-12-06 with other builds on the machine (load average 5 to 10 on 2 cores), so single runs moved by up to a half, and the ratio of the medians by several percent between runs of the same code.

```sh
scripts/mcp-auth-throughput.sh     # ROUNDS=6 HTTP_REQUESTS=30000 by default; SRC=/path/to/checkout for another copy
```

| server | checking each token | anonymous | protected | a protected call's cost |
| --- | --- | ---: | ---: | ---: |
| the commit before the verification cache (3 rounds) | on every request | 12,557 calls/s | 3,799 calls/s | 3.31x |
| with the verification cache (5 rounds) | once, then remembered | 11,060 calls/s | 10,255 calls/s | 1.08x |
| with the verification cache (8 rounds, a second run) | once, then remembered | 10,114 calls/s | 9,212 calls/s | 1.10x |
| with the verification cache, per-tool scopes and callers' shares (6 rounds, a third run) | once, then remembered | 8,480 calls/s | 8,406 calls/s | 1.01x |

No run lost or got wrong an answer. Before, every request's JWT was checked in full: its header parsed, its key found, its RS256 signature verified with the `rsa` crate (a 2048-bit public-key operation) and its claims decoded and checked, which made a protected call cost 3.3 anonymous ones. A `ResourceServer` now remembers the tokens it accepted (`ResourceServerBuilder::verification_cache_size`, 1,024 by default), keyed by the SHA-256 digest of the token, each until its `exp`, 60 s (`verification_cache_lifetime`) and, for a JWT, the next fetch or the end of the freshness of the keys that checked it. A request with a remembered token costs the digest of its token (about 800 bytes here), a lookup under a lock, a copy of its `Caller` and the scope check; what remains between the two servers is that, the larger requests (the `Authorization` header) and the call's context carrying its caller.
"""


def one_tool_crate_section(out):
    out.append(ONE_TOOL_CRATE)


def binary_size_section(out):
    out.append(BINARY_SIZE)


def runtime_tools_section(out):
    out.append(RUNTIME_TOOLS)


def mcp_load_section(out):
    out.append(MCP_LOAD)


TOOL_SEARCH = """## Tool search

A thousand generated tools (`bench::catalog`: 66 services such as a code host, chat, billing, a CRM, Kubernetes, travel and smart home, each with a few kinds of object, the usual actions on each and the ones particular to it; one to seven parameters each), three of them always offered and the rest deferred, so the registry holds 1001 tools with `search_tools`. Measured on 2026-11-24 on the machine above, under other builds (load average about 4).

```sh
cargo run --release -p bench --bin tool_search 100     # percentiles, accuracy, tokens
cargo bench -p bench --bench tool_search                # criterion: index build, one search
cargo test -p tests --test search                       # the accuracy floor, asserted
```

The `tool_search` binary times every query of `tests/fixtures/tool-search/queries.json` (55 natural-language requests such as "refund the customer's last card payment" or "turn off the living room lights") 100 times, each search timed on its own: 5,500 searches. Measured again on 2026-11-25 under other builds (load average about 4).

| path | p50 | p99 | max |
| --- | ---: | ---: | ---: |
| `ToolIndex::search(query, 5)` | 2.51 µs | 5.41 µs | 50.58 µs |
| `SearchTool::search(query, 5, false)`: the JSON the model reads | 3.66 µs | 7.63 µs | 59.06 µs |
| `registry.invoke` of `search_tools`, five definitions included | 14.42 µs | 25.01 µs | 108.94 µs |

The p99 is two orders of magnitude under a millisecond. Criterion (median of 100 samples, the earlier session): a short query 1.95 µs, a fourteen-word query 6.70 µs, a result with definitions 12.88 µs. Building the registry with its index over the thousand tools takes 17.06 ms, the index alone 9.52 ms (once, at `build()`).

Accuracy on the 55 queries: the tool meant is first for 51 and among the first three for all 55 (`tests/tests/search.rs` asserts the top three).

Tokens per request, counted with OpenAI's `o200k_base` tokenizer (`tool_runtime::tokens`) on the rendered JSON:

| provider | every tool | deferred loading | ratio |
| --- | ---: | ---: | ---: |
| `openai` (Chat Completions) | 118,127 | 527 | 0.004 (224× fewer) |
| `bedrock` | 115,129 | 517 | 0.004 (223× fewer) |
| `gemini` | 105,986 | 483 | 0.005 (219× fewer) |
| `mcp` | 109,129 | 524 | 0.005 (208× fewer) |
| `anthropic`, sent | 109,127 | 114,134 | 1.05 |
| `anthropic`, in the model's context (estimate) | 109,127 | 336 | 0.003 (325× fewer) |
| `responses`, sent | 115,127 | 121,114 | 1.05 |
| `responses`, in the model's context (estimate) | 115,127 | 29,452 | 0.26 (4× fewer) |

For the providers without a search of their own, the request holds the three offered tools and `search_tools`. Anthropic and the Responses API receive every definition (deferred ones flagged) and search on their side, so the request grows a little; what the model reads is estimated from their documentation: Anthropic keeps deferred tools out of the context entirely, while the Responses API still shows each deferred function's name and description, hence its smaller saving. Each `search_tools` call then costs its result: 148 tokens for five names and descriptions, 530 with their definitions.
"""


def tool_search_section(out):
    out.append(TOOL_SEARCH)


def mcp_side_by_side_section(out):
    out.append(MCP_SIDE_BY_SIDE)


def authorized_calls_section(out):
    out.append(AUTHORIZED_CALLS)


def instructions_section(profile, out):
    out.append("## Instructions per call\n")
    if not profile:
        out.append("Not measured (needs valgrind; `scripts/perf-report.sh` runs it when installed).\n")
        return
    out.append(
        "Counted with `valgrind --tool=callgrind` on the `profile` harness "
        f"({profile['iterations']:,} calls per path, minus a run with none). Instruction counts do "
        "not move with the machine's load, so they show small changes that timings on a shared "
        "machine hide. Paths that consume their input copy it each iteration (the `clone_*` "
        "rows); “net” subtracts that copy, and “vs same input” divides by the hand-written "
        "(or direct) path that starts from the same input. `floor_tool_use` is the hand-written "
        "dispatch of a parsed tool use, (a‴) above; `invoke_cancellable` is `invoke` with a "
        "context whose caller holds its token, (b‴) above; `invoke_ctx` is `invoke` of the same tool "
        "taking a `&ToolContext` parameter, so its call makes a context of its own; `*_async` "
        "call the async tool `lookup`, "
        "which yields once, on a current-thread runtime. “before” is the previous report's "
        "count.\n"
    )
    out.append("| path | instructions per call | net | vs same input | before |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    paths = profile["paths"]
    for path, count in paths.items():
        net = net_instructions(paths, path)
        base = PROFILE_BASES.get(path, (None, None))[1]
        base_net = net_instructions(paths, base) if base else None
        ratio = fmt_ratio(net / base_net) if base_net else "—"
        before = BEFORE["instructions"].get(path)
        out.append(
            f"| `{path}` | {count:,} | {net:,} | {ratio} | {f'{before:,}' if before else '—'} |"
        )
    out.append("")
    peers_paths = profile.get("peers_paths")
    if peers_paths and {"invoke", "floor_tool_use", "clone_tool_use"} <= peers_paths.keys():
        invoke = net_instructions(peers_paths, "invoke")
        floor = net_instructions(peers_paths, "floor_tool_use")
        out.append(
            "Built with `--features peers` (serde_json's `preserve_order` on, as in the run with "
            f"peers), net of the input copy: `floor_tool_use` {floor:,}, `invoke` {invoke:,} "
            f"({invoke / floor:.2f}×).\n"
        )


def meaning_section(call_times, peer_times, invalid, scale, conc, build, profile, out):
    out.append("## What the numbers mean\n")

    def t(key, times=call_times):
        value = times.get(key)
        return value[0] if value else None

    floor, floor_value = t("floor_str"), t("floor_value")
    floor_use, floor_owned = t("floor_tool_use_str"), t("floor_tool_use_owned")
    invoke_str, invoke = t("ours_invoke_str"), t("ours_invoke_tool_use")
    call_json = t("ours_call_json")
    points = []
    before = BEFORE["call"]
    if invoke and floor_owned:
        text = (
            "What changed since the previous report is the cancellation check on the agent "
            "path. Every call made with one context reads that context's cancellation token "
            "before its tool runs, and reading a tokio-util `CancellationToken` takes its lock. "
            "A context now notes whether a handle to its token has ever left the runtime "
            "(asked for with `cancellation_token()`, injected into a tool, or passed in with "
            "`with_cancellation`); until one has, nothing can have cancelled the token, and the "
            "check reads that flag alone. A caller that keeps its token pays the lock as "
            "before, row (b‴). The name lookup and the building of a call's context (for tools "
            "that read one) are also inlined into the call. Against the hand-written dispatch "
            f"measured in the same run, `invoke` of a parsed tool use went from "
            f"{before['ours_invoke_tool_use'] / before['floor_tool_use_owned']:.2f}× "
            f"(previous report: {fmt_time(before['ours_invoke_tool_use'])} against "
            f"{fmt_time(before['floor_tool_use_owned'])}) to {invoke / floor_owned:.2f}× "
            f"({fmt_time(invoke)} against {fmt_time(floor_owned)})"
        )
        held = t("ours_invoke_tool_use_cancellable")
        if held:
            text += f", and is {held / floor_owned:.2f}× ({fmt_time(held)}) when the caller holds its token"
        if profile:
            paths = profile["paths"]
            old_paths = BEFORE["instructions"]
            copy = old_paths["clone_tool_use"]
            old = old_paths["invoke"] - copy
            old_floor = old_paths["floor_tool_use"] - copy
            now = net_instructions(paths, "invoke")
            text += (
                f". In instructions, net of the input copy, `invoke` went from {old:,} "
                f"({old / old_floor:.2f}× by hand) to {now:,}"
            )
            if "floor_tool_use" in paths:
                floor_net = net_instructions(paths, "floor_tool_use")
                text += f" against {floor_net:,} by hand ({now / floor_net:.2f}×)"
                if "invoke_cancellable" in paths:
                    held_net = net_instructions(paths, "invoke_cancellable")
                    text += (
                        f"; with the caller holding its token it is {held_net:,} "
                        f"({held_net / floor_net:.2f}×), what every call cost before"
                    )
                if "invoke_ctx" in paths:
                    ctx_net = net_instructions(paths, "invoke_ctx")
                    old_ctx = old_paths["invoke_ctx"] - copy
                    text += (
                        f". The same tool taking `&ToolContext` (`invoke_ctx`), whose call makes "
                        f"a context of its own, went from {old_ctx:,} ({old_ctx / old_floor:.2f}×) "
                        f"to {ctx_net:,} ({ctx_net / floor_net:.2f}×)"
                    )
        points.append(text + ".")
        # The same ratio three ways: each criterion run, and instructions.
        measures = [("in time", invoke / floor_owned)]
        p_inv, p_floor = t("ours_invoke_tool_use", peer_times), t("floor_tool_use_owned", peer_times)
        if p_inv and p_floor:
            measures.append(("in time in the run with peers", p_inv / p_floor))
        if profile and "floor_tool_use" in profile["paths"]:
            paths = profile["paths"]
            measures.append((
                "in instructions",
                net_instructions(paths, "invoke") / net_instructions(paths, "floor_tool_use"),
            ))
        if max(ratio for _, ratio in measures) > 1.25:
            remains = (
                "What remains: `invoke` of a parsed tool use is "
                + ", ".join(f"{ratio:.2f}× the hand-written dispatch {how}" for how, ratio in measures)
                + ". The 1.25× aimed at is met "
                + (" and ".join(how for how, ratio in measures if ratio <= 1.25) or "by none of these")
                + " and not "
                + " and ".join(how for how, ratio in measures if ratio > 1.25)
                + ". (The two timed runs "
                "differ more than their paths do: on this shared machine, a run's absolute "
                "times move with the load, and the instruction count is the steady figure.) "
                "Both paths allocate the same "
                "strings and result; the difference is the agent path's own work on every call, "
                "each piece tens of instructions: the name lookup, the `tool_call` span, one "
                "reference count on the caller's token and the check of whether it was handed "
                "out, the panic guard, and the state machine of the call's future, which is "
                "moved whole before it runs"
            )
            if profile and "floor_tool_use" in profile["paths"]:
                paths = profile["paths"]
                gap = net_instructions(paths, "invoke") - net_instructions(paths, "floor_tool_use")
                remains += f" (together {gap:,} instructions per call, see the instruction counts)"
            remains += (
                ". Each is what a guarantee of the agent path costs; none grows with the "
                "tool's size, so the ratio falls as the tool does more work. Two of those "
                "steps are atomic operations on memory shared with other calls (the token's "
                "reference count up and down), which cost more time than their instruction "
                "count says; a caller that holds its token adds two more, the token's lock "
                "taken and released. Removing those needs a token that can be read without a "
                "lock, which tokio-util's cannot."
            )
            peers_paths = (profile or {}).get("peers_paths")
            if p_inv and p_floor and p_inv / p_floor > invoke / floor_owned * 1.1:
                remains += (
                    " The run with peers has the higher ratio because rig turns on "
                    "serde_json's `preserve_order`, which makes the floor cheaper by more than the "
                    "agent path"
                )
                if peers_paths and profile and "floor_tool_use" in profile["paths"]:
                    paths = profile["paths"]
                    floor_d = net_instructions(paths, "floor_tool_use")
                    floor_p = net_instructions(peers_paths, "floor_tool_use")
                    own_d = net_instructions(paths, "invoke") - floor_d
                    own_p = net_instructions(peers_paths, "invoke") - floor_p
                    remains += (
                        f": in instructions the floor goes from {floor_d:,} to {floor_p:,} "
                        f"(serde's derived decoding reads an insertion-ordered map through "
                        f"code the compiler inlines, as the decoding `#[tool]` writes out "
                        f"already is in both builds), and the difference between the two "
                        f"paths goes from {own_d:,} to {own_p:,}, so the ratio in that build is "
                        f"{(floor_p + own_p) / floor_p:.2f}×"
                    )
                remains += "."
            points.append(remains)
        else:
            points.append(
                "`invoke` of a parsed tool use is "
                + ", ".join(f"{ratio:.2f}× the hand-written dispatch {how}" for how, ratio in measures)
                + ": within the 1.25× aimed at by every measure. What is left is the agent "
                "path's own work on every call, each piece tens of instructions: the name "
                "lookup, the `tool_call` span, one reference count on the caller's token and "
                "the check of whether it was handed out (its lock too, when the caller holds "
                "it), the panic guard, and the state machine of the call's future. None grows "
                "with the tool's size, so the ratio falls as the tool does more work."
            )
    if invoke_str and floor_use and invoke and floor_owned:
        overhead = invoke - floor_owned
        points.append(
            f"The agent path, `Registry::invoke`, costs {fmt_time(invoke)} from a parsed tool use "
            f"against {fmt_time(floor_owned)} for a hand-written `match` that does the same "
            f"decoding and builds the same `ToolResult` ({invoke / floor_owned:.2f}×), and "
            f"{fmt_time(invoke_str)} against {fmt_time(floor_use)} from text "
            f"({invoke_str / floor_use:.2f}×, parsing the tool use dominates). The "
            f"{fmt_time(overhead)} per call buys what the hand-written version lacks: panics "
            "caught and turned into error results, cancellation and time limits, approval and "
            "enablement hooks, a tracing span, and for tools that read one, a context of the "
            "call's own"
            + (
                f". Against a model turn of even 100 ms it is one part in {1e8 / overhead:,.0f}."
                if overhead > 0
                else "."
            )
        )
    if profile and {"invoke_async", "floor_async"} <= profile["paths"].keys():
        paths = profile["paths"]
        net = net_instructions(paths, "invoke_async")
        floor_async = paths["floor_async"]
        points.append(
            f"An async tool (`lookup`, which yields once) called through `invoke` costs {net:,} "
            f"instructions net of the tool use's copy, against {floor_async:,} to decode by hand "
            f"and await the same body on the same runtime ({net / floor_async:.2f}×). What an "
            "async call adds to a sync one is where a pending tool waits: its future is boxed "
            "(`ToolFuture::pending`), the race against cancellation is boxed so that sync calls' "
            "futures stay small, and the call registers a waiter on the caller's token, under "
            "the token's lock, so that cancelling wakes it. Each is paid once per call, not per "
            "poll, so a tool that waits on real I/O for milliseconds does not notice it."
        )
    if call_json and floor_value and floor:
        points.append(
            f"The direct path, `Tool::call_json`, costs {fmt_time(call_json)}: "
            f"{call_json / floor_value:.2f}× hand-written serde decoding from the same `Value` "
            f"and {call_json / floor:.2f}× the floor (a), which decodes from text. Calling a "
            "tool as a typed function from Rust costs about what serde alone costs."
        )
    call_str, json_str = t("ours_call_str"), t("ours_call_json_str")
    if call_str and floor:
        text = (
            f"Arguments as JSON text, as OpenAI sends them: `Tool::call_str` costs "
            f"{fmt_time(call_str)}, {call_str / floor:.2f}× the floor (a), which does the same "
            "from the same text"
        )
        if json_str:
            text += (
                f", where parsing the text into a `Value` and calling `call_json` costs "
                f"{fmt_time(json_str)} ({json_str / floor:.2f}×)"
            )
        old = BEFORE["call"]
        text += f" (previous report: {old['ours_call_str'] / old['floor_str']:.2f}×"
        if profile and {"call_str", "floor_str"} <= profile["paths"].keys():
            paths = profile["paths"]
            text += (
                f"; in instructions, the steadier figure, {paths['call_str']:,} against "
                f"{paths['floor_str']:,}, {paths['call_str'] / paths['floor_str']:.2f}×, "
                f"where the previous report had "
                f"{BEFORE['instructions']['call_str'] / BEFORE['instructions']['floor_str']:.2f}×"
            )
        text += (
            "). That speed "
            "comes from the `text-args` feature, on by default, which gives every tool a "
            "second decoder, from text; with the decoding written out by the macro, the second "
            "one costs little to compile (see the build times)."
        )
        points.append(text)
    p_invoke_str, p_invoke = t("ours_invoke_str", peer_times), t("ours_invoke_tool_use", peer_times)
    p_json_str = t("ours_call_json_str", peer_times)
    p_call_str = t("ours_call_str", peer_times)
    rmcp_str, rmcp_params, rig = t("rmcp_str", peer_times), t("rmcp_params", peer_times), t("rig_str", peer_times)
    comparisons = []
    if rmcp_str and p_invoke_str:
        comparisons.append(
            f"rmcp from text {fmt_time(rmcp_str)} against `invoke` from text {fmt_time(p_invoke_str)} "
            f"({p_invoke_str / rmcp_str:.2f}×)"
        )
    if rmcp_params and p_invoke:
        comparisons.append(
            f"rmcp from parsed params {fmt_time(rmcp_params)} against `invoke` of a parsed tool use "
            f"{fmt_time(p_invoke)} ({p_invoke / rmcp_params:.2f}×)"
        )
    if rig and p_call_str:
        comparisons.append(
            f"rig from argument text {fmt_time(rig)} against `Tool::call_str` from argument "
            f"text {fmt_time(p_call_str)} ({p_call_str / rig:.2f}×; the previous report had "
            f"{BEFORE['peers']['ours_call_str'] / BEFORE['peers']['rig_str']:.2f}×)"
        )
    if rig and p_json_str:
        comparisons.append(
            f"`call_json` from argument text, which parses a `Value` first, "
            f"{fmt_time(p_json_str)} ({p_json_str / rig:.2f}×)"
        )
    if comparisons:
        text = (
            "Against the peers, in the run that builds them (ratios are ours ÷ theirs, below 1 "
            "when ours is faster): " + "; ".join(comparisons) + "."
        )
        if rmcp_params and p_invoke:
            old = BEFORE["peers"]["ours_invoke_tool_use"] / BEFORE["peers"]["rmcp_params"]
            text += (
                f" The previous report had `invoke` of a parsed tool use at {old:.2f}× rmcp's "
                "router with parsed params"
            )
            if p_invoke >= rmcp_params:
                text += "; it is still slower, by the per-call work listed above."
            elif old < 1:
                now = p_invoke / rmcp_params
                if now < old * 0.95:
                    text += "; it is still faster, by more."
                elif now > old * 1.05:
                    text += "; it is still faster, by a little less."
                else:
                    text += "; it is still faster, by about as much."
            else:
                text += "; it is now faster."
        text += (
            " rmcp's router and rig's `execute` decode and call; the runtime's agent path "
            "also catches panics, honours cancellation, time limits and policy hooks, and "
            "opens a tracing span."
        )
        points.append(text)
    bad, good = invalid.get("ours_invoke_str"), call_times.get("ours_invoke_str")
    if bad and good:
        points.append(
            f"An invalid call costs {fmt_time(bad[0])}, {bad[0] / good[0]:.1f}× a valid one: "
            "after the fast decode fails, a second pass decodes each parameter on its own and "
            "words every problem from the schema, with suggestions for misspelt names. It runs "
            "only when decoding fails; in exchange the model learns every mistake in one round "
            "trip instead of one per mistake."
        )
    if scale:
        points.append(
            f"A registry of {int(scale['tools']):,} tools is ready {fmt_time(scale['first_use_ns'])} "
            f"after first use and holds {fmt_bytes(scale['registry_live_bytes'])}. Schemas are "
            f"built lazily ({fmt_time(scale['schemas_first_ns'])} for all of them the first time) and "
            f"then held as `serde_json::Value` trees: {fmt_bytes(scale['schemas_live_bytes'])}, "
            f"{scale['schemas_live_bytes'] / max(scale['schema_text_bytes'], 1):.0f}× their size as "
            "JSON text. Lookup does not depend on the registry's size. Start-up cost is no reason "
            "to split tools across registries; what a model can choose from well is."
        )
    if conc:
        by = {(r["delay_us"], r["path"]): r for r in conc}
        for delay, label in [(0, "yields once"), (1000, "waits 1 ms")]:
            f0, o0 = by.get((delay, "hand-written")), by.get((delay, "Registry::invoke"))
            if f0 and o0:
                old = BEFORE["concurrency_p99_ms"]
                before_ratio = old[(delay, "Registry::invoke")] / old[(delay, "hand-written")]
                old_rate = BEFORE["concurrency_throughput"]
                old_share = old_rate[(delay, "Registry::invoke")] / old_rate[(delay, "hand-written")]
                points.append(
                    f"With {f0['calls_per_round']:,} calls in flight at once and a tool that {label}, "
                    f"`invoke` sustains {o0['throughput_per_s']:,.0f} calls/s against "
                    f"{f0['throughput_per_s']:,.0f} by hand ({o0['throughput_per_s'] / f0['throughput_per_s']:.0%}; "
                    f"the previous report had {old_share:.0%}); "
                    f"p99 latency {fmt_time(o0['latency_p99_us'] * 1e3)} against "
                    f"{fmt_time(f0['latency_p99_us'] * 1e3)} "
                    f"({o0['latency_p99_us'] / f0['latency_p99_us']:.2f}×; the previous report had "
                    f"{old[(delay, 'Registry::invoke')]:.2f} ms against {old[(delay, 'hand-written')]:.2f} ms, "
                    f"{before_ratio:.2f}×)."
                )
        if by:
            points.append(
                "Every concurrent call shares one caller context, and so its cancellation "
                "token. A call holds the token through an `Arc`; it takes the token's lock "
                "only for an async tool still pending after its first poll, to wait on it (and "
                "to check it before the tool runs, once the caller has asked for the token, "
                "which this harness does not). The absolute figures "
                "of this harness move a lot between runs on this shared machine (the "
                "hand-written path's own throughput differs by tens of percent from run to "
                "run), so compare the ratios, each within its run."
            )
        f1, o1 = by.get((1000, "hand-written")), by.get((1000, "Registry::invoke"))
        if f1 and o1 and o1["throughput_per_s"] < 0.8 * f1["throughput_per_s"]:
            points.append(
                "What remains in concurrency: with the tool that waits 1 ms, `invoke` "
                f"completes {o1['throughput_per_s'] / f1['throughput_per_s']:.0%} of the "
                "hand-written calls per second. The instruction counts do not explain it: "
                "with the tool that yields once, which polls the same futures the same number "
                "of times, the share is far higher. What differs is that a timer wakes each "
                "call a millisecond and thousands of other calls later, so its second poll "
                "finds everything cold in the cache, and an `invoke` call touches more "
                "memory: its task's larger future, the async tool's boxed future and the boxed "
                "race against cancellation, and the waiter it registered in the token's list, "
                "whose removal touches its neighbours. Measured while preparing earlier "
                "reports: not waiting on the token at all changed the share by a few points, "
                "within the noise, and keeping the race inline instead of boxed did not change "
                "it either, so neither was kept."
            )
    if build:
        rows = {(r["style"], r["tools"]): r for r in build["rows"]}
        biggest = max(r["tools"] for r in build["rows"])
        ours, hand, rmcp = rows.get(("ours", biggest)), rows.get(("hand", biggest)), rows.get(("rmcp", biggest))
        if ours and hand:
            text = (
                f"With {biggest} tools, a full rebuild of the crate takes {ours['full_s']:.1f} s with "
                f"`#[tool]` against {hand['full_s']:.1f} s by hand"
            )
            if rmcp:
                text += f" and {rmcp['full_s']:.1f} s with rmcp"
            text += (
                f"; after editing one tool, {ours['incremental_s']:.1f} s against "
                f"{hand['incremental_s']:.1f} s"
            )
            if rmcp:
                text += f" and {rmcp['incremental_s']:.1f} s"
            text += (
                f". `#[tool]` takes {ours['lines']} source lines where the hand-written "
                f"version takes {hand['lines']}"
            )
            if rmcp:
                text += f" and rmcp {rmcp['lines']}"
            text += "."
            lean = rows.get(("ours-lean", biggest))
            if lean:
                text += (
                    f" Without the default `text-args` feature, which gives each tool a second "
                    f"decoder (from JSON text), the full rebuild takes {lean['full_s']:.1f} s and "
                    f"the one after an edit {lean['incremental_s']:.1f} s: the second decoder "
                    "costs little, since it instantiates the written-out decoding and the "
                    "runtime's shared parts, not a derived impl per field."
                )
            points.append(text)
            old_ours = BEFORE["build"].get(("ours", biggest))
            old_hand = BEFORE["build"].get(("hand", biggest))
            if old_ours and old_hand:
                points.append(
                    f"Build time against the previous report: {biggest} tools with `#[tool]` took "
                    f"{old_ours[0]:.1f} s full and {old_ours[1]:.1f} s after one edit then "
                    f"({old_ours[0] / old_hand[0]:.2f}× and {old_ours[1] / old_hand[1]:.2f}× "
                    f"by hand), {ours['full_s']:.1f} s and {ours['incremental_s']:.1f} s now "
                    f"({ours['full_s'] / hand['full_s']:.2f}× and "
                    f"{ours['incremental_s'] / hand['incremental_s']:.2f}×). What the macro emits "
                    "did not change since then, so any difference is the machine's load."
                )
            slower = [
                (name, row)
                for name, row in (("the hand-written crate", hand), ("the rmcp crate", rmcp))
                if row and (row["full_s"] < ours["full_s"] or row["incremental_s"] < ours["incremental_s"])
            ]
            if slower:
                points.append(
                    "What remains in build time: with "
                    f"{biggest} tools, "
                    + "; ".join(
                        f"{name} rebuilds in {row['full_s']:.1f} s full and "
                        f"{row['incremental_s']:.1f} s after one edit"
                        for name, row in slower
                    )
                    + f", against {ours['full_s']:.1f} s and {ours['incremental_s']:.1f} s. "
                    "rustc's own timing of a full rebuild of the `#[tool]` crate "
                    "(`-Z time-passes`) puts most of it in code generation and in type and "
                    "borrow checking of what the macro emits per tool, and the rest in "
                    "expanding every tool, which every edit pays again. Single figures on this "
                    "shared machine move by 10–20 % between runs, so a gap of that size is "
                    "within the noise."
                )
    for point in points:
        out.append(f"- {point}")
    if not points:
        out.append("Run the suites to fill this in.")
    out.append("")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    results = Path(args.results)
    criterion = results / "criterion"
    machine = load_json(results / "machine.json") or {}
    scale = load_json(results / "scale.json")
    conc = load_json(results / "concurrency.json")
    build = load_json(results / "build-times.json")
    profile = load_json(results / "profile.json")
    profile_peers = load_json(results / "profile-peers.json")
    if profile and profile_peers:
        profile["peers_paths"] = profile_peers["paths"]

    out = []
    out.append("# Performance\n")
    out.append(
        "<!-- Written by scripts/perf-report.sh from the benchmark results; "
        "edit scripts/perf_report.py, not this file. -->\n"
    )
    out.append(
        "What calling a tool through the runtime costs next to hand-written serde code and "
        "next to other Rust tool libraries (rmcp, rig), what reporting every argument error "
        "costs, how a registry of a thousand tools behaves, how calls scale across threads, "
        "and how long tool definitions take to compile.\n"
    )
    out.append("## Running it\n")
    out.append("```sh")
    out.append("cargo bench -p bench                      # call cost, invalid arguments, registry scale")
    out.append("cargo bench -p bench --features peers     # the same, with rmcp and rig (builds them: minutes)")
    out.append("cargo run --release -p bench --bin scale        # first use and memory, in fresh processes")
    out.append("cargo run --release -p bench --bin concurrency  # 10,000 concurrent calls")
    out.append("scripts/build-times.sh                    # compile time of 50 and 200 tools, three styles")
    out.append("valgrind --tool=callgrind target/release/profile invoke 20000   # one path, for a profiler")
    out.append("scripts/perf-report.sh                    # all of the above, then rewrites this file")
    out.append("```\n")
    out.append(
        "`scripts/perf-report.sh --help` lists its options (skip the peers or the build times, "
        "count instructions alone, reuse earlier results). Builds with `--features peers` go to their own target "
        "directory at low priority.\n"
    )
    out.append("## Machine\n")
    for key, label in [
        ("date", "measured"),
        ("commit", "commit"),
        ("cpu", "CPU"),
        ("nproc", "cores (`nproc`)"),
        ("memory", "memory"),
        ("rustc", "compiler"),
        ("load", "load average before the run"),
    ]:
        if machine.get(key):
            out.append(f"- {label}: {machine[key]}")
    if profile and profile.get("commit") and profile["commit"] != machine.get("commit"):
        out.append(
            f"- instruction counts: commit {profile['commit']}, measured again on their own "
            "(`--instructions-only`; they do not depend on the machine's load)"
        )
    out.append("")
    out.append(
        "The machine is shared: other builds may run at the same time, so single figures move "
        "by 10–20 % between runs. Ratios within one criterion run are steadier than absolute "
        "times, which is why every path is measured in the same run.\n"
    )
    out.append("## Method\n")
    out.append(
        "- Criterion (`bench/benches/runtime.rs`), release profile, median of 100 samples "
        "(20 for the registry-scale group) after a 2 s warm-up. A sync tool finishes on its "
        "first poll, so calls are driven with `now_or_never`: no executor is timed.\n"
        "- Inputs a path consumes by value (a parsed `ToolUse`, rmcp's parameters, rig's "
        "argument `String`) are prepared outside the timed region with `iter_batched`; "
        "dropping them is timed, as in real use.\n"
        "- rmcp: a `#[tool_router]` server whose `ToolRouter` is built once; each call builds a "
        "`ToolCallContext` from a cloned `RequestContext` and runs `ToolRouter::call`. rmcp only "
        "creates the `Peer` a request context needs for a running service, so the harness "
        "starts one over an in-memory pipe that no message crosses: JSON-RPC framing and the "
        "transport are not timed, exactly as they are not for the other paths.\n"
        "- rig: `#[rig_tool]` on the same function, called through `ErasedTool::execute` (JSON "
        "text in, `ToolResult` out), the entry point rig's dispatch uses. rig-core 0.44 has "
        "no name-keyed tool set, so no lookup is timed for it.\n"
        "- Memory: a counting `#[global_allocator]` wrapper in the `scale` harness; the figure "
        "is the bytes allocated and not freed across the step.\n"
    )
    peers_dir = results / "criterion-peers"
    call_times, peer_call_times = call_section(criterion, peers_dir, out)
    invalid = invalid_section(criterion, peers_dir, call_times, peer_call_times, out)
    scale_section(criterion, scale, out)
    concurrency_section(conc, out)
    build_section(build, out)
    one_tool_crate_section(out)
    binary_size_section(out)
    instructions_section(profile, out)
    runtime_tools_section(out)
    mcp_load_section(out)
    mcp_side_by_side_section(out)
    authorized_calls_section(out)
    tool_search_section(out)
    meaning_section(call_times, peer_call_times, invalid, scale, conc, build, profile, out)
    Path(args.out).write_text("\n".join(out).rstrip() + "\n")


if __name__ == "__main__":
    main()
