//! Reads a `#[resource]` or `#[prompt]` function and the attribute's keys
//! into the model; errors of form (an unknown key, a key of the wrong
//! shape) go to `Errors`, the rest is left to validation.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident};
use syn::spanned::Spanned;
use syn::{FnArg, Pat, ReturnType, Type};

use super::args::{FnArgs, ParamArgs, PromptKeys, ResourceKeys, read_list};
use super::model::{Attr, Form, McpFn, McpParam, Output, ParamKind, ValueParam};
use crate::docs;
use crate::errors::Errors;
use crate::item::MaybeFn;
use crate::meta::{NestedMeta, SpannedValue};
use crate::model::Sp;
use crate::parse::{is_injected_type, last_segment, option_inner, pascal_case};

/// Reads the function and the attribute's arguments.
pub fn function(attr: Attr, args: TokenStream, item: &MaybeFn, errors: &mut Errors) -> McpFn {
    let attr_span = args
        .clone()
        .into_iter()
        .next()
        .map_or_else(|| item.sig.ident.span(), |tree| tree.span());
    let before = errors.len();
    let (positional, args) = fn_args(attr, args, errors);
    let args_read = errors.len() == before;
    let sig = &item.sig;
    let fn_name = sig.ident.to_string().trim_start_matches("r#").to_owned();
    let docs = docs::parse_fn_docs(&docs::doc_lines(&item.attrs));
    let description = match &args.description {
        Some(description) => Some(description.trim().to_owned()),
        None => Some(docs.description.clone()),
    }
    .filter(|text| !text.is_empty());
    let params = sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(typed) => param(attr, typed, errors),
            FnArg::Receiver(_) => None,
        })
        .collect();
    let kind = match attr {
        Attr::Resource => "Resource",
        Attr::Prompt => "Prompt",
    };
    McpFn {
        attr,
        fn_ident: sig.ident.clone(),
        vis: item.vis.clone(),
        struct_ident: format_ident!("{}{kind}", pascal_case(&fn_name), span = sig.ident.span()),
        uri: positional.or(args.uri),
        name: args
            .name
            .unwrap_or_else(|| Sp::new(fn_name, sig.ident.span())),
        title: args.title,
        description,
        mime: args.mime,
        size: args.size,
        cache: args.cache,
        ttl: args.ttl,
        audience: args
            .audience
            .map(|audience| audience.0.clone())
            .unwrap_or_default(),
        priority: args.priority,
        register: args.register.is_none_or(|register| *register),
        params,
        output: match &sig.output {
            ReturnType::Default => Output {
                ty: None,
                result: false,
            },
            ReturnType::Type(_, ty) => Output {
                result: last_segment(ty).is_some_and(|segment| segment.ident == "Result")
                    && !matches!(**ty, Type::Reference(_)),
                ty: Some((**ty).clone()),
            },
        },
        is_async: sig.asyncness.is_some(),
        krate: args.krate.unwrap_or_else(|| syn::parse_quote!(::tool_mcp)),
        has_receiver: matches!(sig.inputs.first(), Some(FnArg::Receiver(_))),
        shape: shape(attr, item),
        attr_span,
        args_read,
    }
}

/// The keys, and a resource's first unnamed string (its URI).
fn fn_args(attr: Attr, args: TokenStream, errors: &mut Errors) -> (Option<Sp<String>>, FnArgs) {
    let mut items = match NestedMeta::parse_meta_list(args) {
        Ok(items) => items,
        Err(error) => {
            errors.push_syn(error);
            return (None, FnArgs::default());
        }
    };
    let mut positional = None;
    if attr == Attr::Resource
        && let Some(NestedMeta::Lit(syn::Lit::Str(uri))) = items.first()
    {
        positional = Some(SpannedValue::new(uri.value(), uri.span()));
        items.remove(0);
    }
    let read = match attr {
        Attr::Resource => read_list::<ResourceKeys>(&items).map(|keys| keys.0),
        Attr::Prompt => read_list::<PromptKeys>(&items).map(|keys| keys.0),
    };
    match read {
        Ok(args) => (positional, args),
        Err(error) => {
            errors.push_meta(error);
            (positional, FnArgs::default())
        }
    }
}

/// What a function of either attribute may not be, each at its tokens.
fn shape(attr: Attr, item: &MaybeFn) -> Vec<(TokenStream, &'static str)> {
    let sig = &item.sig;
    let mut shape = Vec::new();
    let (generic, receiver) = match attr {
        Attr::Resource => (
            "a #[resource] function cannot be generic: the resource is one struct \
             with one read. Remove the type and lifetime parameters and name \
             concrete types",
            "#[resource] goes on a free function, not a method: remove `self` and \
             move the function out of the impl block (reach shared state with a \
             `State<T>` parameter)",
        ),
        Attr::Prompt => (
            "a #[prompt] function cannot be generic: the prompt is one struct. \
             Remove the type and lifetime parameters and name concrete types",
            "#[prompt] goes on a free function, not a method: remove `self` and \
             move the function out of the impl block (reach shared state with a \
             `State<T>` parameter)",
        ),
    };
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        shape.push((sig.generics.to_token_stream(), generic));
    }
    if let Some(FnArg::Receiver(receiver_arg)) = sig.inputs.first() {
        shape.push((receiver_arg.to_token_stream(), receiver));
    }
    let modifiers = [
        (
            sig.constness.map(|t| t.to_token_stream()),
            "remove `const`: the function is called at run time",
        ),
        (
            match &sig.safety {
                syn::Safety::Unsafe(token) => Some(token.to_token_stream()),
                _ => None,
            },
            "remove `unsafe`: the server calls the function, and cannot uphold a safety contract",
        ),
        (
            sig.abi.as_ref().map(|abi| abi.to_token_stream()),
            "remove the `extern` ABI: the function is called from Rust",
        ),
        (
            sig.variadic.as_ref().map(|v| v.to_token_stream()),
            "remove the variadic `...`: each parameter is named",
        ),
    ];
    shape.extend(
        modifiers
            .into_iter()
            .filter_map(|(tokens, message)| tokens.map(|tokens| (tokens, message))),
    );
    shape
}

/// One parameter, or `None` (with an error) for a pattern.
fn param(attr: Attr, typed: &syn::PatType, errors: &mut Errors) -> Option<McpParam> {
    let ident = match &*typed.pat {
        Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => pat.ident.clone(),
        other => {
            errors.push(
                other.span(),
                format!(
                    "a #[{}] parameter needs a plain name, the {}'s: write `name: Type`",
                    attr.name(),
                    attr.value_noun()
                ),
            );
            return None;
        }
    };
    let args = param_args(attr, &typed.attrs, errors);
    let ty = (*typed.ty).clone();
    let kind = if args.inject.is_present() || is_injected_type(&ty) {
        ParamKind::Injected {
            complete: args.complete.as_ref().map(SpannedValue::span),
        }
    } else {
        let name = args.name.unwrap_or_else(|| {
            Sp::new(
                ident.to_string().trim_start_matches("r#").to_owned(),
                ident.span(),
            )
        });
        ParamKind::Value(ValueParam {
            name,
            form: form(&ty),
            description: docs::param_description(&typed.attrs),
            complete: args.complete.map(|complete| (*complete).clone()),
        })
    };
    Some(McpParam { ident, ty, kind })
}

/// How a value's text becomes a parameter of type `ty`.
fn form(ty: &Type) -> Form {
    match ty {
        Type::Reference(reference) => match &*reference.elem {
            Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => Form::Str,
            _ => Form::OtherRef(ty.span()),
        },
        Type::Group(group) => form(&group.elem),
        _ => match option_inner(ty) {
            Some(inner) => Form::Optional(inner.clone()),
            None => Form::Required(ty.clone()),
        },
    }
}

/// A parameter's `#[resource(...)]` (or `#[prompt(...)]`) keys.
fn param_args(attr: Attr, attrs: &[syn::Attribute], errors: &mut Errors) -> ParamArgs {
    let mut items = Vec::new();
    for written in attrs.iter().filter(|a| a.path().is_ident(attr.name())) {
        match &written.meta {
            syn::Meta::List(list) => match NestedMeta::parse_meta_list(list.tokens.clone()) {
                Ok(list) => items.extend(list),
                Err(error) => errors.push_syn(error),
            },
            other => errors.push(
                other.span(),
                format!(
                    "write the parameter attribute as #[{0}(key = value, ...)], for example \
                     #[{0}(name = \"id\")]",
                    attr.name()
                ),
            ),
        }
    }
    match read_list::<ParamArgs>(&items) {
        Ok(args) => args,
        Err(error) => {
            errors.push_meta(error);
            ParamArgs::default()
        }
    }
}
