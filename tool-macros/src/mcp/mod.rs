//! `#[resource]` and `#[prompt]`: MCP resources and prompts from plain
//! functions, for tool-mcp, which re-exports and documents them. The
//! expansion names only `::tool_mcp::__private` paths (or `<crate>::__private`
//! with `crate = path`).
//!
//! The same four steps as `#[tool]`, a module each: `parse` reads the
//! function and the keys (`args`, through the crate's `meta`, `docs`) into
//! `model`; `validate` checks it (the URI template with `uri_template`,
//! the grammar of tool-mcp's `UriTemplate`); `expand` emits code from the
//! model alone, or, when `Errors` holds any, the errors beside stand-ins.
//!
//! `ui` is `#[tool]`'s part in MCP Apps: its `ui` and `visibility` keys,
//! checked, and the link they make, through `::tool_mcp::__private`.

// `#[resource]` and `#[prompt]` with the feature `mcp` only; `ui` is
// `#[tool]`'s, always.
#[cfg(feature = "mcp")]
mod args;
#[cfg(feature = "mcp")]
mod expand;
#[cfg(feature = "mcp")]
mod model;
#[cfg(feature = "mcp")]
mod parse;
#[cfg(all(test, feature = "mcp"))]
mod tests;
pub mod ui;
#[cfg(feature = "mcp")]
mod uri_template;
#[cfg(feature = "mcp")]
mod validate;

#[cfg(feature = "mcp")]
use proc_macro2::TokenStream;
#[cfg(feature = "mcp")]
use quote::quote;

#[cfg(feature = "mcp")]
use crate::errors::Errors;
#[cfg(feature = "mcp")]
use crate::item::MaybeFn;
#[cfg(feature = "mcp")]
use model::Attr;

#[cfg(feature = "mcp")]
/// The whole expansion of `#[resource(...)]`.
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    expand_fn(Attr::Resource, args, input)
}

#[cfg(feature = "mcp")]
/// The whole expansion of `#[prompt(...)]`.
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    expand_fn(Attr::Prompt, args, input)
}

#[cfg(feature = "mcp")]
fn expand_fn(attr: Attr, args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: MaybeFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            if syn::parse2::<syn::Item>(input.clone()).is_err() {
                // A syntax error rustc has reported already.
                return input;
            }
            let message = format!(
                "#[{}] goes on a function (`fn` or `async fn`): {error}",
                attr.name()
            );
            let error = syn::Error::new(error.span(), message).to_compile_error();
            return quote!(#error #input);
        }
    };
    let mut errors = Errors::new();
    let model = parse::function(attr, args, &item, &mut errors);
    validate::function(&model, &mut errors);
    strip_param_attributes(attr, &mut item);
    match errors.finish() {
        Ok(()) => {
            let generated = expand::generated(&model);
            quote!(#item #generated)
        }
        Err(error) => {
            let error = error.to_compile_error();
            let stand_in = expand::fallback(&model);
            quote!(#error #item #stand_in)
        }
    }
}

#[cfg(feature = "mcp")]
/// Removes the attribute's own keys and doc comments from the parameters:
/// the macro has read them, and rustc rejects both there.
fn strip_param_attributes(attr: Attr, item: &mut MaybeFn) {
    for input in &mut item.sig.inputs {
        if let syn::FnArg::Typed(typed) = input {
            typed
                .attrs
                .retain(|a| !a.path().is_ident(attr.name()) && !a.path().is_ident("doc"));
        }
    }
}
