//! Constraints against the parameter's type as written: `range`, `length`,
//! `pattern` (checked with the runtime's engine) and `one_of`.

use proc_macro2::Span;
use syn::{PathArguments, Type};

use super::types::type_text;
use crate::attr::OneOfValue;
use crate::errors::Errors;
use crate::model::{ArgParam, Param, Sp};

/// A `pattern` the runtime can match: it compiles with regex-lite, the
/// runtime's engine. What it cannot compile fails here, at the pattern.
#[cfg(feature = "pattern")]
pub(super) fn check_pattern(pattern: &Sp<String>, errors: &mut Errors) {
    let Err(error) = regex_lite::Regex::new(pattern.as_str()) else {
        return;
    };
    // Its errors are one phrase each; those about character classes it
    // lacks (Unicode classes such as `\p{L}`, nested classes, class set
    // operations) are valid patterns elsewhere, so they say what to write
    // instead.
    let error = error.to_string();
    let message = if error.contains("character class") && error.contains("not supported") {
        format!(
            "this pattern uses syntax tool-runtime's regular expressions do not support \
             (no Unicode classes such as `\\p{{L}}`; `\\d`, `\\w` and `\\s` are ASCII): \
             {error}. Write the characters out instead, e.g. `[a-zà-ÿ]`",
        )
    } else {
        format!("this pattern is not a valid regular expression: {error}")
    };
    errors.push(pattern.span(), message);
}

/// Without tool-runtime's `pattern` feature the runtime has no regular
/// expressions to match with: the constraint fails to compile, saying how
/// to turn the feature on.
#[cfg(not(feature = "pattern"))]
pub(super) fn check_pattern(pattern: &Sp<String>, errors: &mut Errors) {
    errors.push(
        pattern.span(),
        "`pattern` constraints need tool-runtime's `pattern` feature; in Cargo.toml write \
         `tool-runtime = { version = \"0.1\", features = [\"pattern\"] }`"
            .to_owned(),
    );
}

/// What the macro can tell about a type from how it is written. Only
/// standard names count; anything else (the user's own types, aliases) is
/// `Unknown` and never rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TypeKind {
    /// `i32`, `u64`, `usize`, ...
    Integer,
    /// `f32`, `f64`.
    Float,
    /// `bool`.
    Bool,
    /// `String`, `str`.
    Text,
    /// `Vec<T>`, `VecDeque<T>`, the sets, arrays and slices.
    List,
    /// `HashMap<K, V>`, `BTreeMap<K, V>`.
    Map,
    /// Anything else.
    Unknown,
}

impl TypeKind {
    /// Classifies `ty`, looking through groups and parentheses.
    pub(super) fn of(ty: &Type) -> TypeKind {
        match ty {
            Type::Group(group) => TypeKind::of(&group.elem),
            Type::Paren(paren) => TypeKind::of(&paren.elem),
            Type::Array(_) | Type::Slice(_) => TypeKind::List,
            Type::Path(path) if path.qself.is_none() => {
                let Some(segment) = path.path.segments.last() else {
                    return TypeKind::Unknown;
                };
                let name = segment.ident.to_string();
                let bare = matches!(segment.arguments, PathArguments::None);
                match name.as_str() {
                    "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32"
                    | "u64" | "u128" | "usize"
                        if bare =>
                    {
                        TypeKind::Integer
                    }
                    "f32" | "f64" if bare => TypeKind::Float,
                    "bool" if bare => TypeKind::Bool,
                    "String" | "str" if bare => TypeKind::Text,
                    "Vec" | "VecDeque" | "HashSet" | "BTreeSet" if !bare => TypeKind::List,
                    "HashMap" | "BTreeMap" if !bare => TypeKind::Map,
                    _ => TypeKind::Unknown,
                }
            }
            _ => TypeKind::Unknown,
        }
    }

    pub(super) fn noun(self) -> &'static str {
        match self {
            TypeKind::Integer => "an integer",
            TypeKind::Float => "a floating-point number",
            TypeKind::Bool => "a boolean",
            TypeKind::Text => "a string",
            TypeKind::List => "a list",
            TypeKind::Map => "a map",
            TypeKind::Unknown => "a value",
        }
    }
}

/// Rejects constraints that cannot apply to the parameter's type as written:
/// `range` on a string, `length` on a number, `pattern` on anything but a
/// string, and `one_of` values of another type than the parameter.
pub(super) fn constraints_fit_type(param: &Param, arg: &ArgParam, ty: &Type, errors: &mut Errors) {
    let rust_name = &arg.rust_name;
    let args = &arg.constraints;
    let kind = TypeKind::of(ty);
    if kind == TypeKind::Unknown {
        return;
    }
    let written = type_text(ty);
    let at = |key: &str, fallback: Span| param.key_span(key).unwrap_or(fallback);
    if let Some(range) = &args.range
        && !matches!(kind, TypeKind::Integer | TypeKind::Float)
    {
        let fix = match kind {
            TypeKind::Text | TypeKind::List => {
                "Use `length(...)` to bound the length of a string or list, or remove `range`"
            }
            _ => "Remove `range`, or make the parameter a number",
        };
        errors.push(
            at("range", range.span),
            format!(
                "`range` bounds a number, but `{rust_name}` is {} (`{written}`). {fix}",
                kind.noun()
            ),
        );
    }
    if let Some(length) = &args.length
        && !matches!(kind, TypeKind::Text | TypeKind::List)
    {
        let fix = match kind {
            TypeKind::Integer | TypeKind::Float => {
                "Use `range(...)` to bound a number, or remove `length`"
            }
            _ => "Remove `length`",
        };
        errors.push(
            at("length", length.span),
            format!(
                "`length` bounds the characters of a string or the items of a list, but \
                 `{rust_name}` is {} (`{written}`). {fix}",
                kind.noun()
            ),
        );
    }
    if let Some(pattern) = &args.pattern
        && kind != TypeKind::Text
    {
        errors.push(
            at("pattern", pattern.span()),
            format!(
                "`pattern` matches strings, but `{rust_name}` is {} (`{written}`). Remove \
                 `pattern`, or make the parameter a `String`",
                kind.noun()
            ),
        );
    }
    if let Some(one_of) = &args.one_of {
        let (fits, example): (fn(&OneOfValue) -> bool, &str) = match kind {
            TypeKind::Integer => (|v| matches!(v, OneOfValue::Int(_)), "one_of = [1, 2, 3]"),
            TypeKind::Float => (
                |v| matches!(v, OneOfValue::Int(_) | OneOfValue::Float(_)),
                "one_of = [0.5, 1.0]",
            ),
            TypeKind::Bool => (|v| matches!(v, OneOfValue::Bool(_)), "one_of = [true]"),
            TypeKind::Text => (
                |v| matches!(v, OneOfValue::Str(_)),
                "one_of = [\"a\", \"b\"]",
            ),
            TypeKind::List | TypeKind::Map | TypeKind::Unknown => (|_| true, ""),
        };
        if matches!(kind, TypeKind::List | TypeKind::Map) {
            errors.push(
                at("one_of", one_of.span),
                format!(
                    "`one_of` lists single values, but `{rust_name}` is {} (`{written}`). \
                     Remove `one_of`, or use an enum as the item type",
                    kind.noun()
                ),
            );
        } else if let Some(bad) = one_of.values.iter().find(|v| !fits(v)) {
            errors.push(
                one_of.span,
                format!(
                    "`one_of` allows {} ({}), but `{rust_name}` is {} (`{written}`), so the \
                     model could never send it. Write values of the parameter's type: {example}",
                    value_noun(bad),
                    value_text(bad),
                    kind.noun()
                ),
            );
        }
    }
}

pub(super) fn value_noun(value: &OneOfValue) -> &'static str {
    match value {
        OneOfValue::Str(_) => "a string",
        OneOfValue::Int(_) => "an integer",
        OneOfValue::Float(_) => "a floating-point number",
        OneOfValue::Bool(_) => "a boolean",
    }
}

pub(super) fn value_text(value: &OneOfValue) -> String {
    match value {
        OneOfValue::Str(s) => format!("{s:?}"),
        OneOfValue::Int(i) => i.to_string(),
        OneOfValue::Float(f) => f.to_string(),
        OneOfValue::Bool(b) => b.to_string(),
    }
}
