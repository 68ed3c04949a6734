//! Errors a tool call can end with, and the argument problems behind
//! [`ToolErrorKind::InvalidArguments`].

use std::fmt;

/// What kind of failure a [`ToolError`] describes.
///
/// The kind decides nothing about how the error is shown to the model (every
/// kind becomes an error [`ToolResult`](crate::ToolResult) whose text is the
/// error's message); it lets an agent loop or a log tell failures apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The arguments did not match the tool's input schema.
    InvalidArguments,
    /// No tool with the requested name is registered.
    UnknownTool,
    /// The tool ran and reported a failure (an `Err` return).
    Failed,
    /// The tool panicked; the registry caught the panic and keeps serving.
    Panicked,
    /// The tool exists but this registry's allowlist does not let it run.
    NotAllowed,
    /// A value the tool asked to have injected (see
    /// [`FromToolContext`](crate::FromToolContext)) was not available.
    MissingContext,
    /// The tool ran past its timeout and was stopped.
    TimedOut,
    /// The call was cancelled through its context's cancellation token
    /// before the tool finished.
    Cancelled,
    /// The tool needs approval and the approver rejected the call, or no
    /// approver was configured; the tool did not run.
    NotApproved,
    /// The tool is not enabled in the call's context; it did not run.
    Disabled,
    /// The tool asks the model to call it again with different arguments
    /// ([`ToolError::retry`]); an agent loop can count these.
    Retry,
    /// Something went wrong inside the tool that is not the model's
    /// business ([`ToolError::internal`]); how much of it the model reads is
    /// a registry setting ([`ErrorDetail`](crate::registry::ErrorDetail)).
    Internal,
    /// The tool asked the calling client for something (a completion, the
    /// user's input) and no client could answer: the call did not come
    /// through one, or it lacks the capability.
    ClientUnavailable,
    /// The caller on the call's context was not granted a scope the tool
    /// needs ([`ToolSpec::scopes`](crate::ToolSpec::scopes)); the tool did
    /// not run. The message names the scopes it lacks.
    InsufficientScope,
}

impl ToolErrorKind {
    /// A short, stable, lowercase name for the kind (`"invalid_arguments"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArguments => "invalid_arguments",
            Self::UnknownTool => "unknown_tool",
            Self::Failed => "failed",
            Self::Panicked => "panicked",
            Self::MissingContext => "missing_context",
            Self::TimedOut => "timed_out",
            Self::Cancelled => "cancelled",
            Self::NotApproved => "not_approved",
            Self::Disabled => "disabled",
            Self::Retry => "retry",
            Self::Internal => "internal",
            Self::NotAllowed => "not_allowed",
            Self::ClientUnavailable => "client_unavailable",
            Self::InsufficientScope => "insufficient_scope",
        }
    }
}

impl fmt::Display for ToolErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error a tool returns, and the error every failed call is reported with.
///
/// Inside a tool, return `Err(ToolError::new("..."))`, or use `?` on any
/// [`std::error::Error`]: like `anyhow::Error`, `ToolError` converts from
/// every error type, which is why it does not implement `std::error::Error`
/// itself.
///
/// Its [`Display`](fmt::Display) text is what the model reads, so write it
/// for the model: say what went wrong and what to do instead.
///
/// ```
/// use tool_runtime::{ToolError, spec::ToolErrorKind};
///
/// fn parse(text: &str) -> Result<u32, ToolError> {
///     let n: u32 = text.parse()?; // ParseIntError converts
///     Ok(n)
/// }
/// let err = parse("x").unwrap_err();
/// assert_eq!(err.kind(), ToolErrorKind::Failed);
/// assert_eq!(err.to_string(), "invalid digit found in string");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    arguments: Vec<ArgError>,
    detail: Option<String>,
}

impl ToolError {
    /// A tool failure with a message for the model.
    pub fn new(message: impl Into<String>) -> Self {
        Self::with_kind(ToolErrorKind::Failed, message)
    }

    /// An error of the given kind with a message for the model.
    pub fn with_kind(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            arguments: Vec::new(),
            detail: None,
        }
    }

    /// A failure the model can fix by calling the tool again differently
    /// (Pydantic AI's `ModelRetry`): the message says what to change. The
    /// result's [`error_kind`](crate::ToolResult::error_kind) is
    /// [`ToolErrorKind::Retry`], so an agent loop can count retries.
    ///
    /// ```
    /// use tool_runtime::{ToolError, spec::ToolErrorKind};
    ///
    /// let err = ToolError::retry("no customer has id 42; list customers first");
    /// assert_eq!(err.kind(), ToolErrorKind::Retry);
    /// ```
    pub fn retry(message: impl Into<String>) -> Self {
        Self::with_kind(ToolErrorKind::Retry, message)
    }

    /// A failure inside the tool that is not the model's business: a lost
    /// connection, a broken invariant. The text is logged through `tracing`;
    /// the model reads it only when the registry's
    /// [`ErrorDetail`](crate::registry::ErrorDetail) is `Full` (the default), and
    /// otherwise only that the tool failed with an internal error.
    ///
    /// ```
    /// use tool_runtime::{ToolError, spec::ToolErrorKind};
    ///
    /// let err = ToolError::internal("connection to db-3 reset");
    /// assert_eq!(err.kind(), ToolErrorKind::Internal);
    /// ```
    pub fn internal(error: impl fmt::Display) -> Self {
        Self::with_kind(ToolErrorKind::Internal, error.to_string())
    }

    /// Adds detail for the logs that the model never reads: the message
    /// stays what the model sees, the detail is logged through `tracing`
    /// when the call ends.
    ///
    /// ```
    /// use tool_runtime::ToolError;
    ///
    /// let err = ToolError::new("the report could not be saved; try again later")
    ///     .with_detail("s3 PutObject: 503 SlowDown, bucket reports-eu");
    /// assert_eq!(err.to_string(), "the report could not be saved; try again later");
    /// assert_eq!(err.detail(), Some("s3 PutObject: 503 SlowDown, bucket reports-eu"));
    /// ```
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The detail for the logs, if any (see [`with_detail`](Self::with_detail)).
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The same error with another message for the model (kind, argument
    /// problems and detail kept).
    pub(crate) fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// A tool failure whose message is the `Display` text of `error`.
    pub fn from_display(error: impl fmt::Display) -> Self {
        Self::new(error.to_string())
    }

    /// The error for a call to `tool` whose arguments had these problems.
    ///
    /// The message lists every problem, each naming its field:
    /// `invalid arguments for NAME: field: problem; other: problem`.
    pub fn invalid_arguments(tool: &str, problems: Vec<ArgError>) -> Self {
        let mut message = format!("invalid arguments for {tool}: ");
        for (i, problem) in problems.iter().enumerate() {
            if i > 0 {
                message.push_str("; ");
            }
            message.push_str(&problem.to_string());
        }
        Self {
            kind: ToolErrorKind::InvalidArguments,
            message,
            arguments: problems,
            detail: None,
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The text the model reads.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// For [`ToolErrorKind::InvalidArguments`], each problem found; empty otherwise.
    pub fn argument_errors(&self) -> &[ArgError] {
        &self.arguments
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E> From<E> for ToolError
where
    E: std::error::Error + Send + Sync + 'static,
{
    fn from(error: E) -> Self {
        Self::from_display(error)
    }
}

impl From<ToolError> for Box<dyn std::error::Error + Send + Sync + 'static> {
    fn from(error: ToolError) -> Self {
        Box::new(StdToolError(error))
    }
}

impl From<ToolError> for Box<dyn std::error::Error + 'static> {
    fn from(error: ToolError) -> Self {
        Box::new(StdToolError(error))
    }
}

/// A `ToolError` seen as a `std::error::Error`, for `?` into boxed errors.
#[derive(Debug)]
struct StdToolError(ToolError);

impl fmt::Display for StdToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for StdToolError {}

/// What was wrong with one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ArgErrorKind {
    /// The arguments were not a JSON object.
    NotAnObject,
    /// The arguments were given as text that is not JSON at all.
    NotJson,
    /// A required argument was absent.
    Missing,
    /// An argument the tool does not take.
    Unknown,
    /// A value of the wrong JSON type (a string where a number belongs, ...).
    WrongType,
    /// A value of the right type that is still not acceptable: an unknown
    /// enum variant, a number out of range, a failed custom check.
    InvalidValue,
}

/// One problem with one argument of a tool call.
///
/// Its `Display` text is `field: problem`, for example
/// `days: expected an integer from 0 to 4294967295, got "three"`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ArgError {
    /// The argument's path: the parameter name, then `.field` or `[index]`
    /// for a problem inside a nested value. Empty when the problem is with
    /// the arguments as a whole.
    pub field: String,
    /// What kind of problem it is.
    pub kind: ArgErrorKind,
    /// What is wrong, written for the model (`expected ..., got ...`).
    pub message: String,
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

/// Why one parameter's value failed to decode: where and what serde said.
/// A parameter's spec checks a value with it
/// ([`ParamSpec::check_fn`](crate::spec::ParamSpec::check_fn)); argument decoding
/// words it as an [`ArgError`].
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct CheckError {
    pub(crate) path: Vec<serde_path_to_error::Segment>,
    pub(crate) message: String,
}
