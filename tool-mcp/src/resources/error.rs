//! Why a read (or a collection of resources) failed.

use std::fmt;

use tool_runtime::ToolError;

/// Why a resource could not be read (or completed). The server answers
/// each with its JSON-RPC error: [`NotFound`](Self::NotFound) and
/// [`InvalidParams`](Self::InvalidParams) `-32602` (with the URI as
/// `data.uri`), the others `-32603`.
#[derive(Debug)]
#[non_exhaustive]
pub enum ResourceError {
    /// No resource has that URI.
    NotFound,
    /// The URI (a template's value) is not one the resource accepts: why.
    InvalidParams(String),
    /// The contents are larger than the server reads (`bytes` of `limit`).
    TooLarge {
        /// The contents' size.
        bytes: usize,
        /// The most bytes a read gives.
        limit: usize,
    },
    /// The read failed: why.
    Failed(String),
    /// A request to the client (elicitation, sampling, roots) failed.
    Client(ToolError),
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceError::NotFound => f.write_str("Resource not found"),
            ResourceError::InvalidParams(reason) => write!(f, "invalid resource URI: {reason}"),
            ResourceError::TooLarge { bytes, limit } => write!(
                f,
                "the resource's contents are {bytes} bytes, more than the {limit} a read gives"
            ),
            ResourceError::Failed(reason) => write!(f, "the resource could not be read: {reason}"),
            ResourceError::Client(error) => write!(f, "a request to the client failed: {error}"),
        }
    }
}

impl std::error::Error for ResourceError {}

impl From<ToolError> for ResourceError {
    fn from(error: ToolError) -> Self {
        ResourceError::Client(error)
    }
}

/// Why a collection of resources could not be built or changed: two
/// resources would answer for the same URI (or template).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateUri(pub String);

impl fmt::Display for DuplicateUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "two resources have the URI (or template) `{}`: give each its own",
            self.0
        )
    }
}

impl std::error::Error for DuplicateUri {}
