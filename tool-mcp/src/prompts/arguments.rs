//! The arguments a `prompts/get` gives.

use std::collections::BTreeMap;
use std::str::FromStr;

use super::PromptError;

/// The arguments of a `prompts/get`, by name (each a string, as MCP has
/// them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptArguments(BTreeMap<String, String>);

impl PromptArguments {
    /// No arguments.
    pub fn new() -> Self {
        Self::default()
    }

    /// Argument `name`, when given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Argument `name`, or [`PromptError::MissingArgument`].
    pub fn require(&self, name: &str) -> Result<&str, PromptError> {
        self.get(name)
            .ok_or_else(|| PromptError::MissingArgument(name.to_owned()))
    }

    /// Argument `name` parsed as a `T`: `None` when not given,
    /// [`PromptError::InvalidArgument`] when it does not parse.
    pub fn parse<T>(&self, name: &str) -> Result<Option<T>, PromptError>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        self.get(name)
            .map(|value| {
                value
                    .parse()
                    .map_err(|error: T::Err| PromptError::InvalidArgument {
                        name: name.to_owned(),
                        reason: error.to_string(),
                    })
            })
            .transpose()
    }

    /// Sets argument `name` to `value`.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }

    /// Every argument, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }
}

impl FromIterator<(String, String)> for PromptArguments {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}
