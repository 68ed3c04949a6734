//! Tool configuration: settings fixed when a tool is set up (an API key, a
//! result limit), apart from the arguments the model sends with each call.
//!
//! A tool declares its configuration type with `#[tool(config = T)]`, where
//! `T: Deserialize + JsonSchema`, and receives it through a `Config<T>`
//! parameter. The spec exposes the configuration schema beside the input
//! schema ([`ToolSpec::config`](crate::ToolSpec::config)); a configuration
//! is validated when it is given, and every bad field is reported at once.
//!
//! Where a configuration comes from, lowest precedence first:
//! 1. the type's own defaults (`#[serde(default)]`),
//! 2. code: [`RegistryBuilder::configure`](crate::RegistryBuilder::configure),
//! 3. a configuration file: [`RegistryBuilder::configure_from_file`](crate::RegistryBuilder::configure_from_file),
//!    which a registry file (crate `tool-manifest`) calls,
//! 4. environment variables `TOOL_<NAME>_<FIELD>` (upper case, other
//!    characters as `_`): `TOOL_SEARCH_API_KEY` sets `api_key` of `search`.
//!
//! Later sources override earlier ones field by field.

pub use crate::context::shared::{Config, ToolConfiguration};
pub use crate::registry::config::{env_prefix, from_env, merge};
pub use crate::spec::config::{ConfigSpec, ConfigValue};
