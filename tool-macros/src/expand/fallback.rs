//! What stands in for the expansion when the attribute has errors, as
//! thiserror's fallback does: the tool's struct, a stand-in `SPEC` and an
//! `impl Tool` whose methods never run. Code elsewhere that names the tool
//! (`Registry::builder().tool(GreetTool)`, `GreetTool::SPEC`) still
//! compiles, so the user reads the attribute's errors and nothing else. The
//! crate does not build, so none of it runs.

use proc_macro2::TokenStream;
use quote::quote;

use super::strukt;
use crate::model::{Binding, ToolFn, Toolset};

/// The stand-ins for one tool.
pub fn tool(tool: &ToolFn) -> TokenStream {
    // A free function that takes `self` sits in an impl block, where a
    // struct cannot go.
    if matches!(tool.binding, Binding::Free) && tool.receiver.is_some() {
        return TokenStream::new();
    }
    let krate = &tool.krate;
    let ident = &tool.struct_ident;
    let strukt = strukt::definition(tool);
    quote! {
        #strukt

        const _: () = {
            use #krate::__private as __tool_rt;

            #[automatically_derived]
            impl #ident {
                /// A stand-in: the tool's attribute has errors.
                pub const SPEC: __tool_rt::ToolSpec = __tool_rt::SPEC_DEFAULTS;
            }

            #[automatically_derived]
            impl __tool_rt::Tool for #ident {
                fn spec(&self) -> &__tool_rt::ToolSpec {
                    const { &Self::SPEC }
                }

                fn call<'__tool>(
                    &'__tool self,
                    _: &'__tool __tool_rt::serde_json::Value,
                    _: &'__tool __tool_rt::ToolContext,
                ) -> __tool_rt::ToolFuture<'__tool> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// The stand-ins for a toolset's tools and its `Toolset` impl; none for a
/// generic block, whose tools would name type parameters nothing declares.
pub fn toolset(set: &Toolset) -> TokenStream {
    if set.generics.is_some() {
        return TokenStream::new();
    }
    let krate = &set.krate;
    let self_ty = &set.self_ty;
    let tools = set.tools.iter().map(tool);
    quote! {
        #(#tools)*

        #[automatically_derived]
        impl #krate::__private::Toolset for #self_ty {
            fn tools(
                self: ::std::sync::Arc<Self>,
            ) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::__private::Tool>> {
                ::core::unreachable!()
            }
        }
    }
}
