//! Emission: code from the model alone, in named parts, a file each:
//!
//! - [`strukt`]: the tool's struct;
//! - [`spec`]: its `SPEC`, the functions the spec points to, and the
//!   assertions on the types the user named;
//! - [`decode`]: the argument struct, its `ToolArgs` impl (what the
//!   runtime's decoder needs to read it) and the parameters' defaults;
//! - [`shim`]: what runs one call, and the `Tool` impl;
//! - [`register`]: the global registration, and a toolset's `Toolset` impl;
//! - [`fallback`]: what stands in for all of that when the attribute has
//!   errors.
//!
//! All but the struct go in one `const _: () = { ... }` block, which opens
//! with the expansion's only `use`: the runtime's `__private` module as
//! `__tool_rt`, and the traits of its `Kind<T>`. The items the expansion
//! adds in the block are named `__tool_*` (`__ToolArgs`), so none can
//! capture a name the user's tokens refer to.

mod decode;
mod fallback;
mod register;
mod shim;
mod spec;
mod strukt;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::errors::Errors;
use crate::item::{self, ImplBlock, MaybeFn};
use crate::model::{Binding, ToolFn};
use crate::{parse, validate};

/// The whole expansion of `#[tool]`.
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: MaybeFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            return unparsed(
                input,
                error,
                "#[tool] goes on a function (`fn` or `async fn`)",
            );
        }
    };
    let mut errors = Errors::new();
    let tool = parse::tool(args, &item, None, &mut errors);
    validate::tool(&tool, &mut errors);
    item.strip_param_attributes();
    match errors.finish() {
        Ok(()) => {
            item.append_docs(&tool.extra_docs);
            let generated = generated(&tool);
            quote!(#item #generated)
        }
        Err(error) => {
            let error = error.to_compile_error();
            let stand_in = fallback::tool(&tool);
            quote!(#error #item #stand_in)
        }
    }
}

/// The whole expansion of `#[toolset]`.
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut block = match ImplBlock::parse(input.clone()) {
        Ok(block) => block,
        Err(error) => {
            return unparsed(
                input,
                error,
                "#[toolset] goes on an inherent impl block (`impl MyType { ... }`)",
            );
        }
    };
    let mut errors = Errors::new();
    let set = parse::toolset(args, &block, &mut errors);
    validate::toolset(&set, &mut errors);
    let result = errors.finish();
    // The block as emitted: its methods without `#[tool]` and their
    // parameters' attributes, their docs with an `# Arguments` section.
    for (method, tool) in block.tool_methods_mut().zip(&set.tools) {
        method.attrs.retain(|attr| !attr.path().is_ident("tool"));
        method.strip_param_attributes();
        if result.is_ok() {
            method.append_docs(&tool.extra_docs);
        }
    }
    match result {
        Ok(()) => {
            let generated = set.tools.iter().map(generated);
            let toolset = register::toolset(&set);
            quote!(#block #(#generated)* #toolset)
        }
        Err(error) => {
            let error = error.to_compile_error();
            let stand_in = fallback::toolset(&set);
            quote!(#error #block #stand_in)
        }
    }
}

/// An item the macro cannot read. If it is another kind of item, the
/// error says what the attribute goes on. If it is not an item at all, it
/// has a syntax error rustc has already reported, so no second error is
/// added, and the item is passed on without the macro's own attributes.
fn unparsed(input: TokenStream, error: syn::Error, what: &str) -> TokenStream {
    if syn::parse2::<syn::Item>(input.clone()).is_err() {
        return item::without_tool_attributes(input);
    }
    let error = syn::Error::new(error.span(), format!("{what}: {error}")).to_compile_error();
    quote!(#error #input)
}

/// Everything a valid tool adds after its function.
fn generated(tool: &ToolFn) -> TokenStream {
    let krate = &tool.krate;
    let strukt = strukt::definition(tool);
    let spec = spec::spec(tool);
    let decode = decode::decoder(tool);
    let shim = shim::shim(tool);
    let register = register::registration(tool);
    let ui = crate::mcp::ui::link(&tool.name, tool.options.ui_keys());
    quote! {
        #strukt

        const _: () = {
            #[allow(unused_imports)]
            use #krate::__private::{
                self as __tool_rt, DisplayError as _, Fallback as _, JsonSchemaOutput as _,
                SerializeOutput as _,
            };

            #spec
            #decode
            #shim
            #register
        };

        #ui
    }
}

/// The function that makes the default of the parameter at `index`.
fn default_fn(index: usize) -> Ident {
    format_ident!("__tool_default_{}", index)
}

/// How the expansion calls the tool's function: by name, or through the
/// toolset's type.
fn callee(tool: &ToolFn) -> TokenStream {
    let fn_ident = &tool.fn_ident;
    match &tool.binding {
        Binding::Free => quote!(#fn_ident),
        Binding::Method { self_ty } => quote!(<#self_ty>::#fn_ident),
    }
}
