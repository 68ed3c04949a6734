//! Types as the user wrote them: their text, and the types within them.
//! The checks read types only as written; they cannot see what a name
//! stands for.

use quote::ToTokens;
use syn::{PathArguments, Type};

/// A type as the user would write it.
pub(super) fn type_text(ty: &Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace("[ ", "[")
        .replace(" ]", "]")
        .replace(" ;", ";")
}

/// The first type inside `ty` (itself included, outer before inner, left
/// to right) for which `found` holds.
pub(super) fn find_type<'a>(
    ty: &'a Type,
    found: &mut impl FnMut(&'a Type) -> bool,
) -> Option<&'a Type> {
    if found(ty) {
        return Some(ty);
    }
    match ty {
        Type::Array(array) => find_type(&array.elem, found),
        Type::Group(group) => find_type(&group.elem, found),
        Type::Paren(paren) => find_type(&paren.elem, found),
        Type::Ptr(ptr) => find_type(&ptr.elem, found),
        Type::Reference(reference) => find_type(&reference.elem, found),
        Type::Slice(slice) => find_type(&slice.elem, found),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(|ty| find_type(ty, found)),
        Type::Path(path) => path
            .qself
            .iter()
            .find_map(|qself| find_type(&qself.ty, found))
            .or_else(|| find_in_path(&path.path, found)),
        Type::ImplTrait(bounds) => find_in_bounds(bounds.bounds.iter(), found),
        Type::TraitObject(bounds) => find_in_bounds(bounds.bounds.iter(), found),
        Type::FnPtr(bare) => bare
            .inputs
            .iter()
            .find_map(|arg| find_type(&arg.ty, found))
            .or_else(|| match &bare.output {
                syn::ReturnType::Type(_, ty) => find_type(ty, found),
                syn::ReturnType::Default => None,
            }),
        _ => None,
    }
}

pub(super) fn find_in_path<'a>(
    path: &'a syn::Path,
    found: &mut impl FnMut(&'a Type) -> bool,
) -> Option<&'a Type> {
    path.segments
        .iter()
        .find_map(|segment| match &segment.arguments {
            PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                syn::GenericArgument::Type(ty) => find_type(ty, found),
                syn::GenericArgument::AssocType(assoc) => find_type(&assoc.ty, found),
                syn::GenericArgument::Constraint(constraint) => {
                    find_in_bounds(constraint.bounds.iter(), found)
                }
                _ => None,
            }),
            PathArguments::Parenthesized(args) => args
                .inputs
                .iter()
                .find_map(|arg| find_type(&arg.ty, found))
                .or_else(|| match &args.output {
                    syn::ReturnType::Type(_, ty) => find_type(ty, found),
                    syn::ReturnType::Default => None,
                }),
            PathArguments::None => None,
        })
}

pub(super) fn find_in_bounds<'a>(
    mut bounds: impl Iterator<Item = &'a syn::TypeParamBound>,
    found: &mut impl FnMut(&'a Type) -> bool,
) -> Option<&'a Type> {
    bounds.find_map(|bound| match bound {
        syn::TypeParamBound::Trait(bound) => find_in_path(&bound.path, found),
        _ => None,
    })
}

/// The first reference inside `ty` (itself included).
pub(super) fn first_reference(ty: &Type) -> Option<&syn::TypeReference> {
    match find_type(ty, &mut |ty| matches!(ty, Type::Reference(_)))? {
        Type::Reference(reference) => Some(reference),
        _ => None,
    }
}
