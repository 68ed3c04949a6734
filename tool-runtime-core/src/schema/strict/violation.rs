//! A broken rule of strict mode and where it is: [`StrictViolation`] and
//! the JSON pointers that locate it.

use std::fmt;

/// One rule of strict mode a schema breaks, and where.
///
/// Its `Display` text is `pointer: message`, with `(root)` for the empty
/// pointer: `/properties/tags: free-form map keys cannot be expressed in
/// strict mode`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StrictViolation {
    /// The JSON pointer (RFC 6901) of the offending schema or keyword,
    /// within the schema checked; empty for the root.
    pub pointer: String,
    /// What is wrong, and for a fixable problem what strict mode wants.
    pub message: String,
}

impl StrictViolation {
    pub(super) fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for StrictViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

/// Appends one reference token to a JSON pointer.
pub(crate) fn push_pointer(pointer: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{escaped}")
}
