//! Why a registry could not be built: [`RegistryError`], which holds every
//! [`RegistryProblem`] found.

use std::fmt;

use crate::spec::tool_spec::SourceLocation;

/// Why a registry could not be built: every problem found.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryError {
    pub(super) problems: Vec<RegistryProblem>,
}

impl RegistryError {
    /// Each problem found.
    pub fn problems(&self) -> &[RegistryProblem] {
        &self.problems
    }
}

/// One reason a registry could not be built.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RegistryProblem {
    /// Two different tools have the same name: two `#[tool]`s, or any tool
    /// and one made at run time (two run-time tools made by one line of
    /// code, such as a loop over a catalogue, have the same location).
    /// Only one definition added twice is not a duplicate.
    DuplicateName {
        /// The shared name.
        name: String,
        /// Where one was defined (or made, at run time).
        first: SourceLocation,
        /// Where the other was defined (or made, at run time).
        second: SourceLocation,
    },
    /// A name is used twice: an alias equal to a tool's name, or one alias
    /// given to two tools.
    NameCollision {
        /// The name used twice.
        name: String,
        /// Its first owner (`tool "x"` or `alias "y" of tool "x"`).
        first: String,
        /// Its second owner.
        second: String,
    },
    /// A tool's configuration is invalid, or missing when the tool needs one.
    InvalidConfig {
        /// The tool.
        tool: String,
        /// Every problem, each naming its field.
        problems: Vec<crate::spec::ArgError>,
        /// Whether no configuration was given at all.
        missing: bool,
    },
    /// A configuration was given for a tool that takes none, or for no tool.
    UnexpectedConfig {
        /// The name the configuration was given for.
        tool: String,
        /// Why it cannot apply.
        reason: String,
    },
    /// A tool asks for OpenAI strict mode (`#[tool(strict)]`, or a registry
    /// built with `strict(true)`), but its schema cannot be expressed
    /// strictly (a free-form map parameter, say).
    NotStrict {
        /// The tool.
        name: String,
        /// Every rule its schema breaks after conversion, with its JSON
        /// pointer.
        violations: Vec<crate::schema::strict::StrictViolation>,
    },
    /// A tool's version is not a semantic version (`2.0.0`).
    InvalidVersion {
        /// The tool.
        name: String,
        /// The version as written.
        version: String,
        /// Why it does not parse.
        reason: String,
    },
    /// A version was pinned ([`RegistryBuilder::pin`](crate::RegistryBuilder::pin),
    /// `name@version` in a registry file) that no tool of the name has.
    UnknownVersion {
        /// The tool's name.
        name: String,
        /// The version pinned.
        version: String,
        /// The versions the name has.
        versions: Vec<String>,
    },
    /// A tool could not be re-exposed as [`RegistryBuilder::transformed`](crate::RegistryBuilder::transformed)
    /// (or a registry file's entry with `from`) asks: see
    /// [`ToolTransform::build`](crate::transform::ToolTransform::build).
    Transform {
        /// The name of the tool to make.
        tool: String,
        /// The name of the tool it re-exposes.
        from: String,
        /// Why it cannot be made.
        error: crate::transform::TransformError,
    },
    /// A tool was asked for by a name no linked tool has.
    UnknownName {
        /// The name asked for.
        name: String,
        /// The closest linked name, if any is close.
        suggestion: Option<String>,
    },
}

impl fmt::Display for RegistryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryProblem::DuplicateName {
                name,
                first,
                second,
            } if !first.is_run_time() && !second.is_run_time() => write!(
                f,
                "two tools are named \"{name}\": one defined in {first}, one in {second}; \
                 rename one with #[tool(name = \"...\")]"
            ),
            RegistryProblem::DuplicateName {
                name,
                first,
                second,
            } => {
                if first == second {
                    write!(
                        f,
                        "two run-time tools are named \"{name}\", both made at {first}"
                    )?;
                } else {
                    write!(
                        f,
                        "two tools are named \"{name}\": one {}, one {}",
                        Origin(first),
                        Origin(second)
                    )?;
                }
                f.write_str("; a registry holds one tool of each name: rename one of them, or leave one out")
            }
            RegistryProblem::NameCollision {
                name,
                first,
                second,
            } => write!(
                f,
                "the name \"{name}\" is used twice: by the {first} and by the {second}; \
                 remove or rename one"
            ),
            RegistryProblem::InvalidConfig {
                tool,
                problems,
                missing,
            } => {
                if *missing {
                    write!(f, "tool \"{tool}\" needs a configuration: ")?;
                } else {
                    write!(f, "invalid configuration for tool \"{tool}\": ")?;
                }
                for (i, problem) in problems.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{problem}")?;
                }
                Ok(())
            }
            RegistryProblem::UnexpectedConfig { tool, reason } => {
                write!(f, "configuration for \"{tool}\" cannot apply: {reason}")
            }
            RegistryProblem::NotStrict { name, violations } => {
                write!(
                    f,
                    "tool \"{name}\" asks for strict mode, but its schema cannot be expressed strictly: "
                )?;
                for (i, violation) in violations.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{violation}")?;
                }
                Ok(())
            }
            RegistryProblem::InvalidVersion {
                name,
                version,
                reason,
            } => write!(
                f,
                "tool \"{name}\" has the version \"{version}\", which is not a semantic version \
                 such as 2.0.0: {reason}"
            ),
            RegistryProblem::UnknownVersion {
                name,
                version,
                versions,
            } => {
                write!(f, "no tool \"{name}\" has the pinned version \"{version}\"")?;
                match versions.is_empty() {
                    true => f.write_str("; no tool of that name has a version"),
                    false => write!(f, "; its versions are {}", versions.join(", ")),
                }
            }
            RegistryProblem::Transform { tool, error, .. } => {
                write!(f, "cannot make tool \"{tool}\": {error}")
            }
            RegistryProblem::UnknownName { name, suggestion } => {
                write!(f, "no linked tool is named \"{name}\"")?;
                if let Some(suggestion) = suggestion {
                    write!(f, "; did you mean \"{suggestion}\"?")?;
                }
                Ok(())
            }
        }
    }
}

/// Where a tool of a duplicate name comes from: `defined in` its
/// `#[tool]`'s module, or `made at` the code that made it at run time.
struct Origin<'a>(&'a SourceLocation);

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_run_time() {
            write!(f, "made at {}", self.0)
        } else {
            write!(f, "defined in {}", self.0)
        }
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RegistryError {}
