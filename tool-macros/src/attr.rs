//! The arguments of `#[tool(...)]`, on the function and on its parameters,
//! read by `meta` (which also suggests the closest key for a typo).

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use crate::meta::{self, Error, Fields, Flag, FromMeta, NestedMeta, SpannedValue};

/// `#[tool(...)]` on the function.
#[derive(Default)]
pub struct ToolArgs {
    /// The tool's name, when it is not the function's name.
    pub name: Option<SpannedValue<String>>,
    /// The tool's description, when it is not the doc comment.
    pub description: Option<SpannedValue<String>>,
    /// The path of the runtime crate, for crates that re-export it.
    pub krate: Option<syn::Path>,
    /// A human-readable title, for MCP clients.
    pub title: Option<SpannedValue<String>>,
    /// MCP hint: the tool does not change its environment.
    pub read_only: Option<bool>,
    /// MCP hint: the tool may destroy or overwrite data.
    pub destructive: Option<bool>,
    /// MCP hint: repeating a call has no further effect.
    pub idempotent: Option<bool>,
    /// MCP hint: the tool reaches an open world (the web, other systems).
    pub open_world: Option<bool>,
    /// Asks for OpenAI strict-mode schemas.
    pub strict: Flag,
    /// How long one call may run: `"500ms"`, `"5s"`, `"2m"`, `"1h"`.
    pub timeout: Option<SpannedValue<String>>,
    /// Runs a sync tool on a blocking thread.
    pub blocking: Flag,
    /// Calls need approval before they run.
    pub needs_approval: Flag,
    /// Other names the tool answers to; repeatable.
    pub alias: Vec<SpannedValue<String>>,
    /// The tool's configuration type, injected as `Config<T>`.
    pub config: Option<TypeArg>,
    /// `register = false`: no entry in `Registry::global()`; the tool is
    /// added to a registry by value only.
    pub register: Option<SpannedValue<bool>>,
    /// `task` or `task = "optional"` / `"required"` / `"after_input"`:
    /// calls may (or must) run as tasks.
    pub task: Option<SpannedValue<TaskArg>>,
    /// `version = "2.0.0"`: the tool's semantic version.
    pub version: Option<SpannedValue<String>>,
    /// `deprecated` or `deprecated = "use other_tool"`.
    pub deprecated: Option<SpannedValue<DeprecatedArg>>,
    /// `requires(env = "..", program = "..", feature = "..")`.
    pub requires: Option<RequiresArg>,
    /// `sequential`: calls before it finish first, calls after it wait.
    pub sequential: Flag,
    /// `result_limit = "64KB"` or `"2000 tokens"`, as written.
    pub result_limit: Option<SpannedValue<String>>,
    /// `format = PATH`: a value whose type implements `ToolFormat`.
    pub format: Option<PathArg>,
    /// `transform = PATH`: rewrites the JSON arguments before they decode.
    pub transform: Option<PathArg>,
    /// `scopes("files:read", ..)`: the OAuth scopes a caller needs; each
    /// `scopes(..)` written, so that a second one is reported.
    pub scopes: Vec<ScopesArg>,
    /// `ui = "ui://..."`: the MCP app view that shows the tool's results.
    pub ui: Option<SpannedValue<String>>,
    /// `visibility = "app"` or `"model"`: who may call a tool with `ui`.
    pub visibility: Option<SpannedValue<String>>,
}

/// `#[tool(...)]` on a parameter.
#[derive(Default)]
pub struct ParamArgs {
    /// The parameter's description, when it is not its doc comment.
    pub description: Option<SpannedValue<String>>,
    /// Makes the parameter optional with this default.
    pub default: Option<DefaultValue>,
    /// The parameter's name in the schema.
    pub rename: Option<SpannedValue<String>>,
    /// Supplies the parameter from the context instead of the model.
    pub inject: Flag,
    /// `range(min = 1, max = 50)` or `range(1, 50)`: numeric bounds.
    pub range: Option<Bounds>,
    /// `length(min = 1, max = 50)` or `length(1, 50)`: characters or items.
    pub length: Option<Bounds>,
    /// `pattern = "regex"`: strings must match.
    pub pattern: Option<SpannedValue<String>>,
    /// `one_of = ["a", "b"]`: the allowed values.
    pub one_of: Option<OneOf>,
    /// `validate = path::to_fn`: a custom check `fn(&T) -> Result<(), E>`.
    pub validate: Option<syn::ExprPath>,
    /// `header` or `header = "Name"`: MCP clients also send the value as
    /// the HTTP header `Mcp-Param-{Name}`.
    pub header: Option<SpannedValue<HeaderArg>>,
    /// `transform = path::to_fn`: `fn(T) -> T` or `fn(T) -> Result<T, E>`,
    /// run on the decoded value before the constraints.
    pub transform: Option<PathArg>,
}

impl Fields for ToolArgs {
    const NAMES: &'static [&'static str] = &[
        "name",
        "description",
        "crate",
        "title",
        "read_only",
        "destructive",
        "idempotent",
        "open_world",
        "strict",
        "timeout",
        "blocking",
        "needs_approval",
        "alias",
        "config",
        "register",
        "task",
        "version",
        "deprecated",
        "requires",
        "sequential",
        "result_limit",
        "format",
        "transform",
        "scopes",
        "ui",
        "visibility",
    ];

    fn multiple(name: &str) -> bool {
        matches!(name, "alias" | "scopes")
    }

    fn read(&mut self, name: &str, meta: &syn::Meta) -> meta::Result<()> {
        match name {
            "name" => self.name = FromMeta::from_meta(meta)?,
            "description" => self.description = FromMeta::from_meta(meta)?,
            "crate" => self.krate = FromMeta::from_meta(meta)?,
            "title" => self.title = FromMeta::from_meta(meta)?,
            "read_only" => self.read_only = FromMeta::from_meta(meta)?,
            "destructive" => self.destructive = FromMeta::from_meta(meta)?,
            "idempotent" => self.idempotent = FromMeta::from_meta(meta)?,
            "open_world" => self.open_world = FromMeta::from_meta(meta)?,
            "strict" => self.strict = FromMeta::from_meta(meta)?,
            "timeout" => self.timeout = FromMeta::from_meta(meta)?,
            "blocking" => self.blocking = FromMeta::from_meta(meta)?,
            "needs_approval" => self.needs_approval = FromMeta::from_meta(meta)?,
            "alias" => self.alias.push(FromMeta::from_meta(meta)?),
            "config" => self.config = FromMeta::from_meta(meta)?,
            "register" => self.register = FromMeta::from_meta(meta)?,
            "task" => self.task = FromMeta::from_meta(meta)?,
            "version" => self.version = FromMeta::from_meta(meta)?,
            "deprecated" => self.deprecated = FromMeta::from_meta(meta)?,
            "requires" => self.requires = FromMeta::from_meta(meta)?,
            "sequential" => self.sequential = flag(meta, "sequential")?,
            "result_limit" => self.result_limit = FromMeta::from_meta(meta)?,
            "format" => self.format = Some(PathArg::read(meta, FORMAT_HINT)?),
            "transform" => self.transform = Some(PathArg::read(meta, TRANSFORM_INPUT_HINT)?),
            "scopes" => self.scopes.push(FromMeta::from_meta(meta)?),
            "ui" => self.ui = Some(crate::mcp::ui::string(meta, "ui")?),
            "visibility" => self.visibility = Some(crate::mcp::ui::string(meta, "visibility")?),
            _ => unreachable!("not a key of #[tool]: {name}"),
        }
        Ok(())
    }
}

impl ToolArgs {
    /// Reads `#[tool(...)]`'s arguments.
    pub fn from_list(items: &[NestedMeta]) -> meta::Result<Self> {
        meta::from_list(items)
    }
}

impl Fields for ParamArgs {
    const NAMES: &'static [&'static str] = &[
        "description",
        "default",
        "rename",
        "inject",
        "range",
        "length",
        "pattern",
        "one_of",
        "validate",
        "header",
        "transform",
    ];

    fn read(&mut self, name: &str, meta: &syn::Meta) -> meta::Result<()> {
        match name {
            "description" => self.description = FromMeta::from_meta(meta)?,
            "default" => self.default = FromMeta::from_meta(meta)?,
            "header" => self.header = FromMeta::from_meta(meta)?,
            "rename" => self.rename = FromMeta::from_meta(meta)?,
            "inject" => self.inject = FromMeta::from_meta(meta)?,
            "range" => self.range = FromMeta::from_meta(meta)?,
            "length" => self.length = FromMeta::from_meta(meta)?,
            "pattern" => self.pattern = FromMeta::from_meta(meta)?,
            "one_of" => self.one_of = FromMeta::from_meta(meta)?,
            "validate" => self.validate = FromMeta::from_meta(meta)?,
            "transform" => self.transform = Some(PathArg::read(meta, TRANSFORM_PARAM_HINT)?),
            _ => unreachable!("not a key of a parameter's #[tool]: {name}"),
        }
        Ok(())
    }
}

impl ParamArgs {
    /// Reads a parameter's `#[tool(...)]` arguments.
    pub fn from_list(items: &[NestedMeta]) -> meta::Result<Self> {
        meta::from_list(items)
    }
}

/// Inclusive bounds, each optional: `(min = a, max = b)` or `(a, b)`.
#[derive(Clone)]
pub struct Bounds {
    /// The lower bound.
    pub min: Option<f64>,
    /// The upper bound.
    pub max: Option<f64>,
    /// Where the bounds were written.
    pub span: Span,
}

impl FromMeta for Bounds {
    fn from_list(items: &[NestedMeta]) -> meta::Result<Self> {
        let mut bounds = Bounds {
            min: None,
            max: None,
            span: Span::call_site(),
        };
        let mut positional = 0;
        let mut errors = Error::accumulator();
        for item in items {
            match item {
                NestedMeta::Lit(lit) => {
                    let value = errors.handle(number_lit(&syn::Expr::Lit(syn::ExprLit {
                        attrs: Vec::new(),
                        lit: lit.clone(),
                    })));
                    match positional {
                        0 => bounds.min = value,
                        1 => bounds.max = value,
                        _ => errors.push(
                            Error::custom("write at most two bounds: (min, max)").with_span(lit),
                        ),
                    }
                    positional += 1;
                }
                NestedMeta::Meta(syn::Meta::NameValue(nv)) if nv.path.is_ident("min") => {
                    bounds.min = errors.handle(number_lit(&nv.value));
                }
                NestedMeta::Meta(syn::Meta::NameValue(nv)) if nv.path.is_ident("max") => {
                    bounds.max = errors.handle(number_lit(&nv.value));
                }
                NestedMeta::Meta(meta) => errors.push(
                    Error::custom(
                        "write bounds as (min = a, max = b), (min = a), (max = b) or (a, b)",
                    )
                    .with_span(meta),
                ),
            }
        }
        if let Some(first) = items.first() {
            bounds.span = first.span();
        }
        if bounds.min.is_none() && bounds.max.is_none() {
            errors.push(Error::custom(
                "give at least one bound: (min = a), (max = b) or (min = a, max = b)",
            ));
        }
        errors.finish_with(bounds)
    }
}

/// A numeric literal, possibly negative.
fn number_lit(expr: &syn::Expr) -> meta::Result<f64> {
    let (negative, inner) = match expr {
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let value = match inner {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => int.base10_parse::<f64>().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(float),
            ..
        }) => float.base10_parse::<f64>().ok(),
        _ => None,
    };
    match value {
        Some(v) if negative => Ok(-v),
        Some(v) => Ok(v),
        None => Err(Error::custom("expected a number literal, such as 1 or 0.5").with_span(expr)),
    }
}

/// The allowed values of `one_of`.
#[derive(Clone)]
pub struct OneOf {
    /// Each value, as a literal.
    pub values: Vec<OneOfValue>,
    /// Where the list was written.
    pub span: Span,
}

/// One allowed value.
#[derive(Clone)]
pub enum OneOfValue {
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl FromMeta for OneOf {
    fn from_expr(expr: &syn::Expr) -> meta::Result<Self> {
        let syn::Expr::Array(array) = expr else {
            return Err(Error::custom(
                "write the allowed values as a list: one_of = [\"a\", \"b\"]",
            )
            .with_span(expr));
        };
        let mut errors = Error::accumulator();
        let mut values = Vec::new();
        for element in &array.elems {
            let value = match element {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(OneOfValue::Str(s.value())),
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                }) => Some(OneOfValue::Bool(b.value)),
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse().ok().map(OneOfValue::Int),
                syn::Expr::Unary(syn::ExprUnary {
                    op: syn::UnOp::Neg(_),
                    expr,
                    ..
                }) => match &**expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<i64>().ok().map(|v| OneOfValue::Int(-v)),
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Float(f),
                        ..
                    }) => f.base10_parse::<f64>().ok().map(|v| OneOfValue::Float(-v)),
                    _ => None,
                },
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Float(f),
                    ..
                }) => f.base10_parse().ok().map(OneOfValue::Float),
                _ => None,
            };
            match value {
                Some(value) => values.push(value),
                None => errors.push(
                    Error::custom("each allowed value must be a string, number or boolean literal")
                        .with_span(element),
                ),
            }
        }
        if array.elems.is_empty() {
            errors.push(Error::custom("give at least one allowed value").with_span(expr));
        }
        errors.finish_with(OneOf {
            values,
            span: expr.span(),
        })
    }
}

/// The value of a parameter's `header` key.
#[derive(Clone, Debug)]
pub enum HeaderArg {
    /// `#[tool(header)]`: the header's name is made from the parameter's.
    Derived,
    /// `#[tool(header = "Region")]`: the name as written.
    Named(String),
}

impl FromMeta for HeaderArg {
    fn from_word() -> meta::Result<Self> {
        Ok(HeaderArg::Derived)
    }

    fn from_string(value: &str) -> meta::Result<Self> {
        Ok(HeaderArg::Named(value.to_owned()))
    }
}

/// The value of the tool's `task` key: none for the bare word (`task`), else
/// the string written, checked by `validate`.
#[derive(Clone, Debug)]
pub struct TaskArg(pub Option<String>);

impl FromMeta for TaskArg {
    fn from_word() -> meta::Result<Self> {
        Ok(TaskArg(None))
    }

    fn from_string(value: &str) -> meta::Result<Self> {
        Ok(TaskArg(Some(value.to_owned())))
    }
}

/// The value of the tool's `deprecated` key: none for the bare word, else
/// the text written.
#[derive(Clone, Debug)]
pub struct DeprecatedArg(pub Option<String>);

const DEPRECATED_HINT: &str = "write `deprecated`, or `deprecated = \"...\"` with what to use \
                               instead, such as deprecated = \"use convert_length_v3\"";

impl FromMeta for DeprecatedArg {
    fn from_word() -> meta::Result<Self> {
        Ok(DeprecatedArg(None))
    }

    fn from_list(_items: &[NestedMeta]) -> meta::Result<Self> {
        Err(Error::custom(DEPRECATED_HINT))
    }

    fn from_expr(expr: &syn::Expr) -> meta::Result<Self> {
        match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Ok(DeprecatedArg(Some(text.value()))),
            syn::Expr::Group(group) => Self::from_expr(&group.expr),
            _ => Err(Error::custom(DEPRECATED_HINT).with_span(expr)),
        }
    }
}

/// A bare flag key, such as `sequential`: any value is an error at the key
/// that says to write it alone.
fn flag(meta: &syn::Meta, key: &str) -> meta::Result<Flag> {
    match meta {
        syn::Meta::Path(_) => Flag::from_meta(meta),
        _ => Err(Error::custom(format!(
            "`{key}` is a flag and takes no value: write `{key}` on its own, as in \
             #[tool({key})], or leave it out"
        ))
        .with_span(meta)),
    }
}

const FORMAT_HINT: &str = "`format` takes the path of a value whose type implements \
                           `ToolFormat`, such as format = MyFormat (a unit struct, a `const` or \
                           a `static`)";

const TRANSFORM_INPUT_HINT: &str = "`transform` on the function takes the path of a function \
                                    `fn(serde_json::Value) -> serde_json::Value` (or `-> \
                                    Result<serde_json::Value, E>`), such as transform = \
                                    rename_legacy_keys";

const TRANSFORM_PARAM_HINT: &str = "`transform` takes the path of a function `fn(T) -> T` (or \
                                    `fn(T) -> Result<T, E>` with `E: Display`), where `T` is \
                                    the parameter's type, such as transform = normalize";

/// A path to a value or a function: `format = MyFormat`, `transform =
/// normalize` (a string holding a path is read as the path, as for
/// `validate`).
#[derive(Clone)]
pub struct PathArg(pub syn::ExprPath);

impl PathArg {
    /// Reads `key = path`; any other form is an error with `hint`.
    fn read(meta: &syn::Meta, hint: &str) -> meta::Result<Self> {
        let syn::Meta::NameValue(nv) = meta else {
            return Err(Error::custom(hint).with_span(meta));
        };
        Self::from_value_expr(&nv.value, hint)
    }

    fn from_value_expr(expr: &syn::Expr, hint: &str) -> meta::Result<Self> {
        match expr {
            syn::Expr::Path(path) => Ok(PathArg(path.clone())),
            syn::Expr::Group(group) => Self::from_value_expr(&group.expr, hint),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => text
                .parse::<syn::ExprPath>()
                .map(PathArg)
                .map_err(|_| Error::custom(hint).with_span(expr)),
            _ => Err(Error::custom(hint).with_span(expr)),
        }
    }
}

/// The keys of `requires(..)`.
const REQUIRES_KEYS: &[&str] = &["env", "program", "feature"];

/// `requires(env = "A", program = "git", feature = "search")`: each key
/// repeatable, each value a string or a list of strings.
#[derive(Clone, Default)]
pub struct RequiresArg {
    /// Environment variables, each spanned at its string.
    pub env: Vec<SpannedValue<String>>,
    /// Programs on the `PATH`.
    pub programs: Vec<SpannedValue<String>>,
    /// Cargo features of the defining crate.
    pub features: Vec<SpannedValue<String>>,
}

const REQUIRES_HINT: &str = "write the requirements as requires(env = \"VAR\", program = \
                             \"name\", feature = \"name\"); each key may repeat or take a \
                             list, as in env = [\"A\", \"B\"]";

impl FromMeta for RequiresArg {
    fn from_word() -> meta::Result<Self> {
        Err(Error::custom(REQUIRES_HINT))
    }

    fn from_expr(expr: &syn::Expr) -> meta::Result<Self> {
        Err(Error::custom(REQUIRES_HINT).with_span(expr))
    }

    fn from_list(items: &[NestedMeta]) -> meta::Result<Self> {
        let mut requires = RequiresArg::default();
        let mut errors = Error::accumulator();
        for item in items {
            let nv = match item {
                NestedMeta::Meta(syn::Meta::NameValue(nv)) => nv,
                other => {
                    let key = match other {
                        NestedMeta::Meta(meta) => meta.path().to_token_stream().to_string(),
                        NestedMeta::Lit(_) => String::new(),
                    };
                    let message = if REQUIRES_KEYS.contains(&key.as_str()) {
                        format!("write `{key} = \"...\"`: {REQUIRES_HINT}")
                    } else {
                        REQUIRES_HINT.to_owned()
                    };
                    errors.push(Error::custom(message).with_span(other));
                    continue;
                }
            };
            let key = nv.path.to_token_stream().to_string();
            let into = match key.as_str() {
                "env" => &mut requires.env,
                "program" => &mut requires.programs,
                "feature" => &mut requires.features,
                _ => {
                    errors.push(Error::custom(unknown_requirement(&key)).with_span(&nv.path));
                    continue;
                }
            };
            match string_values(&nv.value) {
                Some(values) if values.is_empty() => errors.push(
                    Error::custom(format!(
                        "an empty list names nothing to require; write at least one name, as \
                         in {key} = [\"a\"], or remove `{key}`"
                    ))
                    .with_span(&nv.value),
                ),
                Some(values) => into.extend(values),
                None => errors.push(
                    Error::custom(format!(
                        "`{key}` takes a string or a list of strings, as in {key} = \"name\" \
                         or {key} = [\"a\", \"b\"]"
                    ))
                    .with_span(&nv.value),
                ),
            }
        }
        if items.is_empty() {
            errors.push(Error::custom(REQUIRES_HINT));
        }
        errors.finish_with(requires)
    }
}

/// The error for an unknown key of `requires(..)`: the closest key when one
/// is close, and the three keys.
fn unknown_requirement(key: &str) -> String {
    let closest = REQUIRES_KEYS
        .iter()
        .map(|known| (crate::similar::jaro_winkler(key, known), *known))
        .filter(|(confidence, _)| *confidence > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let lead = match closest {
        Some((_, known)) => format!("unknown requirement `{key}`, did you mean `{known}`?"),
        None => format!("unknown requirement `{key}`."),
    };
    format!(
        "{lead} `requires(..)` takes `env = \"VAR\"`, `program = \"name\"` and \
         `feature = \"name\"`"
    )
}

/// A string literal, or a list of them, each spanned at its literal.
fn string_values(expr: &syn::Expr) -> Option<Vec<SpannedValue<String>>> {
    let one = |expr: &syn::Expr| match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Some(SpannedValue::new(text.value(), text.span())),
        _ => None,
    };
    match expr {
        syn::Expr::Array(array) => array.elems.iter().map(one).collect(),
        syn::Expr::Group(group) => string_values(&group.expr),
        other => one(other).map(|value| vec![value]),
    }
}

const SCOPES_HINT: &str = "`scopes` takes a list of string literals: write the OAuth scopes a \
                           caller needs, as in scopes(\"files:read\", \"files:write\")";

/// `scopes("files:read", "files:write")`: each scope spanned at its string.
#[derive(Clone)]
pub struct ScopesArg {
    /// The scopes, in order.
    pub scopes: Vec<SpannedValue<String>>,
    /// Where `scopes` was written.
    pub span: Span,
}

impl FromMeta for ScopesArg {
    fn from_meta(item: &syn::Meta) -> meta::Result<Self> {
        let syn::Meta::List(list) = item else {
            return Err(Error::custom(SCOPES_HINT).with_span(item));
        };
        let items = NestedMeta::parse_meta_list(list.tokens.clone())
            .map_err(|error| Error::from(error).with_span(item))?;
        let mut errors = Error::accumulator();
        let mut scopes = Vec::new();
        for nested in &items {
            match nested {
                NestedMeta::Lit(syn::Lit::Str(text)) => {
                    scopes.push(SpannedValue::new(text.value(), text.span()));
                }
                other => errors.push(
                    Error::custom(
                        "each scope is a string literal: write it in quotes, as in \
                         scopes(\"files:read\", \"files:write\")",
                    )
                    .with_span(other),
                ),
            }
        }
        if items.is_empty() {
            errors.push(
                Error::custom(
                    "an empty `scopes()` asks for no scope: write the scopes a caller needs, \
                     as in scopes(\"files:read\"), or remove `scopes`",
                )
                .with_span(item),
            );
        }
        errors.finish_with(ScopesArg {
            scopes,
            span: item.path().span(),
        })
    }
}

/// A type written as a path: `config = SearchConfig`.
#[derive(Clone)]
pub struct TypeArg(pub syn::Type);

impl FromMeta for TypeArg {
    fn from_expr(expr: &syn::Expr) -> meta::Result<Self> {
        match expr {
            syn::Expr::Path(path) if path.qself.is_none() => {
                Ok(TypeArg(syn::Type::Path(syn::TypePath {
                    attrs: Vec::new(),
                    qself: None,
                    path: path.path.clone(),
                })))
            }
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => s.parse().map(TypeArg).map_err(|_| {
                Error::custom("expected a type, such as SearchConfig").with_span(expr)
            }),
            _ => Err(Error::custom("expected a type, such as SearchConfig").with_span(expr)),
        }
    }
}

/// The value of `default`: bare for `Default::default()`, or an expression.
#[derive(Clone)]
pub enum DefaultValue {
    /// `#[tool(default)]`.
    Trait(Span),
    /// `#[tool(default = expr)]`; a string literal stays a string literal.
    Expr(syn::Expr),
}

impl DefaultValue {
    /// Where the default was written.
    pub fn span(&self) -> Span {
        match self {
            DefaultValue::Trait(span) => *span,
            DefaultValue::Expr(expr) => expr.span(),
        }
    }

    /// The default as Rust source, for the spec.
    pub fn source(&self) -> String {
        match self {
            DefaultValue::Trait(_) => "Default::default()".to_owned(),
            DefaultValue::Expr(syn::Expr::Lit(lit)) => lit.to_token_stream().to_string(),
            DefaultValue::Expr(expr) => tidy_tokens(&expr.to_token_stream().to_string()),
        }
    }
}

impl FromMeta for DefaultValue {
    fn from_word() -> meta::Result<Self> {
        Ok(DefaultValue::Trait(Span::call_site()))
    }

    fn from_expr(expr: &syn::Expr) -> meta::Result<Self> {
        // Taken as written: a default of "Paris" means the string, not the
        // code a string literal could be parsed as.
        Ok(DefaultValue::Expr(expr.clone()))
    }
}

/// `to_string` of tokens puts spaces everywhere; close up the common ones.
fn tidy_tokens(text: &str) -> String {
    text.replace(" :: ", "::")
        .replace("! [", "![")
        .replace("! (", "!(")
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" .", ".")
        .replace(". ", ".")
        .replace(" ,", ",")
}

/// The keys written in a parameter's `#[tool(...)]` attributes, in order,
/// each spanned at its name: the identifier that starts each item of the
/// list (`default` in `default = 3`, `range` in `range(1, 5)`), so an error
/// about a key can point at it (a bare `default` carries no span of its own).
pub fn written_keys(attrs: &[syn::Attribute]) -> Vec<SpannedValue<String>> {
    let mut keys = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("tool")) {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        let mut at_item_start = true;
        for token in list.tokens.clone() {
            match token {
                proc_macro2::TokenTree::Ident(ident) if at_item_start => {
                    keys.push(SpannedValue::new(ident.to_string(), ident.span()));
                    at_item_start = false;
                }
                proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ',' => {
                    at_item_start = true;
                }
                _ => at_item_start = false,
            }
        }
    }
    keys
}
