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
    let (decode, decode_str) = if checked {
        (quote!(decode_checked), quote!(decode_str_checked))
    } else {
        (quote!(decode), quote!(decode_str))
    };
    let tool_arg = tool.bound_to_instance().then(|| quote!(self,));
    // Both entry points decode `__tool_input`, then run the function or end
    // with the decoding error.
    let call = quote! {
        __tool_rt::#decode(&Self::SPEC, __tool_input)
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
                __tool_rt::#decode_str(&Self::SPEC, __tool_input)
                    .map_or_else(__tool_rt::failed, |__tool_args| __tool_run(#tool_arg __tool_args, __tool_ctx))
            }
        }
    });
    quote! {
        #run

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
    quote! {
        /// Runs the function on one call's arguments.
        #[inline]
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
