//! `#[tool(ui = "ui://...", visibility = "app")]`: the tool's link to an
//! MCP app's view (the `io.modelcontextprotocol/ui` extension). Read by
//! `attr` ([`string`]), checked with the tool's other options
//! ([`validate`]), and emitted beside the tool ([`link`]) as a link-time
//! registration through `::tool_mcp::__private`, so that only a crate that
//! writes `ui` needs tool-mcp.

use proc_macro2::TokenStream;
use quote::quote;

use crate::errors::Errors;
use crate::meta::{self, Error, SpannedValue};

/// `ui` and `visibility`, as written.
#[derive(Clone, Copy)]
pub struct Keys<'a> {
    /// `ui = "..."`.
    pub ui: Option<&'a SpannedValue<String>>,
    /// `visibility = "..."`.
    pub visibility: Option<&'a SpannedValue<String>>,
}

/// The scheme of a view's URI.
const SCHEME: &str = "ui://";

/// What `ui` takes.
const UI_HINT: &str = "`ui` takes the URI of the MCP app view that shows the tool's results, a \
                       string starting with ui://, as in ui = \"ui://counter/view\"";

/// What `visibility` takes.
const VISIBILITY_HINT: &str = "write visibility = \"app\" for a tool only the app's view calls \
                               (hidden from the model), visibility = \"model\" for one only the \
                               model calls, or leave `visibility` out for both";

/// The string value of `ui` or `visibility`, spanned at it; any other form
/// is an error saying what to write.
pub fn string(item: &syn::Meta, key: &str) -> meta::Result<SpannedValue<String>> {
    let hint = if key == "ui" {
        UI_HINT
    } else {
        VISIBILITY_HINT
    };
    let syn::Meta::NameValue(nv) = item else {
        return Err(Error::custom(hint).with_span(item));
    };
    let mut value = &nv.value;
    while let syn::Expr::Group(group) = value {
        value = &group.expr;
    }
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Ok(SpannedValue::new(text.value(), text.span())),
        other => Err(Error::custom(hint).with_span(other)),
    }
}

/// The visibility written, when it reads as one.
fn visibility(keys: Keys) -> Option<TokenStream> {
    match keys.visibility.map(|v| v.as_str()) {
        None => Some(quote!(ModelAndApp)),
        Some("app") => Some(quote!(App)),
        Some("model") => Some(quote!(Model)),
        Some(_) => None,
    }
}

/// Checks `ui` and `visibility`: a `ui://` URI, and a visibility only with
/// `ui`, one of `"app"` and `"model"`.
pub fn validate(keys: Keys, errors: &mut Errors) {
    if let Some(ui) = keys.ui {
        let valid = ui
            .as_str()
            .strip_prefix(SCHEME)
            .is_some_and(|rest| !rest.is_empty());
        if !valid {
            errors.push(ui.span(), format!("{UI_HINT}; found \"{}\"", ui.as_str()));
        }
    }
    let Some(written) = keys.visibility else {
        return;
    };
    if keys.ui.is_none() {
        errors.push(
            written.span(),
            "`visibility` says who may call a tool that has an MCP app view: add the view's \
             URI, as in #[tool(ui = \"ui://counter/view\", visibility = \"app\")], or remove \
             `visibility`",
        );
    } else if visibility(keys).is_none() {
        errors.push(
            written.span(),
            format!(
                "unknown visibility \"{}\": {VISIBILITY_HINT}",
                written.as_str()
            ),
        );
    }
}

/// The registration of the link of the tool `name` to its view, when it
/// has one.
pub fn link(name: &str, keys: Keys) -> TokenStream {
    let (Some(ui), Some(visibility)) = (keys.ui, visibility(keys)) else {
        return quote!();
    };
    let uri = ui.as_str();
    quote! {
        const _: () = {
            ::tool_mcp::__private::inventory::submit! {
                ::tool_mcp::__private::AppLinkRegistration::new(
                    #name,
                    #uri,
                    ::tool_mcp::__private::UiVisibility::#visibility,
                )
            }
        };
    }
}
