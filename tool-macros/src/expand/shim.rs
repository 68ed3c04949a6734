//! What runs one call: `__tool_run` takes the decoded arguments, injects
//! what the function asks of the context, calls the function and converts
//! what it returns; the `Tool` impl decodes the input and hands it over.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{Output, ParamKind, ToolFn};

/// `__tool_run` and the `Tool` impl.
pub fn shim(tool: &ToolFn) -> TokenStream {
    let struct_ident = &tool.struct_ident;
    let run = run(tool);
    // Arguments with constraints are checked after decoding.
    let checked = tool.args().any(|(_, _, arg)| !arg.constraints.is_empty());
    let transforms = transforms(tool);
    // With transforms, decoding goes through them (and checks the
    // constraints after them); their list is the last argument.
    let (decode, decode_str, with) = if transforms.is_some() {
        (
            quote!(decode_transformed),
            quote!(decode_str_transformed),
            quote!(, &__TOOL_TRANSFORMS),
        )
    } else if checked {
        (quote!(decode_checked), quote!(decode_str_checked), quote!())
    } else {
        (quote!(decode), quote!(decode_str), quote!())
    };
    let tool_arg = tool.bound_to_instance().then(|| quote!(self,));
    // The entry points (`call`, and `call_checked` with arguments whose
    // depth is checked) decode `__tool_input`, then run the function or end
    // with the decoding error.
    let call = quote! {
        __tool_rt::#decode(&Self::SPEC, __tool_input #with)
            .map_or_else(__tool_rt::failed, |__tool_args| __tool_run(#tool_arg __tool_args, __tool_ctx))
    };
    // A tool that never reads its context says so, so a registry need not
    // build one per call.
    let takes_context = (!tool.reads_context()).then(|| {
        quote! {
            fn takes_context(&self) -> bool {
                false
            }
        }
    });
    // Decoding from text instantiates the decoder of `__ToolArgs` a second
    // time, for serde_json's text deserializer: with the feature off,
    // `call_str` is the trait's, through a `Value`.
    let call_str = cfg!(feature = "text-args").then(|| {
        quote! {
            fn call_str<'__tool>(
                &'__tool self,
                __tool_input: &'__tool str,
                __tool_ctx: &'__tool __tool_rt::ToolContext,
            ) -> __tool_rt::ToolFuture<'__tool> {
                __tool_rt::#decode_str(&Self::SPEC, __tool_input #with)
                    .map_or_else(__tool_rt::failed, |__tool_args| __tool_run(#tool_arg __tool_args, __tool_ctx))
            }
        }
    });
    quote! {
        #run
        #transforms

        #[automatically_derived]
        impl __tool_rt::Tool for #struct_ident {
            fn spec(&self) -> &__tool_rt::ToolSpec {
                const { &Self::SPEC }
            }

            fn call<'__tool>(
                &'__tool self,
                __tool_input: &'__tool __tool_rt::serde_json::Value,
                __tool_ctx: &'__tool __tool_rt::ToolContext,
            ) -> __tool_rt::ToolFuture<'__tool> {
                #call
            }

            // The registry's path: arguments whose depth it checked, which
            // the decoder does not walk again.
            fn call_checked<'__tool>(
                &'__tool self,
                __tool_input: __tool_rt::Checked<'__tool>,
                __tool_ctx: &'__tool __tool_rt::ToolContext,
            ) -> __tool_rt::ToolFuture<'__tool> {
                #call
            }

            #takes_context
            #call_str
        }
    }
}

/// `__tool_run`: from the decoded arguments to the call's future.
fn run(tool: &ToolFn) -> TokenStream {
    let struct_ident = &tool.struct_ident;
    let callee = super::callee(tool);
    let mut extract = Vec::new();
    let mut call_args = Vec::new();
    if tool.bound_to_instance() {
        call_args.push(quote!(&*__tool_self.instance));
    }
    for (i, param) in tool.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Arg(_) => {
                let ident = &param.ident;
                call_args.push(quote!(__tool_args.#ident));
            }
            ParamKind::Injected { .. } => {
                let ty = &param.ty;
                let binding = format_ident!("__tool_inject_{}", i);
                extract.push(quote_spanned! {ty.span()=>
                    let #binding = match <#ty as __tool_rt::FromToolContext<'_>>::from_tool_context(__tool_ctx) {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(error) => {
                            return __tool_rt::ToolFuture::ready(::core::result::Result::Err(error));
                        }
                    };
                });
                call_args.push(quote!(#binding));
            }
        }
    }
    let await_call = tool.asyncness.map(|_| quote!(.await));
    let body = match &tool.output {
        Output::Stream { item } => {
            let convert = convert(item);
            quote! {
                __tool_rt::ToolFuture::pending(async move {
                    let __tool_stream = #callee(#(#call_args),*) #await_call;
                    __tool_rt::drive_stream(__tool_stream, __tool_ctx, |__tool_ret| #convert).await
                })
            }
        }
        output => {
            let convert = convert(output);
            let call = quote! {
                let __tool_ret = #callee(#(#call_args),*) #await_call;
                #convert
            };
            if tool.asyncness.is_some() {
                quote!(__tool_rt::ToolFuture::pending(async move { #call }))
            } else {
                quote!(__tool_rt::ToolFuture::ready({ #call }))
            }
        }
    };
    let tool_param = tool
        .bound_to_instance()
        .then(|| quote!(__tool_self: &'__tool #struct_ident,));
    let args = if tool.args().next().is_some() {
        quote!(__tool_args)
    } else {
        quote!(_)
    };
    // A deprecated function is the user's to call; the call here warns no one.
    quote! {
        /// Runs the function on one call's arguments.
        #[inline]
        #[allow(deprecated)]
        fn __tool_run<'__tool>(
            #tool_param
            #args: __ToolArgs,
            __tool_ctx: &'__tool __tool_rt::ToolContext,
        ) -> __tool_rt::ToolFuture<'__tool> {
            #(#extract)*
            #body
        }
    }
}

/// `__TOOL_TRANSFORMS` and the function of each transform, when the tool
/// has any: each names the user's path once, spanned there, so a function
/// of the wrong type is reported at it, once.
fn transforms(tool: &ToolFn) -> Option<TokenStream> {
    let input = tool.options.transform.as_ref();
    let params: Vec<_> = tool
        .args()
        .filter_map(|(i, param, arg)| Some((i, param, arg, arg.transform.as_ref()?)))
        .collect();
    if input.is_none() && params.is_empty() {
        return None;
    }
    let input_fn = input.map(|path| {
        let run = quote_spanned!(path.span()=> __tool_rt::transform_value(__tool_value, #path));
        quote! {
            fn __tool_transform_input(
                __tool_value: __tool_rt::serde_json::Value,
            ) -> ::core::result::Result<__tool_rt::serde_json::Value, ::std::string::String> {
                #run
            }
        }
    });
    let input_field = match input {
        Some(_) => quote!(__tool_rt::Some(__tool_transform_input)),
        None => quote!(__tool_rt::None),
    };
    let mut entries = Vec::new();
    let mut fns = Vec::new();
    for (i, param, arg, path) in params {
        let ident = format_ident!("__tool_transform_{}", i);
        let name = arg.name.as_str();
        // An `Option<T>` parameter's transform takes the `T`.
        let ty = arg.option_inner.as_ref().unwrap_or(&param.ty);
        let run = quote_spanned! {path.span()=>
            __tool_rt::Kind::<#ty>::NEW.transform_json(__tool_value, #path)
        };
        let assert = quote_spanned!(ty.span()=> __tool_rt::assert_transformable::<#ty>(););
        fns.push(quote! {
            fn #ident(__tool_value: &__tool_rt::serde_json::Value) -> __tool_rt::Transformed {
                #[allow(dead_code)]
                fn __tool_assert() {
                    #assert
                }
                #run
            }
        });
        entries.push(quote!((#name, #ident as __tool_rt::ParamTransform)));
    }
    Some(quote! {
        #input_fn
        #(#fns)*

        const __TOOL_TRANSFORMS: __tool_rt::Transforms = __tool_rt::Transforms {
            input: #input_field,
            params: &[#(#entries),*],
        };
    })
}

/// Converts `__tool_ret` into `Result<ToolOutput, ToolError>`: the method
/// `Kind<T>` picks for its type takes the value (a type that can take none
/// fails its assertion instead).
fn convert(output: &Output) -> TokenStream {
    match output {
        Output::Result { .. } => quote! {
            match __tool_ret {
                ::core::result::Result::Ok(__tool_value) => {
                    __tool_rt::Kind::of(&__tool_value).output(__tool_value)
                }
                ::core::result::Result::Err(__tool_error) => ::core::result::Result::Err(
                    __tool_rt::Kind::of(&__tool_error).error(__tool_error),
                ),
            }
        },
        Output::Unit | Output::Value(_) | Output::Stream { .. } | Output::Opaque(_) => {
            quote!(__tool_rt::Kind::of(&__tool_ret).output(__tool_ret))
        }
    }
}
