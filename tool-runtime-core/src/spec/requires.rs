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
