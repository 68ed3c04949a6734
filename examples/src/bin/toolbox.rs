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

use tool_runtime::{Registry, registry::Linked};

// The example tools register themselves when their crate is linked.
use examples as _;

fn main() -> ExitCode {
    // The example tools (the linked `#[tool]`s of the `examples` crate) and
    // the built-in ones (calculator, current_time, files, http_request,
    // python_exec), which a program always names: they never register
    // themselves.
    let registry = Registry::builder()
        .linked(Linked::crates(["examples"]))
        .tools(tool_builtin::ALL)
        // A deprecated tool, which `list` marks.
        .tool(examples::MilesToKmTool)
        // A result as long as asked, and a question to the client: for
        // trying result limits and requests to the client
        // (`examples/src/serving.rs`).
        .tool(examples::serving::SampleTextTool)
        .tool(examples::serving::ConfirmTool)
        // As for the global registry: a tool whose configuration is missing
        // (`search` without its key) is left out, and `list` says why.
        .leave_out_unconfigured(true)
        .build();
    match registry {
        Ok(registry) => tool_cli::run_with(registry),
        Err(error) => {
            eprintln!("error: the tools do not form a registry: {error}");
            ExitCode::from(tool_cli::EXIT_USAGE)
        }
    }
}
