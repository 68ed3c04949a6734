//! Generated arguments for every example and built-in tool, through the
//! agent path and the text path: prints how many cases ran, how many
//! panics escaped (there must be none) and the slowest call.
//!
//! ```sh
//! cargo run --release -p bench --bin fuzz -- [CASES [SEED]]
//! ```

use std::process::ExitCode;

// The example tools register themselves when their crate is linked; the
// built-in ones are named in `bench::fuzz::registry`.
use examples as _;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| -> u64 {
        args.get(i).map_or(default, |text| {
            text.replace('_', "").parse().unwrap_or_else(|_| {
                eprintln!("usage: fuzz [CASES [SEED]]");
                std::process::exit(2)
            })
        })
    };
    let (cases, seed) = (number(0, 100_000), number(1, 7));
    let root = tempfile::tempdir().expect("a scratch directory");
    let registry = bench::fuzz::registry(root.path());
    // Deep cases are refused before anything recurses into them; a big
    // stack only spares the generator's own serialisation.
    let report = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || bench::fuzz::run(&registry, cases, seed))
        .expect("a thread")
        .join()
        .expect("the run itself does not panic");
    println!("cases: {}", report.cases);
    println!("escaped panics: {}", report.escaped_panics);
    println!("errors without their field: {}", report.unnamed.len());
    for line in &report.unnamed {
        println!("  {line}");
    }
    println!(
        "calls stopped at the {:?} limit: {}",
        bench::fuzz::CALL_LIMIT,
        report.timed_out
    );
    println!(
        "slowest call: {:?} ({})",
        report.slowest.0, report.slowest.1
    );
    if report.escaped_panics == 0 && report.unnamed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
