//! A secret the client holds (a token, a client secret, a private key):
//! shown nowhere by accident.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A secret string: an access or refresh token, a client secret, a private
/// key. Its `Debug` and `Display` print `[redacted]`, so a secret in a
/// struct that is logged, traced or put in an error message does not show;
/// [`expose`](Self::expose) gives the value to whoever must send it.
/// Serialized as the plain string (a token store writes it so).
///
/// ```
/// use tool_mcp::client::oauth::Secret;
///
/// let secret = Secret::new("s3cr3t");
/// assert_eq!(format!("{secret:?} {secret}"), "[redacted] [redacted]");
/// assert_eq!(secret.expose(), "s3cr3t");
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, to send where it belongs.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}
