//! A tool's parameters: where each comes from, what a model-supplied one
//! may be, and the types that cannot be decoded from JSON.

use syn::Type;

use super::constraints::{TypeKind, check_pattern, constraints_fit_type};
use super::header::header;
use super::param_name;
use super::types::{find_type, first_reference, type_text};
use crate::errors::Errors;
use crate::model::{ArgParam, Param, ParamKind};

/// The keys of a parameter's `#[tool(...)]` that describe a value the model
/// supplies, so have no effect on an injected one.
pub(super) const ARG_ONLY_KEYS: &[&str] = &[
    "description",
    "default",
    "rename",
    "range",
    "length",
    "pattern",
    "one_of",
    "validate",
    "header",
    "transform",
];

/// One parameter; `context` is the first `ToolContext` parameter seen.
pub(super) fn param<'a>(param: &'a Param, context: &mut Option<&'a Param>, errors: &mut Errors) {
    if contains_impl_trait(&param.ty) {
        errors.push_spanned(
            &param.ty,
            "`impl Trait` parameters are not supported by #[tool]: the model sends JSON, so \
             each parameter needs one concrete type. Write the concrete type instead",
        );
        return;
    }
    match &param.kind {
        ParamKind::Injected {
            context: is_context,
        } => {
            let ident = &param.ident;
            let written = param
                .keys
                .iter()
                .filter(|key| ARG_ONLY_KEYS.contains(&key.as_str()));
            for key in written {
                errors.push(
                    key.span(),
                    format!(
                        "`{key}` has no effect on an injected parameter: `{ident}` is supplied \
                         by the runtime and is not part of the tool's schema. Remove `{key}`",
                        key = key.as_str()
                    ),
                );
            }
            if *is_context {
                if context.is_some() {
                    errors.push(
                        param.span,
                        format!(
                            "a tool takes at most one `ToolContext` parameter, and an earlier \
                             parameter already is one. Remove `{ident}` and use the earlier \
                             parameter"
                        ),
                    );
                } else {
                    *context = Some(param);
                }
            }
        }
        ParamKind::Arg(arg) => argument(param, arg, errors),
    }
}

/// A parameter the model supplies.
pub(super) fn argument(param: &Param, arg: &ArgParam, errors: &mut Errors) {
    owned_param_type(&param.ty, errors);
    if arg.renamed {
        param_name(&arg.name, errors);
    }
    if let (Some(default), Some(_)) = (&arg.default, &arg.option_inner) {
        errors.push(
            param.key_span("default").unwrap_or_else(|| default.span()),
            format!(
                "`default` on an `Option` parameter: `{}` already defaults to `None` when the \
                 model leaves it out. Remove `default`, or make the type non-optional to give \
                 it a default value",
                arg.rust_name
            ),
        );
    }
    constraints_fit_type(
        param,
        arg,
        arg.option_inner.as_ref().unwrap_or(&param.ty),
        errors,
    );
    let constraints = &arg.constraints;
    for bounds in [&constraints.range, &constraints.length]
        .into_iter()
        .flatten()
    {
        if let (Some(min), Some(max)) = (bounds.min, bounds.max)
            && min > max
        {
            errors.push(
                bounds.span,
                format!("the lower bound {min} is above the upper bound {max}; swap them"),
            );
        }
    }
    if let Some(length) = &constraints.length {
        for bound in [length.min, length.max].into_iter().flatten() {
            if bound < 0.0 || bound.fract() != 0.0 {
                errors.push(
                    length.span,
                    format!("a length bound must be a whole number of at least 0, not {bound}"),
                );
            }
        }
    }
    if let Some(pattern) = &constraints.pattern {
        check_pattern(pattern, errors);
    }
    if let Some(header) = &arg.header {
        self::header(param, arg, header, errors);
    }
}

pub(super) fn contains_impl_trait(ty: &Type) -> bool {
    find_type(ty, &mut |ty| matches!(ty, Type::ImplTrait(_))).is_some()
}

/// A parameter type that borrows (`&str`, `&[T]`, `&T`) cannot be decoded
/// from the model's arguments, which the call owns only for its duration.
/// Reports the first reference in `ty`, suggesting the owned type.
pub(super) fn owned_param_type(ty: &Type, errors: &mut Errors) {
    let Some(reference) = first_reference(ty) else {
        return;
    };
    let inner = &*reference.elem;
    let (owned, data) = match inner {
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => {
            ("String".to_owned(), true)
        }
        Type::Slice(slice) => (format!("Vec<{}>", type_text(&slice.elem)), true),
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("Path") => {
            ("PathBuf".to_owned(), true)
        }
        other => (type_text(other), TypeKind::of(other) != TypeKind::Unknown),
    };
    // A reference to a type of the user's own may be meant for injection.
    let inject = if data {
        ""
    } else {
        ", or mark the parameter #[tool(inject)] if the runtime supplies it"
    };
    errors.push_spanned(
        reference,
        format!(
            "a tool parameter cannot borrow: arguments are decoded from the model's JSON into \
             owned values. Write `{owned}` instead of `{}`{inject}",
            type_text(&Type::Reference(reference.clone()))
        ),
    );
}
