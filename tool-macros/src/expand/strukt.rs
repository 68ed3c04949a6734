//! The tool's struct: a unit struct, or for a toolset method that takes
//! `&self`, a struct holding the shared instance.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Binding, ToolFn};

/// The struct, with its doc and, for a bound tool, `new`, `Clone` and
/// `Debug`.
pub fn definition(tool: &ToolFn) -> TokenStream {
    let vis = &tool.vis;
    let ident = &tool.struct_ident;
    let doc = doc(tool);
    match &tool.binding {
        Binding::Method { self_ty } if tool.bound_to_instance() => quote! {
            #[doc = #doc]
            #[allow(dead_code)]
            #vis struct #ident {
                instance: ::std::sync::Arc<#self_ty>,
            }

            impl #ident {
                /// The tool, bound to `instance`.
                #vis fn new(instance: ::std::sync::Arc<#self_ty>) -> Self {
                    Self { instance }
                }
            }

            impl ::core::clone::Clone for #ident {
                fn clone(&self) -> Self {
                    Self { instance: ::std::sync::Arc::clone(&self.instance) }
                }
            }

            impl ::core::fmt::Debug for #ident {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(::core::stringify!(#ident))
                }
            }
        },
        _ => quote! {
            #[doc = #doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
            #[allow(dead_code)]
            #vis struct #ident;
        },
    }
}

/// "The tool `name`, made by `#[tool]` from [`function`]: ..."
fn doc(tool: &ToolFn) -> String {
    let fn_ident = &tool.fn_ident;
    let target = match &tool.binding {
        Binding::Free => fn_ident.to_string(),
        Binding::Method { self_ty } => {
            format!(
                "{}::{fn_ident}",
                quote!(#self_ty).to_string().replace(' ', "")
            )
        }
    };
    format!(
        "The tool `{}`, made by `#[tool]` from [`{target}`]: its spec is [`{}::SPEC`].",
        tool.name.as_str(),
        tool.struct_ident
    )
}
