//! Writes the thousand `#[tool]` functions of the registry-scale
//! measurements into `OUT_DIR/scale_tools.rs`.
//!
//! Tool `i` takes one to four parameters drawn in turn from six kinds
//! (text, an integer with a default, a flag, an optional enum, a list, a
//! number), so the schemas differ the way a real tool set's do; every tenth
//! tool is async.
//!
//! Release builds (what `cargo bench` and `cargo run --release` use) get
//! 1,000 tools; debug builds (clippy, tests, docs) get 100, which exercises
//! the same code while keeping CI fast. `BENCH_SCALE_TOOLS=N` overrides both.

use std::fmt::Write as _;
use std::path::PathBuf;

const RELEASE_COUNT: usize = 1000;
const DEBUG_COUNT: usize = 100;

/// (doc, attribute, name, type) of each parameter kind.
const KINDS: [(&str, &str, &str, &str); 6] = [
    ("Words to look for", "", "query", "String"),
    (
        "Most results to return",
        "#[tool(default = 10)]",
        "limit",
        "u32",
    ),
    ("Match the words exactly", "", "exact", "bool"),
    (
        "How much detail to return; brief when absent",
        "",
        "level",
        "Option<Level>",
    ),
    ("Tags the results must carry", "", "tags", "Vec<String>"),
    ("Minimum relevance, from 0 to 1", "", "ratio", "f64"),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BENCH_SCALE_TOOLS");
    let count = match std::env::var("BENCH_SCALE_TOOLS") {
        Ok(text) => text
            .parse::<usize>()
            .unwrap_or_else(|_| panic!("BENCH_SCALE_TOOLS must be a number, got {text:?}")),
        Err(_) if std::env::var("PROFILE").as_deref() == Ok("release") => RELEASE_COUNT,
        Err(_) => DEBUG_COUNT,
    };
    let mut out = String::new();
    writeln!(out, "/// How many tools this file defines.").unwrap();
    writeln!(out, "pub const COUNT: usize = {count};").unwrap();
    for i in 0..count {
        let params = i % 4 + 1;
        let first = i % KINDS.len();
        let kinds: Vec<_> = (0..params)
            .map(|k| KINDS[(first + k) % KINDS.len()])
            .collect();
        let asyncness = if i % 10 == 0 { "async " } else { "" };
        writeln!(out).unwrap();
        writeln!(
            out,
            "/// Looks up records of kind {i} in the catalogue.\n///\n/// \
             Returns one line describing the request."
        )
        .unwrap();
        writeln!(out, "#[tool]").unwrap();
        writeln!(out, "pub {asyncness}fn scale_tool_{i:04}(").unwrap();
        for (doc, attr, name, ty) in &kinds {
            writeln!(out, "    /// {doc}").unwrap();
            if !attr.is_empty() {
                writeln!(out, "    {attr}").unwrap();
            }
            writeln!(out, "    {name}: {ty},").unwrap();
        }
        let names: Vec<&str> = kinds.iter().map(|(_, _, name, _)| *name).collect();
        writeln!(out, ") -> String {{").unwrap();
        writeln!(
            out,
            "    format!(\"scale_tool_{i:04}: {{:?}}\", ({},))",
            names.join(", ")
        )
        .unwrap();
        writeln!(out, "}}").unwrap();
    }
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("scale_tools.rs");
    std::fs::write(&path, out).expect("OUT_DIR is writable");
}
