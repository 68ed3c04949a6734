//! From the function's tokens to a [`ToolFn`]: every check that needs only
//! syntax, with every error collected and reported at its tokens.

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::{Span, TokenStream};
use quote::format_ident;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::attr::{DefaultValue, ParamArgs, ToolArgs, key_span};
use crate::docs;
use crate::errors::Errors;
use crate::model::{
    ArgParam, Binding, Output, Param, ParamConstraints, ParamKind, ToolFn, ToolOptions,
};
use crate::validate;

/// Types the runtime injects, recognised by the last segment of their path.
/// Wrapper types count only with a type argument (`State<Db>`), so a user's
/// own `Config` struct stays an ordinary argument. Any other type can be
/// injected with `#[tool(inject)]`; the runtime decides how, through its
/// `FromToolContext` trait.
const INJECTED_TYPES: &[&str] = &["ToolContext", "Progress"];
const INJECTED_WRAPPERS: &[&str] = &["State", "Extension", "Config"];

/// Parses the attribute's arguments and the function into the model.
pub fn parse(args: TokenStream, item: &ItemFn, errors: &mut Errors) -> Option<ToolFn> {
    parse_in(args, item, None, errors)
}

/// Parses a function, or with `self_ty` a method inside a `#[toolset]` impl
/// block, where `&self` is allowed.
pub fn parse_in(
    args: TokenStream,
    item: &ItemFn,
    self_ty: Option<&Type>,
    errors: &mut Errors,
) -> Option<ToolFn> {
    let args = parse_tool_args(args, errors);
    check_signature(item, errors);

    let fn_docs = docs::parse_fn_docs(&docs::doc_lines(&item.attrs));
    let mut params = Vec::new();
    let mut context_param: Option<Span> = None;
    let mut extra_docs = Vec::new();
    let mut takes_self = false;

    for input in &item.sig.inputs {
        let typed = match input {
            FnArg::Receiver(receiver) if self_ty.is_some() => {
                let shared_ref = receiver.reference.is_some()
                    && receiver.mutability.is_none()
                    && receiver.colon_token.is_none();
                if shared_ref {
                    takes_self = true;
                } else if receiver.mutability.is_some() {
                    errors.push_spanned(
                        receiver,
                        "a tool method takes `&self`, not `&mut self`: calls may run at the \
                         same time, so they share the instance. Keep mutable state behind a \
                         Mutex or atomics and take `&self`",
                    );
                } else {
                    errors.push_spanned(
                        receiver,
                        "a tool method takes `&self`: the instance is shared by every call, so \
                         it cannot be consumed or taken in another form. Write `&self`",
                    );
                }
                continue;
            }
            FnArg::Receiver(receiver) => {
                errors.push(
                    receiver.self_token.span,
                    "#[tool] functions cannot take `self`: a tool is a free function the \
                     model calls with JSON arguments. Mark the impl block with #[toolset] to \
                     make its `&self` methods tools, or move the function out of the impl \
                     block and take what it needs as parameters",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let Some(ident) = param_ident(&typed.pat, errors) else {
            continue;
        };
        let mut param_args = parse_param_args(&typed.attrs, errors);
        // A bare `default` has no span of its own; point at the key.
        if let Some(DefaultValue::Trait(span)) = &mut param_args.default
            && let Some(key) = key_span(&typed.attrs, "default")
        {
            *span = key;
        }
        if contains_impl_trait(&typed.ty) {
            errors.push_spanned(
                &typed.ty,
                "`impl Trait` parameters are not supported by #[tool]: the model sends JSON, \
                 so each parameter needs one concrete type. Write the concrete type instead",
            );
            continue;
        }
        let injected = param_args.inject.is_present() || is_injected_type(&typed.ty);
        if injected {
            for (present, span, key) in [
                (
                    param_args.description.is_some(),
                    param_args.description.as_ref().map(|d| d.span()),
                    "description",
                ),
                (
                    param_args.default.is_some(),
                    param_args.default.as_ref().map(DefaultValue::span),
                    "default",
                ),
                (
                    param_args.rename.is_some(),
                    param_args.rename.as_ref().map(|r| r.span()),
                    "rename",
                ),
                (
                    param_args.range.is_some(),
                    param_args.range.as_ref().map(|b| b.span),
                    "range",
                ),
                (
                    param_args.length.is_some(),
                    param_args.length.as_ref().map(|b| b.span),
                    "length",
                ),
                (
                    param_args.pattern.is_some(),
                    param_args.pattern.as_ref().map(|p| p.span()),
                    "pattern",
                ),
                (
                    param_args.one_of.is_some(),
                    param_args.one_of.as_ref().map(|o| o.span),
                    "one_of",
                ),
                (
                    param_args.validate.is_some(),
                    param_args.validate.as_ref().map(|v| v.span()),
                    "validate",
                ),
            ] {
                if present {
                    errors.push(
                        key_span(&typed.attrs, key)
                            .or(span)
                            .unwrap_or_else(|| typed.ty.span()),
                        format!(
                            "`{key}` has no effect on an injected parameter: `{ident}` is supplied \
                             by the runtime and is not part of the tool's schema. Remove `{key}`"
                        ),
                    );
                }
            }
            if is_context_type(&typed.ty) {
                if context_param.is_some() {
                    errors.push(
                        typed.span(),
                        format!(
                            "a tool takes at most one `ToolContext` parameter, and an earlier \
                             parameter already is one. Remove `{ident}` and use the earlier \
                             parameter"
                        ),
                    );
                    continue;
                }
                context_param = Some(typed.span());
            }
            params.push(Param {
                ident,
                ty: (*typed.ty).clone(),
                kind: ParamKind::Injected,
            });
            continue;
        }

        validate::owned_param_type(&typed.ty, errors);
        let rust_name = ident.to_string().trim_start_matches("r#").to_owned();
        let name = match &param_args.rename {
            Some(rename) => {
                validate::param_name(rename, errors);
                rename.as_str().to_owned()
            }
            None => rust_name.clone(),
        };
        let own_docs = docs::param_description(&typed.attrs);
        let description = param_args
            .description
            .as_ref()
            .map(|d| d.as_str().to_owned())
            .or_else(|| own_docs.clone())
            .or_else(|| fn_docs.arguments.get(&rust_name).cloned())
            .unwrap_or_default();
        if let Some(text) = param_args
            .description
            .as_ref()
            .map(|d| d.as_str().to_owned())
            .or(own_docs)
        {
            extra_docs.push(format!("* `{rust_name}` - {}", text.replace('\n', " ")));
        }
        let option_inner = option_inner(&typed.ty).cloned();
        if let (Some(default), Some(_)) = (&param_args.default, &option_inner) {
            errors.push(
                key_span(&typed.attrs, "default").unwrap_or_else(|| default.span()),
                format!(
                    "`default` on an `Option` parameter: `{rust_name}` already defaults to `None` \
                     when the model leaves it out. Remove `default`, or make the type \
                     non-optional to give it a default value"
                ),
            );
        }
        validate::constraints_fit_type(
            &rust_name,
            option_inner.as_ref().unwrap_or(&typed.ty),
            &param_args,
            &typed.attrs,
            errors,
        );
        let constraints = param_constraints(&param_args, errors);
        params.push(Param {
            ident,
            ty: (*typed.ty).clone(),
            kind: ParamKind::Arg(ArgParam {
                name,
                description,
                option_inner,
                default: param_args.default,
                constraints,
            }),
        });
    }
    validate::unique_param_names(&params, errors);

    let name = match &args.name {
        Some(name) => {
            validate::tool_name(name.as_str(), name.span(), errors);
            name.as_str().to_owned()
        }
        None => {
            let name = item
                .sig
                .ident
                .to_string()
                .trim_start_matches("r#")
                .to_owned();
            validate::tool_name(&name, item.sig.ident.span(), errors);
            name
        }
    };
    let description = match &args.description {
        Some(description) => description.as_str().trim().to_owned(),
        None => fn_docs.description.clone(),
    };
    if description.is_empty() {
        let span = args
            .description
            .as_ref()
            .map_or_else(|| item.sig.ident.span(), |d| d.span());
        errors.push(
            span,
            format!(
                "tool `{name}` has no description: a model cannot use a tool it is not told about. \
                 Add a doc comment above the function (`/// What the tool does.`) or write \
                 #[tool(description = \"...\")]"
            ),
        );
    }

    let output = parse_output(&item.sig.output, errors);
    let options = tool_options(&args, &name, item, &output, errors);

    let extra_docs = if fn_docs.has_arguments_section || extra_docs.is_empty() {
        Vec::new()
    } else {
        let mut lines = vec![String::new(), " # Arguments".to_owned(), String::new()];
        lines.extend(extra_docs.into_iter().map(|line| format!(" {line}")));
        lines
    };

    Some(ToolFn {
        fn_ident: item.sig.ident.clone(),
        vis: item.vis.clone(),
        binding: match self_ty {
            None => Binding::Free,
            Some(self_ty) => Binding::Method {
                self_ty: Box::new(self_ty.clone()),
                takes_self,
            },
        },
        struct_ident: format_ident!(
            "{}{}Tool",
            self_ty.map(type_prefix).unwrap_or_default(),
            pascal_case(&item.sig.ident.to_string()),
            span = item.sig.ident.span()
        ),
        name,
        description,
        params,
        output,
        options,
        is_async: item.sig.asyncness.is_some(),
        krate: args
            .krate
            .unwrap_or_else(|| syn::parse_quote!(::tool_runtime)),
        extra_docs,
    })
}

/// The spec options, checked against the function they annotate.
fn tool_options(
    args: &ToolArgs,
    name: &str,
    item: &ItemFn,
    output: &Output,
    errors: &mut Errors,
) -> ToolOptions {
    let timeout_ms = args.timeout.as_ref().and_then(|timeout| {
        let ms = parse_duration_ms(timeout.as_str());
        if ms.is_none() {
            errors.push(
                timeout.span(),
                format!(
                    "cannot read the timeout \"{}\": write a number and a unit, such as \
                     \"500ms\", \"5s\", \"1.5s\", \"2m\" or \"1h\"",
                    timeout.as_str()
                ),
            );
        }
        ms
    });
    if args.blocking.is_present() {
        if let Some(asyncness) = &item.sig.asyncness {
            errors.push(
                asyncness.span,
                "`blocking` is for sync functions that would stall the executor; an `async fn` \
                 already yields at its await points. Remove `blocking`, or make the function sync",
            );
        } else if matches!(output, Output::Stream { .. }) {
            errors.push(
                args.blocking.span(),
                "`blocking` cannot apply to a tool that returns a stream. Remove `blocking`",
            );
        }
    }
    let aliases = validate::aliases(name, &args.alias, errors);
    ToolOptions {
        title: args.title.as_ref().map(|t| t.as_str().to_owned()),
        read_only: args.read_only,
        destructive: args.destructive,
        idempotent: args.idempotent,
        open_world: args.open_world,
        strict: args.strict.is_present(),
        timeout_ms,
        blocking: args.blocking.is_present(),
        needs_approval: args.needs_approval.is_present(),
        aliases,
        config: args.config.as_ref().map(|config| config.0.clone()),
    }
}

/// The constraints written on a parameter, checked where syntax allows.
fn param_constraints(args: &ParamArgs, errors: &mut Errors) -> ParamConstraints {
    if let Some(length) = &args.length {
        for bound in [length.min, length.max].into_iter().flatten() {
            if bound < 0.0 || bound.fract() != 0.0 {
                errors.push(
                    length.span,
                    format!("a length bound must be a whole number of at least 0, not {bound}"),
                );
            }
        }
    }
    if let Some(pattern) = &args.pattern
        && let Err(error) = regex_syntax::Parser::new().parse(pattern.as_str())
    {
        errors.push(
            pattern.span(),
            format!("this pattern is not a valid regular expression: {error}"),
        );
    }
    ParamConstraints {
        range: args.range.clone(),
        length: args.length.clone(),
        pattern: args.pattern.as_ref().map(|p| p.as_str().to_owned()),
        one_of: args.one_of.as_ref().map(|o| o.values.clone()),
        validate: args.validate.clone(),
    }
}

fn parse_tool_args(args: TokenStream, errors: &mut Errors) -> ToolArgs {
    if args.is_empty() {
        return ToolArgs::default();
    }
    let items = match NestedMeta::parse_meta_list(args) {
        Ok(items) => items,
        Err(error) => {
            errors.push_syn(error);
            return ToolArgs::default();
        }
    };
    match ToolArgs::from_list(&items) {
        Ok(args) => args,
        Err(error) => {
            errors.push_darling(error);
            ToolArgs::default()
        }
    }
}

fn parse_param_args(attrs: &[syn::Attribute], errors: &mut Errors) -> ParamArgs {
    let mut items = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("tool")) {
        match &attr.meta {
            syn::Meta::List(list) => match NestedMeta::parse_meta_list(list.tokens.clone()) {
                Ok(list) => items.extend(list),
                Err(error) => errors.push_syn(error),
            },
            other => errors.push(
                other.span(),
                "write the parameter attribute as #[tool(key = value, ...)], for example \
                 #[tool(description = \"...\")]",
            ),
        }
    }
    match ParamArgs::from_list(&items) {
        Ok(args) => args,
        Err(error) => {
            errors.push_darling(error);
            ParamArgs::default()
        }
    }
}

/// Checks for function shapes a tool cannot have.
fn check_signature(item: &ItemFn, errors: &mut Errors) {
    let sig = &item.sig;
    if let Some(token) = &sig.constness {
        errors.push(
            token.span,
            "a tool cannot be a `const fn`: it runs when a model calls it. Remove `const`",
        );
    }
    if let Some(token) = &sig.unsafety {
        errors.push(
            token.span,
            "a tool cannot be an `unsafe fn`: a model calling it cannot uphold its safety \
             contract. Make the function safe and put the `unsafe` block inside it",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.push(
            abi.span(),
            "a tool cannot have an explicit ABI: it is called from Rust. Remove the `extern` part",
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(
            variadic.span(),
            "a tool cannot be variadic: the model passes named JSON arguments. Take a \
             `Vec<T>` parameter instead",
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        // `Generics` prints only `<...>`; a bare `where` clause is separate.
        let tokens = if sig.generics.params.is_empty() {
            quote::ToTokens::to_token_stream(&sig.generics.where_clause)
        } else {
            quote::ToTokens::to_token_stream(&sig.generics)
        };
        errors.push_spanned(
            tokens,
            "a tool cannot be generic: the model sends JSON, so each parameter needs one \
             concrete, owned type. Remove the generic parameters (and any `where` clause) and \
             name concrete types (`String`, not `&'a str`; `&ToolContext` needs no named lifetime), \
             or write one #[tool] per type that calls a generic helper",
        );
    }
}

/// The name a parameter binds, or an error for a pattern.
fn param_ident(pat: &Pat, errors: &mut Errors) -> Option<proc_macro2::Ident> {
    match pat {
        Pat::Ident(pat_ident) if pat_ident.subpat.is_none() && pat_ident.by_ref.is_none() => {
            Some(pat_ident.ident.clone())
        }
        other => {
            errors.push(
                other.span(),
                "a tool parameter needs a plain name, which becomes its key in the JSON \
                 arguments. Write `name: Type` and destructure inside the function body",
            );
            None
        }
    }
}

fn contains_impl_trait(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    syn::visit::visit_type(&mut finder, ty);
    finder.0
}

/// The last path segment of a type, looking through references and groups.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Reference(reference) => last_segment(&reference.elem),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        _ => None,
    }
}

fn is_context_type(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "ToolContext" && s.arguments.is_none())
}

fn is_injected_type(ty: &Type) -> bool {
    let Some(segment) = last_segment(ty) else {
        return false;
    };
    let name = segment.ident.to_string();
    match &segment.arguments {
        PathArguments::None => INJECTED_TYPES.contains(&name.as_str()),
        PathArguments::AngleBracketed(_) => INJECTED_WRAPPERS.contains(&name.as_str()),
        PathArguments::Parenthesized(_) => false,
    }
}

/// For `Option<T>` (however the path to `Option` is written), the `T`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    if segment.ident != "Option" {
        return None;
    }
    single_type_arg(segment)
}

fn single_type_arg(segment: &syn::PathSegment) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    let first = types.next()?;
    types.next().is_none().then_some(first)
}

/// Classifies the return type: a `Result` (any path ending in `Result`), unit,
/// or a value.
fn parse_output(output: &ReturnType, errors: &mut Errors) -> Output {
    match output {
        ReturnType::Default => Output::Unit,
        ReturnType::Type(_, ty) => classify_output(ty, errors),
    }
}

fn classify_output(ty: &Type, errors: &mut Errors) -> Output {
    if let Type::ImplTrait(impl_trait) = ty {
        if let Some(item) = stream_item(impl_trait) {
            if matches!(item, Type::ImplTrait(_)) {
                errors.push(
                    item.span(),
                    "a stream's `Item` must be a concrete type. Name the type of the items",
                );
                return Output::Unit;
            }
            return Output::Stream {
                item: Box::new(classify_output(item, errors)),
            };
        }
        errors.push_spanned(
            impl_trait,
            "a tool cannot return `impl Trait` other than `impl Stream<Item = T>`: the runtime \
             must know how to turn the value into a result. Return a concrete type",
        );
        return Output::Unit;
    }
    if let Type::Tuple(tuple) = ty
        && tuple.elems.is_empty()
    {
        return Output::Unit;
    }
    if let Type::Path(path) = ty
        && let Some(segment) = path.path.segments.last()
        && segment.ident == "Result"
        && let PathArguments::AngleBracketed(args) = &segment.arguments
    {
        let mut types = args.args.iter().filter_map(|arg| match arg {
            GenericArgument::Type(ty) => Some(ty.clone()),
            _ => None,
        });
        if let Some(ok) = types.next() {
            return Output::Result {
                ok,
                err: types.next(),
            };
        }
    }
    Output::Value(ty.clone())
}

/// For `impl Stream<Item = T>` (any path ending in `Stream`), the `T`.
fn stream_item(impl_trait: &syn::TypeImplTrait) -> Option<&Type> {
    impl_trait.bounds.iter().find_map(|bound| {
        let syn::TypeParamBound::Trait(bound) = bound else {
            return None;
        };
        let segment = bound.path.segments.last()?;
        if segment.ident != "Stream" {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &segment.arguments else {
            return None;
        };
        args.args.iter().find_map(|arg| match arg {
            GenericArgument::AssocType(assoc) if assoc.ident == "Item" => Some(&assoc.ty),
            _ => None,
        })
    })
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

/// The name a toolset's type lends its tools' structs: `Db` for `Db`,
/// `crate::store::Db` or `&Db`.
pub fn type_prefix(ty: &Type) -> String {
    last_segment(ty)
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// `weather_forecast` → `WeatherForecast`.
pub fn pascal_case(snake: &str) -> String {
    snake
        .trim_start_matches("r#")
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn model(args: TokenStream, item: ItemFn) -> Result<ToolFn, String> {
        let mut errors = Errors::default();
        let model = parse(args, &item, &mut errors);
        match errors.finish() {
            Ok(()) => Ok(model.expect("a model when there are no errors")),
            Err(error) => Err(error
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }

    #[test]
    fn reads_names_docs_defaults_and_context() {
        let tool = model(
            TokenStream::new(),
            parse_quote! {
                /// Get the weather.
                async fn weather_forecast(
                    /// City name
                    city: String,
                    #[tool(default = 3, description = "Days ahead")]
                    days: u32,
                    unit: Option<Unit>,
                    ctx: &ToolContext,
                ) -> Result<String, ToolError> { Ok(city) }
            },
        )
        .unwrap();
        assert_eq!(tool.name, "weather_forecast");
        assert_eq!(tool.struct_ident, "WeatherForecastTool");
        assert_eq!(tool.description, "Get the weather.");
        assert!(tool.is_async);
        let args: Vec<&ArgParam> = tool
            .params
            .iter()
            .filter_map(|p| match &p.kind {
                ParamKind::Arg(arg) => Some(arg),
                ParamKind::Injected => None,
            })
            .collect();
        assert_eq!(args.len(), 3);
        assert_eq!(args[0].description, "City name");
        assert!(args[0].required());
        assert_eq!(args[1].description, "Days ahead");
        assert!(!args[1].required());
        assert!(args[2].option_inner.is_some());
        assert!(matches!(tool.params[3].kind, ParamKind::Injected));
        assert!(matches!(tool.output, Output::Result { err: Some(_), .. }));
    }

    #[test]
    fn argument_section_supplies_missing_descriptions() {
        let tool = model(
            quote::quote!(name = "lookup"),
            parse_quote! {
                /// Look a word up.
                ///
                /// # Arguments
                ///
                /// * `word` - The word
                fn find(word: String, #[tool(rename = "lang")] language: String) -> String { word }
            },
        )
        .unwrap();
        assert_eq!(tool.name, "lookup");
        assert_eq!(tool.description, "Look a word up.");
        let ParamKind::Arg(word) = &tool.params[0].kind else {
            panic!()
        };
        assert_eq!(word.description, "The word");
        let ParamKind::Arg(lang) = &tool.params[1].kind else {
            panic!()
        };
        assert_eq!(lang.name, "lang");
    }

    #[test]
    fn reports_every_error_at_once() {
        let error = model(
            quote::quote!(nme = "x"),
            parse_quote! {
                const unsafe fn f<T>((a, b): (i32, i32), x: impl Fn()) {}
            },
        )
        .unwrap_err();
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
        let error = model(
            TokenStream::new(),
            parse_quote! {
                /// Doc.
                fn f(#[tool(default = 1)] x: Option<u8>) {}
            },
        )
        .unwrap_err();
        assert!(error.contains("already defaults to `None`"), "{error}");
    }

    #[test]
    fn recognises_injected_types_by_name() {
        assert!(is_injected_type(&parse_quote!(&ToolContext)));
        assert!(is_injected_type(&parse_quote!(tool_runtime::ToolContext)));
        assert!(is_injected_type(&parse_quote!(State<Db>)));
        assert!(!is_injected_type(&parse_quote!(Config)));
        assert!(!is_injected_type(&parse_quote!(String)));
    }

    #[test]
    fn reads_options_and_streams() {
        let tool = model(
            quote::quote!(
                title = "Search",
                read_only,
                strict,
                timeout = "1.5s",
                alias = "a",
                alias = "b"
            ),
            parse_quote! {
                /// Streams results.
                fn search(q: String) -> impl Stream<Item = Result<String, ToolError>> { stream::empty() }
            },
        )
        .unwrap();
        assert_eq!(tool.options.title.as_deref(), Some("Search"));
        assert_eq!(tool.options.read_only, Some(true));
        assert!(tool.options.strict);
        assert_eq!(tool.options.timeout_ms, Some(1500));
        assert_eq!(tool.options.aliases, ["a", "b"]);
        let Output::Stream { item } = &tool.output else {
            panic!("not a stream")
        };
        assert!(matches!(**item, Output::Result { .. }));
    }

    #[test]
    fn rejects_bad_timeouts_and_blocking_async() {
        let error = model(
            quote::quote!(timeout = "soon", blocking),
            parse_quote! {
                /// Doc.
                async fn f() {}
            },
        )
        .unwrap_err();
        assert!(error.contains("cannot read the timeout"), "{error}");
        assert!(
            error.contains("`blocking` is for sync functions"),
            "{error}"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("5s"), Some(5000));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("1h"), Some(3_600_000));
        assert_eq!(parse_duration_ms("5"), None);
        assert_eq!(parse_duration_ms("0s"), None);
    }

    #[test]
    fn pascal_cases_names() {
        assert_eq!(pascal_case("weather_forecast"), "WeatherForecast");
        assert_eq!(pascal_case("r#type"), "Type");
        assert_eq!(pascal_case("a__b"), "AB");
    }
}
