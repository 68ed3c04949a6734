#!/usr/bin/env python3
"""Compile time of tool definitions, by style and by count.

Generates crates with N tools in three styles into a scratch workspace
(default /tmp/toolbench), with the tool runtime as a path dependency:

- ours: one `#[tool]` function per tool, tool-runtime's default features;
- ours-lean: the same without tool-runtime's `text-args` feature (with it,
  each tool also gets a decoder from JSON text);
- hand: per tool, a struct deriving `Deserialize` and `JsonSchema`, the
  function, and a `match` on names that decodes and calls it, plus a list of
  specs built with `schemars::schema_for!`;
- rmcp: per tool, a `Deserialize + JsonSchema` struct and a `#[tool]` method
  in one `#[tool_router]` impl.

The tools are the same in every style: one to four parameters drawn from
text, an integer with a default, a flag, an optional enum, a list and a
number; every tenth tool is async.

Dependencies are built once first. Then, for each crate, the median of
several runs of: a full rebuild of the crate alone (`cargo clean -p` of that
crate, then `cargo build -p`), and an incremental rebuild after one tool's
body changed. Prints a markdown table; `--json FILE` also writes the figures.

Run through scripts/build-times.sh.
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

KINDS = [
    # (doc, name, type, default literal or None)
    ("Words to look for", "query", "String", None),
    ("Most results to return", "limit", "u32", "10"),
    ("Match the words exactly", "exact", "bool", None),
    ("How much detail to return; brief when absent", "level", "Option<Level>", None),
    ("Tags the results must carry", "tags", "Vec<String>", None),
    ("Minimum relevance, from 0 to 1", "ratio", "f64", None),
]

STYLES = ["ours", "ours-lean", "hand", "rmcp"]

LEVEL_ENUM = """
/// A detail level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// One line.
    Brief,
    /// Everything.
    Full,
}
"""


def tool_params(i):
    count = i % 4 + 1
    first = i % len(KINDS)
    return [KINDS[(first + k) % len(KINDS)] for k in range(count)]


def is_async(i):
    return i % 10 == 0


def body(i, names, rev):
    # Tool 0 carries a revision marker: changing it is the incremental edit.
    marker = f" rev {rev}" if i == 0 else ""
    return f'format!("tool_{i:04}{marker}: {{:?}}", ({", ".join(names)},))'


def description(i):
    return f"Looks up records of kind {i} in the catalogue."


def gen_ours(n, rev):
    out = ["//! Generated tools, `#[tool]` style.", "", "use tool_runtime::tool;", LEVEL_ENUM]
    for i in range(n):
        params = tool_params(i)
        out.append(f"/// {description(i)}")
        out.append("#[tool]")
        out.append(f"pub {'async ' if is_async(i) else ''}fn tool_{i:04}(")
        for doc, name, ty, default in params:
            out.append(f"    /// {doc}")
            if default is not None:
                out.append(f"    #[tool(default = {default})]")
            out.append(f"    {name}: {ty},")
        out.append(") -> String {")
        out.append(f"    {body(i, [p[1] for p in params], rev)}")
        out.append("}")
        out.append("")
    return "\n".join(out)


def args_struct(i, params):
    out = [
        f"/// The arguments of `tool_{i:04}`.",
        "#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]",
        "#[serde(deny_unknown_fields)]",
        f"pub struct Tool{i:04}Args {{",
    ]
    for doc, name, ty, default in params:
        out.append(f"    /// {doc}")
        if default is not None:
            out.append(f'    #[serde(default = "default_{name}")]')
        elif ty.startswith("Option<"):
            out.append("    #[serde(default)]")
        out.append(f"    pub {name}: {ty},")
    out.append("}")
    return out


DEFAULT_FNS = """
fn default_limit() -> u32 {
    10
}
"""


def gen_hand(n, rev):
    out = [
        "//! Generated tools, written by hand: serde structs and a match on names.",
        "",
        "use serde_json::{json, Value};",
        LEVEL_ENUM,
        DEFAULT_FNS,
    ]
    for i in range(n):
        params = tool_params(i)
        names = [p[1] for p in params]
        out += args_struct(i, params)
        out.append("")
        out.append(f"/// {description(i)}")
        sig = ", ".join(f"{name}: {ty}" for _, name, ty, _ in params)
        out.append(f"pub {'async ' if is_async(i) else ''}fn tool_{i:04}({sig}) -> String {{")
        out.append(f"    {body(i, names, rev)}")
        out.append("}")
        out.append("")
    out.append("/// Every tool's name, description and input schema.")
    out.append("pub fn specs() -> Vec<Value> {")
    out.append("    vec![")
    for i in range(n):
        out.append(
            f'        json!({{"name": "tool_{i:04}", "description": "{description(i)}", '
            f'"input_schema": schemars::schema_for!(Tool{i:04}Args)}}),'
        )
    out.append("    ]")
    out.append("}")
    out.append("")
    out.append("/// Calls the tool `name` with JSON arguments.")
    out.append("pub async fn call(name: &str, args: Value) -> Result<Value, String> {")
    out.append("    match name {")
    for i in range(n):
        names = [p[1] for p in tool_params(i)]
        call_args = ", ".join(f"args.{name}" for name in names)
        awaiting = ".await" if is_async(i) else ""
        out.append(f'        "tool_{i:04}" => {{')
        out.append(
            f"            let args: Tool{i:04}Args = "
            "serde_json::from_value(args).map_err(|e| e.to_string())?;"
        )
        out.append(f"            Ok(json!(tool_{i:04}({call_args}){awaiting}))")
        out.append("        }")
    out.append('        other => Err(format!("unknown tool {other}")),')
    out.append("    }")
    out.append("}")
    return "\n".join(out)


def gen_rmcp(n, rev):
    out = [
        "//! Generated tools, rmcp style: one `#[tool_router]` impl.",
        "",
        "use rmcp::handler::server::wrapper::Parameters;",
        "use rmcp::{tool, tool_router};",
        LEVEL_ENUM,
        DEFAULT_FNS,
    ]
    for i in range(n):
        out += args_struct(i, tool_params(i))
        out.append("")
    out.append("/// The server holding every tool.")
    out.append("#[derive(Debug, Clone, Default)]")
    out.append("pub struct Server;")
    out.append("")
    out.append('#[tool_router(server_handler, vis = "pub")]')
    out.append("impl Server {")
    for i in range(n):
        names = [p[1] for p in tool_params(i)]
        pattern = ", ".join(names)
        out.append(f"    /// {description(i)}")
        out.append("    #[tool]")
        out.append(
            f"    {'async ' if is_async(i) else ''}fn tool_{i:04}(&self, "
            f"Parameters(Tool{i:04}Args {{ {pattern} }}): Parameters<Tool{i:04}Args>) -> String {{"
        )
        out.append(f"        {body(i, names, rev)}")
        out.append("    }")
        out.append("")
    out.append("}")
    return "\n".join(out)


GENERATORS = {"ours": gen_ours, "ours-lean": gen_ours, "hand": gen_hand, "rmcp": gen_rmcp}


def manifest(name, style, repo):
    runtime = repo / "tool-runtime"
    deps = {
        "ours": f'tool-runtime = {{ path = "{runtime}" }}\nserde = {{ version = "1", features = ["derive"] }}\nschemars = "1"\n',
        "ours-lean": f'tool-runtime = {{ path = "{runtime}", default-features = false }}\nserde = {{ version = "1", features = ["derive"] }}\nschemars = "1"\n',
        "hand": 'serde = { version = "1", features = ["derive"] }\nserde_json = "1"\nschemars = "1"\n',
        "rmcp": 'rmcp = { version = "3.11", default-features = false, features = ["server", "macros"] }\nserde = { version = "1", features = ["derive"] }\nschemars = "1"\n',
    }[style]
    return (
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f"[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n{deps}"
    )


def cargo(args, workspace, target):
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), CARGO_TERM_COLOR="never")
    start = time.perf_counter()
    done = subprocess.run(
        ["cargo", *args], cwd=workspace, env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"cargo {' '.join(args)} failed in {workspace}")
    return elapsed


def main():
    script_started = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default="/tmp/toolbench", help="scratch workspace")
    parser.add_argument("--counts", default="50,200", help="tool counts, comma-separated")
    parser.add_argument("--styles", default=",".join(STYLES))
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    repo = Path(__file__).resolve().parent.parent
    root = Path(args.dir)
    target = root / "target"
    counts = [int(c) for c in args.counts.split(",")]
    styles = args.styles.split(",")
    for style in styles:
        if style not in GENERATORS:
            raise SystemExit(f"unknown style {style!r}; expected one of {STYLES}")

    crates = [(style, n, f"gen-{style}-{n}") for n in counts for style in styles]
    root.mkdir(parents=True, exist_ok=True)
    members = ", ".join(f'"{name}"' for _, _, name in crates)
    (root / "Cargo.toml").write_text(f'[workspace]\nresolver = "3"\nmembers = [{members}]\n')
    # Start from the project's lock file so shared dependencies match it.
    shutil.copyfile(repo / "Cargo.lock", root / "Cargo.lock")
    lines = {}
    for style, n, name in crates:
        src = root / name / "src"
        src.mkdir(parents=True, exist_ok=True)
        (root / name / "Cargo.toml").write_text(manifest(name, style, repo))
        text = GENERATORS[style](n, 0)
        (src / "lib.rs").write_text(text)
        lines[name] = sum(1 for line in text.splitlines() if line.strip())

    started = time.perf_counter()
    print(f"building dependencies in {root} ...", file=sys.stderr)
    for _, _, name in crates:
        cargo(["build", "-p", name], root, target)

    results = []
    for style, n, name in crates:
        full, incremental = [], []
        for run in range(args.runs):
            cargo(["clean", "-p", name], root, target)
            full.append(cargo(["build", "-p", name], root, target))
        for run in range(args.runs):
            text = GENERATORS[style](n, run + 1)
            (root / name / "src" / "lib.rs").write_text(text)
            incremental.append(cargo(["build", "-p", name], root, target))
        row = {
            "style": style,
            "tools": n,
            "lines": lines[name],
            "full_s": statistics.median(full),
            "incremental_s": statistics.median(incremental),
            "full_runs": full,
            "incremental_runs": incremental,
        }
        results.append(row)
        print(
            f"{name}: full {row['full_s']:.2f}s, incremental {row['incremental_s']:.2f}s",
            file=sys.stderr,
        )

    labels = {"ours": "`#[tool]`", "ours-lean": "`#[tool]` without `text-args`", "hand": "hand-written serde + match", "rmcp": "rmcp `#[tool_router]`"}
    print(f"Debug builds, median of {args.runs} runs; dependencies already built.\n")
    print("| style | tools | source lines | full rebuild of the crate | after editing one tool |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for row in results:
        print(
            f"| {labels[row['style']]} | {row['tools']} | {row['lines']} | "
            f"{row['full_s']:.1f} s | {row['incremental_s']:.1f} s |"
        )
    total = time.perf_counter() - started
    print(f"\n(measured in {total / 60:.1f} min)", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "runs": args.runs,
                    "rows": results,
                    "total_s": total,
                    # Everything, generating the crates included.
                    "wall_s": time.perf_counter() - script_started,
                    "machine": platform.machine(),
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
