//! The arguments of `#[resource(...)]` and `#[prompt(...)]`, on the
//! function and on its parameters, read by `meta` as `#[tool]`'s are (an
//! unknown key gets the closest known one suggested).

use crate::meta::{self, Fields, Flag, FromMeta, NestedMeta, SpannedValue};

/// `#[resource(...)]` or `#[prompt(...)]` on the function: the keys of
/// both, each read only where [`FnArgs::names`] lists it.
#[derive(Default)]
pub struct FnArgs {
    /// `uri = ".."` (a resource's; also its first, unnamed argument).
    pub uri: Option<SpannedValue<String>>,
    /// The name, when it is not the function's.
    pub name: Option<SpannedValue<String>>,
    /// A title for people.
    pub title: Option<SpannedValue<String>>,
    /// The description, when it is not the doc comment.
    pub description: Option<SpannedValue<String>>,
    /// `mime = "text/plain"` (a resource's).
    pub mime: Option<SpannedValue<String>>,
    /// `register = false`: no entry in the global collection.
    pub register: Option<SpannedValue<bool>>,
    /// The path of tool-mcp, for crates that re-export it.
    pub krate: Option<syn::Path>,
}

/// The keys of `#[resource(...)]`.
#[derive(Default)]
pub struct ResourceKeys(pub FnArgs);
/// The keys of `#[prompt(...)]`.
#[derive(Default)]
pub struct PromptKeys(pub FnArgs);

const RESOURCE_KEYS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mime",
    "register",
    "crate",
];
const PROMPT_KEYS: &[&str] = &["name", "title", "description", "register", "crate"];

impl FnArgs {
    fn read(&mut self, name: &str, meta: &syn::Meta) -> meta::Result<()> {
        match name {
            "uri" => self.uri = FromMeta::from_meta(meta)?,
            "name" => self.name = FromMeta::from_meta(meta)?,
            "title" => self.title = FromMeta::from_meta(meta)?,
            "description" => self.description = FromMeta::from_meta(meta)?,
            "mime" => self.mime = FromMeta::from_meta(meta)?,
            "register" => self.register = FromMeta::from_meta(meta)?,
            "crate" => self.krate = FromMeta::from_meta(meta)?,
            _ => unreachable!("not a key: {name}"),
        }
        Ok(())
    }
}

impl Fields for ResourceKeys {
    const NAMES: &'static [&'static str] = RESOURCE_KEYS;

    fn read(&mut self, name: &str, meta: &syn::Meta) -> meta::Result<()> {
        self.0.read(name, meta)
    }
}

impl Fields for PromptKeys {
    const NAMES: &'static [&'static str] = PROMPT_KEYS;

    fn read(&mut self, name: &str, meta: &syn::Meta) -> meta::Result<()> {
        self.0.read(name, meta)
    }
}

/// `#[resource(...)]` or `#[prompt(...)]` on a parameter.
#[derive(Default)]
pub struct ParamArgs {
    /// `name = ".."`: the template variable or argument it is, when not
    /// the parameter's name.
    pub name: Option<SpannedValue<String>>,
    /// `complete = path`: a `fn(&str) -> Vec<String>` (or `Vec<&str>`,
    /// `Completion`) offering values for what the client typed.
    pub complete: Option<SpannedValue<syn::ExprPath>>,
    /// Supplied from the context, not by the client.
    pub inject: Flag,
}

impl Fields for ParamArgs {
    const NAMES: &'static [&'static str] = &["name", "complete", "inject"];

    fn read(&mut self, name: &str, meta: &syn::Meta) -> meta::Result<()> {
        match name {
            "name" => self.name = FromMeta::from_meta(meta)?,
            "complete" => self.complete = FromMeta::from_meta(meta)?,
            "inject" => self.inject = FromMeta::from_meta(meta)?,
            _ => unreachable!("not a parameter key: {name}"),
        }
        Ok(())
    }
}

/// Reads a function's argument list with `F`'s keys.
pub fn read_list<F: Fields>(items: &[NestedMeta]) -> meta::Result<F> {
    meta::from_list(items)
}
