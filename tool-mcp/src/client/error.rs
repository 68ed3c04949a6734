//! What can go wrong talking to an MCP server.

use std::fmt;

use tool_runtime::{ToolError, spec::ToolErrorKind};

/// What kind of failure an [`McpClientError`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum McpClientErrorKind {
    /// The configuration cannot be used (a header that is not valid HTTP, say).
    Config,
    /// The server could not be started or reached, or did not complete the
    /// MCP handshake.
    Connect,
    /// The server is not running (it exited, or closed the connection) and
    /// has not been restarted yet.
    Closed,
    /// The server did not answer in time.
    TimedOut,
    /// The caller cancelled the request.
    Cancelled,
    /// The server answered with a JSON-RPC error, or with something that is
    /// not an answer to the request.
    Protocol,
    /// The server sent more than one of the [`McpLimits`](super::McpLimits)
    /// allows (a result too large, too many tools); the message names the
    /// limit.
    Limit,
    /// The server requires authorization (OAuth) the client could not
    /// obtain: none configured, or the authorization failed (the message
    /// says why).
    Auth,
    /// A task waits for the client's input: its requests are in the task
    /// ([`McpClient::get_task`](super::McpClient::get_task)), answered with
    /// [`McpClient::update_task`](super::McpClient::update_task).
    InputRequired,
}

/// An error talking to an MCP server. Its message always names the server:
/// ``MCP server `everything`: ...``.
#[derive(Debug, Clone)]
pub struct McpClientError {
    server: String,
    kind: McpClientErrorKind,
    message: String,
}

impl McpClientError {
    pub(crate) fn new(
        server: impl Into<String>,
        kind: McpClientErrorKind,
        message: impl Into<String>,
    ) -> Self {
        Self {
            server: server.into(),
            kind,
            message: message.into(),
        }
    }

    /// The name the server was given in [`McpClient::connect`](super::McpClient::connect).
    pub fn server(&self) -> &str {
        &self.server
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> McpClientErrorKind {
        self.kind
    }

    /// The message without the server's name.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error as a tool error, for a tool call that fails with it: the
    /// same text (naming the server), with the kind that fits
    /// ([`TimedOut`](ToolErrorKind::TimedOut),
    /// [`Cancelled`](ToolErrorKind::Cancelled), else
    /// [`Failed`](ToolErrorKind::Failed), whose text the model reads as it
    /// is).
    pub fn to_tool_error(&self) -> ToolError {
        let kind = match self.kind {
            McpClientErrorKind::TimedOut => ToolErrorKind::TimedOut,
            McpClientErrorKind::Cancelled => ToolErrorKind::Cancelled,
            _ => ToolErrorKind::Failed,
        };
        ToolError::with_kind(kind, self.to_string())
    }
}

impl fmt::Display for McpClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MCP server `{}`: {}", self.server, self.message)
    }
}

impl std::error::Error for McpClientError {}

/// Text a server sent (an error message, a line on its stderr, a progress
/// message), as the client repeats it: cut at `max` characters with `…`,
/// control characters escaped (`\u{1b}`), so that it cannot drive a
/// terminal or run on for megabytes.
pub(crate) fn untrusted(text: &str, max: usize) -> String {
    let mut cut = text
        .char_indices()
        .nth(max)
        .map_or(text, |(at, _)| &text[..at]);
    let more = cut.len() < text.len();
    cut = cut.trim_end();
    let mut shown = tool_runtime::__private::quote::escape(cut);
    if more {
        shown.push('…');
    }
    shown
}
