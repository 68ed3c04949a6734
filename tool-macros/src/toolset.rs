//! `#[toolset]`: makes the `#[tool]` methods of an impl block tools bound
//! to a shared instance of the type.

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{ImplItem, ItemFn, ItemImpl};

use crate::errors::Errors;
use crate::expand;
use crate::model::{Binding, ToolFn};
use crate::parse;

/// `#[toolset(...)]` arguments.
#[derive(Debug, Default, FromMeta)]
struct ToolsetArgs {
    /// The path of the runtime crate, for crates that re-export it.
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

/// The whole expansion of `#[toolset]`.
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                format!(
                    "#[toolset] goes on an inherent impl block (`impl MyType {{ ... }}`): {error}"
                ),
            )
            .to_compile_error();
            return quote!(#error #input);
        }
    };
    let mut errors = Errors::default();
    let args = if args.is_empty() {
        ToolsetArgs::default()
    } else {
        match NestedMeta::parse_meta_list(args)
            .map_err(darling::Error::from)
            .and_then(|items| ToolsetArgs::from_list(&items))
        {
            Ok(args) => args,
            Err(error) => {
                errors.push_darling(error);
                ToolsetArgs::default()
            }
        }
    };
    if let Some((_, path, _)) = &item.trait_ {
        errors.push(
            path.span(),
            "#[toolset] goes on an inherent impl block, not a trait impl. Write the tools in \
             `impl MyType { ... }`",
        );
    }
    if !item.generics.params.is_empty() {
        errors.push(
            item.generics.params.span(),
            "a toolset cannot be generic: each tool needs one concrete type. Implement the \
             tools for a concrete type",
        );
    }

    let self_ty = (*item.self_ty).clone();
    let mut tools: Vec<ToolFn> = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(position) = method.attrs.iter().position(|a| a.path().is_ident("tool")) else {
            continue;
        };
        let attr = method.attrs.remove(position);
        let tool_args = match &attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(list) => list.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                errors.push(nv.span(), "write #[tool] or #[tool(key = value, ...)]");
                TokenStream::new()
            }
        };
        let function = ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let mut tool = parse::parse_in(tool_args, &function, Some(&self_ty), &mut errors);
        expand::strip_signature_attributes(&mut method.sig);
        if let Some(tool) = &mut tool {
            if let Some(krate) = &args.krate {
                tool.krate = krate.clone();
            }
            expand::append_doc_lines(&mut method.attrs, &tool.extra_docs);
        }
        tools.extend(tool);
    }

    if let Err(error) = errors.finish() {
        let error = error.to_compile_error();
        return quote!(#error #item);
    }

    let krate = args
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::tool_runtime));
    let generated = tools.iter().map(expand::emit);
    let members = tools.iter().map(|tool| {
        let ident = &tool.struct_ident;
        match tool.binding {
            Binding::Method {
                takes_self: true, ..
            } => quote! {
                ::std::sync::Arc::new(#ident::new(::std::sync::Arc::clone(&self)))
                    as ::std::sync::Arc<dyn #krate::Tool>
            },
            _ => quote!(::std::sync::Arc::new(#ident) as ::std::sync::Arc<dyn #krate::Tool>),
        }
    });
    quote! {
        #item
        #(#generated)*

        #[automatically_derived]
        impl #krate::Toolset for #self_ty {
            fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::Tool>> {
                ::std::vec![#(#members),*]
            }
        }
    }
}
