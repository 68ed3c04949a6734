//! The parsed form of a `#[tool]` function and of a `#[toolset]` block:
//! plain data. It keeps what the user wrote with the spans of where it was
//! written, so that validation can point at the offending tokens; emission
//! reads the model alone.

use proc_macro2::{Ident, Span, TokenStream};
use syn::{Path, Type};

use crate::attr::{Bounds, DefaultValue, OneOf};

/// A value and where it was written.
pub type Sp<T> = crate::meta::SpannedValue<T>;

/// One `#[tool]` function.
pub struct ToolFn {
    /// The function's name.
    pub fn_ident: Ident,
    /// A free function, or a method of a `#[toolset]` type.
    pub binding: Binding,
    /// The function's visibility, which the tool's struct shares.
    pub vis: syn::Visibility,
    /// The emitted struct's name (`WeatherForecastTool`).
    pub struct_ident: Ident,
    /// The tool's name: from `name = "..."`, or the function's.
    pub name: Sp<String>,
    /// The tool's description: from `description = "..."` or the doc
    /// comment; spanned at the key, or at the function's name.
    pub description: Sp<String>,
    /// `self` in any form, when the function takes it.
    pub receiver: Option<Receiver>,
    /// Parameters in declaration order (`self` apart).
    pub params: Vec<Param>,
    /// What the function returns.
    pub output: Output,
    /// `async`, when the function is.
    pub asyncness: Option<Span>,
    /// Parts of the signature a tool cannot have, when written.
    pub shape: FnShape,
    /// The runtime crate's path.
    pub krate: Path,
    /// Options that go into the spec.
    pub options: ToolOptions,
    /// Lines appended to the function's rustdoc: the parameter docs the
    /// macro removed from the parameters.
    pub extra_docs: Vec<String>,
}

impl ToolFn {
    /// Whether the tool holds an instance of its toolset's type, which the
    /// function takes as `&self`.
    pub fn bound_to_instance(&self) -> bool {
        matches!(self.binding, Binding::Method { .. }) && self.receiver.is_some()
    }

    /// The parameters the model supplies, with their index among all
    /// parameters.
    pub fn args(&self) -> impl Iterator<Item = (usize, &Param, &ArgParam)> {
        self.params
            .iter()
            .enumerate()
            .filter_map(|(i, param)| match &param.kind {
                ParamKind::Arg(arg) => Some((i, param, arg)),
                ParamKind::Injected { .. } => None,
            })
    }

    /// Whether a call reads its context: injected parameters come from it,
    /// and a stream reports its items through it.
    pub fn reads_context(&self) -> bool {
        matches!(self.output, Output::Stream { .. })
            || self
                .params
                .iter()
                .any(|param| matches!(param.kind, ParamKind::Injected { .. }))
    }
}

/// How the tool reaches its function.
pub enum Binding {
    /// A free function, registered globally.
    Free,
    /// A function in a `#[toolset]` impl block of `self_ty`.
    Method {
        /// The impl block's type.
        self_ty: Box<Type>,
    },
}

/// `self`, as the function takes it.
pub struct Receiver {
    /// The receiver's tokens (`&mut self`), for errors that cover it.
    pub tokens: TokenStream,
    /// The `self` token.
    pub self_span: Span,
    /// The form it takes.
    pub form: ReceiverForm,
}

/// The forms of `self`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiverForm {
    /// `&self`.
    Shared,
    /// `&mut self` or `mut self`.
    Mut,
    /// `self`, `self: Box<Self>` and the like.
    Other,
}

/// Qualifiers and generics written on the function, each of which a tool
/// cannot have.
#[derive(Default)]
pub struct FnShape {
    /// `const`.
    pub constness: Option<Span>,
    /// `unsafe`.
    pub unsafety: Option<Span>,
    /// `extern "ABI"`.
    pub abi: Option<Span>,
    /// A variadic `...` parameter.
    pub variadic: Option<Span>,
    /// The generic parameters, or the `where` clause when there are none.
    pub generics: Option<TokenStream>,
}

/// Spec options read from `#[tool(...)]` on the function.
#[derive(Default)]
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
    /// `timeout = "..."`, as written.
    pub timeout: Option<Sp<String>>,
    /// `blocking`, where written.
    pub blocking: Option<Span>,
    /// `needs_approval`.
    pub needs_approval: bool,
    /// `alias = "..."`, in order.
    pub aliases: Vec<Sp<String>>,
    /// `config = Type`.
    pub config: Option<Type>,
    /// `register = ...`, as written; `false` keeps the tool out of
    /// `Registry::global()`.
    pub register: Option<Sp<bool>>,
    /// `task` (none) or `task = "..."` (the value as written).
    pub task: Option<Sp<Option<String>>>,
    /// `version = "..."`, as written.
    pub version: Option<Sp<String>>,
    /// Why the tool is deprecated: from `deprecated` (the key wins) or
    /// Rust's own `#[deprecated]` on the function; `"deprecated"` when
    /// neither says why.
    pub deprecated: Option<String>,
    /// `requires(..)`: what the tool needs before it is offered.
    pub requires: Requires,
    /// `sequential`.
    pub sequential: bool,
    /// `result_limit = "..."`, as written.
    pub result_limit: Option<Sp<String>>,
    /// `format = PATH`: the tool's `ToolFormat` value.
    pub format: Option<syn::ExprPath>,
    /// `transform = PATH` on the function: rewrites the JSON arguments
    /// before they decode.
    pub transform: Option<syn::ExprPath>,
    /// `scopes(..)`: the OAuth scopes a caller needs, in order, each
    /// spanned at its string.
    pub scopes: Vec<Sp<String>>,
    /// Where `scopes(..)` was written again after its first time.
    pub repeated_scopes: Vec<Span>,
    /// `ui = "..."`, as written: the MCP app view of the tool.
    pub ui: Option<Sp<String>>,
    /// `visibility = "..."`, as written.
    pub visibility: Option<Sp<String>>,
}

/// `requires(..)`, each value spanned at its string.
#[derive(Default)]
pub struct Requires {
    /// `env = ".."`.
    pub env: Vec<Sp<String>>,
    /// `program = ".."`.
    pub programs: Vec<Sp<String>>,
    /// `feature = ".."`.
    pub features: Vec<Sp<String>>,
}

impl Requires {
    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.env.is_empty() && self.programs.is_empty() && self.features.is_empty()
    }
}

/// A limit on a result's size, read from `result_limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Bytes of text.
    Bytes(u64),
    /// Tokens.
    Tokens(u64),
}

impl ToolOptions {
    /// Whether the tool is registered in `Registry::global()` (unless it is
    /// a `#[toolset]` method, which never is).
    pub fn registered(&self) -> bool {
        self.register.as_ref().is_none_or(|register| **register)
    }

    /// `ui` and `visibility`, as written.
    pub fn ui_keys(&self) -> crate::mcp::ui::Keys<'_> {
        crate::mcp::ui::Keys {
            ui: self.ui.as_ref(),
            visibility: self.visibility.as_ref(),
        }
    }

    /// The task support `task` sets, when it is written and reads as one:
    /// `"optional"` (also the bare word), `"required"` or `"after_input"`.
    pub fn task_support(&self) -> Option<TaskMode> {
        match self.task.as_ref()?.as_deref() {
            None | Some("optional") => Some(TaskMode::Optional),
            Some("required") => Some(TaskMode::Required),
            Some("after_input") => Some(TaskMode::AfterInput),
            Some(_) => None,
        }
    }

    /// The result limit, when it is written and reads as one (zero
    /// included, which `validate` refuses).
    pub fn limit(&self) -> Option<Limit> {
        parse_limit(self.result_limit.as_ref()?.as_str())
    }

    /// The timeout in milliseconds, when it is written and reads as one.
    pub fn timeout_ms(&self) -> Option<u64> {
        self.timeout
            .as_ref()
            .and_then(|timeout| parse_duration_ms(timeout.as_str()))
    }
}

/// Whether a tool's calls may or must run as tasks (`task`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskMode {
    /// `task` or `task = "optional"`.
    Optional,
    /// `task = "required"`.
    Required,
    /// `task = "after_input"`.
    AfterInput,
}

/// One parameter.
pub struct Param {
    /// The binding name.
    pub ident: Ident,
    /// The declared type.
    pub ty: Type,
    /// The whole parameter, attributes included.
    pub span: Span,
    /// The keys of its `#[tool(...)]`, in the order written.
    pub keys: Vec<Sp<String>>,
    /// Where the value comes from.
    pub kind: ParamKind,
}

impl Param {
    /// Where `key` is written in the parameter's `#[tool(...)]`.
    pub fn key_span(&self, key: &str) -> Option<Span> {
        self.keys
            .iter()
            .find(|written| written.as_str() == key)
            .map(|written| written.span())
    }
}

/// Where a parameter's value comes from.
#[allow(clippy::large_enum_variant)] // built once per parameter at compile time
pub enum ParamKind {
    /// From the model's JSON arguments.
    Arg(ArgParam),
    /// From the call's context, through `FromToolContext`; `context` when
    /// the type is `ToolContext` itself.
    Injected {
        /// Whether the parameter is the `ToolContext`.
        context: bool,
    },
}

/// A parameter the model supplies.
pub struct ArgParam {
    /// Its name in the schema; spanned at `rename = "..."` when renamed.
    pub name: Sp<String>,
    /// Whether `rename` gave the name.
    pub renamed: bool,
    /// The Rust name, without `r#`.
    pub rust_name: String,
    /// Its description (empty when none).
    pub description: String,
    /// For `Option<T>`, the `T`.
    pub option_inner: Option<Type>,
    /// Its default, when it has one.
    pub default: Option<DefaultValue>,
    /// Checks beyond its type.
    pub constraints: ParamConstraints,
    /// `header`: MCP clients also send the value as an HTTP header.
    pub header: Option<Header>,
    /// `transform = path`: runs on the decoded value (an `Option`'s inner
    /// value, when present) before the constraints.
    pub transform: Option<syn::ExprPath>,
}

/// A parameter's `#[tool(header)]`: its value also travels as the HTTP
/// header `Mcp-Param-{name}` on MCP's streamable HTTP transport.
pub struct Header {
    /// The `{name}`: as written in `header = "..."` (spanned at the
    /// string), or made from the parameter's schema name (spanned at the
    /// `header` key).
    pub name: Sp<String>,
    /// Whether `header = "..."` gave the name.
    pub written: bool,
}

impl ArgParam {
    /// Whether the model must supply it.
    pub fn required(&self) -> bool {
        self.option_inner.is_none() && self.default.is_none()
    }
}

/// The constraints on a parameter, as written.
#[derive(Default)]
pub struct ParamConstraints {
    /// `range(...)`.
    pub range: Option<Bounds>,
    /// `length(...)`.
    pub length: Option<Bounds>,
    /// `pattern = "..."`.
    pub pattern: Option<Sp<String>>,
    /// `one_of = [...]`.
    pub one_of: Option<OneOf>,
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

/// What the function returns, as the shim must convert it.
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
    /// `impl Trait` that is not a stream (or a stream's item written as
    /// `impl Trait`): the tokens, for the error.
    Opaque(TokenStream),
}

impl Output {
    /// The type whose schema is the output schema: the value, the `Ok`
    /// type, or a stream's item type.
    pub fn value_type(&self) -> Option<&Type> {
        match self {
            Output::Value(ty) | Output::Result { ok: ty, .. } => Some(ty),
            Output::Unit | Output::Opaque(_) => None,
            Output::Stream { item } => item.value_type(),
        }
    }
}

/// One `#[toolset]` impl block.
pub struct Toolset {
    /// The impl block's type.
    pub self_ty: Type,
    /// The runtime crate's path.
    pub krate: Path,
    /// The trait, when the block implements one.
    pub trait_path: Option<Path>,
    /// The block's generic parameters, when it has any.
    pub generics: Option<TokenStream>,
    /// Its `#[tool]` methods.
    pub tools: Vec<ToolFn>,
}

/// Reads a duration like `"500ms"`, `"5s"`, `"1.5s"`, `"2m"` or `"1h"` as
/// milliseconds.
pub fn parse_duration_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "ms" => 1.0,
        "s" | "sec" | "secs" => 1_000.0,
        "m" | "min" | "mins" => 60_000.0,
        "h" => 3_600_000.0,
        _ => return None,
    };
    let ms = number * scale;
    (1.0..=1e15).contains(&ms).then_some(ms.round() as u64)
}

/// Reads a result limit: `"N"` or `"N bytes"`, `"N KB"` or `"N KiB"`
/// (1024 bytes), `"N MB"` or `"N MiB"` (1024² bytes), `"N tokens"`; the
/// space is optional and units ignore case.
pub fn parse_limit(text: &str) -> Option<Limit> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let bytes = |scale: u64| number.checked_mul(scale).map(Limit::Bytes);
    match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "byte" | "bytes" => bytes(1),
        "kb" | "kib" => bytes(1024),
        "mb" | "mib" => bytes(1024 * 1024),
        "token" | "tokens" => Some(Limit::Tokens(number)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("5s"), Some(5000));
        assert_eq!(parse_duration_ms("1.5s"), Some(1500));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("1h"), Some(3_600_000));
        assert_eq!(parse_duration_ms("5"), None);
        assert_eq!(parse_duration_ms("0s"), None);
    }

    #[test]
    fn result_limits() {
        assert_eq!(parse_limit("64KB"), Some(Limit::Bytes(65536)));
        assert_eq!(parse_limit("64 KiB"), Some(Limit::Bytes(65536)));
        assert_eq!(parse_limit("2MB"), Some(Limit::Bytes(2 * 1024 * 1024)));
        assert_eq!(parse_limit("1 MiB"), Some(Limit::Bytes(1024 * 1024)));
        assert_eq!(parse_limit("500"), Some(Limit::Bytes(500)));
        assert_eq!(parse_limit("500 bytes"), Some(Limit::Bytes(500)));
        assert_eq!(parse_limit("2000 tokens"), Some(Limit::Tokens(2000)));
        assert_eq!(parse_limit("0"), Some(Limit::Bytes(0)));
        assert_eq!(parse_limit("64 GB"), None);
        assert_eq!(parse_limit("1.5MB"), None);
        assert_eq!(parse_limit("KB"), None);
        assert_eq!(parse_limit("99999999999999999999 KB"), None);
    }
}
