//! A binary that serves the tools of the library it links, and no other.

use std::process::ExitCode;

use unification_tools as _;

fn main() -> ExitCode {
    tool_cli::run()
}
