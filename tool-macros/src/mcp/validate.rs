//! Checks of the model, each error at the tokens it is about and saying
//! what to write instead; every error is reported at once.

use super::model::{Attr, Form, McpFn, ParamKind};
use super::uri_template;
use crate::errors::Errors;

/// Checks a `#[resource]` or `#[prompt]` function.
pub fn function(f: &McpFn, errors: &mut Errors) {
    for (tokens, message) in &f.shape {
        errors.push_spanned(tokens, message);
    }
    if f.attr == Attr::Resource {
        uri(f, errors);
        mime(f, errors);
        details(f, errors);
    }
    params(f, errors);
    if f.output.ty.is_none() {
        errors.push(
            f.fn_ident.span(),
            match f.attr {
                Attr::Resource => {
                    "a #[resource] function returns its contents: add a return type, such \
                     as `-> String` (text) or `-> Vec<u8>` (bytes)"
                }
                Attr::Prompt => {
                    "a #[prompt] function returns its messages: add a return type, such as \
                     `-> String` (one message of the user's) or `-> Vec<PromptMessage>`"
                }
            },
        );
    }
    for (what, value) in [("name", Some(&f.name)), ("title", f.title.as_ref())] {
        if let Some(value) = value
            && value.trim().is_empty()
        {
            errors.push(
                value.span(),
                format!("the {what} is empty: write some text, or leave the key out"),
            );
        }
    }
}

/// The URI: present, a valid template, and its variables the parameters'.
fn uri(f: &McpFn, errors: &mut Errors) {
    let Some(uri) = &f.uri else {
        if !f.args_read {
            return;
        }
        errors.push(
            f.attr_span,
            "#[resource] needs the resource's URI or URI template first, as in \
             #[resource(\"test://static-text\")] or #[resource(\"test://items/{id}\")]",
        );
        return;
    };
    let variables = match uri_template::parse(uri) {
        Ok(variables) => variables.0,
        Err(reason) => {
            errors.push(
                uri.span(),
                format!(
                    "`{}` is not a URI template the server reads: {reason}. A template is \
                     literal text starting with `scheme:` and variables `{{name}}`, \
                     `{{+name}}` (may hold `/`) or `{{?a,b}}` (an optional query, last)",
                    uri.as_str()
                ),
            );
            return;
        }
    };
    for (variable, optional) in &variables {
        if !f.params.iter().any(|param| {
            matches!(&param.kind, ParamKind::Value(value) if value.name.as_str() == variable)
        }) {
            let ty = if *optional { "Option<String>" } else { "String" };
            errors.push(
                uri.span(),
                format!(
                    "`{{{variable}}}` in the URI has no parameter: add `{variable}: {ty}` to \
                     the function (or name a parameter with #[resource(name = \"{variable}\")])"
                ),
            );
        }
    }
    for param in &f.params {
        let ParamKind::Value(value) = &param.kind else {
            continue;
        };
        match variables
            .iter()
            .find(|(variable, _)| variable == value.name.as_str())
        {
            None => errors.push(
                value.name.span(),
                format!(
                    "`{}` is not a variable of the URI `{}`: add `{{{}}}` to the URI, or mark \
                     the parameter #[resource(inject)] if the request's context supplies it",
                    value.name.as_str(),
                    uri.as_str(),
                    value.name.as_str()
                ),
            ),
            Some((_, true)) if !matches!(value.form, Form::Optional(_)) => errors.push(
                param.ty_span(),
                format!(
                    "`{}` is in the URI's optional query `{{?...}}`, which a URI may leave \
                     out: make the parameter an `Option`, such as `Option<String>`",
                    value.name.as_str()
                ),
            ),
            Some(_) => {}
        }
    }
}

/// `mime = ".."`: `type/subtype`, with parameters after `;`.
fn mime(f: &McpFn, errors: &mut Errors) {
    let Some(mime) = &f.mime else { return };
    let essence = mime.split(';').next().unwrap_or_default().trim();
    let token = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))
    };
    let valid = essence
        .split_once('/')
        .is_some_and(|(kind, sub)| token(kind) && token(sub));
    if !valid {
        errors.push(
            mime.span(),
            format!(
                "`{}` is not a media type: write `type/subtype`, such as \"text/plain\" or \
                 \"application/json\"",
                mime.as_str()
            ),
        );
    }
}

/// `size`, `cache`, `ttl`, `audience` and `priority`.
fn details(f: &McpFn, errors: &mut Errors) {
    if let Some(size) = &f.size {
        let template = f.uri.as_ref().is_some_and(|uri| uri.contains('{'));
        if template {
            errors.push(
                size.span(),
                "`size` is the size of one resource, and this URI is a template of many: \
                 remove `size` (a template's reads may differ in size)",
            );
        } else if !size.integer || size.value < 0.0 || size.value > u64::MAX as f64 {
            errors.push(
                size.span(),
                "`size` is a whole number of bytes: write it as such, as in `size = 1024`",
            );
        }
    }
    if let Some(priority) = &f.priority
        && !(0.0..=1.0).contains(&priority.value)
    {
        errors.push(
            priority.span(),
            "`priority` is from 0.0 (least important) to 1.0 (most): write a number in that \
             range, such as `priority = 0.5`",
        );
    }
    for role in &f.audience {
        if !matches!(role.as_str(), "user" | "assistant") {
            errors.push(
                role.span(),
                format!(
                    "`{}` is not an audience: write \"user\" (the person) or \"assistant\" \
                     (the model), as in audience = [\"user\", \"assistant\"]",
                    role.as_str()
                ),
            );
        }
    }
    if let Some(cache) = &f.cache
        && !matches!(cache.as_str(), "public" | "private")
    {
        errors.push(
            cache.span(),
            format!(
                "`cache = {:?}` is not a cache scope: write \"public\" (every client may \
                 share a cached read) or \"private\" (each caller caches its own)",
                cache.as_str()
            ),
        );
    }
    if let Some(ttl) = &f.ttl
        && crate::model::parse_duration_ms(ttl).is_none()
    {
        errors.push(
            ttl.span(),
            format!(
                "cannot read the ttl {:?}: write a number and a unit, such as \"500ms\", \
                 \"5s\", \"2m\" or \"1h\"",
                ttl.as_str()
            ),
        );
    }
}

/// Parameters: no name twice, completion only on values, text-ish types.
fn params(f: &McpFn, errors: &mut Errors) {
    let mut seen: Vec<&str> = Vec::new();
    for param in &f.params {
        match &param.kind {
            ParamKind::Injected {
                complete: Some(span),
            } => errors.push(
                *span,
                format!(
                    "`complete` offers values for a {}, and `{}` is supplied by the request's \
                     context: remove `complete`",
                    f.attr.value_noun(),
                    param.ident
                ),
            ),
            ParamKind::Injected { .. } => {}
            ParamKind::Value(value) => {
                if seen.contains(&value.name.as_str()) {
                    errors.push(
                        value.name.span(),
                        format!(
                            "two parameters are the {} `{}`: give each its own name",
                            f.attr.value_noun(),
                            value.name.as_str()
                        ),
                    );
                }
                seen.push(value.name.as_str());
                if let Form::OtherRef(span) = value.form {
                    errors.push(
                        span,
                        format!(
                            "a {} is text: take `&str`, `String`, `Option<String>` or a \
                             `FromStr` type by value",
                            f.attr.value_noun()
                        ),
                    );
                }
            }
        }
    }
}

impl super::model::McpParam {
    /// Where its type was written.
    fn ty_span(&self) -> proc_macro2::Span {
        syn::spanned::Spanned::span(&self.ty)
    }
}
