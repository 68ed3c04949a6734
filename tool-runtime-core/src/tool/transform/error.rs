//! [`TransformError`]: why a [`ToolTransform`](super::ToolTransform) could
//! not be built.

use std::fmt;

use crate::spec::error::ArgError;

/// Why a [`ToolTransform`](super::ToolTransform) could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransformError {
    /// A tool's or an argument's new name is not 1 to 64 letters, digits,
    /// `_` or `-`.
    InvalidName {
        /// The name, quoted and cut short.
        name: String,
    },
    /// An argument was named that the tool does not have.
    UnknownArgument {
        /// The tool transformed (its own name).
        tool: String,
        /// The argument named.
        argument: String,
        /// The tool's closest argument name, if any is close.
        suggestion: Option<String>,
    },
    /// An argument was renamed onto the name another argument keeps (or
    /// another was renamed to).
    NameTaken {
        /// The tool transformed (its own name).
        tool: String,
        /// The argument renamed (its name in the tool).
        argument: String,
        /// The name taken twice.
        name: String,
    },
    /// A required argument was hidden with no value to give the tool.
    HiddenRequired {
        /// The tool transformed (its own name).
        tool: String,
        /// The argument.
        argument: String,
    },
    /// A hidden argument's value, or an argument's new default, is not a
    /// value the tool takes for that argument: every call would fail on
    /// it (a hidden one where the model cannot see it), and a default
    /// would be published in the schema.
    InvalidValue {
        /// The tool transformed (its own name).
        tool: String,
        /// The argument (its name in the tool).
        argument: String,
        /// Which value it is.
        value: GivenValue,
        /// What is wrong with it, as a call would be told: each problem's
        /// field (the argument, or a path inside its value) and what was
        /// expected and what came (`expected an integer from 0 to 255, got
        /// 300`).
        problems: Vec<ArgError>,
    },
}

/// Which value of an [`ArgTransform`](super::ArgTransform) a
/// [`TransformError::InvalidValue`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GivenValue {
    /// The value a hidden argument always gets
    /// ([`ArgTransform::hidden`](super::ArgTransform::hidden)).
    Hidden,
    /// The default ([`ArgTransform::default`](super::ArgTransform::default)),
    /// which a hidden argument without a value of its own gets too.
    Default,
}

impl fmt::Display for GivenValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GivenValue::Hidden => "hidden value",
            GivenValue::Default => "default",
        })
    }
}

impl fmt::Display for TransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransformError::InvalidName { name } => write!(
                f,
                "invalid name \"{name}\": a tool or argument name is 1 to 64 letters, digits, `_` \
                 or `-`"
            ),
            TransformError::UnknownArgument {
                tool,
                argument,
                suggestion,
            } => {
                write!(f, "tool {tool} has no argument \"{argument}\"")?;
                match suggestion {
                    Some(close) => write!(f, "; did you mean \"{close}\"?"),
                    None => Ok(()),
                }
            }
            TransformError::NameTaken {
                tool,
                argument,
                name,
            } => write!(
                f,
                "argument \"{argument}\" of tool {tool} cannot be renamed \"{name}\": another \
                 argument has that name; rename that one too, or choose another name"
            ),
            TransformError::HiddenRequired { tool, argument } => write!(
                f,
                "argument \"{argument}\" of tool {tool} is required, so hiding it needs a value: \
                 use ArgTransform::hidden(value)"
            ),
            TransformError::InvalidValue {
                tool,
                argument,
                value,
                problems,
            } => {
                write!(
                    f,
                    "the {value} of argument \"{argument}\" of tool {tool} is not a value the \
                     tool takes: "
                )?;
                for (i, problem) in problems.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    if problem.field == *argument {
                        f.write_str(&problem.message)?;
                    } else {
                        write!(f, "{problem}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for TransformError {}
