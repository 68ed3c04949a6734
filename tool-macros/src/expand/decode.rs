//! The arguments the model supplies: the struct `__ToolArgs`, what the
//! runtime's decoder needs to read it (`impl ToolArgs`), and the functions
//! that make the parameters' defaults.
//!
//! The runtime's visitor reads the object; the impl says what is particular
//! to the tool: the names, the type each value decodes
//! as (through the seed `Kind::<T>::SEED`, `ArgSeed<T>`), and how
//! the struct is put together from the values read. Both are marked
//! `#[inline]`, so decoding is one function, as a derived impl's would be.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr::DefaultValue;
use crate::model::ToolFn;

/// The argument struct, its `ToolArgs` impl and the default functions.
pub fn decoder(tool: &ToolFn) -> TokenStream {
    let args: Vec<_> = tool.args().collect();
    let names: Vec<&str> = args.iter().map(|(_, _, arg)| arg.name.as_str()).collect();
    let fields = args.iter().map(|(_, param, _)| {
        let (ident, ty) = (&param.ident, &param.ty);
        quote!(#ident: #ty)
    });
    // A parameter with a default reads `null` as its default, so its value
    // decodes as an `Option`.
    let read_types: Vec<TokenStream> = args
        .iter()
        .map(|(_, param, arg)| {
            let ty = &param.ty;
            match &arg.default {
                Some(_) => quote!(__tool_rt::Option<#ty>),
                None => quote!(#ty),
            }
        })
        .collect();
    let empty = args.iter().map(|_| quote!(__tool_rt::None));
    // The decoder passes only the indices of parameters, so the last one's
    // arm is `_`: the match is exhaustive with no arm that cannot run.
    let reads = args
        .iter()
        .zip(&read_types)
        .enumerate()
        .map(|(n, ((_, _, arg), read_ty))| {
            let slot = syn::Index::from(n);
            let name = arg.name.as_str();
            let pattern = if n + 1 == args.len() {
                quote!(_)
            } else {
                quote!(#n)
            };
            quote! {
                #pattern => __tool_rt::next_arg(
                    __tool_map,
                    &mut __tool_slots.#slot,
                    __tool_rt::Kind::<#read_ty>::SEED,
                    #name,
                ),
            }
        });
    let read = if args.is_empty() {
        quote!(::core::result::Result::Ok(()))
    } else {
        quote!(match __tool_index { #(#reads)* })
    };
    let values = args.iter().enumerate().map(|(n, (i, param, arg))| {
        let ident = &param.ident;
        let slot = syn::Index::from(n);
        let name = arg.name.as_str();
        let value = match (&arg.default, &arg.option_inner) {
            (Some(_), _) => {
                let make = super::default_fn(*i);
                quote!(__tool_rt::default_arg(__tool_slots.#slot, #make))
            }
            (None, Some(_)) => quote!(__tool_rt::Option::flatten(__tool_slots.#slot)),
            (None, None) => quote!(__tool_rt::required_arg(__tool_slots.#slot, #name)?),
        };
        quote!(#ident: #value)
    });
    let defaults = args.iter().filter_map(|(i, param, arg)| {
        let ty = &param.ty;
        let make = super::default_fn(*i);
        let value = default_expr(arg.default.as_ref()?, ty);
        Some(quote! {
            fn #make() -> #ty {
                #value
            }
        })
    });
    let de = quote!(__tool_rt::serde::de);

    quote! {
        #(#defaults)*

        /// The arguments the model supplies, decoded from its JSON.
        struct __ToolArgs {
            #(#fields,)*
        }

        #[automatically_derived]
        impl __tool_rt::ToolArgs for __ToolArgs {
            const FIELDS: &'static [&'static str] = &[#(#names),*];
            type Slots = (#(__tool_rt::Option<#read_types>,)*);
            const EMPTY: Self::Slots = (#(#empty,)*);

            #[inline]
            fn read<'de, __A: #de::MapAccess<'de>>(
                __tool_slots: &mut Self::Slots,
                __tool_index: usize,
                __tool_map: &mut __A,
            ) -> ::core::result::Result<(), __A::Error> {
                #read
            }

            #[inline]
            fn finish<__E: #de::Error>(__tool_slots: Self::Slots) -> ::core::result::Result<Self, __E> {
                ::core::result::Result::Ok(__ToolArgs { #(#values,)* })
            }
        }
    }
}

/// The expression a default stands for, spanned so a type mismatch points
/// at what the user wrote.
fn default_expr(default: &DefaultValue, ty: &syn::Type) -> TokenStream {
    match default {
        DefaultValue::Trait(span) => quote_spanned!(*span=> ::core::default::Default::default()),
        DefaultValue::Expr(
            expr @ syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(_),
                ..
            }),
        ) => {
            quote_spanned!(expr.span()=> <#ty as ::core::convert::From<&'static str>>::from(#expr))
        }
        DefaultValue::Expr(expr) => quote_spanned!(expr.span()=> #expr),
    }
}
