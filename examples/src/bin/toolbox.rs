//! `toolbox`: the command line of `tool_cli` over the example tools
//! and the built-in tools of `tool-builtin`.
//!
//! ```sh
//! cargo run -p examples --bin toolbox -- list
//! cargo run -p examples --bin toolbox -- schema convert_length --format anthropic
//! cargo run -p examples --bin toolbox -- call convert_length --args '{"value":1,"from":"mile","to":"kilometre"}'
//! cargo run -p examples --bin toolbox -- serve            # MCP on stdio
//! ```
//!
//! With a registry file that names MCP servers it is an aggregating proxy:
//! their tools are listed, called and served beside the local ones
//! (`docs/cli.md`).
//!
//! ```sh
//! cargo run -p examples --bin toolbox -- --registry examples/proxy/tools.yaml list
//! cargo run -p examples --bin toolbox -- --registry examples/proxy/tools.yaml call everything_echo --args '{"message":"hi"}'
//! cargo run -p examples --bin toolbox -- --registry examples/proxy/tools.yaml serve
//! ```

use std::process::ExitCode;

// Tools are registered when their crate is linked: the example tools and
// the built-in ones (calculator, current_time, files, http_request,
// python_exec).
use examples as _;
use tool_builtin as _;

fn main() -> ExitCode {
    tool_cli::run()
}
