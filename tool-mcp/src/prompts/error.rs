//! Why a prompt could not be given (or a collection of prompts built).

use std::fmt;

use tool_runtime::ToolError;

/// Why a prompt could not be given (or completed). The server answers
/// [`MissingArgument`](Self::MissingArgument) and
/// [`InvalidArgument`](Self::InvalidArgument) with `-32602` (the argument
/// as `data.argument`), the others with `-32603`.
#[derive(Debug)]
#[non_exhaustive]
pub enum PromptError {
    /// A required argument was not given.
    MissingArgument(String),
    /// An argument's value is not one the prompt takes.
    InvalidArgument {
        /// The argument's name.
        name: String,
        /// Why.
        reason: String,
    },
    /// The prompt failed: why.
    Failed(String),
    /// A request to the client (elicitation, sampling, roots) failed.
    Client(ToolError),
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromptError::MissingArgument(name) => {
                write!(f, "the prompt needs the argument `{name}`")
            }
            PromptError::InvalidArgument { name, reason } => {
                write!(f, "invalid argument `{name}`: {reason}")
            }
            PromptError::Failed(reason) => write!(f, "the prompt failed: {reason}"),
            PromptError::Client(error) => write!(f, "a request to the client failed: {error}"),
        }
    }
}

impl std::error::Error for PromptError {}

impl From<ToolError> for PromptError {
    fn from(error: ToolError) -> Self {
        PromptError::Client(error)
    }
}

/// Why a collection of prompts could not be built or changed: two prompts
/// would have the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateName(pub String);

impl fmt::Display for DuplicateName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "two prompts are named `{}`: give each its own name",
            self.0
        )
    }
}

impl std::error::Error for DuplicateName {}
