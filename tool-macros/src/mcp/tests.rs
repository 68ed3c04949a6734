//! The model and its checks, from tokens: every error at once.

use proc_macro2::TokenStream;
use quote::quote;

use super::model::{Attr, Form, McpFn, ParamKind};
use super::{parse, validate};
use crate::errors::Errors;
use crate::item::MaybeFn;

/// The model of `item` under `#[attr(args)]`, and every error's message.
fn check(attr: Attr, args: TokenStream, item: TokenStream) -> (McpFn, Vec<String>) {
    let item: MaybeFn = syn::parse2(item).unwrap();
    let mut errors = Errors::new();
    let model = parse::function(attr, args, &item, &mut errors);
    validate::function(&model, &mut errors);
    let messages = match errors.finish() {
        Ok(()) => Vec::new(),
        Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
    };
    (model, messages)
}

#[test]
fn reads_a_template_resource() {
    let (model, errors) = check(
        Attr::Resource,
        quote!("test://items/{id}{?q}".into(), mime = "text/plain"),
        quote! {
            /// One item.
            async fn item(#[resource(name = "id")] item_id: u32, q: Option<String>, ctx: &ToolContext) -> String {}
        },
    );
    // Arguments that do not parse are the one error: no second one about
    // the URI they may hold.
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(model.uri.is_none());
    let (model, errors) = check(
        Attr::Resource,
        quote!("test://items/{id}/x{?q}", mime = "text/plain"),
        quote! {
            /// One item.
            async fn item(#[resource(name = "id")] item_id: u32, q: Option<String>, ctx: &ToolContext) -> String {}
        },
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(model.struct_ident.to_string(), "ItemResource");
    assert_eq!(model.description.as_deref(), Some("One item."));
    assert!(model.is_async);
    let kinds: Vec<&str> = model
        .params
        .iter()
        .map(|param| match &param.kind {
            ParamKind::Injected { .. } => "injected",
            ParamKind::Value(value) => match value.form {
                Form::Required(_) => "required",
                Form::Optional(_) => "optional",
                Form::Str => "str",
                Form::OtherRef(_) => "ref",
            },
        })
        .collect();
    assert_eq!(kinds, ["required", "optional", "injected"]);
}

#[test]
fn reports_every_mistake_at_once() {
    let (_, errors) = check(
        Attr::Resource,
        quote!("test://items/{id}", mim = "text/plain"),
        quote! {
            fn item<T>(&self, other: String, #[resource(complete = f)] ctx: &ToolContext) -> String {}
        },
    );
    let expected = [
        "Unknown field: `mim`. Did you mean `mime`?",
        "cannot be generic",
        "not a method",
        "`{id}` in the URI has no parameter: add `id: String`",
        "`other` is not a variable of the URI",
        "`complete` offers values for a template variable",
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (error, expected) in errors.iter().zip(expected) {
        assert!(error.contains(expected), "{error} / {expected}");
    }
}

#[test]
fn checks_media_types_queries_and_returns() {
    let (_, errors) = check(
        Attr::Resource,
        quote!("test://search{?q}", mime = "text"),
        quote!(
            fn search(q: String) {}
        ),
    );
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors[0].contains("make the parameter an `Option`"),
        "{}",
        errors[0]
    );
    assert!(errors[1].contains("not a media type"), "{}", errors[1]);
    assert!(errors[2].contains("add a return type"), "{}", errors[2]);
    let (_, errors) = check(
        Attr::Resource,
        quote!(),
        quote!(
            fn f() -> String {}
        ),
    );
    assert!(errors[0].contains("needs the resource's URI"), "{errors:?}");
}

#[test]
fn reads_prompt_arguments_with_their_docs() {
    let (model, errors) = check(
        Attr::Prompt,
        quote!(),
        quote! {
            /// Reviews code.
            fn code_review(
                /// The code
                code: String,
                #[prompt(name = "lang")] language: Option<String>,
                text: &str,
                other: &String,
            ) -> String {}
        },
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("a prompt argument is text"),
        "{}",
        errors[0]
    );
    assert_eq!(model.struct_ident.to_string(), "CodeReviewPrompt");
    let ParamKind::Value(code) = &model.params[0].kind else {
        panic!("an argument")
    };
    assert_eq!(code.description.as_deref(), Some("The code"));
    let ParamKind::Value(language) = &model.params[1].kind else {
        panic!("an argument")
    };
    assert_eq!(language.name.as_str(), "lang");
    let (_, errors) = check(
        Attr::Prompt,
        quote!(uri = "x://y"),
        quote!(
            fn p() -> String {}
        ),
    );
    assert!(errors[0].starts_with("Unknown field: `uri`"), "{errors:?}");
}
