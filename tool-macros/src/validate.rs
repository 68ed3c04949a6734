//! Checks on the model, after parsing and before emission: every rule that
//! needs no type information, each error at the tokens that break it with a
//! sentence that says what to write instead. Nothing here stops at the first
//! problem; every check runs and pushes into the same `Errors`.

use proc_macro2::Span;
use quote::ToTokens;
use std::collections::HashSet;
use syn::{PathArguments, Type};

use crate::attr::OneOfValue;
use crate::errors::Errors;
use crate::model::{
    ArgParam, Binding, Header, Output, Param, ParamKind, ReceiverForm, Sp, ToolFn, ToolOptions,
    Toolset,
};

/// Checks a `#[toolset]` block and each of its tools.
pub fn toolset(set: &Toolset, errors: &mut Errors) {
    if let Some(path) = &set.trait_path {
        errors.push_spanned(
            path,
            "#[toolset] goes on an inherent impl block, not a trait impl. Write the tools in \
             `impl MyType { ... }`",
        );
    }
    if let Some(generics) = &set.generics {
        errors.push_spanned(
            generics,
            "a toolset cannot be generic: each tool needs one concrete type. Implement the \
             tools for a concrete type",
        );
    }
    for tool in &set.tools {
        self::tool(tool, errors);
    }
}

/// Checks one tool.
pub fn tool(tool: &ToolFn, errors: &mut Errors) {
    signature(tool, errors);
    receiver(tool, errors);
    let mut context: Option<&Param> = None;
    for param in &tool.params {
        self::param(param, &mut context, errors);
    }
    unique_param_names(tool, errors);
    unique_headers(tool, errors);
    tool_name(&tool.name, errors);
    if tool.description.trim().is_empty() {
        errors.push(
            tool.description.span(),
            format!(
                "tool `{}` has no description: a model cannot use a tool it is not told about. \
                 Add a doc comment above the function (`/// What the tool does.`) or write \
                 #[tool(description = \"...\")]",
                tool.name.as_str()
            ),
        );
    }
    output(&tool.output, errors);
    options(tool, &tool.options, errors);
}

/// Function shapes a tool cannot have.
fn signature(tool: &ToolFn, errors: &mut Errors) {
    let shape = &tool.shape;
    if let Some(span) = shape.constness {
        errors.push(
            span,
            "a tool cannot be a `const fn`: it runs when a model calls it. Remove `const`",
        );
    }
    if let Some(span) = shape.unsafety {
        errors.push(
            span,
            "a tool cannot be an `unsafe fn`: a model calling it cannot uphold its safety \
             contract. Make the function safe and put the `unsafe` block inside it",
        );
    }
    if let Some(span) = shape.abi {
        errors.push(
            span,
            "a tool cannot have an explicit ABI: it is called from Rust. Remove the `extern` part",
        );
    }
    if let Some(span) = shape.variadic {
        errors.push(
            span,
            "a tool cannot be variadic: the model passes named JSON arguments. Take a \
             `Vec<T>` parameter instead",
        );
    }
    if let Some(generics) = &shape.generics {
        errors.push_spanned(
            generics,
            "a tool cannot be generic: the model sends JSON, so each parameter needs one \
             concrete, owned type. Remove the generic parameters (and any `where` clause) and \
             name concrete types (`String`, not `&'a str`; `&ToolContext` needs no named lifetime), \
             or write one #[tool] per type that calls a generic helper",
        );
    }
}

/// `self`: only `&self`, and only in a `#[toolset]` block.
fn receiver(tool: &ToolFn, errors: &mut Errors) {
    let Some(receiver) = &tool.receiver else {
        return;
    };
    match (&tool.binding, receiver.form) {
        (Binding::Free, _) => errors.push(
            receiver.self_span,
            "#[tool] functions cannot take `self`: a tool is a free function the model calls \
             with JSON arguments. Mark the impl block with #[toolset] to make its `&self` \
             methods tools, or move the function out of the impl block and take what it needs \
             as parameters",
        ),
        (Binding::Method { .. }, ReceiverForm::Shared) => {}
        (Binding::Method { .. }, ReceiverForm::Mut) => errors.push_spanned(
            &receiver.tokens,
            "a tool method takes `&self`, not `&mut self`: calls may run at the same time, so \
             they share the instance. Keep mutable state behind a Mutex or atomics and take \
             `&self`",
        ),
        (Binding::Method { .. }, ReceiverForm::Other) => errors.push_spanned(
            &receiver.tokens,
            "a tool method takes `&self`: the instance is shared by every call, so it cannot \
             be consumed or taken in another form. Write `&self`",
        ),
    }
}

/// The keys of a parameter's `#[tool(...)]` that describe a value the model
/// supplies, so have no effect on an injected one.
const ARG_ONLY_KEYS: &[&str] = &[
    "description",
    "default",
    "rename",
    "range",
    "length",
    "pattern",
    "one_of",
    "validate",
    "header",
];

/// One parameter; `context` is the first `ToolContext` parameter seen.
fn param<'a>(param: &'a Param, context: &mut Option<&'a Param>, errors: &mut Errors) {
    if contains_impl_trait(&param.ty) {
        errors.push_spanned(
            &param.ty,
            "`impl Trait` parameters are not supported by #[tool]: the model sends JSON, so \
             each parameter needs one concrete type. Write the concrete type instead",
        );
        return;
    }
    match &param.kind {
        ParamKind::Injected {
            context: is_context,
        } => {
            let ident = &param.ident;
            let written = param
                .keys
                .iter()
                .filter(|key| ARG_ONLY_KEYS.contains(&key.as_str()));
            for key in written {
                errors.push(
                    key.span(),
                    format!(
                        "`{key}` has no effect on an injected parameter: `{ident}` is supplied \
                         by the runtime and is not part of the tool's schema. Remove `{key}`",
                        key = key.as_str()
                    ),
                );
            }
            if *is_context {
                if context.is_some() {
                    errors.push(
                        param.span,
                        format!(
                            "a tool takes at most one `ToolContext` parameter, and an earlier \
                             parameter already is one. Remove `{ident}` and use the earlier \
                             parameter"
                        ),
                    );
                } else {
                    *context = Some(param);
                }
            }
        }
        ParamKind::Arg(arg) => argument(param, arg, errors),
    }
}

/// A parameter the model supplies.
fn argument(param: &Param, arg: &ArgParam, errors: &mut Errors) {
    owned_param_type(&param.ty, errors);
    if arg.renamed {
        param_name(&arg.name, errors);
    }
    if let (Some(default), Some(_)) = (&arg.default, &arg.option_inner) {
        errors.push(
            param.key_span("default").unwrap_or_else(|| default.span()),
            format!(
                "`default` on an `Option` parameter: `{}` already defaults to `None` when the \
                 model leaves it out. Remove `default`, or make the type non-optional to give \
                 it a default value",
                arg.rust_name
            ),
        );
    }
    constraints_fit_type(
        param,
        arg,
        arg.option_inner.as_ref().unwrap_or(&param.ty),
        errors,
    );
    let constraints = &arg.constraints;
    for bounds in [&constraints.range, &constraints.length]
        .into_iter()
        .flatten()
    {
        if let (Some(min), Some(max)) = (bounds.min, bounds.max)
            && min > max
        {
            errors.push(
                bounds.span,
                format!("the lower bound {min} is above the upper bound {max}; swap them"),
            );
        }
    }
    if let Some(length) = &constraints.length {
        for bound in [length.min, length.max].into_iter().flatten() {
            if bound < 0.0 || bound.fract() != 0.0 {
                errors.push(
                    length.span,
                    format!("a length bound must be a whole number of at least 0, not {bound}"),
                );
            }
        }
    }
    if let Some(pattern) = &constraints.pattern {
        check_pattern(pattern, errors);
    }
    if let Some(header) = &arg.header {
        self::header(param, arg, header, errors);
    }
}

/// `#[tool(header)]`: MCP allows header parameters of a string, integer or
/// boolean type only, each named with an HTTP token. The type is judged as
/// written: `String`, `bool`, the integer types, or an `Option` of one.
/// Anything else (a struct, an enum, a type alias, a float) is refused,
/// since the schema it stands for cannot be seen from here.
fn header(param: &Param, arg: &ArgParam, header: &Header, errors: &mut Errors) {
    let at = param
        .key_span("header")
        .unwrap_or_else(|| header.name.span());
    let ty = arg.option_inner.as_ref().unwrap_or(&param.ty);
    let rust_name = &arg.rust_name;
    // A borrowed type is reported on its own (`owned_param_type`).
    if first_reference(&param.ty).is_none() {
        let written = type_text(ty);
        let problem = match TypeKind::of(ty) {
            TypeKind::Integer | TypeKind::Text | TypeKind::Bool => None,
            TypeKind::Float => Some(format!(
                "`header` cannot go on `{rust_name}`, a floating-point number (`{written}`): MCP \
                 allows header parameters of type string, integer or boolean only. Take an \
                 integer (in a smaller unit) or a `String`, or remove `header`"
            )),
            kind @ (TypeKind::List | TypeKind::Map) => Some(format!(
                "`header` cannot go on `{rust_name}`, {} (`{written}`): a header carries one \
                 string, integer or boolean. Remove `header`, or give the value to send as a \
                 header a parameter of its own (`String`, an integer type or `bool`)",
                kind.noun()
            )),
            TypeKind::Unknown => Some(format!(
                "`header` needs a parameter whose type is written as `String`, `bool` or an \
                 integer type (`u32`, `i64`, ...), or an `Option` of one, and `{rust_name}` is \
                 `{written}`: MCP allows header parameters of type string, integer or boolean \
                 only, and the macro cannot see what another type (a struct, an enum, a type \
                 alias) stands for. Write the primitive type, such as `{rust_name}: String`, or \
                 remove `header`"
            )),
        };
        if let Some(problem) = problem {
            errors.push(at, problem);
            return;
        }
    }
    let name = header.name.as_str();
    if header.written {
        let prefix = "Mcp-Param-";
        if name.len() > prefix.len()
            && name.is_char_boundary(prefix.len())
            && name[..prefix.len()].eq_ignore_ascii_case(prefix)
        {
            errors.push(
                header.name.span(),
                format!(
                    "write the header's name without `{prefix}`, which the client adds: \
                     header = \"{}\"",
                    &name[prefix.len()..]
                ),
            );
        } else if let Some(problem) = header_name_problem(name) {
            errors.push(
                header.name.span(),
                format!(
                    "invalid header name \"{name}\": {problem}. A header name is letters, \
                     digits and `-` (or any of !#$%&'*+.^_`|~), as in header = \"Region\""
                ),
            );
        }
    } else if let Some(problem) = header_name_problem(name) {
        errors.push(
            at,
            format!(
                "the header name made from `{}` is not a valid HTTP header name \
                 ({problem}); name the header: header = \"Name\"",
                arg.name.as_str()
            ),
        );
    }
}

/// What keeps `name` from being an HTTP token (RFC 9110's `1*tchar`).
fn header_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(*c)))
        .map(|c| format!("{c:?} is not allowed"))
}

/// No two header parameters of a tool may share a header, ignoring case.
fn unique_headers(tool: &ToolFn, errors: &mut Errors) {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for (_, param, arg) in tool.args() {
        let Some(header) = &arg.header else {
            continue;
        };
        let lower = header.name.to_ascii_lowercase();
        match seen.iter().find(|(name, _)| *name == lower) {
            Some((_, other)) => errors.push(
                if header.written {
                    header.name.span()
                } else {
                    param
                        .key_span("header")
                        .unwrap_or_else(|| header.name.span())
                },
                format!(
                    "`{}` also sends the header Mcp-Param-{} (header names are compared \
                     ignoring case); give this one another name: header = \"...\"",
                    other,
                    header.name.as_str()
                ),
            ),
            None => seen.push((lower, &arg.rust_name)),
        }
    }
}

/// A `pattern` the runtime can match: it compiles with regex-lite, the
/// runtime's engine. What it cannot compile fails here, at the pattern.
#[cfg(feature = "pattern")]
fn check_pattern(pattern: &Sp<String>, errors: &mut Errors) {
    let Err(error) = regex_lite::Regex::new(pattern.as_str()) else {
        return;
    };
    // Its errors are one phrase each; those about character classes it
    // lacks (Unicode classes such as `\p{L}`, nested classes, class set
    // operations) are valid patterns elsewhere, so they say what to write
    // instead.
    let error = error.to_string();
    let message = if error.contains("character class") && error.contains("not supported") {
        format!(
            "this pattern uses syntax tool-runtime's regular expressions do not support \
             (no Unicode classes such as `\\p{{L}}`; `\\d`, `\\w` and `\\s` are ASCII): \
             {error}. Write the characters out instead, e.g. `[a-zà-ÿ]`",
        )
    } else {
        format!("this pattern is not a valid regular expression: {error}")
    };
    errors.push(pattern.span(), message);
}

/// Without tool-runtime's `pattern` feature the runtime has no regular
/// expressions to match with: the constraint fails to compile, saying how
/// to turn the feature on.
#[cfg(not(feature = "pattern"))]
fn check_pattern(pattern: &Sp<String>, errors: &mut Errors) {
    errors.push(
        pattern.span(),
        "`pattern` constraints need tool-runtime's `pattern` feature; in Cargo.toml write \
         `tool-runtime = { version = \"0.1\", features = [\"pattern\"] }`"
            .to_owned(),
    );
}

fn contains_impl_trait(ty: &Type) -> bool {
    find_type(ty, &mut |ty| matches!(ty, Type::ImplTrait(_))).is_some()
}

/// The first type inside `ty` (itself included, outer before inner, left
/// to right) for which `found` holds.
fn find_type<'a>(ty: &'a Type, found: &mut impl FnMut(&'a Type) -> bool) -> Option<&'a Type> {
    if found(ty) {
        return Some(ty);
    }
    match ty {
        Type::Array(array) => find_type(&array.elem, found),
        Type::Group(group) => find_type(&group.elem, found),
        Type::Paren(paren) => find_type(&paren.elem, found),
        Type::Ptr(ptr) => find_type(&ptr.elem, found),
        Type::Reference(reference) => find_type(&reference.elem, found),
        Type::Slice(slice) => find_type(&slice.elem, found),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(|ty| find_type(ty, found)),
        Type::Path(path) => path
            .qself
            .iter()
            .find_map(|qself| find_type(&qself.ty, found))
            .or_else(|| find_in_path(&path.path, found)),
        Type::ImplTrait(bounds) => find_in_bounds(bounds.bounds.iter(), found),
        Type::TraitObject(bounds) => find_in_bounds(bounds.bounds.iter(), found),
        Type::FnPtr(bare) => bare
            .inputs
            .iter()
            .find_map(|arg| find_type(&arg.ty, found))
            .or_else(|| match &bare.output {
                syn::ReturnType::Type(_, ty) => find_type(ty, found),
                syn::ReturnType::Default => None,
            }),
        _ => None,
    }
}

fn find_in_path<'a>(
    path: &'a syn::Path,
    found: &mut impl FnMut(&'a Type) -> bool,
) -> Option<&'a Type> {
    path.segments
        .iter()
        .find_map(|segment| match &segment.arguments {
            PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                syn::GenericArgument::Type(ty) => find_type(ty, found),
                syn::GenericArgument::AssocType(assoc) => find_type(&assoc.ty, found),
                syn::GenericArgument::Constraint(constraint) => {
                    find_in_bounds(constraint.bounds.iter(), found)
                }
                _ => None,
            }),
            PathArguments::Parenthesized(args) => args
                .inputs
                .iter()
                .find_map(|arg| find_type(&arg.ty, found))
                .or_else(|| match &args.output {
                    syn::ReturnType::Type(_, ty) => find_type(ty, found),
                    syn::ReturnType::Default => None,
                }),
            PathArguments::None => None,
        })
}

fn find_in_bounds<'a>(
    mut bounds: impl Iterator<Item = &'a syn::TypeParamBound>,
    found: &mut impl FnMut(&'a Type) -> bool,
) -> Option<&'a Type> {
    bounds.find_map(|bound| match bound {
        syn::TypeParamBound::Trait(bound) => find_in_path(&bound.path, found),
        _ => None,
    })
}

/// Two parameters may not share a schema name (after `rename`).
fn unique_param_names(tool: &ToolFn, errors: &mut Errors) {
    let mut seen = HashSet::new();
    for (_, param, arg) in tool.args() {
        if !seen.insert(arg.name.as_str()) {
            errors.push(
                param.ident.span(),
                format!(
                    "two parameters are named \"{}\" in the schema; rename one with \
                     #[tool(rename = \"...\")]",
                    arg.name.as_str()
                ),
            );
        }
    }
}

/// Checks a tool name against `^[a-zA-Z0-9_-]{1,64}$`, the names OpenAI,
/// Anthropic and Bedrock all accept.
fn tool_name(name: &Sp<String>, errors: &mut Errors) {
    if let Some(problem) = name_problem(name) {
        errors.push(
            name.span(),
            format!(
                "invalid tool name \"{}\": {problem}. Tool names must be 1 to 64 ASCII \
                 letters, digits, `_` or `-`, the names every provider accepts; choose one with \
                 #[tool(name = \"...\")]",
                name.as_str()
            ),
        );
    }
}

/// Checks a renamed parameter: the same alphabet as tool names.
fn param_name(name: &Sp<String>, errors: &mut Errors) {
    if let Some(problem) = name_problem(name) {
        errors.push(
            name.span(),
            format!(
                "invalid parameter name \"{}\": {problem}. Use 1 to 64 ASCII letters, digits, \
                 `_` or `-`",
                name.as_str()
            ),
        );
    }
}

/// Return types the runtime cannot turn into a result.
fn output(output: &Output, errors: &mut Errors) {
    match output {
        Output::Opaque(tokens) => errors.push_spanned(
            tokens,
            "a tool cannot return `impl Trait` other than `impl Stream<Item = T>`: the runtime \
             must know how to turn the value into a result. Return a concrete type",
        ),
        Output::Stream { item } => {
            if let Output::Opaque(tokens) = &**item {
                errors.push_spanned(
                    tokens,
                    "a stream's `Item` must be a concrete type. Name the type of the items",
                );
            }
        }
        Output::Value(_) | Output::Unit | Output::Result { .. } => {}
    }
}

/// The spec options, against the function they annotate.
fn options(tool: &ToolFn, options: &ToolOptions, errors: &mut Errors) {
    if let Some(timeout) = &options.timeout
        && options.timeout_ms().is_none()
    {
        errors.push(
            timeout.span(),
            format!(
                "cannot read the timeout \"{}\": write a number and a unit, such as \"500ms\", \
                 \"5s\", \"1.5s\", \"2m\" or \"1h\"",
                timeout.as_str()
            ),
        );
    }
    if let Some(blocking) = options.blocking {
        if let Some(asyncness) = tool.asyncness {
            errors.push(
                asyncness,
                "`blocking` is for sync functions that would stall the executor; an `async fn` \
                 already yields at its await points. Remove `blocking`, or make the function sync",
            );
        } else if matches!(tool.output, Output::Stream { .. }) {
            errors.push(
                blocking,
                "`blocking` cannot apply to a tool that returns a stream. Remove `blocking`",
            );
        }
    }
    if let (Some(register), Binding::Method { .. }) = (&options.register, &tool.binding) {
        errors.push(
            register.span(),
            "`register` is for free functions: a #[toolset] method is never registered \
             globally, its tools reach a registry with the instance \
             (`RegistryBuilder::toolset`). Remove `register`",
        );
    }
    aliases(&tool.name, &options.aliases, errors);
}

fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name.len() > 64 {
        return Some(format!("it is {} characters long", name.len()));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .map(|c| format!("{c:?} is not allowed"))
}

/// Checks the aliases of tool `name`: not empty, no character a client could
/// not send as a name, not the tool's own name, not repeated. Returns those
/// to record.
/// `name` is the tool's name.
fn aliases(name: &str, aliases: &[Sp<String>], errors: &mut Errors) {
    let mut kept: Vec<&str> = Vec::new();
    for alias in aliases {
        let text = alias.as_str();
        if let Some(problem) = alias_problem(text) {
            errors.push(
                alias.span(),
                format!(
                    "invalid alias \"{text}\": {problem}. An alias is a name the tool also \
                     answers to: ASCII letters, digits, `_`, `-`, `.`, `:` or `/`, as in \
                     alias = \"old_name\""
                ),
            );
        } else if text == name {
            errors.push(
                alias.span(),
                format!(
                    "the alias \"{text}\" is the tool's own name, so it has no effect. Remove it"
                ),
            );
        } else if kept.contains(&text) {
            errors.push(
                alias.span(),
                format!("the alias \"{text}\" is given twice. Remove one"),
            );
        } else {
            kept.push(text);
        }
    }
}

fn alias_problem(alias: &str) -> Option<String> {
    if alias.trim().is_empty() {
        return Some("it is empty".into());
    }
    alias
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | '`' | '*'))
        .map(|c| format!("{c:?} is not allowed"))
}

/// A parameter type that borrows (`&str`, `&[T]`, `&T`) cannot be decoded
/// from the model's arguments, which the call owns only for its duration.
/// Reports the first reference in `ty`, suggesting the owned type.
fn owned_param_type(ty: &Type, errors: &mut Errors) {
    let Some(reference) = first_reference(ty) else {
        return;
    };
    let inner = &*reference.elem;
    let (owned, data) = match inner {
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => {
            ("String".to_owned(), true)
        }
        Type::Slice(slice) => (format!("Vec<{}>", type_text(&slice.elem)), true),
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("Path") => {
            ("PathBuf".to_owned(), true)
        }
        other => (type_text(other), TypeKind::of(other) != TypeKind::Unknown),
    };
    // A reference to a type of the user's own may be meant for injection.
    let inject = if data {
        ""
    } else {
        ", or mark the parameter #[tool(inject)] if the runtime supplies it"
    };
    errors.push_spanned(
        reference,
        format!(
            "a tool parameter cannot borrow: arguments are decoded from the model's JSON into \
             owned values. Write `{owned}` instead of `{}`{inject}",
            type_text(&Type::Reference(reference.clone()))
        ),
    );
}

fn first_reference(ty: &Type) -> Option<&syn::TypeReference> {
    match find_type(ty, &mut |ty| matches!(ty, Type::Reference(_)))? {
        Type::Reference(reference) => Some(reference),
        _ => None,
    }
}

/// What the macro can tell about a type from how it is written. Only
/// standard names count; anything else (the user's own types, aliases) is
/// `Unknown` and never rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeKind {
    /// `i32`, `u64`, `usize`, ...
    Integer,
    /// `f32`, `f64`.
    Float,
    /// `bool`.
    Bool,
    /// `String`, `str`.
    Text,
    /// `Vec<T>`, `VecDeque<T>`, the sets, arrays and slices.
    List,
    /// `HashMap<K, V>`, `BTreeMap<K, V>`.
    Map,
    /// Anything else.
    Unknown,
}

impl TypeKind {
    /// Classifies `ty`, looking through groups and parentheses.
    fn of(ty: &Type) -> TypeKind {
        match ty {
            Type::Group(group) => TypeKind::of(&group.elem),
            Type::Paren(paren) => TypeKind::of(&paren.elem),
            Type::Array(_) | Type::Slice(_) => TypeKind::List,
            Type::Path(path) if path.qself.is_none() => {
                let Some(segment) = path.path.segments.last() else {
                    return TypeKind::Unknown;
                };
                let name = segment.ident.to_string();
                let bare = matches!(segment.arguments, PathArguments::None);
                match name.as_str() {
                    "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32"
                    | "u64" | "u128" | "usize"
                        if bare =>
                    {
                        TypeKind::Integer
                    }
                    "f32" | "f64" if bare => TypeKind::Float,
                    "bool" if bare => TypeKind::Bool,
                    "String" | "str" if bare => TypeKind::Text,
                    "Vec" | "VecDeque" | "HashSet" | "BTreeSet" if !bare => TypeKind::List,
                    "HashMap" | "BTreeMap" if !bare => TypeKind::Map,
                    _ => TypeKind::Unknown,
                }
            }
            _ => TypeKind::Unknown,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            TypeKind::Integer => "an integer",
            TypeKind::Float => "a floating-point number",
            TypeKind::Bool => "a boolean",
            TypeKind::Text => "a string",
            TypeKind::List => "a list",
            TypeKind::Map => "a map",
            TypeKind::Unknown => "a value",
        }
    }
}

/// Rejects constraints that cannot apply to the parameter's type as written:
/// `range` on a string, `length` on a number, `pattern` on anything but a
/// string, and `one_of` values of another type than the parameter.
fn constraints_fit_type(param: &Param, arg: &ArgParam, ty: &Type, errors: &mut Errors) {
    let rust_name = &arg.rust_name;
    let args = &arg.constraints;
    let kind = TypeKind::of(ty);
    if kind == TypeKind::Unknown {
        return;
    }
    let written = type_text(ty);
    let at = |key: &str, fallback: Span| param.key_span(key).unwrap_or(fallback);
    if let Some(range) = &args.range
        && !matches!(kind, TypeKind::Integer | TypeKind::Float)
    {
        let fix = match kind {
            TypeKind::Text | TypeKind::List => {
                "Use `length(...)` to bound the length of a string or list, or remove `range`"
            }
            _ => "Remove `range`, or make the parameter a number",
        };
        errors.push(
            at("range", range.span),
            format!(
                "`range` bounds a number, but `{rust_name}` is {} (`{written}`). {fix}",
                kind.noun()
            ),
        );
    }
    if let Some(length) = &args.length
        && !matches!(kind, TypeKind::Text | TypeKind::List)
    {
        let fix = match kind {
            TypeKind::Integer | TypeKind::Float => {
                "Use `range(...)` to bound a number, or remove `length`"
            }
            _ => "Remove `length`",
        };
        errors.push(
            at("length", length.span),
            format!(
                "`length` bounds the characters of a string or the items of a list, but \
                 `{rust_name}` is {} (`{written}`). {fix}",
                kind.noun()
            ),
        );
    }
    if let Some(pattern) = &args.pattern
        && kind != TypeKind::Text
    {
        errors.push(
            at("pattern", pattern.span()),
            format!(
                "`pattern` matches strings, but `{rust_name}` is {} (`{written}`). Remove \
                 `pattern`, or make the parameter a `String`",
                kind.noun()
            ),
        );
    }
    if let Some(one_of) = &args.one_of {
        let (fits, example): (fn(&OneOfValue) -> bool, &str) = match kind {
            TypeKind::Integer => (|v| matches!(v, OneOfValue::Int(_)), "one_of = [1, 2, 3]"),
            TypeKind::Float => (
                |v| matches!(v, OneOfValue::Int(_) | OneOfValue::Float(_)),
                "one_of = [0.5, 1.0]",
            ),
            TypeKind::Bool => (|v| matches!(v, OneOfValue::Bool(_)), "one_of = [true]"),
            TypeKind::Text => (
                |v| matches!(v, OneOfValue::Str(_)),
                "one_of = [\"a\", \"b\"]",
            ),
            TypeKind::List | TypeKind::Map | TypeKind::Unknown => (|_| true, ""),
        };
        if matches!(kind, TypeKind::List | TypeKind::Map) {
            errors.push(
                at("one_of", one_of.span),
                format!(
                    "`one_of` lists single values, but `{rust_name}` is {} (`{written}`). \
                     Remove `one_of`, or use an enum as the item type",
                    kind.noun()
                ),
            );
        } else if let Some(bad) = one_of.values.iter().find(|v| !fits(v)) {
            errors.push(
                one_of.span,
                format!(
                    "`one_of` allows {} ({}), but `{rust_name}` is {} (`{written}`), so the \
                     model could never send it. Write values of the parameter's type: {example}",
                    value_noun(bad),
                    value_text(bad),
                    kind.noun()
                ),
            );
        }
    }
}

fn value_noun(value: &OneOfValue) -> &'static str {
    match value {
        OneOfValue::Str(_) => "a string",
        OneOfValue::Int(_) => "an integer",
        OneOfValue::Float(_) => "a floating-point number",
        OneOfValue::Bool(_) => "a boolean",
    }
}

fn value_text(value: &OneOfValue) -> String {
    match value {
        OneOfValue::Str(s) => format!("{s:?}"),
        OneOfValue::Int(i) => i.to_string(),
        OneOfValue::Float(f) => f.to_string(),
        OneOfValue::Bool(b) => b.to_string(),
    }
}

/// A type as the user would write it.
fn type_text(ty: &Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace("[ ", "[")
        .replace(" ]", "]")
        .replace(" ;", ";")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::MaybeFn;
    use proc_macro2::TokenStream;
    use quote::quote;
    use syn::parse_quote;

    /// Every message parsing and validating `item` gives, one a line.
    fn check(args: TokenStream, item: MaybeFn) -> String {
        let mut errors = Errors::new();
        let tool = crate::parse::tool(args, &item, None, &mut errors);
        super::tool(&tool, &mut errors);
        match errors.finish() {
            Ok(()) => String::new(),
            Err(error) => error
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    /// The messages for one parameter `x: ty` with `#[tool(keys)]`.
    fn fit(ty: Type, keys: TokenStream) -> String {
        check(
            TokenStream::new(),
            parse_quote! {
                /// Doc.
                fn f(#[tool(#keys)] x: #ty) {}
            },
        )
    }

    #[test]
    fn reports_every_error_at_once() {
        let error = check(
            quote!(nme = "x"),
            parse_quote! {
                const unsafe fn f<T>((a, b): (i32, i32), x: impl Fn()) {}
            },
        );
        for expected in [
            "nme",
            "const fn",
            "unsafe fn",
            "generic",
            "plain name",
            "impl Trait",
            "no description",
        ] {
            assert!(
                error.contains(expected),
                "{expected:?} missing from {error}"
            );
        }
    }

    #[test]
    fn option_with_default_is_an_error() {
        let error = fit(parse_quote!(Option<u8>), quote!(default = 1));
        assert!(error.contains("already defaults to `None`"), "{error}");
    }

    #[test]
    fn rejects_bad_timeouts_and_blocking_async() {
        let error = check(
            quote!(timeout = "soon", blocking),
            parse_quote! {
                /// Doc.
                async fn f() {}
            },
        );
        assert!(error.contains("cannot read the timeout"), "{error}");
        assert!(
            error.contains("`blocking` is for sync functions"),
            "{error}"
        );
    }

    #[test]
    fn keys_on_injected_parameters_are_errors() {
        let error = check(
            TokenStream::new(),
            parse_quote! {
                /// Doc.
                fn f(
                    #[tool(inject, rename = "d")] db: Db,
                    #[tool(descripton = "x")] a: &ToolContext,
                    b: &ToolContext,
                ) {}
            },
        );
        assert!(error.contains("`rename` has no effect"), "{error}");
        // A misspelt key is reported once, when the keys are read.
        assert!(!error.contains("`descripton` has no effect"), "{error}");
        assert!(error.contains("at most one `ToolContext`"), "{error}");
    }

    #[test]
    fn receivers_depend_on_the_binding() {
        let error = check(
            TokenStream::new(),
            parse_quote! {
                /// Doc.
                fn f(&self) {}
            },
        );
        assert!(error.contains("cannot take `self`"), "{error}");
    }

    #[test]
    fn classifies_types_as_written() {
        assert_eq!(TypeKind::of(&parse_quote!(u32)), TypeKind::Integer);
        assert_eq!(TypeKind::of(&parse_quote!(f64)), TypeKind::Float);
        assert_eq!(
            TypeKind::of(&parse_quote!(std::string::String)),
            TypeKind::Text
        );
        assert_eq!(TypeKind::of(&parse_quote!(Vec<u8>)), TypeKind::List);
        assert_eq!(TypeKind::of(&parse_quote!([u8; 4])), TypeKind::List);
        assert_eq!(
            TypeKind::of(&parse_quote!(HashMap<String, u8>)),
            TypeKind::Map
        );
        assert_eq!(TypeKind::of(&parse_quote!(Celsius)), TypeKind::Unknown);
        assert_eq!(TypeKind::of(&parse_quote!(Vec)), TypeKind::Unknown);
    }

    #[test]
    fn constraints_must_fit_the_type() {
        assert!(fit(parse_quote!(String), quote!(range(1, 5))).contains("`range` bounds a number"));
        assert!(fit(parse_quote!(u8), quote!(length(max = 5))).contains("Use `range(...)`"));
        assert!(
            fit(parse_quote!(Vec<String>), quote!(pattern = "a"))
                .contains("`pattern` matches strings")
        );
        assert!(fit(parse_quote!(u32), quote!(one_of = ["a"])).contains("allows a string (\"a\")"));
        assert!(
            fit(parse_quote!(String), quote!(one_of = [1])).contains("one_of = [\"a\", \"b\"]")
        );
        assert!(fit(parse_quote!(Vec<u8>), quote!(one_of = [1])).contains("single values"));
        assert!(
            fit(parse_quote!(HashMap<String, u8>), quote!(length(max = 2)))
                .contains("Remove `length`")
        );
        assert!(fit(parse_quote!(u8), quote!(range(5, 1))).contains("swap them"));
        assert!(fit(parse_quote!(String), quote!(length(max = 1.5))).contains("whole number"));
        assert!(fit(parse_quote!(String), quote!(pattern = "(")).contains("not a valid regular"));
        assert!(
            fit(parse_quote!(String), quote!(pattern = r"^\p{L}+$")).contains("do not support")
        );
        // What fits, and what the macro cannot judge, passes.
        assert_eq!(
            fit(parse_quote!(f64), quote!(range(0, 1), one_of = [0, 0.5])),
            ""
        );
        assert_eq!(
            fit(
                parse_quote!(String),
                quote!(length(1, 5), pattern = "^a", one_of = ["a"])
            ),
            ""
        );
        assert_eq!(fit(parse_quote!(Vec<u8>), quote!(length(max = 3))), "");
        assert_eq!(
            fit(
                parse_quote!(Meters),
                quote!(range(0, 1), length(1, 2), pattern = "a")
            ),
            ""
        );
    }

    #[test]
    fn headers_need_primitive_parameters_and_header_names() {
        let header = |ty: Type| fit(ty, quote!(header));
        for ty in [
            parse_quote!(String),
            parse_quote!(std::string::String),
            parse_quote!(u64),
            parse_quote!(i8),
            parse_quote!(bool),
            parse_quote!(Option<String>),
            parse_quote!(Option<u32>),
        ] {
            assert_eq!(header(ty), "");
        }
        assert!(header(parse_quote!(f64)).contains("a floating-point number (`f64`)"));
        assert!(header(parse_quote!(Option<f32>)).contains("a floating-point number (`f32`)"));
        assert!(header(parse_quote!(Vec<String>)).contains("`x`, a list (`Vec<String>`)"));
        assert!(header(parse_quote!(HashMap<String, u8>)).contains("a map"));
        assert!(header(parse_quote!(Filter)).contains("`x` is `Filter`"));
        assert!(header(parse_quote!(Option<Option<String>>)).contains("`Option<String>`"));
        // A borrowed type is reported once, as borrowed.
        let borrowed = header(parse_quote!(&str));
        assert!(borrowed.contains("cannot borrow"), "{borrowed}");
        assert!(!borrowed.contains("`header`"), "{borrowed}");

        assert_eq!(
            fit(parse_quote!(String), quote!(header = "Tenant-Id_2")),
            ""
        );
        assert!(
            fit(parse_quote!(String), quote!(header = "Has Space"))
                .contains("invalid header name \"Has Space\": ' ' is not allowed")
        );
        assert!(
            fit(parse_quote!(String), quote!(header = ""))
                .contains("invalid header name \"\": it is empty")
        );
        assert!(
            fit(parse_quote!(String), quote!(header = "mcp-param-Region"))
                .contains("without `Mcp-Param-`, which the client adds: header = \"Region\"")
        );
        assert!(fit(parse_quote!(String), quote!(header = 5)).contains("Unexpected type `int`"));
    }

    #[test]
    fn headers_are_unique_and_only_on_arguments() {
        let error = check(
            TokenStream::new(),
            parse_quote! {
                /// Doc.
                fn f(
                    #[tool(header)] region: String,
                    #[tool(header = "REGION")] zone: String,
                    #[tool(header = "Zone")] other: u8,
                    #[tool(inject, header)] db: Db,
                    #[tool(header)] météo: String,
                ) {}
            },
        );
        assert!(
            error.contains(
                "`region` also sends the header Mcp-Param-REGION (header names are compared \
                 ignoring case)"
            ),
            "{error}"
        );
        assert!(!error.contains("Mcp-Param-Zone"), "{error}");
        assert!(
            error.contains("`header` has no effect on an injected parameter"),
            "{error}"
        );
        assert!(
            error.contains(
                "the header name made from `météo` is not a valid HTTP header name ('é' is not \
                 allowed)"
            ),
            "{error}"
        );
    }

    #[test]
    fn borrowed_types_suggest_owned_ones() {
        let check = |ty: Type| {
            let mut errors = Errors::new();
            owned_param_type(&ty, &mut errors);
            errors
                .finish()
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(check(parse_quote!(&str)).contains("Write `String` instead of `&str`"));
        assert!(check(parse_quote!(&'a [u32])).contains("Write `Vec<u32>` instead of `&'a [u32]`"));
        assert!(check(parse_quote!(Option<&Point>)).contains("Write `Point` instead of `&Point`"));
        assert_eq!(check(parse_quote!(Vec<String>)), "");
    }

    #[test]
    fn aliases_are_checked() {
        let error = check(
            quote!(
                alias = "get",
                alias = "tools.get",
                alias = "get page",
                alias = "fetch",
                alias = "get",
                alias = ""
            ),
            parse_quote! {
                /// Doc.
                fn fetch() {}
            },
        );
        assert!(
            error.contains("invalid alias \"get page\": ' ' is not allowed"),
            "{error}"
        );
        assert!(error.contains("is the tool's own name"), "{error}");
        assert!(error.contains("given twice"), "{error}");
        assert!(error.contains("invalid alias \"\": it is empty"), "{error}");
        assert!(!error.contains("tools.get"), "{error}");
    }

    #[test]
    fn names() {
        assert!(name_problem("get_weather-2").is_none());
        assert!(name_problem("").is_some());
        assert!(name_problem("has space").unwrap().contains("' '"));
        assert!(name_problem(&"x".repeat(65)).unwrap().contains("65"));
        assert!(name_problem("météo").is_some());
    }
}
