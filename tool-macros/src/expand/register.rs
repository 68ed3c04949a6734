//! How tools are found: a free function's tool registers itself globally
//! (through `inventory`); a toolset's tools come from the type's `Toolset`
//! impl, bound to the instance a registry is given.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Binding, ToolFn, Toolset};

/// The global registration of a free function's tool; none for a method,
/// nor for a tool written `register = false`.
pub fn registration(tool: &ToolFn) -> TokenStream {
    let struct_ident = &tool.struct_ident;
    match tool.binding {
        Binding::Free if !tool.options.registered() => quote!(),
        Binding::Free => quote! {
            __tool_rt::inventory::submit! {
                __tool_rt::Registration::new(&#struct_ident)
            }
        },
        Binding::Method { .. } => quote!(),
    }
}

/// `impl Toolset`: each tool, those that take `&self` bound to the
/// instance.
pub fn toolset(set: &Toolset) -> TokenStream {
    let krate = &set.krate;
    let self_ty = &set.self_ty;
    let members = set.tools.iter().map(|tool| {
        let ident = &tool.struct_ident;
        if tool.bound_to_instance() {
            quote! {
                ::std::sync::Arc::new(#ident::new(::std::sync::Arc::clone(&self)))
                    as ::std::sync::Arc<dyn #krate::__private::Tool>
            }
        } else {
            quote!(::std::sync::Arc::new(#ident) as ::std::sync::Arc<dyn #krate::__private::Tool>)
        }
    });
    quote! {
        #[automatically_derived]
        impl #krate::__private::Toolset for #self_ty {
            fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::__private::Tool>> {
                ::std::vec![#(#members),*]
            }
        }
    }
}
