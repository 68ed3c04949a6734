//! The contract between `#[tool]` and the runtime: everything the code the
//! macro generates names, in one module. `tool-runtime` re-exports it as
//! `tool_runtime::__private`, the only path an expansion starts from. Not a
//! public API: it changes with the macro, in any release.
//!
//! # What is here, by concept
//!
//! - `traits.rs`: the six traits that state what a type the user names
//!   must be, and the `assert_*` function of each (below);
//! - `kind.rs`: [`Kind<T>`], choosing behaviour by a type the macro sees
//!   only as tokens;
//! - argument decoding: [`ToolArgs`], which the expansion implements for its
//!   argument struct, and the entry points [`decode`] and [`decode_str`],
//!   re-exported from the core's argument module (`spec::args`, which also
//!   holds the visitor, the seeds, the constraints and the depth check);
//! - `schema.rs`: a tool's schemas cached in [`SchemaCells`]; and here the
//!   spec's pieces, [`SPEC_DEFAULTS`], [`PARAM_DEFAULTS`], [`location`];
//! - `stream.rs`: [`drive_stream`]; and the stream behind `stream!`;
//! - `transform.rs`: `#[tool(transform = f)]`, on a parameter and on the
//!   function: [`TransformFn`], [`Transforms`] and [`decode_transformed`];
//! - what the expansion names by path: the spec types, [`Tool`],
//!   [`FromToolContext`], and the crates `serde`, `serde_json`, `schemars`
//!   and `inventory`, so that a user's crate depends on `tool-runtime` alone.
//!
//! # The traits
//!
//! Six state what a type the user names must be. Each is the bound of one
//! `assert_*` function the expansion calls with the type as written, and
//! its `on_unimplemented` message is the one error the user reads:
//!
//! - [`ToolArg`]: a parameter's type (`Deserialize + JsonSchema`);
//! - [`ToolConfig`]: the type of `#[tool(config = T)]`;
//! - [`ToolReturn`]: a return value, or the `Ok` of a returned `Result`
//!   (`Serialize`);
//! - [`ToolErrorType`]: the `Err` of a returned `Result` (`Display`);
//! - [`ArgValidator`]: the function of `validate = f`, `fn(&T) -> Result<(), E>`;
//! - [`ValidationOutcome`]: what such a function returns.
//!
//! Four choose behaviour by type, on the tag [`Kind<T>`]:
//! [`SerializeOutput`], [`DisplayError`], [`JsonSchemaOutput`] and
//! [`Fallback`] (the `kind` module's documentation says how). One is what
//! the expansion implements: [`ToolArgs`].

mod kind;
mod schema;
mod stream;
mod traits;
mod transform;

pub use std::borrow::Cow;
pub use std::option::Option::{self, None, Some};
pub use {inventory, schemars, serde, serde_json};

pub use kind::{DisplayError, Fallback, JsonSchemaOutput, Kind, SerializeOutput, UncheckedSeed};
pub use schema::{SchemaCell, SchemaCells, input_schema};
pub use stream::drive_stream;
pub use traits::{
    ArgDecode, ArgSchema, ArgValidator, ConfigDecode, ConfigSchema, ToolArg, ToolConfig,
    ToolErrorType, ToolReturn, ValidationOutcome, assert_tool_arg, assert_tool_config,
    assert_tool_error, assert_tool_return,
};
pub use transform::{
    ParamTransform, TransformFn, TransformOutcome, Transformable, Transformed, Transforms,
    assert_transformable, decode_str_transformed, decode_transformed, transform_value,
};

pub use crate::registry::select::Registration;
pub use crate::registry::versions::deprecation_prefix;

/// Tool names: what makes one valid, and how one is normalised. For the
/// family's crates, not for users.
pub mod names {
    pub use crate::names::*;
}

/// Input quoted back in messages, escaped and bounded. For the family's
/// crates, not for users.
pub mod quote {
    pub use crate::quote::*;
}

pub use crate::spec::args::{
    ArgSeed, CheckError, Checked, Input, ToolArgs, decode, decode_checked, decode_str,
    decode_str_checked, default_arg, next_arg, required_arg,
};
pub use crate::spec::config::{ConfigSpec, ConfigValue};
pub use crate::spec::constraints::{Constraints, Literal};
pub use crate::spec::limit::ResultLimit;
pub use crate::spec::requires::{Feature, Requirements};
pub use crate::spec::tool_spec::format::Formatter;
/// What is wrong with a text as an OAuth scope token, if anything: for the
/// family's crates that read scopes from files, not for users.
pub use crate::spec::tool_spec::scope_problem;
pub use crate::stream::{GeneratorStream, channel as stream_channel, next as stream_next};
pub use crate::{
    FromToolContext, Tool, ToolContext, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset,
    spec::ArgError, spec::ParamSpec, spec::SchemaSource, spec::SourceLocation, spec::TaskSupport,
    spec::ToolAnnotations, spec::ToolFuture,
};

/// A spec with every option unset. Each generated `SPEC` takes the options
/// its attribute leaves unset from it (`..SPEC_DEFAULTS`), so `cargo
/// expand` shows only what the tool sets. It is also the whole `SPEC` of a
/// tool whose attribute has errors, emitted beside the errors with an
/// `impl Tool` whose methods never run so that code naming the tool still
/// compiles; that crate does not build, so its spec is never read.
pub const SPEC_DEFAULTS: ToolSpec = crate::spec::tool_spec::UNSET;

/// A parameter with no default and no constraints, which the model must
/// supply, whose schema and check never run. [`Kind::PARAM`] fills in the
/// schema and the check of a parameter type; each generated `ParamSpec`
/// sets its name and description and takes the rest from there.
pub const PARAM_DEFAULTS: ParamSpec = ParamSpec {
    name: "",
    description: "",
    required: true,
    default: None,
    constraints: Constraints::NONE,
    header: None,
    schema_fn: |_| unreachable!("every generated parameter sets its schema"),
    default_fn: None,
    check_fn: |_| unreachable!("every generated parameter sets its check"),
};

/// Where a tool is defined.
pub const fn location(module: &'static str, file: &'static str, line: u32) -> SourceLocation {
    SourceLocation { module, file, line }
}

/// A call that ends with the error decoding its arguments.
#[inline]
pub fn failed<'a>(error: ToolError) -> ToolFuture<'a> {
    ToolFuture::ready(Err(error))
}
