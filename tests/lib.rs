//! Integration tests live in `tests/`.
//!
//! The library itself holds the guides: every Rust snippet in README.md and
//! `docs/*.md` is compiled and run as a doctest of this crate
//! (`cargo test -p tests --doc`), so a snippet a reader copies works as
//! shown. Each page is the documentation of a hidden item that exists only
//! when doctests are collected.

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct Readme;

#[doc = include_str!("../docs/writing-tools.md")]
#[cfg(doctest)]
pub struct WritingTools;

#[doc = include_str!("../docs/architecture.md")]
#[cfg(doctest)]
pub struct Architecture;

#[doc = include_str!("../docs/providers.md")]
#[cfg(doctest)]
pub struct Providers;

#[doc = include_str!("../docs/context-and-streaming.md")]
#[cfg(doctest)]
pub struct ContextAndStreaming;

#[doc = include_str!("../docs/stateful-tools-and-configuration.md")]
#[cfg(doctest)]
pub struct StatefulToolsAndConfiguration;

#[doc = include_str!("../docs/constraints.md")]
#[cfg(doctest)]
pub struct Constraints;

#[doc = include_str!("../docs/registries.md")]
#[cfg(doctest)]
pub struct Registries;

#[doc = include_str!("../docs/dynamic-tools.md")]
#[cfg(doctest)]
pub struct DynamicTools;

#[doc = include_str!("../docs/http-tools.md")]
#[cfg(doctest)]
pub struct HttpTools;

#[doc = include_str!("../docs/builtin-tools.md")]
#[cfg(doctest)]
pub struct BuiltinTools;

#[doc = include_str!("../docs/code-mode.md")]
#[cfg(doctest)]
pub struct CodeMode;

#[doc = include_str!("../docs/cli.md")]
#[cfg(doctest)]
pub struct Cli;

#[doc = include_str!("../docs/mcp.md")]
#[cfg(doctest)]
pub struct Mcp;

#[doc = include_str!("../docs/resources-and-prompts.md")]
#[cfg(doctest)]
pub struct ResourcesAndPrompts;

#[doc = include_str!("../docs/apps-and-skills.md")]
#[cfg(doctest)]
pub struct AppsAndSkills;

#[cfg(test)]
mod claims;
