//! Reading `key = value` attribute arguments into typed fields: the small
//! part of darling (MIT) the macro used, written out so that the macro does
//! not build darling and its derive. The parsing of an argument list, the
//! conversion of each value and the wording and placement of every error
//! follow darling 0.21's, so that messages are the same: unknown keys with
//! "Did you mean" (Jaro-Winkler above 0.8, like darling's `suggestions`),
//! duplicate keys, values of the wrong kind. darling 0.24 would cost the
//! one-tool build about 17 % more CPU time (docs/performance.md, "darling for
//! the attribute's arguments").

use std::collections::BTreeSet;
use std::fmt;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, Lit, Meta, Token};

/// An item of an attribute's argument list: `key`, `key = value`,
/// `key(...)`, or a bare literal.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)] // As darling's; a list holds a few.
pub enum NestedMeta {
    /// `key`, `key = value` or `key(...)`; the key may be a keyword.
    Meta(Meta),
    /// A literal on its own, such as the `1` of `range(1, 5)`.
    Lit(Lit),
}

impl NestedMeta {
    /// The comma-separated items of an argument list.
    pub fn parse_meta_list(tokens: TokenStream) -> syn::Result<Vec<Self>> {
        syn::punctuated::Punctuated::<NestedMeta, Token![,]>::parse_terminated
            .parse2(tokens)
            .map(|punctuated| punctuated.into_iter().collect())
    }
}

impl quote::ToTokens for NestedMeta {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            NestedMeta::Meta(meta) => meta.to_tokens(tokens),
            NestedMeta::Lit(lit) => lit.to_tokens(tokens),
        }
    }
}

impl syn::parse::Parse for NestedMeta {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        // As darling: a literal (but not `true = ...`), else a meta item
        // whose first segment may be a keyword (`crate = ...`).
        if input.peek(Lit) && !(input.peek(syn::LitBool) && input.peek2(Token![=])) {
            input.parse().map(Self::Lit)
        } else if input.peek(syn::Ident::peek_any)
            || input.peek(Token![::]) && input.peek3(syn::Ident::peek_any)
        {
            let path = parse_meta_path(input)?;
            parse_meta_after_path(path, input).map(Self::Meta)
        } else {
            Err(input.error("expected identifier or literal"))
        }
    }
}

/// A path whose segments may be keywords, without generic arguments.
fn parse_meta_path(input: ParseStream<'_>) -> syn::Result<syn::Path> {
    Ok(syn::Path {
        leading_colon: input.parse()?,
        segments: {
            let mut segments = syn::punctuated::Punctuated::new();
            loop {
                if !input.peek(syn::Ident::peek_any) {
                    break;
                }
                let ident = syn::Ident::parse_any(input)?;
                segments.push_value(syn::PathSegment::from(ident));
                if !input.peek(Token![::]) {
                    break;
                }
                let punct = input.parse()?;
                segments.push_punct(punct);
            }
            if segments.is_empty() {
                return Err(input.parse::<syn::Ident>().unwrap_err());
            } else if segments.trailing_punct() {
                return Err(input.error("expected path segment after `::`"));
            }
            segments
        },
    })
}

fn parse_meta_after_path(path: syn::Path, input: ParseStream<'_>) -> syn::Result<Meta> {
    if input.peek(syn::token::Paren)
        || input.peek(syn::token::Bracket)
        || input.peek(syn::token::Brace)
    {
        parse_meta_list_after_path(path, input).map(Meta::List)
    } else if input.peek(Token![=]) {
        parse_meta_name_value_after_path(path, input).map(Meta::NameValue)
    } else {
        Ok(Meta::Path(path))
    }
}

fn parse_meta_list_after_path(
    path: syn::Path,
    input: ParseStream<'_>,
) -> syn::Result<syn::MetaList> {
    let (delimiter, tokens) = input.step(|cursor| {
        if let Some((TokenTree::Group(g), rest)) = cursor.token_tree() {
            let span = g.delim_span();
            let delimiter = match g.delimiter() {
                proc_macro2::Delimiter::Parenthesis => {
                    syn::MacroDelimiter::Paren(syn::token::Paren(span))
                }
                proc_macro2::Delimiter::Brace => {
                    syn::MacroDelimiter::Brace(syn::token::Brace(span))
                }
                proc_macro2::Delimiter::Bracket => {
                    syn::MacroDelimiter::Bracket(syn::token::Bracket(span))
                }
                proc_macro2::Delimiter::None => {
                    return Err(cursor.error("expected delimiter"));
                }
            };
            Ok(((delimiter, g.stream()), rest))
        } else {
            Err(cursor.error("expected delimiter"))
        }
    })?;
    Ok(syn::MetaList {
        path,
        delimiter,
        tokens,
    })
}

fn parse_meta_name_value_after_path(
    path: syn::Path,
    input: ParseStream<'_>,
) -> syn::Result<syn::MetaNameValue> {
    let eq_token: Token![=] = input.parse()?;
    let ahead = input.fork();
    let lit: Option<Lit> = ahead.parse()?;
    let value = if let (Some(lit), true) = (lit, ahead.is_empty()) {
        input.advance_to(&ahead);
        Expr::Lit(syn::ExprLit {
            attrs: Vec::new(),
            lit,
        })
    } else if input.peek(Token![#]) && input.peek2(syn::token::Bracket) {
        return Err(input.error("unexpected attribute inside of attribute"));
    } else {
        input.parse()?
    };
    Ok(syn::MetaNameValue {
        path,
        eq_token,
        value,
    })
}

/// One or more problems with attribute arguments, each with where it was
/// written (once known) and the keys it was found under.
#[derive(Debug)]
pub struct Error {
    kind: Kind,
    locations: Vec<String>,
    span: Option<Span>,
}

#[derive(Debug)]
enum Kind {
    Message(String),
    Multiple(Vec<Error>),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    fn new(message: String) -> Self {
        Error {
            kind: Kind::Message(message),
            locations: Vec::new(),
            span: None,
        }
    }

    /// An error worded by the caller.
    pub fn custom(message: impl fmt::Display) -> Self {
        Error::new(message.to_string())
    }

    fn duplicate_field(name: &str) -> Self {
        Error::new(format!("Duplicate field `{name}`"))
    }

    fn unsupported_format(format: &str) -> Self {
        Error::new(format!("Unexpected meta-item format `{format}`"))
    }

    fn unexpected_type(ty: &str) -> Self {
        Error::new(format!("Unexpected type `{ty}`"))
    }

    fn unknown_value(value: &str) -> Self {
        Error::new(format!("Unknown value: `{value}`"))
    }

    fn unknown_lit_str_value(value: &syn::LitStr) -> Self {
        Error::unknown_value(&value.value()).with_span(value)
    }

    /// An unknown key; `alternates` are the known ones, the closest of
    /// which is suggested, or all of them when there are few.
    fn unknown_field(field: &str, alternates: &[&str]) -> Self {
        let alts: BTreeSet<&str> = alternates.iter().copied().collect();
        let mut message = format!("Unknown field: `{field}`");
        let mut candidate: Option<(f64, &str)> = None;
        for alt in &alts {
            let confidence = crate::similar::jaro_winkler(field, alt);
            if confidence > 0.8 && candidate.is_none_or(|(best, _)| best < confidence) {
                candidate = Some((confidence, alt));
            }
        }
        if let Some((_, suggestion)) = candidate {
            message.push_str(&format!(". Did you mean `{suggestion}`?"));
        } else if !alts.is_empty() && alts.len() < 10 {
            let listed: Vec<String> = alts.iter().map(|alt| format!("`{alt}`")).collect();
            message.push_str(&format!(". Available values: {}", listed.join(", ")));
        }
        Error::new(message)
    }

    fn unexpected_expr_type(expr: &Expr) -> Self {
        Error::unexpected_type(match expr {
            Expr::Array(_) => "array",
            Expr::Assign(_) => "assign",
            Expr::Async(_) => "async",
            Expr::Await(_) => "await",
            Expr::Binary(_) => "binary",
            Expr::Block(_) => "block",
            Expr::Break(_) => "break",
            Expr::Call(_) => "call",
            Expr::Cast(_) => "cast",
            Expr::Closure(_) => "closure",
            Expr::Const(_) => "const",
            Expr::Continue(_) => "continue",
            Expr::Field(_) => "field",
            Expr::ForLoop(_) => "for_loop",
            Expr::Group(_) => "group",
            Expr::If(_) => "if",
            Expr::Index(_) => "index",
            Expr::Infer(_) => "infer",
            Expr::Let(_) => "let",
            Expr::Lit(_) => "lit",
            Expr::Loop(_) => "loop",
            Expr::Macro(_) => "macro",
            Expr::Match(_) => "match",
            Expr::MethodCall(_) => "method_call",
            Expr::Paren(_) => "paren",
            Expr::Path(_) => "path",
            Expr::Range(_) => "range",
            Expr::Reference(_) => "reference",
            Expr::Repeat(_) => "repeat",
            Expr::Return(_) => "return",
            Expr::Struct(_) => "struct",
            Expr::Try(_) => "try",
            Expr::TryBlock(_) => "try_block",
            Expr::Tuple(_) => "tuple",
            Expr::Unary(_) => "unary",
            Expr::Unsafe(_) => "unsafe",
            Expr::Verbatim(_) => "verbatim",
            Expr::While(_) => "while",
            Expr::Yield(_) => "yield",
            _ => "unknown",
        })
        .with_span(expr)
    }

    fn unexpected_lit_type(lit: &Lit) -> Self {
        Error::unexpected_type(match lit {
            Lit::Str(_) => "string",
            Lit::ByteStr(_) => "byte string",
            Lit::Byte(_) => "byte",
            Lit::Char(_) => "char",
            Lit::Int(_) => "int",
            Lit::Float(_) => "float",
            Lit::Bool(_) => "bool",
            Lit::Verbatim(_) => "verbatim",
            _ => "unknown",
        })
        .with_span(lit)
    }

    /// Places the error at `node`, unless it is placed already.
    pub fn with_span<T: Spanned>(mut self, node: &T) -> Self {
        if self.span.is_none() {
            self.span = Some(node.span());
        }
        self
    }

    /// Notes the key the error was found under.
    fn at(mut self, location: &str) -> Self {
        self.locations.insert(0, location.to_owned());
        self
    }

    fn multiple(mut errors: Vec<Error>) -> Self {
        if errors.len() == 1 {
            errors.pop().expect("one error")
        } else {
            Error {
                kind: Kind::Multiple(errors),
                locations: Vec::new(),
                span: None,
            }
        }
    }

    fn len(&self) -> usize {
        match &self.kind {
            Kind::Message(_) => 1,
            Kind::Multiple(errors) => errors.iter().map(Error::len).sum(),
        }
    }

    fn into_vec(self) -> Vec<Error> {
        match self.kind {
            Kind::Multiple(errors) => {
                let locations = self.locations;
                errors
                    .into_iter()
                    .flat_map(|mut error| {
                        if !locations.is_empty() {
                            let mut all = locations.clone();
                            all.extend(error.locations);
                            error.locations = all;
                        }
                        error.into_vec()
                    })
                    .collect()
            }
            _ => vec![self],
        }
    }

    /// An accumulator of errors.
    pub fn accumulator() -> Accumulator {
        Accumulator(Vec::new())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Message(message) => f.write_str(message),
            Kind::Multiple(errors) if errors.len() == 1 => errors[0].fmt(f),
            Kind::Multiple(errors) => {
                f.write_str("Multiple errors: (")?;
                for (i, error) in errors.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    error.fmt(f)?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.locations.is_empty() {
            write!(f, " at {}", self.locations.join("/"))?;
        }
        Ok(())
    }
}

impl From<syn::Error> for Error {
    fn from(error: syn::Error) -> Self {
        Error {
            span: Some(error.span()),
            ..Error::custom(error)
        }
    }
}

impl From<Error> for syn::Error {
    fn from(error: Error) -> Self {
        if error.len() == 1 {
            match error.span {
                // A placed error needs no key path: the span shows it.
                Some(span) => syn::Error::new(span, error.kind),
                None => syn::Error::new(Span::call_site(), error),
            }
        } else {
            let mut errors = error.into_vec().into_iter().map(syn::Error::from);
            let mut combined = errors.next().expect("at least one error");
            for next in errors {
                combined.combine(next);
            }
            combined
        }
    }
}

/// Collects errors so that every problem is reported at once.
pub struct Accumulator(Vec<Error>);

impl Accumulator {
    /// The value, or `None` with the error kept.
    pub fn handle<T>(&mut self, result: Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// Keeps an error.
    pub fn push(&mut self, error: Error) {
        self.0.push(error);
    }

    /// `success` when nothing was kept, else every error.
    pub fn finish_with<T>(self, success: T) -> Result<T> {
        if self.0.is_empty() {
            Ok(success)
        } else {
            Err(Error::multiple(self.0))
        }
    }
}

/// A value read from one attribute argument; the default methods dispatch
/// on the argument's shape as darling's `FromMeta` does.
pub trait FromMeta: Sized {
    /// From `key`, `key = value` or `key(...)`.
    fn from_meta(item: &Meta) -> Result<Self> {
        (match item {
            Meta::Path(_) => Self::from_word(),
            Meta::List(list) => Self::from_list(&NestedMeta::parse_meta_list(list.tokens.clone())?),
            Meta::NameValue(nv) => Self::from_expr(&nv.value),
        })
        .map_err(|e| e.with_span(item))
    }

    /// From a bare `key`.
    fn from_word() -> Result<Self> {
        Err(Error::unsupported_format("word"))
    }

    /// From the items of `key(...)`.
    fn from_list(_items: &[NestedMeta]) -> Result<Self> {
        Err(Error::unsupported_format("list"))
    }

    /// From a literal value.
    fn from_value(value: &Lit) -> Result<Self> {
        (match value {
            Lit::Bool(b) => Self::from_bool(b.value),
            Lit::Str(s) => Self::from_string(&s.value()),
            Lit::Char(c) => Self::from_char(c.value()),
            _ => Err(Error::unexpected_lit_type(value)),
        })
        .map_err(|e| e.with_span(value))
    }

    /// From the value of `key = value`.
    fn from_expr(expr: &Expr) -> Result<Self> {
        match expr {
            Expr::Lit(lit) => Self::from_value(&lit.lit),
            // An invisible group, from a `macro_rules!` expansion.
            Expr::Group(group) => Self::from_expr(&group.expr),
            _ => Err(Error::unexpected_expr_type(expr)),
        }
        .map_err(|e| e.with_span(expr))
    }

    /// From a character literal.
    fn from_char(_value: char) -> Result<Self> {
        Err(Error::unexpected_type("char"))
    }

    /// From a string literal.
    fn from_string(_value: &str) -> Result<Self> {
        Err(Error::unexpected_type("string"))
    }

    /// From `true` or `false`.
    fn from_bool(_value: bool) -> Result<Self> {
        Err(Error::unexpected_type("bool"))
    }
}

impl FromMeta for String {
    fn from_string(value: &str) -> Result<Self> {
        Ok(value.to_owned())
    }
}

impl FromMeta for bool {
    fn from_word() -> Result<Self> {
        Ok(true)
    }

    fn from_bool(value: bool) -> Result<Self> {
        Ok(value)
    }

    fn from_string(value: &str) -> Result<Self> {
        value.parse().map_err(|_| {
            Error::custom(format!(
                "expected `true` or `false`, found the string {value:?}: write the boolean \
                 without quotes"
            ))
        })
    }
}

impl FromMeta for syn::Path {
    fn from_string(value: &str) -> Result<Self> {
        syn::parse_str(value).map_err(|_| Error::unknown_value(value))
    }

    fn from_value(value: &Lit) -> Result<Self> {
        if let Lit::Str(v) = value {
            v.parse().map_err(|_| Error::unknown_lit_str_value(v))
        } else {
            Err(Error::unexpected_lit_type(value))
        }
    }

    fn from_expr(expr: &Expr) -> Result<Self> {
        match expr {
            Expr::Lit(lit) => Self::from_value(&lit.lit),
            Expr::Path(path) => Ok(path.path.clone()),
            Expr::Group(group) => Self::from_expr(&group.expr),
            _ => Err(Error::unexpected_expr_type(expr)),
        }
    }
}

impl FromMeta for syn::ExprPath {
    fn from_expr(expr: &Expr) -> Result<Self> {
        match expr {
            Expr::Path(path) => Ok(path.clone()),
            Expr::Lit(lit) => Self::from_value(&lit.lit),
            Expr::Group(group) => Self::from_expr(&group.expr),
            _ => Err(Error::unexpected_expr_type(expr)),
        }
    }

    fn from_value(value: &Lit) -> Result<Self> {
        if let Lit::Str(body) = value {
            body.parse::<syn::ExprPath>()
                .map_err(|_| Error::unknown_lit_str_value(body))
        } else {
            Err(Error::unexpected_lit_type(value))
        }
    }
}

/// A value with where it was written.
#[derive(Debug, Clone)]
pub struct SpannedValue<T> {
    value: T,
    span: Span,
}

impl<T> SpannedValue<T> {
    /// `value`, written at `span`.
    pub fn new(value: T, span: Span) -> Self {
        SpannedValue { value, span }
    }

    /// Where the value was written.
    pub fn span(&self) -> Span {
        self.span
    }
}

impl<T> std::ops::Deref for SpannedValue<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> std::ops::DerefMut for SpannedValue<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: FromMeta> FromMeta for SpannedValue<T> {
    fn from_meta(item: &Meta) -> Result<Self> {
        let value = T::from_meta(item).map_err(|e| e.with_span(item))?;
        let span = match item {
            Meta::Path(path) => path.span(),
            Meta::List(list) => list.tokens.span(),
            Meta::NameValue(nv) => nv.value.span(),
        };
        Ok(SpannedValue::new(value, span))
    }
}

/// A key written on its own, such as `strict`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flag(Option<Span>);

impl Flag {
    /// Whether the key was written.
    pub fn is_present(&self) -> bool {
        self.0.is_some()
    }

    /// Where it was written (the call site when it was not).
    pub fn span(&self) -> Span {
        self.0.unwrap_or_else(Span::call_site)
    }
}

impl FromMeta for Flag {
    fn from_meta(item: &Meta) -> Result<Self> {
        match item {
            Meta::Path(path) => Ok(Flag(Some(path.span()))),
            // As darling, which words these as `()` would: each item of
            // `key(...)` is unknown; `key = value` has the wrong type.
            Meta::List(list) => {
                let items = NestedMeta::parse_meta_list(list.tokens.clone())
                    .map_err(|e| Error::from(e).with_span(item))?;
                let mut errors = Error::accumulator();
                for nested in &items {
                    errors.push(match nested {
                        NestedMeta::Meta(meta) => {
                            Error::unknown_field(&path_to_string(meta.path()), &[]).with_span(meta)
                        }
                        NestedMeta::Lit(lit) => {
                            Error::unexpected_expr_type(&Expr::Lit(syn::ExprLit {
                                attrs: Vec::new(),
                                lit: lit.clone(),
                            }))
                            .with_span(lit)
                        }
                    });
                }
                // darling has no error for an empty list here (it panics).
                if items.is_empty() {
                    errors.push(Error::unsupported_format("list"));
                }
                Err(errors.finish_with(()).unwrap_err().with_span(item))
            }
            Meta::NameValue(nv) => Err(<NoValue as FromMeta>::from_expr(&nv.value)
                .unwrap_err()
                .with_span(item)),
        }
    }
}

/// darling's `()`: a word only.
#[derive(Debug)]
struct NoValue;

impl FromMeta for NoValue {}

impl<T: FromMeta> FromMeta for Option<T> {
    fn from_meta(item: &Meta) -> Result<Self> {
        T::from_meta(item).map(Some)
    }
}

/// `a::b` as written.
fn path_to_string(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Where each key of an argument list goes.
pub trait Fields: Default {
    /// The keys, as written in attributes, in declaration order.
    const NAMES: &'static [&'static str];
    /// Whether `name` may be given more than once.
    fn multiple(_name: &str) -> bool {
        false
    }
    /// Reads the value of `name` (one of `NAMES`) from `meta` into its field.
    fn read(&mut self, name: &str, meta: &Meta) -> Result<()>;
}

/// Reads an argument list as darling's derived `from_list` does: each item
/// by its key, errors for unknown and repeated keys and bare literals, and
/// every error at once.
pub fn from_list<F: Fields>(items: &[NestedMeta]) -> Result<F> {
    let mut fields = F::default();
    let mut seen = BTreeSet::new();
    let mut errors = Error::accumulator();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for item in items {
        match item {
            NestedMeta::Meta(meta) => {
                let name = path_to_string(meta.path());
                match F::NAMES.iter().find(|known| **known == name) {
                    Some(&known) if F::multiple(known) => {
                        let count = counts.entry(known).or_default();
                        let location = format!("{known}[{count}]");
                        *count += 1;
                        errors.handle(
                            fields
                                .read(known, meta)
                                .map_err(|e| e.with_span(meta).at(&location)),
                        );
                    }
                    Some(&known) => {
                        if seen.insert(known) {
                            errors.handle(
                                fields
                                    .read(known, meta)
                                    .map_err(|e| e.with_span(meta).at(known)),
                            );
                        } else {
                            errors.push(Error::duplicate_field(known).with_span(meta));
                        }
                    }
                    None => errors.push(Error::unknown_field(&name, F::NAMES).with_span(meta)),
                }
            }
            NestedMeta::Lit(lit) => {
                errors.push(Error::unsupported_format("literal").with_span(lit))
            }
        }
    }
    errors.finish_with(fields)
}
