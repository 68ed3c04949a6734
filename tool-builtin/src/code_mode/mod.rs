//! Code mode: the model writes one Python script that calls many tools.
//!
//! [`CodeMode`] turns a [`Registry`] into one tool, `code_mode`, whose only
//! argument is a script. Its description shows the registry's tools (those
//! of an allowlist) as Python functions, with signatures and docstrings
//! made from their schemas:
//!
//! ```text
//! def convert_length(value: float, from_: str, to: str) -> dict:
//!     """Converts a length between units."""
//! ```
//!
//! The script runs under `python_exec`'s runner, with its limits and, when
//! asked, its sandbox; what a sandboxed script calls stays in the sandbox
//! too (`python_exec` runs sandboxed, tools that reach an open world are
//! left out unless named: see [`CodeModeOptions::python`]). Each call of such a function is a JSON request on a
//! socket of the script's own (standard output stays the script's output);
//! this process runs it through [`Registry::invoke_recorded`] with the
//! `code_mode` call's context, so validation, policies, approval, time
//! limits, cancellation and the tracing span are those of a direct call,
//! and the reply comes back as a `dict`, a `list` or a `str`. A failed call
//! raises `ToolCallError` in the script, which may catch it.
//!
//! ```no_run
//! use std::sync::Arc;
//! use tool_builtin::code_mode::CodeMode;
//! use tool_runtime::{Registry, ToolContext, ToolUse};
//! use serde_json::json;
//!
//! # async fn demo(tools: Registry) -> Result<(), Box<dyn std::error::Error>> {
//! let code_mode = CodeMode::new(tools)
//!     .tools(["convert_length", "schedule_meeting"])
//!     .max_calls(20)
//!     .build()?;
//! let outer = Registry::builder().tool(code_mode).build()?;
//! let script = "print(convert_length(value=3, from_='mile', to='km'))";
//! let result = outer
//!     .invoke(ToolUse::new("c1", "code_mode", json!({"script": script})), &ToolContext::new())
//!     .await;
//! println!("{}", result.text_content());
//! # Ok(())
//! # }
//! ```
//!
//! Every limit has a default (see [`CodeModeOptions`]); `docs/code-mode.md`
//! describes the design and the security boundary.

mod bridge;
mod offer;
mod prelude;
mod run;
mod sandbox;
mod schema;
mod section;
mod tool;

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::{Registry, ToolSpec};

use crate::python::PythonConfig;
pub use offer::{CodeModeExt, CodeModeOffer, CodeModeSetupError};
use prelude::PyTool;
pub use run::{CodeModeRun, ScriptCall};
pub use section::{CodeModeSection, CodeModeSetting};
pub use tool::CodeModeTool;

/// The limits and settings of a [`CodeMode`] tool, each with a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CodeModeOptions {
    /// The tools a script may call, by name; `None` (the default): every
    /// tool of the registry. A tool left out has no function in the
    /// script.
    pub tools: Option<Vec<String>>,
    /// The most tool calls one script may make (default 50); every later
    /// call raises `ToolCallError` of kind `"limit"`.
    pub max_calls: u32,
    /// The most calls running at once (default 4): calls from more of the
    /// script's threads wait for one to end.
    pub max_concurrent_calls: u32,
    /// The wall-clock limit of a whole script, in milliseconds (default
    /// 30000): its process group is killed when it passes.
    pub timeout_ms: u64,
    /// The most bytes kept of the script's standard output, and of its
    /// standard error (default 65536).
    pub max_output_bytes: u64,
    /// The longest script accepted, in bytes (default 100000).
    pub max_script_bytes: u64,
    /// The longest request line a script may send (a call's arguments as
    /// JSON), in bytes (default 1 MiB).
    pub max_request_bytes: u64,
    /// The largest reply a call may return to the script, as JSON, in bytes
    /// (default 1 MiB): a larger result raises `ToolCallError`.
    pub max_reply_bytes: u64,
    /// The most bytes of replies that may wait for the script to read them
    /// (default 4 MiB). Past it the agent reads no more requests until the
    /// script has read its replies, so a script that sends requests and
    /// never reads the replies is held back (its writes block), not
    /// buffered; the calls already running still reply, which may pass
    /// the limit by their replies.
    pub max_unread_reply_bytes: u64,
    /// Above this many tools (default 30), the description shows only the
    /// first `shown_tools` and the script finds the others with
    /// `search_tools(query)`.
    pub search_threshold: usize,
    /// How many tools the description shows when there are more than
    /// `search_threshold` (default 10).
    pub shown_tools: usize,
    /// How the interpreter runs: the interpreter, CPU time, memory, file
    /// size, environment and the `sandbox` switch (default off), as for
    /// `python_exec`. Its `timeout_ms`, `max_output_bytes` and
    /// `max_code_bytes` are replaced by this tool's own limits.
    ///
    /// Under the sandbox, what the script calls stays inside it too:
    /// `python_exec` runs its code in the sandbox whatever its own setting
    /// (its calls carry `tool_builtin::python::SandboxRequired`),
    /// and every other tool that declares it reaches an open world
    /// (`open_world`, as `http_request`, the HTTP tools and `code_mode`
    /// itself do) is left out of the script, unless `open_world_tools`
    /// names it.
    pub python: PythonConfig,
    /// Under the sandbox, the tools that declare `open_world` which a
    /// script may call all the same (default none): each such call runs in
    /// the agent's process, outside the sandbox, as a direct call does.
    /// Without the sandbox every tool of the allowlist is offered and this
    /// changes nothing.
    pub open_world_tools: Vec<String>,
}

impl Default for CodeModeOptions {
    fn default() -> Self {
        Self {
            tools: None,
            max_calls: 50,
            max_concurrent_calls: 4,
            timeout_ms: 30_000,
            max_output_bytes: 64 * 1024,
            max_script_bytes: 100_000,
            max_request_bytes: 1024 * 1024,
            max_reply_bytes: 1024 * 1024,
            max_unread_reply_bytes: 4 * 1024 * 1024,
            search_threshold: 30,
            shown_tools: 10,
            python: PythonConfig::default(),
            open_world_tools: Vec::new(),
        }
    }
}

/// Makes the `code_mode` tool of a registry: see the [module](self).
#[derive(Debug, Clone)]
pub struct CodeMode {
    registry: Arc<Registry>,
    options: CodeModeOptions,
}

impl CodeMode {
    /// Code mode over the tools of `registry`, with the default options.
    /// The registry's policies (approval, time limits, `enabled_when`,
    /// allowlist) apply to every call a script makes.
    pub fn new(registry: impl Into<Arc<Registry>>) -> Self {
        Self {
            registry: registry.into(),
            options: CodeModeOptions::default(),
        }
    }

    /// Replaces every option.
    pub fn options(mut self, options: CodeModeOptions) -> Self {
        self.options = options;
        self
    }

    /// Offers only the tools named (an allowlist).
    pub fn tools(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options.tools = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// The most tool calls one script may make.
    pub fn max_calls(mut self, calls: u32) -> Self {
        self.options.max_calls = calls;
        self
    }

    /// The most calls running at once.
    pub fn max_concurrent_calls(mut self, calls: u32) -> Self {
        self.options.max_concurrent_calls = calls;
        self
    }

    /// The wall-clock limit of a whole script.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        self
    }

    /// Runs scripts in `python_exec`'s sandbox (Linux namespaces: no
    /// network, a private `/tmp`), or not. Under the sandbox `python_exec`
    /// runs sandboxed too, and the tools that declare `open_world` are left
    /// out of the script unless [`open_world_tools`](Self::open_world_tools)
    /// names them.
    pub fn sandbox(mut self, sandbox: bool) -> Self {
        self.options.python.sandbox = sandbox;
        self
    }

    /// Lets a sandboxed script call these tools all the same, though they
    /// declare that they reach an open world (`open_world`): each call runs
    /// in the agent's process, outside the sandbox, as a direct call does.
    /// Without the sandbox it changes nothing.
    pub fn open_world_tools(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options.open_world_tools = names.into_iter().map(Into::into).collect();
        self
    }

    /// The `code_mode` tool. Fails when the allowlist or `open_world_tools`
    /// names a tool the registry does not have, when a limit is zero, or,
    /// under the sandbox, when the allowlist names a tool that would reach
    /// outside it (see [`CodeModeOptions::open_world_tools`]).
    ///
    /// The tool needs every [scope](tool_runtime::ToolSpec::scopes) its
    /// script's tools need: its description shows them all, so a caller
    /// that lacks one is neither offered `code_mode` nor can call it (each
    /// call a script makes is checked too). To offer code mode to callers
    /// of fewer scopes, make one per set of scopes with
    /// [`tools`](Self::tools).
    pub fn build(self) -> Result<CodeModeTool, CodeModeError> {
        let options = self.options;
        for (name, value) in [
            ("max_calls", u64::from(options.max_calls)),
            (
                "max_concurrent_calls",
                u64::from(options.max_concurrent_calls),
            ),
            ("timeout_ms", options.timeout_ms),
            ("max_output_bytes", options.max_output_bytes),
            ("max_script_bytes", options.max_script_bytes),
            ("max_request_bytes", options.max_request_bytes),
            ("max_reply_bytes", options.max_reply_bytes),
            ("max_unread_reply_bytes", options.max_unread_reply_bytes),
        ] {
            if value == 0 {
                return Err(CodeModeError(format!("{name} must be at least 1")));
            }
        }
        let specs = offered(&self.registry, &options)?;
        let mut taken = HashSet::new();
        let tools: Vec<PyTool> = specs
            .iter()
            .map(|spec| PyTool::new(spec, &mut taken))
            .collect();
        let index = (tools.len() > options.search_threshold)
            .then(|| tool_runtime::search::ToolIndex::new(specs.iter().copied()));
        let mut scopes = Vec::new();
        for scope in specs.iter().flat_map(|spec| spec.scopes.iter()) {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        Ok(CodeModeTool::new(
            self.registry,
            options,
            tools,
            index,
            scopes,
        ))
    }
}

/// The specs of the tools a script may call: the allowlist's (every tool
/// when there is none), less, under the sandbox, those that would reach
/// outside it ([`sandbox::outside`]).
fn offered<'a>(
    registry: &'a Registry,
    options: &CodeModeOptions,
) -> Result<Vec<&'a ToolSpec>, CodeModeError> {
    let sandboxed = options.python.sandbox;
    if let Some(name) = options
        .open_world_tools
        .iter()
        .find(|name| registry.get(name).is_none())
    {
        return Err(CodeModeError(format!(
            "code mode's open_world_tools names \"{name}\", which the registry does not have"
        )));
    }
    let Some(names) = &options.tools else {
        return Ok(registry
            .specs()
            .filter(|spec| !sandboxed || !sandbox::outside(spec, options))
            .collect());
    };
    let mut specs = Vec::with_capacity(names.len());
    for name in names {
        let Some(tool) = registry.get(name) else {
            return Err(CodeModeError(format!(
                "code mode offers \"{name}\", which the registry does not have"
            )));
        };
        let spec = tool.spec();
        if sandboxed && sandbox::outside(spec, options) {
            return Err(CodeModeError(format!(
                "code mode runs scripts in the sandbox, and \"{name}\" reaches an open world \
                 from the agent's process, outside it: leave it out, or name it in \
                 open_world_tools to offer it all the same"
            )));
        }
        specs.push(spec);
    }
    Ok(specs)
}

/// Why a [`CodeMode`] tool could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeModeError(String);

impl fmt::Display for CodeModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CodeModeError {}
