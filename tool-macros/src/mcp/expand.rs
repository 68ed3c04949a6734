//! Emission from the model alone: the struct, and in one
//! `const _: () = { ... }` block (which opens with the expansion's only
//! `use`: tool-mcp's `__private` as `__mcp_rt`) its `Resource` or `Prompt`
//! impl and its registration. Locals are named `__mcp_*`; calls that turn
//! the user's types into the protocol's are spanned at those types, so a
//! type error points at them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::model::{Attr, Form, McpFn, ParamKind};

/// The struct, its impl and its registration.
pub fn generated(f: &McpFn) -> TokenStream {
    let krate = &f.krate;
    let strukt = strukt(f);
    let imp = match f.attr {
        Attr::Resource => resource_impl(f),
        Attr::Prompt => prompt_impl(f),
    };
    let ident = &f.struct_ident;
    let register = f.register.then(|| {
        let registration = match f.attr {
            Attr::Resource => quote!(ResourceRegistration),
            Attr::Prompt => quote!(PromptRegistration),
        };
        quote! {
            __mcp_rt::inventory::submit! {
                __mcp_rt::#registration::new(&#ident)
            }
        }
    });
    quote! {
        #strukt

        const _: () = {
            #[allow(unused_imports)]
            use #krate::__private::{self as __mcp_rt, DisplayKind as _};

            #imp
            #register
        };
    }
}

/// The unit struct, documented.
pub fn strukt(f: &McpFn) -> TokenStream {
    let vis = &f.vis;
    let ident = &f.struct_ident;
    let doc = format!(
        "The {} `{}`, made by `#[{}]` from [`{}`].",
        f.attr.name(),
        f.name.as_str(),
        f.attr.name(),
        f.fn_ident
    );
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
        #[allow(dead_code)]
        #vis struct #ident;
    }
}

fn option(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// Each parameter's binding, and the arguments of the call. `source` is
/// the expression of the `UriParams` or `PromptArguments`, `ctx` of the
/// `&ToolContext`.
fn bindings(
    f: &McpFn,
    source: &TokenStream,
    ctx: &TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let (required_fn, optional_fn) = match f.attr {
        Attr::Resource => (quote!(required_var), quote!(var)),
        Attr::Prompt => (quote!(required_argument), quote!(argument)),
    };
    let mut lets = Vec::new();
    let mut args = Vec::new();
    for (i, param) in f.params.iter().enumerate() {
        let binding = format_ident!("__mcp_param_{}", i);
        let ty = &param.ty;
        match &param.kind {
            ParamKind::Injected { .. } => {
                lets.push(quote_spanned! {ty.span()=>
                    let #binding = <#ty as __mcp_rt::FromToolContext<'_>>::from_tool_context(#ctx)?;
                });
                args.push(quote!(#binding));
            }
            ParamKind::Value(value) => {
                let name = value.name.as_str();
                let (read, pass) = match &value.form {
                    Form::Str => (
                        quote!(__mcp_rt::#required_fn::<::std::string::String>(#source, #name)?),
                        quote!(&*#binding),
                    ),
                    Form::Required(inner) | Form::Optional(inner) => {
                        let read_fn = match value.form {
                            Form::Optional(_) => &optional_fn,
                            _ => &required_fn,
                        };
                        (
                            quote_spanned!(inner.span()=> __mcp_rt::#read_fn::<#inner>(#source, #name)?),
                            quote!(#binding),
                        )
                    }
                    Form::OtherRef(_) => (quote!(::core::unreachable!()), quote!(#binding)),
                };
                lets.push(quote!(let #binding = #read;));
                args.push(pass);
            }
        }
    }
    (lets, args)
}

/// The call of the user's function, and its `Result`'s error made the
/// protocol's (`method` is `resource` or `prompt`).
fn call(f: &McpFn, args: &[TokenStream], method: TokenStream) -> TokenStream {
    let fn_ident = &f.fn_ident;
    let await_call = f.is_async.then(|| quote!(.await));
    let call = quote!(#fn_ident(#(#args),*) #await_call);
    if f.output.result {
        quote! {
            match #call {
                ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                ::core::result::Result::Err(__mcp_error) => {
                    return ::core::result::Result::Err(
                        __mcp_rt::McpKind::of(&__mcp_error).#method(__mcp_error)
                    );
                }
            }
        }
    } else {
        call
    }
}

/// `fn complete`, when a parameter names a completion function.
fn complete(f: &McpFn, error: TokenStream) -> Option<TokenStream> {
    let arms: Vec<TokenStream> = f
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            ParamKind::Value(value) => value.complete.as_ref().map(|path| {
                let name = value.name.as_str();
                quote_spanned! {path.span()=>
                    #name => __mcp_rt::IntoCompletion::into_completion(#path(&__mcp_request.value)),
                }
            }),
            ParamKind::Injected { .. } => None,
        })
        .collect();
    if arms.is_empty() {
        return None;
    }
    Some(quote! {
        fn complete(
            &self,
            __mcp_request: __mcp_rt::CompleteRequest,
        ) -> __mcp_rt::BoxFuture<'_, ::core::result::Result<__mcp_rt::Completion, __mcp_rt::#error>> {
            let __mcp_completion = match __mcp_request.argument.as_str() {
                #(#arms)*
                _ => __mcp_rt::Completion::none(),
            };
            ::std::boxed::Box::pin(async move { ::core::result::Result::Ok(__mcp_completion) })
        }
    })
}

/// The spec with what `size`, `cache`, `ttl`, `audience` and `priority`
/// say (the spec alone when none is written).
fn details(f: &McpFn) -> TokenStream {
    let written = f.size.is_some()
        || f.cache.is_some()
        || f.ttl.is_some()
        || !f.audience.is_empty()
        || f.priority.is_some();
    if !written {
        return quote!(__mcp_spec);
    }
    let some_or_none = |value: Option<TokenStream>| match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let size = some_or_none(f.size.as_ref().map(|size| {
        let size = size.value as u64;
        quote!(#size)
    }));
    let public = some_or_none(f.cache.as_ref().map(|cache| {
        let public = cache.as_str() == "public";
        quote!(#public)
    }));
    let ttl = some_or_none(
        f.ttl
            .as_ref()
            .and_then(|ttl| crate::model::parse_duration_ms(ttl))
            .map(|ms| quote!(#ms)),
    );
    let audience = f.audience.iter().map(|role| match role.as_str() {
        "user" => quote!(__mcp_rt::Role::User),
        _ => quote!(__mcp_rt::Role::Assistant),
    });
    let priority = some_or_none(f.priority.as_ref().map(|priority| {
        let priority = priority.value;
        quote!(#priority)
    }));
    quote! {
        __mcp_rt::resource_details(__mcp_spec, #size, #public, #ttl, &[#(#audience),*], #priority)
    }
}

fn resource_impl(f: &McpFn) -> TokenStream {
    let ident = &f.struct_ident;
    let uri = f
        .uri
        .as_ref()
        .map(|uri| uri.as_str().to_owned())
        .unwrap_or_default();
    let name = f.name.as_str();
    let title = option(f.title.as_deref().map(String::as_str));
    let description = option(f.description.as_deref());
    let mime = option(f.mime.as_deref().map(String::as_str));
    let (lets, args) = bindings(
        f,
        &quote!(&__mcp_request.params),
        &quote!(&__mcp_request.ctx),
    );
    let call = call(f, &args, quote!(resource));
    let ty = f.output.ty.as_ref();
    let convert = quote_spanned! {ty.span()=>
        __mcp_rt::IntoContents::into_contents(__mcp_value, &__mcp_request.uri, __mcp_mime)
    };
    let complete = complete(f, quote!(ResourceError));
    let details = details(f);
    quote! {
        #[automatically_derived]
        impl __mcp_rt::Resource for #ident {
            fn spec(&self) -> &__mcp_rt::ResourceSpec {
                static __MCP_SPEC: __mcp_rt::OnceLock<__mcp_rt::ResourceSpec> = __mcp_rt::OnceLock::new();
                __MCP_SPEC.get_or_init(|| {
                    let __mcp_spec = __mcp_rt::resource_spec(#uri, #name, #title, #description, #mime);
                    #details
                })
            }

            fn read(
                &self,
                __mcp_request: __mcp_rt::ReadRequest,
            ) -> __mcp_rt::BoxFuture<'_, ::core::result::Result<::std::vec::Vec<__mcp_rt::Contents>, __mcp_rt::ResourceError>> {
                let __mcp_mime: ::core::option::Option<&'static str> = #mime;
                ::std::boxed::Box::pin(async move {
                    #(#lets)*
                    let __mcp_value = #call;
                    ::core::result::Result::Ok(#convert)
                })
            }

            #complete
        }
    }
}

fn prompt_impl(f: &McpFn) -> TokenStream {
    let ident = &f.struct_ident;
    let name = f.name.as_str();
    let title = option(f.title.as_deref().map(String::as_str));
    let description = option(f.description.as_deref());
    let arguments = f.params.iter().filter_map(|param| match &param.kind {
        ParamKind::Value(value) => {
            let name = value.name.as_str();
            let description = option(value.description.as_deref());
            let required = !matches!(value.form, Form::Optional(_));
            Some(quote!(__mcp_rt::argument_spec(#name, #description, #required)))
        }
        ParamKind::Injected { .. } => None,
    });
    let (lets, args) = bindings(f, &quote!(&__mcp_arguments), &quote!(&__mcp_ctx));
    let call = call(f, &args, quote!(prompt));
    let ty = f.output.ty.as_ref();
    let convert = quote_spanned! {ty.span()=> __mcp_rt::IntoPrompt::into_prompt(__mcp_value)};
    let complete = complete(f, quote!(PromptError));
    quote! {
        #[automatically_derived]
        impl __mcp_rt::Prompt for #ident {
            fn spec(&self) -> &__mcp_rt::PromptSpec {
                static __MCP_SPEC: __mcp_rt::OnceLock<__mcp_rt::PromptSpec> = __mcp_rt::OnceLock::new();
                __MCP_SPEC.get_or_init(|| {
                    __mcp_rt::prompt_spec(#name, #title, #description, ::std::vec![#(#arguments),*])
                })
            }

            fn get(
                &self,
                __mcp_arguments: __mcp_rt::PromptArguments,
                __mcp_ctx: __mcp_rt::ToolContext,
            ) -> __mcp_rt::BoxFuture<'_, ::core::result::Result<__mcp_rt::GetPrompt, __mcp_rt::PromptError>> {
                ::std::boxed::Box::pin(async move {
                    let __mcp_arguments = __mcp_arguments;
                    let __mcp_ctx = __mcp_ctx;
                    #(#lets)*
                    let __mcp_value = #call;
                    ::core::result::Result::Ok(#convert)
                })
            }

            #complete
        }
    }
}

/// What stands in when the attribute has errors: the struct and an impl
/// whose methods never run (the crate does not build), so code naming the
/// struct compiles and the user reads the attribute's errors alone. None
/// for a method, whose impl block cannot hold a struct.
pub fn fallback(f: &McpFn) -> TokenStream {
    if f.has_receiver {
        return TokenStream::new();
    }
    let krate = &f.krate;
    let ident = &f.struct_ident;
    let strukt = strukt(f);
    let imp = match f.attr {
        Attr::Resource => quote! {
            impl __mcp_rt::Resource for #ident {
                fn spec(&self) -> &__mcp_rt::ResourceSpec { ::core::unreachable!() }
                fn read(
                    &self,
                    _: __mcp_rt::ReadRequest,
                ) -> __mcp_rt::BoxFuture<'_, ::core::result::Result<::std::vec::Vec<__mcp_rt::Contents>, __mcp_rt::ResourceError>> {
                    ::core::unreachable!()
                }
            }
        },
        Attr::Prompt => quote! {
            impl __mcp_rt::Prompt for #ident {
                fn spec(&self) -> &__mcp_rt::PromptSpec { ::core::unreachable!() }
                fn get(
                    &self,
                    _: __mcp_rt::PromptArguments,
                    _: __mcp_rt::ToolContext,
                ) -> __mcp_rt::BoxFuture<'_, ::core::result::Result<__mcp_rt::GetPrompt, __mcp_rt::PromptError>> {
                    ::core::unreachable!()
                }
            }
        },
    };
    quote! {
        #strukt

        const _: () = {
            use #krate::__private as __mcp_rt;

            #[automatically_derived]
            #imp
        };
    }
}
