//! The arguments of `#[resource(...)]` and `#[prompt(...)]`, on the
//! function and on its parameters, read by `meta` as `#[tool]`'s are (an
//! unknown key gets the closest known one suggested).

use crate::meta::{self, Error, Fields, Flag, FromMeta, NestedMeta, SpannedValue};

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
    /// `size = 1234`: a fixed resource's size in bytes.
    pub size: Option<SpannedValue<Number>>,
    /// `cache = "public"` or `"private"`: who may share a cached read.
    pub cache: Option<SpannedValue<String>>,
    /// `ttl = "60s"`: how long a read stays fresh.
    pub ttl: Option<SpannedValue<String>>,
    /// `audience = ["user", "assistant"]`: whom the resource is for.
    pub audience: Option<SpannedValue<Strings>>,
    /// `priority = 0.5`: how important the resource is.
    pub priority: Option<SpannedValue<Number>>,
    /// `register = false`: no entry in the global collection.
    pub register: Option<SpannedValue<bool>>,
    /// The path of tool-mcp, for crates that re-export it.
    pub krate: Option<syn::Path>,
}

/// A number literal, with its sign: `1234`, `0.5`, `-1`.
#[derive(Clone, Copy)]
pub struct Number {
    /// Its value.
    pub value: f64,
    /// Whether it was written as an integer (no `.`, no exponent).
    pub integer: bool,
}

impl FromMeta for Number {
    fn from_expr(expr: &syn::Expr) -> meta::Result<Self> {
        let number = match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => int.base10_parse::<f64>().ok().map(|value| Number {
                value,
                integer: true,
            }),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(float),
                ..
            }) => float.base10_parse::<f64>().ok().map(|value| Number {
                value,
                integer: false,
            }),
            syn::Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => Self::from_expr(expr).ok().map(|number| Number {
                value: -number.value,
                ..number
            }),
            syn::Expr::Group(group) => return Self::from_expr(&group.expr),
            _ => None,
        };
        number.ok_or_else(|| {
            Error::custom(
                "write a number without quotes, such as `size = 1024` or `priority = 0.5`",
            )
            .with_span(expr)
        })
    }
}

/// A string literal, or a list of them (`["user", "assistant"]`), each
/// spanned at its literal.
#[derive(Clone, Default)]
pub struct Strings(pub Vec<SpannedValue<String>>);

impl FromMeta for Strings {
    fn from_expr(expr: &syn::Expr) -> meta::Result<Self> {
        let one = |expr: &syn::Expr| match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Ok(SpannedValue::new(text.value(), text.span())),
            other => Err(Error::custom(
                "write each value as a string literal, as in audience = [\"user\", \"assistant\"]",
            )
            .with_span(other)),
        };
        match expr {
            syn::Expr::Array(array) => array
                .elems
                .iter()
                .map(one)
                .collect::<Result<_, _>>()
                .map(Strings),
            syn::Expr::Group(group) => Self::from_expr(&group.expr),
            other => one(other).map(|value| Strings(vec![value])),
        }
    }
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
    "size",
    "cache",
    "ttl",
    "audience",
    "priority",
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
            "size" => self.size = FromMeta::from_meta(meta)?,
            "cache" => self.cache = FromMeta::from_meta(meta)?,
            "ttl" => self.ttl = FromMeta::from_meta(meta)?,
            "audience" => self.audience = FromMeta::from_meta(meta)?,
            "priority" => self.priority = FromMeta::from_meta(meta)?,
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
