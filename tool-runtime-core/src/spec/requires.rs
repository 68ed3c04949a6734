//! What a tool needs from its environment before it can be offered:
//! [`Requirements`] (`#[tool(requires(env = "..", program = "..", feature = ".."))]`).

use std::borrow::Cow;

/// What a tool needs before a registry offers it: environment variables,
/// programs on the `PATH`, and features.
///
/// A registry checks them when it is built. A tool whose requirements are
/// not met is not offered; the registry's report names what is missing, and
/// a call by name is an error that says the same.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Requirements {
    /// Environment variables that must be set and not empty.
    pub env: Cow<'static, [Cow<'static, str>]>,
    /// Programs that must be found on the `PATH`.
    pub programs: Cow<'static, [Cow<'static, str>]>,
    /// Features that must be on.
    pub features: Cow<'static, [Feature]>,
}

/// A feature a tool requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    /// The feature's name.
    pub name: Cow<'static, str>,
    /// Whether the crate that defined the tool was built with a Cargo
    /// feature of this name (`#[tool]` reads `cfg!(feature = "..")` in the
    /// defining crate). A feature not built in is still met when the
    /// registry turns it on by name.
    pub built: bool,
}

impl Requirements {
    /// No requirements.
    pub const NONE: Requirements = Requirements {
        env: Cow::Borrowed(&[]),
        programs: Cow::Borrowed(&[]),
        features: Cow::Borrowed(&[]),
    };

    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.env.is_empty() && self.programs.is_empty() && self.features.is_empty()
    }
}

impl Requirements {
    /// No requirements yet; add them with [`env`](Self::env),
    /// [`program`](Self::program) and [`feature`](Self::feature).
    ///
    /// ```
    /// use tool_runtime::spec::Requirements;
    ///
    /// let needs = Requirements::new().env("GITHUB_TOKEN").program("git").feature("search");
    /// assert_eq!(needs.env[0], "GITHUB_TOKEN");
    /// assert!(!needs.features[0].built);
    /// ```
    pub fn new() -> Self {
        Self::NONE
    }

    /// Also requires the environment variable `name`, set and not empty.
    pub fn env(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.env.to_mut().push(name.into());
        self
    }

    /// Also requires the program `name` on the `PATH`.
    pub fn program(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.programs.to_mut().push(name.into());
        self
    }

    /// Also requires the feature `name`, not built in: met only when the
    /// registry turns it on ([`RegistryBuilder::features`](crate::RegistryBuilder::features)).
    pub fn feature(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.features.to_mut().push(Feature {
            name: name.into(),
            built: false,
        });
        self
    }

    /// These requirements and `other`'s together.
    pub fn and(mut self, other: &Requirements) -> Self {
        self.env.to_mut().extend(other.env.iter().cloned());
        self.programs
            .to_mut()
            .extend(other.programs.iter().cloned());
        self.features
            .to_mut()
            .extend(other.features.iter().cloned());
        self
    }

    /// What is missing, in the order the requirements are written:
    /// environment variables unset or empty, programs not found on the
    /// `PATH`, features neither built in nor among `turned_on`. Empty when
    /// every requirement is met.
    pub fn missing<S: AsRef<str>>(&self, turned_on: &[S]) -> Vec<Missing> {
        let mut missing = Vec::new();
        for name in self.env.iter() {
            let set = std::env::var_os(name.as_ref()).is_some_and(|value| !value.is_empty());
            if !set {
                missing.push(Missing::Env(name.to_string()));
            }
        }
        for name in self.programs.iter() {
            if which::which(name.as_ref()).is_err() {
                missing.push(Missing::Program(name.to_string()));
            }
        }
        for feature in self.features.iter() {
            let on = feature.built || turned_on.iter().any(|on| on.as_ref() == feature.name);
            if !on {
                missing.push(Missing::Feature(feature.name.to_string()));
            }
        }
        missing
    }
}

/// One requirement a tool has that is not met.
///
/// Its `Display` text says what is missing, as a call of the tool reports
/// it: `environment variable GITHUB_TOKEN is not set`, `program rg is not
/// on the PATH`, `feature search is not on`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Missing {
    /// An environment variable that is not set, or set empty.
    Env(String),
    /// A program not found on the `PATH`.
    Program(String),
    /// A feature neither built in nor turned on by the registry.
    Feature(String),
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing::Env(name) => write!(f, "environment variable {name} is not set"),
            Missing::Program(name) => write!(f, "program {name} is not on the PATH"),
            Missing::Feature(name) => write!(f, "feature {name} is not on"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_what_is_missing_in_order() {
        let needs = Requirements::new()
            .env("TOOL_RUNTIME_REQUIRES_TEST_UNSET")
            .program("tool-runtime-no-such-program")
            .feature("search")
            .feature("other");
        let missing = needs.missing(&["other"]);
        assert_eq!(
            missing,
            [
                Missing::Env("TOOL_RUNTIME_REQUIRES_TEST_UNSET".into()),
                Missing::Program("tool-runtime-no-such-program".into()),
                Missing::Feature("search".into()),
            ]
        );
        assert_eq!(
            missing[0].to_string(),
            "environment variable TOOL_RUNTIME_REQUIRES_TEST_UNSET is not set"
        );
    }

    #[test]
    fn a_built_feature_is_met() {
        let needs = Requirements {
            features: Cow::Owned(vec![Feature {
                name: "search".into(),
                built: true,
            }]),
            ..Requirements::NONE
        };
        assert!(needs.missing::<&str>(&[]).is_empty());
    }
}
