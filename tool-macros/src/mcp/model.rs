//! The parsed form of a `#[resource]` or `#[prompt]` function: plain data
//! with the spans of what the user wrote, so validation can point at it;
//! emission reads the model alone.

use proc_macro2::{Ident, Span};
use syn::{Path, Type};

pub use super::args::Number;
use crate::model::Sp;

/// Which attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Attr {
    /// `#[resource]`.
    Resource,
    /// `#[prompt]`.
    Prompt,
}

impl Attr {
    /// The attribute's name, as written.
    pub fn name(self) -> &'static str {
        match self {
            Attr::Resource => "resource",
            Attr::Prompt => "prompt",
        }
    }

    /// What a parameter the client gives is called in messages.
    pub fn value_noun(self) -> &'static str {
        match self {
            Attr::Resource => "template variable",
            Attr::Prompt => "prompt argument",
        }
    }
}

/// One `#[resource]` or `#[prompt]` function.
pub struct McpFn {
    /// Which attribute.
    pub attr: Attr,
    /// The function's name.
    pub fn_ident: Ident,
    /// The function's visibility, which the struct shares.
    pub vis: syn::Visibility,
    /// The emitted struct (`StaticTextResource`, `CodeReviewPrompt`).
    pub struct_ident: Ident,
    /// A resource's URI or URI template, spanned at the string; a
    /// prompt's is `None`.
    pub uri: Option<Sp<String>>,
    /// The name: `name = ".."`, or the function's.
    pub name: Sp<String>,
    /// A title for people.
    pub title: Option<Sp<String>>,
    /// `description = ".."` or the doc comment (`None` when both are
    /// missing or empty).
    pub description: Option<String>,
    /// A resource's media type.
    pub mime: Option<Sp<String>>,
    /// A resource's size in bytes (`size = 1234`).
    pub size: Option<Sp<Number>>,
    /// `cache = "public"` or `"private"`.
    pub cache: Option<Sp<String>>,
    /// `ttl = "60s"`.
    pub ttl: Option<Sp<String>>,
    /// `audience = [..]`, each value at its string.
    pub audience: Vec<Sp<String>>,
    /// `priority = 0.5`.
    pub priority: Option<Sp<Number>>,
    /// Whether the global collection holds it.
    pub register: bool,
    /// Parameters in declaration order.
    pub params: Vec<McpParam>,
    /// What the function returns.
    pub output: Output,
    /// `async`, when the function is.
    pub is_async: bool,
    /// tool-mcp's path.
    pub krate: Path,
    /// Whether it takes `self` (an error, and no stand-in struct, since an
    /// impl block cannot hold one).
    pub has_receiver: bool,
    /// What the function may not have, each where it was written.
    pub shape: Vec<(proc_macro2::TokenStream, &'static str)>,
    /// Whether the arguments parsed as a list of keys (when they did not,
    /// that is the one error about them).
    pub args_read: bool,
    /// Where the attribute's arguments start, for errors about a missing
    /// URI.
    pub attr_span: Span,
}

/// One parameter.
pub struct McpParam {
    /// Its name.
    pub ident: Ident,
    /// Its type.
    pub ty: Type,
    /// What it is.
    pub kind: ParamKind,
}

/// What a parameter is.
#[allow(clippy::large_enum_variant)] // A function has a few.
pub enum ParamKind {
    /// Supplied from the request's context (`FromToolContext`).
    Injected {
        /// `complete = ..` written on it (an error).
        complete: Option<Span>,
    },
    /// A template variable or prompt argument.
    Value(ValueParam),
}

/// A template variable or prompt argument.
pub struct ValueParam {
    /// Its name in the template or the arguments; spanned at `name = ".."`
    /// or the parameter's name.
    pub name: Sp<String>,
    /// How its text becomes the parameter.
    pub form: Form,
    /// Its description (a prompt argument's): the parameter's `///`.
    pub description: Option<String>,
    /// `complete = path`.
    pub complete: Option<syn::ExprPath>,
}

/// How a value's text becomes the parameter.
pub enum Form {
    /// `&str`: borrowed from the text.
    Str,
    /// Another reference (an error), spanned at the type.
    OtherRef(Span),
    /// `T: FromStr` (`String` too), required.
    Required(Type),
    /// `Option<T>`: may be missing.
    Optional(Type),
}

/// What the function returns.
pub struct Output {
    /// The written type (`None`: `()`), for spans.
    pub ty: Option<Type>,
    /// Whether it is a `Result` (any path ending in `Result`).
    pub result: bool,
}
