//! Checks on the parsed tool that need no type information: the names the
//! providers accept, aliases, borrowed parameter types, and constraints that
//! cannot apply to a parameter's type as written.

use proc_macro2::Span;
use quote::ToTokens;
use std::collections::HashMap;
use syn::{PathArguments, Type};

use crate::attr::{OneOfValue, ParamArgs, key_span};
use crate::errors::Errors;
use crate::model::{Param, ParamKind};

/// Checks a tool name against `^[a-zA-Z0-9_-]{1,64}$`, the names OpenAI,
/// Anthropic and Bedrock all accept.
pub fn tool_name(name: &str, span: Span, errors: &mut Errors) {
    if let Some(problem) = name_problem(name) {
        errors.push(
            span,
            format!(
                "invalid tool name \"{name}\": {problem}. Tool names must be 1 to 64 ASCII \
                 letters, digits, `_` or `-`, the names every provider accepts; choose one with \
                 #[tool(name = \"...\")]"
            ),
        );
    }
}

/// Checks a renamed parameter: the same alphabet as tool names.
pub fn param_name(name: &darling::util::SpannedValue<String>, errors: &mut Errors) {
    if let Some(problem) = name_problem(name.as_str()) {
        errors.push(
            name.span(),
            format!(
                "invalid parameter name \"{}\": {problem}. Use 1 to 64 ASCII letters, digits, \
                 `_` or `-`",
                name.as_str()
            ),
        );
    }
}

fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name.len() > 64 {
        return Some(format!("it is {} characters long", name.len()));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .map(|c| format!("{c:?} is not allowed"))
}

/// Two parameters may not share a schema name (after `rename`).
pub fn unique_param_names(params: &[Param], errors: &mut Errors) {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for param in params {
        if let ParamKind::Arg(arg) = &param.kind
            && seen.insert(arg.name.as_str(), ()).is_some()
        {
            errors.push(
                param.ident.span(),
                format!(
                    "two parameters are named \"{}\" in the schema; rename one with \
                         #[tool(rename = \"...\")]",
                    arg.name
                ),
            );
        }
    }
}

/// Checks the aliases of tool `name`: not empty, no character a client could
/// not send as a name, not the tool's own name, not repeated. Returns those
/// to record.
pub fn aliases(
    name: &str,
    aliases: &[darling::util::SpannedValue<String>],
    errors: &mut Errors,
) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for alias in aliases {
        let text = alias.as_str();
        if let Some(problem) = alias_problem(text) {
            errors.push(
                alias.span(),
                format!(
                    "invalid alias \"{text}\": {problem}. An alias is a name the tool also \
                     answers to: ASCII letters, digits, `_`, `-`, `.`, `:` or `/`, as in \
                     alias = \"old_name\""
                ),
            );
        } else if text == name {
            errors.push(
                alias.span(),
                format!(
                    "the alias \"{text}\" is the tool's own name, so it has no effect. Remove it"
                ),
            );
        } else if kept.iter().any(|a| a == text) {
            errors.push(
                alias.span(),
                format!("the alias \"{text}\" is given twice. Remove one"),
            );
        } else {
            kept.push(text.to_owned());
        }
    }
    kept
}

fn alias_problem(alias: &str) -> Option<String> {
    if alias.trim().is_empty() {
        return Some("it is empty".into());
    }
    alias
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | '`' | '*'))
        .map(|c| format!("{c:?} is not allowed"))
}

/// A parameter type that borrows (`&str`, `&[T]`, `&T`) cannot be decoded
/// from the model's arguments, which the call owns only for its duration.
/// Reports the first reference in `ty`, suggesting the owned type.
pub fn owned_param_type(ty: &Type, errors: &mut Errors) {
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

fn first_reference(ty: &Type) -> Option<&syn::TypeReference> {
    struct Finder<'a>(Option<&'a syn::TypeReference>);
    impl<'ast> syn::visit::Visit<'ast> for Finder<'ast> {
        fn visit_type_reference(&mut self, reference: &'ast syn::TypeReference) {
            if self.0.is_none() {
                self.0 = Some(reference);
            }
        }
    }
    let mut finder = Finder(None);
    syn::visit::visit_type(&mut finder, ty);
    finder.0
}

/// What the macro can tell about a type from how it is written. Only
/// standard names count; anything else (the user's own types, aliases) is
/// `Unknown` and never rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
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
    pub fn of(ty: &Type) -> TypeKind {
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

    fn noun(self) -> &'static str {
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
pub fn constraints_fit_type(
    rust_name: &str,
    ty: &Type,
    args: &ParamArgs,
    attrs: &[syn::Attribute],
    errors: &mut Errors,
) {
    let kind = TypeKind::of(ty);
    if kind == TypeKind::Unknown {
        return;
    }
    let written = type_text(ty);
    let at = |key: &str, fallback: Span| key_span(attrs, key).unwrap_or(fallback);
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

fn value_noun(value: &OneOfValue) -> &'static str {
    match value {
        OneOfValue::Str(_) => "a string",
        OneOfValue::Int(_) => "an integer",
        OneOfValue::Float(_) => "a floating-point number",
        OneOfValue::Bool(_) => "a boolean",
    }
}

fn value_text(value: &OneOfValue) -> String {
    match value {
        OneOfValue::Str(s) => format!("{s:?}"),
        OneOfValue::Int(i) => i.to_string(),
        OneOfValue::Float(f) => f.to_string(),
        OneOfValue::Bool(b) => b.to_string(),
    }
}

/// A type as the user would write it.
fn type_text(ty: &Type) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn messages(errors: Errors) -> String {
        match errors.finish() {
            Ok(()) => String::new(),
            Err(error) => error
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    fn param_args(tokens: proc_macro2::TokenStream) -> ParamArgs {
        use darling::FromMeta;
        let items = darling::ast::NestedMeta::parse_meta_list(tokens).unwrap();
        ParamArgs::from_list(&items).unwrap()
    }

    fn fit(ty: Type, tokens: proc_macro2::TokenStream) -> String {
        let mut errors = Errors::default();
        constraints_fit_type("x", &ty, &param_args(tokens), &[], &mut errors);
        messages(errors)
    }

    #[test]
    fn classifies_types_as_written() {
        assert_eq!(TypeKind::of(&parse_quote!(u32)), TypeKind::Integer);
        assert_eq!(TypeKind::of(&parse_quote!(f64)), TypeKind::Float);
        assert_eq!(
            TypeKind::of(&parse_quote!(std::string::String)),
            TypeKind::Text
        );
        assert_eq!(TypeKind::of(&parse_quote!(Vec<u8>)), TypeKind::List);
        assert_eq!(TypeKind::of(&parse_quote!([u8; 4])), TypeKind::List);
        assert_eq!(
            TypeKind::of(&parse_quote!(HashMap<String, u8>)),
            TypeKind::Map
        );
        assert_eq!(TypeKind::of(&parse_quote!(Celsius)), TypeKind::Unknown);
        assert_eq!(TypeKind::of(&parse_quote!(Vec)), TypeKind::Unknown);
    }

    #[test]
    fn constraints_must_fit_the_type() {
        assert!(
            fit(parse_quote!(String), quote::quote!(range(1, 5)))
                .contains("`range` bounds a number")
        );
        assert!(fit(parse_quote!(u8), quote::quote!(length(max = 5))).contains("Use `range(...)`"));
        assert!(
            fit(parse_quote!(Vec<String>), quote::quote!(pattern = "a"))
                .contains("`pattern` matches strings")
        );
        assert!(
            fit(parse_quote!(u32), quote::quote!(one_of = ["a"]))
                .contains("allows a string (\"a\")")
        );
        assert!(
            fit(parse_quote!(String), quote::quote!(one_of = [1]))
                .contains("one_of = [\"a\", \"b\"]")
        );
        assert!(fit(parse_quote!(Vec<u8>), quote::quote!(one_of = [1])).contains("single values"));
        assert!(
            fit(
                parse_quote!(HashMap<String, u8>),
                quote::quote!(length(max = 2))
            )
            .contains("Remove `length`")
        );
        // What fits, and what the macro cannot judge, passes.
        assert_eq!(
            fit(
                parse_quote!(f64),
                quote::quote!(range(0, 1), one_of = [0, 0.5])
            ),
            ""
        );
        assert_eq!(
            fit(
                parse_quote!(String),
                quote::quote!(length(1, 5), pattern = "^a", one_of = ["a"])
            ),
            ""
        );
        assert_eq!(
            fit(parse_quote!(Vec<u8>), quote::quote!(length(max = 3))),
            ""
        );
        assert_eq!(
            fit(
                parse_quote!(Meters),
                quote::quote!(range(0, 1), length(1, 2), pattern = "a")
            ),
            ""
        );
    }

    #[test]
    fn borrowed_types_suggest_owned_ones() {
        let check = |ty: Type| {
            let mut errors = Errors::default();
            owned_param_type(&ty, &mut errors);
            messages(errors)
        };
        assert!(check(parse_quote!(&str)).contains("Write `String` instead of `&str`"));
        assert!(check(parse_quote!(&'a [u32])).contains("Write `Vec<u32>` instead of `&'a [u32]`"));
        assert!(check(parse_quote!(Option<&Point>)).contains("Write `Point` instead of `&Point`"));
        assert_eq!(check(parse_quote!(Vec<String>)), "");
    }

    #[test]
    fn aliases_are_checked() {
        let spanned = |s: &str| darling::util::SpannedValue::new(s.to_owned(), Span::call_site());
        let mut errors = Errors::default();
        let kept = aliases(
            "fetch",
            &[
                spanned("get"),
                spanned("tools.get"),
                spanned("get page"),
                spanned("fetch"),
                spanned("get"),
                spanned(""),
            ],
            &mut errors,
        );
        assert_eq!(kept, ["get", "tools.get"]);
        let text = messages(errors);
        assert!(
            text.contains("invalid alias \"get page\": ' ' is not allowed"),
            "{text}"
        );
        assert!(text.contains("is the tool's own name"), "{text}");
        assert!(text.contains("given twice"), "{text}");
        assert!(text.contains("invalid alias \"\": it is empty"), "{text}");
    }

    #[test]
    fn names() {
        assert!(name_problem("get_weather-2").is_none());
        assert!(name_problem("").is_some());
        assert!(name_problem("has space").unwrap().contains("' '"));
        assert!(name_problem(&"x".repeat(65)).unwrap().contains("65"));
        assert!(name_problem("météo").is_some());
    }
}
