//! The parsed form of a `#[tool]` function: plain data the emitter reads.

use proc_macro2::Ident;
use syn::{Path, Type};

use crate::attr::{Bounds, DefaultValue, OneOfValue};

/// One `#[tool]` function.
#[derive(Debug)]
pub struct ToolFn {
    /// The function's name.
    pub fn_ident: Ident,
    /// A free function, or a method of a `#[toolset]` type.
    pub binding: Binding,
    /// The function's visibility, which the tool's struct shares.
    pub vis: syn::Visibility,
    /// The emitted struct's name (`WeatherForecastTool`).
    pub struct_ident: Ident,
    /// The tool's name and where it came from.
    pub name: String,
    /// The tool's description.
    pub description: String,
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// What the function returns.
    pub output: Output,
    /// Whether the function is `async`.
    pub is_async: bool,
    /// The runtime crate's path.
    pub krate: Path,
    /// Options that go into the spec as they are.
    pub options: ToolOptions,
    /// Lines appended to the function's rustdoc: the parameter docs the
    /// macro removed from the parameters.
    pub extra_docs: Vec<String>,
}

/// How the tool reaches its function.
#[derive(Debug)]
pub enum Binding {
    /// A free function, registered globally.
    Free,
    /// A function in a `#[toolset]` impl block; bound to an instance when it
    /// takes `&self`.
    Method {
        /// The impl block's type.
        self_ty: Box<Type>,
        /// Whether the method takes `&self`.
        takes_self: bool,
    },
}

/// Spec options read from `#[tool(...)]`.
#[derive(Debug, Default)]
pub struct ToolOptions {
    /// `title = "..."`.
    pub title: Option<String>,
    /// `read_only`, `destructive`, `idempotent`, `open_world`.
    pub read_only: Option<bool>,
    /// See `read_only`.
    pub destructive: Option<bool>,
    /// See `read_only`.
    pub idempotent: Option<bool>,
    /// See `read_only`.
    pub open_world: Option<bool>,
    /// `strict`.
    pub strict: bool,
    /// `timeout = "..."`, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `blocking`.
    pub blocking: bool,
    /// `needs_approval`.
    pub needs_approval: bool,
    /// `alias = "..."`, in order.
    pub aliases: Vec<String>,
    /// `config = Type`.
    pub config: Option<Type>,
}

/// One parameter.
#[derive(Debug)]
pub struct Param {
    /// The binding name.
    pub ident: Ident,
    /// The declared type.
    pub ty: Type,
    /// Where the value comes from.
    pub kind: ParamKind,
}

/// Where a parameter's value comes from.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // built once per parameter at compile time
pub enum ParamKind {
    /// From the model's JSON arguments.
    Arg(ArgParam),
    /// From the call's context, through `FromToolContext`.
    Injected,
}

/// A parameter the model supplies.
#[derive(Debug)]
pub struct ArgParam {
    /// Its name in the schema.
    pub name: String,
    /// Its description (empty when none).
    pub description: String,
    /// For `Option<T>`, the `T`.
    pub option_inner: Option<Type>,
    /// Its default, when it has one.
    pub default: Option<DefaultValue>,
    /// Checks beyond its type.
    pub constraints: ParamConstraints,
}

/// The constraints on a parameter, as written.
#[derive(Debug, Default)]
pub struct ParamConstraints {
    /// `range(...)`.
    pub range: Option<Bounds>,
    /// `length(...)`.
    pub length: Option<Bounds>,
    /// `pattern = "..."`.
    pub pattern: Option<String>,
    /// `one_of = [...]`.
    pub one_of: Option<Vec<OneOfValue>>,
    /// `validate = path`.
    pub validate: Option<syn::ExprPath>,
}

impl ParamConstraints {
    /// Whether any constraint is set.
    pub fn is_empty(&self) -> bool {
        self.range.is_none()
            && self.length.is_none()
            && self.pattern.is_none()
            && self.one_of.is_none()
            && self.validate.is_none()
    }
}

impl ArgParam {
    /// Whether the model must supply it.
    pub fn required(&self) -> bool {
        self.option_inner.is_none() && self.default.is_none()
    }
}

/// What the function returns, as the shim must convert it.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // built once per function at compile time
pub enum Output {
    /// A value: text, JSON, or a `ToolResult`.
    Value(Type),
    /// Nothing (`()`).
    Unit,
    /// A `Result`; `err` is `None` for aliases with the error type fixed
    /// (`anyhow::Result<T>`, `io::Result<T>`).
    Result { ok: Type, err: Option<Type> },
    /// `impl Stream<Item = T>`: each item is an intermediate output, the
    /// last one the result; `item` says how to convert an item.
    Stream { item: Box<Output> },
}

impl Output {
    /// The type whose schema is the output schema: the value, the `Ok`
    /// type, or a stream's item type.
    pub fn value_type(&self) -> Option<&Type> {
        match self {
            Output::Value(ty) | Output::Result { ok: ty, .. } => Some(ty),
            Output::Unit => None,
            Output::Stream { item } => item.value_type(),
        }
    }
}
