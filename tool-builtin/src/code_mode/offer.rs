//! A registry that offers `code_mode` in place of its tools or beside them,
//! made from a [`RegistryBuilder`] with [`CodeModeExt::code_mode`].

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::{Registry, RegistryBuilder, registry::RegistryError};

use super::{CodeMode, CodeModeError, CodeModeOptions};

/// How a registry offers the `code_mode` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodeModeOffer {
    /// `code_mode` alone: the model reaches the tools only through a
    /// script (the default).
    #[default]
    InPlace,
    /// `code_mode` and every tool: the model may call a tool directly or
    /// write a script.
    Beside,
}

/// [`RegistryBuilder::code_mode`](CodeModeExt::code_mode): a registry that
/// offers a `code_mode` tool over the builder's tools.
///
/// It is a trait of this crate, not a method of the builder's own, because
/// the core crate that defines [`RegistryBuilder`] knows no Python and
/// depends on no crate of ready-made tools; bring it into scope to call it
/// as if it were the builder's.
///
/// ```
/// use tool_builtin::code_mode::{CodeModeExt, CodeModeOffer, CodeModeOptions};
/// use tool_runtime::Registry;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let options = CodeModeOptions { max_calls: 20, ..CodeModeOptions::default() };
/// let registry = Registry::builder()
///     .tools(tool_builtin::ALL)
///     .code_mode(options.clone(), CodeModeOffer::InPlace)?;
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["code_mode"]);
///
/// let registry = Registry::builder()
///     .tool(tool_builtin::calculator::CalculatorTool)
///     .code_mode(options, CodeModeOffer::Beside)?;
/// assert!(registry.get("calculator").is_some() && registry.get("code_mode").is_some());
/// # Ok(())
/// # }
/// ```
pub trait CodeModeExt: Sized {
    /// Builds the registry of the builder's tools, with its policies, and a
    /// registry that offers a `code_mode` tool over it, as `offer` says:
    /// alone, or beside the same tools (built again from the same builder,
    /// so a direct call meets the same policies as a script's). Fails when
    /// the tools do not form a registry or the options are refused
    /// ([`CodeMode::build`]).
    fn code_mode(
        self,
        options: CodeModeOptions,
        offer: CodeModeOffer,
    ) -> Result<Registry, CodeModeSetupError>;
}

impl CodeModeExt for RegistryBuilder {
    fn code_mode(
        self,
        options: CodeModeOptions,
        offer: CodeModeOffer,
    ) -> Result<Registry, CodeModeSetupError> {
        let beside = match offer {
            CodeModeOffer::InPlace => None,
            CodeModeOffer::Beside => Some(self.clone()),
        };
        let tools = self.build()?;
        let tool = CodeMode::new(tools).options(options).build()?;
        let outer = beside.unwrap_or_else(Registry::builder);
        Ok(outer.tool(tool).build()?)
    }
}

/// Why [`CodeModeExt::code_mode`] made no registry.
#[derive(Debug)]
pub enum CodeModeSetupError {
    /// The tools do not form a registry, or `code_mode` cannot join them
    /// (a tool of theirs is named `code_mode`).
    Registry(RegistryError),
    /// The code mode options were refused.
    CodeMode(CodeModeError),
}

impl fmt::Display for CodeModeSetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodeModeSetupError::Registry(error) => error.fmt(f),
            CodeModeSetupError::CodeMode(error) => write!(f, "code mode: {error}"),
        }
    }
}

impl std::error::Error for CodeModeSetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CodeModeSetupError::Registry(error) => Some(error),
            CodeModeSetupError::CodeMode(error) => Some(error),
        }
    }
}

impl From<RegistryError> for CodeModeSetupError {
    fn from(error: RegistryError) -> Self {
        CodeModeSetupError::Registry(error)
    }
}

impl From<CodeModeError> for CodeModeSetupError {
    fn from(error: CodeModeError) -> Self {
        CodeModeSetupError::CodeMode(error)
    }
}
