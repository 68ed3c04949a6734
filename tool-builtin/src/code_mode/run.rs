//! What a `code_mode` run returns: the script's output, how it ended, and
//! the calls it made.

use schemars::JsonSchema;
use serde::Serialize;
use tool_runtime::events::CallStatus;

/// What a `code_mode` run returns.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CodeModeRun {
    /// What the script printed to standard output (up to the limit).
    pub stdout: String,
    /// What it printed to standard error (up to the limit), tracebacks
    /// included.
    pub stderr: String,
    /// The exit code, when the process exited by itself.
    pub exit_code: Option<i32>,
    /// Whether a signal ended the process.
    pub killed: bool,
    /// The limit that stopped the script, or that it ran into: "timeout",
    /// "calls", "cpu", "memory", "file_size" or "cancelled".
    pub limit: Option<String>,
    /// What went wrong with the script's run as a whole, in a sentence,
    /// when something did.
    pub error: Option<String>,
    /// Whether standard output was cut at the limit.
    pub stdout_truncated: bool,
    /// Whether standard error was cut at the limit.
    pub stderr_truncated: bool,
    /// How long the run took, in milliseconds.
    pub duration_ms: u64,
    /// Every tool call the script made, in the order they ended.
    pub calls: Vec<ScriptCall>,
}

/// One tool call a script made: its record, in brief.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ScriptCall {
    /// The call's tool use id: the `code_mode` call's id, a dot and the
    /// call's number in the script (`"call-1.3"`).
    pub id: String,
    /// The `code_mode` call's tool use id, when it has one: the call's
    /// record's [`parent`](tool_runtime::events::ToolCallRecord::parent).
    pub parent: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// How the call ended.
    #[schemars(with = "String")]
    pub status: CallStatus,
    /// For a failed call, its error's kind ("invalid_arguments",
    /// "not_approved", ...).
    pub error_kind: Option<String>,
    /// How long the call took, in milliseconds.
    pub duration_ms: Option<u64>,
}
