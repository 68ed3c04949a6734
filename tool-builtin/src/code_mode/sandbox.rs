//! What a sandboxed script may call: the tools that stay inside the
//! sandbox, and those the deployer lets it reach outside.
//!
//! A script in `python_exec`'s sandbox has no network of its own, but each
//! tool it calls runs in the agent's process. So under the sandbox:
//!
//! - `python_exec` is offered, and runs its code in the sandbox: the
//!   script's calls carry [`SandboxRequired`](crate::python::SandboxRequired), which it obeys whatever its
//!   own `sandbox` setting says;
//! - a tool that declares it reaches an open world (`open_world`:
//!   `http_request`, the HTTP tools, `code_mode` itself, an MCP server's
//!   tool that says so) is left out, unless the deployer names it in
//!   [`open_world_tools`](super::CodeModeOptions::open_world_tools);
//! - every other tool is offered as it is: a tool that reaches the
//!   network without declaring `open_world` is its author's mistake, and
//!   the allowlist's to leave out.

use tool_runtime::{Tool, ToolSpec};

use super::CodeModeOptions;
use crate::python::PythonExecTool;

/// Whether a call of the tool of `spec` made by a sandboxed script would
/// reach outside the sandbox, so that the script may not make it: the tool
/// declares an open world, does not obey [`SandboxRequired`](crate::python::SandboxRequired), and
/// `options.open_world_tools` does not name it.
pub(super) fn outside(spec: &ToolSpec, options: &CodeModeOptions) -> bool {
    spec.annotations.open_world == Some(true)
        && !obeys(spec)
        && !options
            .open_world_tools
            .iter()
            .any(|name| *name == spec.name)
}

/// Whether the tool of `spec` runs its code in the sandbox when its call's
/// context carries [`SandboxRequired`](crate::python::SandboxRequired): `python_exec` (under any name a
/// registry gives it), known by where it is defined.
fn obeys(spec: &ToolSpec) -> bool {
    spec.location == PythonExecTool.spec().location
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn open_world_tools_stay_out_unless_named_and_python_exec_stays_in() {
        let options = CodeModeOptions::default();
        let python = PythonExecTool.spec().clone();
        assert!(!outside(&python, &options));
        let http = crate::http::HttpRequestTool.spec().clone();
        assert!(outside(&http, &options));
        let mut renamed = python.clone();
        renamed.name = "run_python".into();
        assert!(
            !outside(&renamed, &options),
            "python_exec under another name"
        );
        let mut open = ToolSpec::new("fetch", "Fetches.", json!({"type": "object"}));
        open.annotations.open_world = Some(true);
        assert!(outside(&open, &options));
        let named = CodeModeOptions {
            open_world_tools: vec!["fetch".into()],
            ..CodeModeOptions::default()
        };
        assert!(!outside(&open, &named));
        let closed = ToolSpec::new("add", "Adds.", json!({"type": "object"}));
        assert!(!outside(&closed, &options));
    }
}
