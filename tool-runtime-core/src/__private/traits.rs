//! What a type the user names must be: one trait per role, each the bound
//! of one `assert_*` function the expansion calls with the type as written
//! (spanned there, by `quote_spanned!`), so an unmet bound is reported once,
//! at that type, with the trait's `on_unimplemented` message. Every other
//! use of the type goes through [`Kind<T>`](super::Kind), whose fallback
//! keeps that use from failing too: one error per missing trait, where
//! rustc would otherwise repeat it at each use.

use std::fmt::Display;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A type a tool parameter can have: decoded from the model's JSON
/// arguments ([`ArgDecode`]) and described by a JSON Schema
/// ([`ArgSchema`]). The expansion asserts the two apart, so each missing
/// trait gets its own note.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of a tool parameter",
    label = "a tool parameter's type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}` (`#[derive(Deserialize, JsonSchema)]`), or use a type that has both (`String`, numbers, `Vec<T>`, ...)"
)]
pub trait ToolArg: ArgDecode + ArgSchema {}
impl<T: ArgDecode + ArgSchema> ToolArg for T {}

/// The decoding half of [`ToolArg`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of a tool parameter",
    label = "a tool parameter's type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}` (`#[derive(Deserialize, JsonSchema)]`), or use a type that has both (`String`, numbers, `Vec<T>`, ...)"
)]
pub trait ArgDecode: DeserializeOwned {}
impl<T: DeserializeOwned> ArgDecode for T {}

/// The schema half of [`ToolArg`]: schemars 1's `JsonSchema`, which a
/// type deriving another major version's trait of that name lacks.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of a tool parameter",
    label = "a tool parameter's type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}` (`#[derive(Deserialize, JsonSchema)]`), or use a type that has both (`String`, numbers, `Vec<T>`, ...)",
    note = "if `{Self}` derives `JsonSchema` already, that is likely schemars 0.8's or 0.9's, another trait: tool parameters need schemars 1 (`schemars = \"1\"` in Cargo.toml)"
)]
pub trait ArgSchema: schemars::JsonSchema {}
impl<T: schemars::JsonSchema> ArgSchema for T {}

/// A type a tool's configuration can have (`#[tool(config = T)]`): decoded
/// and shared ([`ConfigDecode`]) and described by a JSON Schema
/// ([`ConfigSchema`]), asserted apart as [`ToolArg`]'s halves are.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's configuration type",
    label = "a configuration type must implement `serde::Deserialize` and `schemars::JsonSchema` and be `Send + Sync + 'static`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}` (`#[derive(Deserialize, JsonSchema)]`)"
)]
pub trait ToolConfig: ConfigDecode + ConfigSchema {}
impl<T: ConfigDecode + ConfigSchema> ToolConfig for T {}

/// The decoding half of [`ToolConfig`], with `Send + Sync + 'static`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's configuration type",
    label = "a configuration type must implement `serde::Deserialize` and `schemars::JsonSchema` and be `Send + Sync + 'static`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}` (`#[derive(Deserialize, JsonSchema)]`)"
)]
pub trait ConfigDecode: DeserializeOwned + Send + Sync + 'static {}
impl<T: DeserializeOwned + Send + Sync + 'static> ConfigDecode for T {}

/// The schema half of [`ToolConfig`]: schemars 1's `JsonSchema`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's configuration type",
    label = "a configuration type must implement `serde::Deserialize` and `schemars::JsonSchema` and be `Send + Sync + 'static`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}` (`#[derive(Deserialize, JsonSchema)]`)",
    note = "if `{Self}` derives `JsonSchema` already, that is likely schemars 0.8's or 0.9's, another trait: configuration types need schemars 1 (`schemars = \"1\"` in Cargo.toml)"
)]
pub trait ConfigSchema: schemars::JsonSchema {}
impl<T: schemars::JsonSchema> ConfigSchema for T {}

/// A type a `#[tool]` function may return, alone or as the `Ok` of a
/// `Result`: anything serialisable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool] function",
    label = "this type cannot become a tool result",
    note = "derive `serde::Serialize` for `{Self}`, or return a type that implements it (`String`, a `ToolResult`, ...), optionally inside a `Result<T, E>` with `E: Display`"
)]
pub trait ToolReturn: Serialize {}
impl<T: Serialize + ?Sized> ToolReturn for T {}

/// The error type of a `#[tool]` function's `Result`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a #[tool] function",
    label = "the error type of a tool must implement `std::fmt::Display`",
    note = "implement `std::fmt::Display` for `{Self}`: its text is the error the model reads. Or return `ToolError`"
)]
pub trait ToolErrorType: Display {}
impl<E: Display + ?Sized> ToolErrorType for E {}

/// A function `validate = f` can name for a parameter of type `T`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot validate a parameter of type `{T}`",
    label = "expected a function `fn(&{T}) -> Result<(), E>` with `E: Display`",
    note = "write the validator as `fn check(value: &{T}) -> Result<(), String>` (any error type that implements `Display` will do)"
)]
pub trait ArgValidator<T> {
    /// Runs the check; the error's text reaches the model.
    fn run(&self, value: &T) -> Result<(), String>;
}

impl<T, F, R> ArgValidator<T> for F
where
    F: Fn(&T) -> R,
    R: ValidationOutcome,
{
    fn run(&self, value: &T) -> Result<(), String> {
        self(value).into_outcome()
    }
}

/// What a validator returns: `Result<(), E>` with `E: Display`.
#[diagnostic::on_unimplemented(
    message = "a validator must return `Result<(), E>` with `E: Display`, not `{Self}`",
    label = "expected `Result<(), E>`",
    note = "return `Ok(())` for a valid value and `Err(message)` otherwise"
)]
pub trait ValidationOutcome {
    /// The outcome, with the error as text.
    fn into_outcome(self) -> Result<(), String>;
}

impl<E: Display> ValidationOutcome for Result<(), E> {
    fn into_outcome(self) -> Result<(), String> {
        self.map_err(|error| error.to_string())
    }
}

/// Compile-time check that a parameter type can be an argument: each half
/// of [`ToolArg`] apart, so a missing trait is reported with its own note.
pub fn assert_tool_arg<T: ArgDecode + ArgSchema>() {}

/// Compile-time check that a type can be a tool's configuration, each half
/// of [`ToolConfig`] apart.
pub fn assert_tool_config<T: ConfigDecode + ConfigSchema>() {}

/// Compile-time check that a return type can become a result.
pub fn assert_tool_return<T: ToolReturn + ?Sized>() {}

/// Compile-time check that an error type can become an error result.
pub fn assert_tool_error<E: ToolErrorType + ?Sized>() {}
