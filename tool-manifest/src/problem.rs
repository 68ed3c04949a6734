//! Mistakes in a registry file: [`ManifestProblem`] and [`ManifestError`].

use std::fmt;

use marked_yaml::types::Marker;

use crate::document::Location;

/// One mistake in a registry file.
///
/// Its `Display` text is `line:column: message`, or the message alone when
/// the location is not known; [`ManifestError`] puts the file's name in
/// front of each.
///
/// ```
/// use tool_manifest::{Location, ManifestProblem};
///
/// let problem = ManifestProblem {
///     location: Some(Location { line: 4, column: 7 }),
///     message: "unknown key \"nmae\"".into(),
/// };
/// assert_eq!(problem.to_string(), "4:7: unknown key \"nmae\"");
/// let nowhere = ManifestProblem { location: None, ..problem };
/// assert_eq!(nowhere.to_string(), "unknown key \"nmae\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestProblem {
    /// Where it is, when known.
    pub location: Option<Location>,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Every mistake found in a registry file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    /// The file's name, as given.
    pub source: String,
    /// Each mistake, in file order where locations are known.
    pub problems: Vec<ManifestProblem>,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            // `file:line:column: message`, or `file: message`.
            let colon = if problem.location.is_some() {
                ":"
            } else {
                ": "
            };
            write!(f, "{}{colon}{problem}", self.source)?;
        }
        Ok(())
    }
}

impl std::error::Error for ManifestError {}

/// A problem at `marker`, when known.
pub(crate) fn problem(marker: Option<&Marker>, message: impl Into<String>) -> ManifestProblem {
    ManifestProblem {
        location: marker.map(Location::from),
        message: message.into(),
    }
}
