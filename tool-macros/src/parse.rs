//! From tokens to the model: the attribute's keys, the signature, the
//! parameters and the return type become a [`ToolFn`] (or a [`Toolset`]),
//! with the spans of what was written.
//!
//! Parsing judges nothing the model can hold; that is `validate`'s job. Its
//! only errors are what the model cannot hold: keys that do not parse (with
//! a "did you mean" for a misspelt one), a parameter attribute that is not a list, a
//! parameter without a plain name. It always returns a model, so validation
//! runs too and the user sees every mistake at once.

use crate::meta::{self, Fields, FromMeta, NestedMeta};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Pat, PathArguments, ReturnType, Type};

use crate::attr::{DefaultValue, HeaderArg, ParamArgs, ToolArgs, written_keys};
use crate::docs::{self, FnDocs};
use crate::errors::Errors;
use crate::item::{ImplBlock, MaybeFn};
use crate::model::{
    ArgParam, Binding, FnShape, Header, Output, Param, ParamConstraints, ParamKind, Receiver,
    ReceiverForm, Requires, Sp, ToolFn, ToolOptions, Toolset,
};

/// Types the runtime injects, recognised by the last segment of their path.
/// Wrapper types count only with a type argument (`State<Db>`), so a user's
/// own `Config` struct stays an ordinary argument. Any other type can be
/// injected with `#[tool(inject)]`; the runtime decides how, through its
/// `FromToolContext` trait.
const INJECTED_TYPES: &[&str] = &["ToolContext", "Progress"];
const INJECTED_WRAPPERS: &[&str] = &["State", "Extension", "Config"];

/// Reads a function, or with `self_ty` a method of a `#[toolset]` impl
/// block, and the arguments of its `#[tool(...)]`.
pub fn tool(
    args: TokenStream,
    item: &MaybeFn,
    self_ty: Option<&Type>,
    errors: &mut Errors,
) -> ToolFn {
    let args = tool_args(args, errors);
    let sig = &item.sig;
    let fn_docs = docs::parse_fn_docs(&docs::doc_lines(&item.attrs));
    let mut receiver = None;
    let mut params = Vec::new();
    let mut documented = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(written) => receiver = Some(read_receiver(written)),
            FnArg::Typed(typed) => params.extend(param(typed, &fn_docs, &mut documented, errors)),
        }
    }

    let fn_name = sig.ident.to_string().trim_start_matches("r#").to_owned();
    let name = match &args.name {
        Some(name) => name.clone(),
        None => Sp::new(fn_name, sig.ident.span()),
    };
    let description = match &args.description {
        Some(description) => Sp::new(description.trim().to_owned(), description.span()),
        None => Sp::new(fn_docs.description.clone(), sig.ident.span()),
    };
    let extra_docs = if fn_docs.has_arguments_section || documented.is_empty() {
        Vec::new()
    } else {
        let mut lines = vec![String::new(), " # Arguments".to_owned(), String::new()];
        lines.extend(documented.into_iter().map(|line| format!(" {line}")));
        lines
    };

    ToolFn {
        fn_ident: sig.ident.clone(),
        binding: match self_ty {
            None => Binding::Free,
            Some(self_ty) => Binding::Method {
                self_ty: Box::new(self_ty.clone()),
            },
        },
        vis: item.vis.clone(),
        struct_ident: format_ident!(
            "{}{}Tool",
            self_ty.map(type_prefix).unwrap_or_default(),
            pascal_case(&sig.ident.to_string()),
            span = sig.ident.span()
        ),
        name,
        description,
        receiver,
        params,
        output: match &sig.output {
            ReturnType::Default => Output::Unit,
            ReturnType::Type(_, ty) => output(ty),
        },
        asyncness: sig.asyncness.map(|token| token.span),
        shape: shape(sig),
        krate: args
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::tool_runtime)),
        options: options(&args, &item.attrs),
        extra_docs,
    }
}

/// Reads a `#[toolset]` impl block: its type and each method marked
/// `#[tool]`, in order.
pub fn toolset(args: TokenStream, block: &ImplBlock, errors: &mut Errors) -> Toolset {
    let krate = toolset_crate(args, errors);
    let header = &block.header;
    let self_ty = (*header.self_ty).clone();
    let mut tools = Vec::new();
    for method in block.tool_methods() {
        let attr = method
            .attrs
            .iter()
            .find(|attr| attr.path().is_ident("tool"));
        let tool_args = match attr.map(|attr| &attr.meta) {
            None | Some(syn::Meta::Path(_)) => TokenStream::new(),
            Some(syn::Meta::List(list)) => list.tokens.clone(),
            Some(syn::Meta::NameValue(nv)) => {
                errors.push(nv.span(), "write #[tool] or #[tool(key = value, ...)]");
                TokenStream::new()
            }
        };
        let mut tool = tool(tool_args, method, Some(&self_ty), errors);
        if let Some(krate) = &krate {
            tool.krate = krate.clone();
        }
        tools.push(tool);
    }
    Toolset {
        self_ty,
        krate: krate.unwrap_or_else(|| syn::parse_quote!(::tool_runtime)),
        trait_path: header.trait_.as_ref().map(|(path, _)| path.clone()),
        generics: (!header.generics.params.is_empty())
            .then(|| header.generics.params.to_token_stream()),
        tools,
    }
}

/// `#[toolset(crate = path)]`.
fn toolset_crate(args: TokenStream, errors: &mut Errors) -> Option<syn::Path> {
    /// `#[toolset(...)]` arguments.
    #[derive(Default)]
    struct ToolsetArgs {
        /// The path of the runtime crate, for crates that re-export it.
        krate: Option<syn::Path>,
    }
    impl Fields for ToolsetArgs {
        const NAMES: &'static [&'static str] = &["crate"];

        fn read(&mut self, _name: &str, item: &syn::Meta) -> meta::Result<()> {
            self.krate = FromMeta::from_meta(item)?;
            Ok(())
        }
    }
    if args.is_empty() {
        return None;
    }
    match NestedMeta::parse_meta_list(args)
        .map_err(meta::Error::from)
        .and_then(|items| meta::from_list::<ToolsetArgs>(&items))
    {
        Ok(args) => args.krate,
        Err(error) => {
            errors.push_meta(error);
            None
        }
    }
}

fn tool_args(args: TokenStream, errors: &mut Errors) -> ToolArgs {
    if args.is_empty() {
        return ToolArgs::default();
    }
    let items = match NestedMeta::parse_meta_list(args) {
        Ok(items) => items,
        Err(error) => {
            errors.push_syn(error);
            return ToolArgs::default();
        }
    };
    match ToolArgs::from_list(&items) {
        Ok(args) => args,
        Err(error) => {
            errors.push_meta(error);
            ToolArgs::default()
        }
    }
}

fn param_args(attrs: &[syn::Attribute], errors: &mut Errors) -> ParamArgs {
    let mut items = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("tool")) {
        match &attr.meta {
            syn::Meta::List(list) => match NestedMeta::parse_meta_list(list.tokens.clone()) {
                Ok(list) => items.extend(list),
                Err(error) => errors.push_syn(error),
            },
            other => errors.push(
                other.span(),
                "write the parameter attribute as #[tool(key = value, ...)], for example \
                 #[tool(description = \"...\")]",
            ),
        }
    }
    match ParamArgs::from_list(&items) {
        Ok(args) => args,
        Err(error) => {
            errors.push_meta(error);
            ParamArgs::default()
        }
    }
}

fn options(args: &ToolArgs, attrs: &[syn::Attribute]) -> ToolOptions {
    let requires = args.requires.clone().unwrap_or_default();
    ToolOptions {
        version: args.version.clone(),
        deprecated: match &args.deprecated {
            Some(key) => Some(deprecation_text(key.0.as_deref())),
            None => rust_deprecation(attrs),
        },
        requires: Requires {
            env: requires.env,
            programs: requires.programs,
            features: requires.features,
        },
        sequential: args.sequential.is_present(),
        result_limit: args.result_limit.clone(),
        format: args.format.as_ref().map(|format| format.0.clone()),
        transform: args.transform.as_ref().map(|transform| transform.0.clone()),
        scopes: args
            .scopes
            .first()
            .map(|first| first.scopes.clone())
            .unwrap_or_default(),
        repeated_scopes: args.scopes.iter().skip(1).map(|again| again.span).collect(),
        ui: args.ui.clone(),
        visibility: args.visibility.clone(),
        title: args.title.as_ref().map(|t| t.as_str().to_owned()),
        read_only: args.read_only,
        destructive: args.destructive,
        idempotent: args.idempotent,
        open_world: args.open_world,
        strict: args.strict.is_present(),
        timeout: args.timeout.clone(),
        blocking: args.blocking.is_present().then(|| args.blocking.span()),
        needs_approval: args.needs_approval.is_present(),
        aliases: args.alias.clone(),
        config: args.config.as_ref().map(|config| config.0.clone()),
        register: args.register.clone(),
        task: args
            .task
            .as_ref()
            .map(|task| Sp::new(task.0.clone(), task.span())),
    }
}

/// The text of a deprecation: as written, or `"deprecated"` when nothing
/// (or nothing but spaces) says why.
fn deprecation_text(note: Option<&str>) -> String {
    match note.map(str::trim) {
        Some(note) if !note.is_empty() => note.to_owned(),
        _ => "deprecated".to_owned(),
    }
}

/// Rust's own `#[deprecated]`, `#[deprecated = ".."]` or
/// `#[deprecated(note = "..", since = "..")]` on the function, as the
/// deprecation's text. A form rustc refuses is rustc's to report.
fn rust_deprecation(attrs: &[syn::Attribute]) -> Option<String> {
    let attr = attrs
        .iter()
        .find(|attr| attr.path().is_ident("deprecated"))?;
    let note = match &attr.meta {
        syn::Meta::Path(_) => None,
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        },
        syn::Meta::List(_) => {
            let mut note = None;
            let _ = attr.parse_nested_meta(|meta| {
                let value: syn::LitStr = meta.value()?.parse()?;
                if meta.path.is_ident("note") {
                    note = Some(value.value());
                }
                Ok(())
            });
            note
        }
    };
    Some(deprecation_text(note.as_deref()))
}

fn shape(sig: &syn::Signature) -> FnShape {
    let generics = if !sig.generics.params.is_empty() {
        Some(sig.generics.to_token_stream())
    } else {
        // `Generics` prints only `<...>`; a bare `where` clause is separate.
        sig.generics
            .where_clause
            .as_ref()
            .map(ToTokens::to_token_stream)
    };
    FnShape {
        constness: sig.constness.map(|token| token.span),
        unsafety: match &sig.safety {
            syn::Safety::Unsafe(token) => Some(token.span),
            _ => None,
        },
        abi: sig.abi.as_ref().map(Spanned::span),
        variadic: sig.variadic.as_ref().map(Spanned::span),
        generics,
    }
}

fn read_receiver(receiver: &syn::Receiver) -> Receiver {
    let form = match &receiver.kind {
        syn::ReceiverKind::Reference(_, _, None) if receiver.mutability.is_none() => {
            ReceiverForm::Shared
        }
        syn::ReceiverKind::Reference(_, _, Some(_)) => ReceiverForm::Mut,
        _ if receiver.mutability.is_some() => ReceiverForm::Mut,
        _ => ReceiverForm::Other,
    };
    Receiver {
        tokens: receiver.to_token_stream(),
        self_span: receiver.self_token.span,
        form,
    }
}

/// One parameter; `documented` collects the `# Arguments` line its own
/// description makes.
fn param(
    typed: &syn::PatType,
    fn_docs: &FnDocs,
    documented: &mut Vec<String>,
    errors: &mut Errors,
) -> Option<Param> {
    let ident = param_ident(&typed.pat, errors)?;
    let mut args = param_args(&typed.attrs, errors);
    let keys = written_keys(&typed.attrs);
    let ty = (*typed.ty).clone();
    let injected = args.inject.is_present() || is_injected_type(&ty);
    let kind = if injected {
        ParamKind::Injected {
            context: is_context_type(&ty),
        }
    } else {
        // A bare `default` has no span of its own; point at the key.
        if let Some(DefaultValue::Trait(span)) = &mut args.default
            && let Some(key) = keys.iter().find(|key| key.as_str() == "default")
        {
            *span = key.span();
        }
        let rust_name = ident.to_string().trim_start_matches("r#").to_owned();
        let own = args
            .description
            .as_ref()
            .map(|d| d.as_str().to_owned())
            .or_else(|| docs::param_description(&typed.attrs));
        if let Some(text) = &own {
            documented.push(format!("* `{rust_name}` - {}", text.replace('\n', " ")));
        }
        let name = match &args.rename {
            Some(rename) => rename.clone(),
            None => Sp::new(rust_name.clone(), ident.span()),
        };
        let header = args.header.as_ref().map(|header| match &**header {
            HeaderArg::Named(written) => Header {
                name: Sp::new(written.clone(), header.span()),
                written: true,
            },
            HeaderArg::Derived => Header {
                name: Sp::new(header_name(&name), header.span()),
                written: false,
            },
        });
        ParamKind::Arg(ArgParam {
            name,
            renamed: args.rename.is_some(),
            description: own
                .or_else(|| fn_docs.arguments.get(&rust_name).cloned())
                .unwrap_or_default(),
            rust_name,
            option_inner: option_inner(&ty).cloned(),
            default: args.default,
            constraints: ParamConstraints {
                range: args.range,
                length: args.length,
                pattern: args.pattern,
                one_of: args.one_of,
                validate: args.validate,
            },
            header,
            transform: args.transform.map(|transform| transform.0),
        })
    };
    Some(Param {
        ident,
        ty,
        span: typed.span(),
        keys,
        kind,
    })
}

/// The name a parameter binds, or an error for a pattern.
fn param_ident(pat: &Pat, errors: &mut Errors) -> Option<proc_macro2::Ident> {
    match pat {
        Pat::Ident(pat_ident) if pat_ident.subpat.is_none() && pat_ident.by_ref.is_none() => {
            Some(pat_ident.ident.clone())
        }
        other => {
            errors.push(
                other.span(),
                "a tool parameter needs a plain name, which becomes its key in the JSON \
                 arguments. Write `name: Type` and destructure inside the function body",
            );
            None
        }
    }
}

/// The last path segment of a type, looking through references and groups.
pub(crate) fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Reference(reference) => last_segment(&reference.elem),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        _ => None,
    }
}

pub(crate) fn is_context_type(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "ToolContext" && s.arguments.is_none())
}

pub(crate) fn is_injected_type(ty: &Type) -> bool {
    let Some(segment) = last_segment(ty) else {
        return false;
    };
    let name = segment.ident.to_string();
    match &segment.arguments {
        PathArguments::None => INJECTED_TYPES.contains(&name.as_str()),
        PathArguments::AngleBracketed(_) => INJECTED_WRAPPERS.contains(&name.as_str()),
        PathArguments::Parenthesized(_) => false,
    }
}

/// For `Option<T>` (however the path to `Option` is written), the `T`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    if segment.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    let first = types.next()?;
    types.next().is_none().then_some(first)
}

/// Classifies a return type: a stream, unit, a `Result` (any path ending in
/// `Result`), or a value.
fn output(ty: &Type) -> Output {
    if let Type::ImplTrait(impl_trait) = ty {
        return match stream_item(impl_trait) {
            Some(item @ Type::ImplTrait(_)) => Output::Stream {
                item: Box::new(Output::Opaque(item.to_token_stream())),
            },
            Some(item) => Output::Stream {
                item: Box::new(output(item)),
            },
            None => Output::Opaque(impl_trait.to_token_stream()),
        };
    }
    if let Type::Tuple(tuple) = ty
        && tuple.elems.is_empty()
    {
        return Output::Unit;
    }
    if let Type::Path(path) = ty
        && let Some(segment) = path.path.segments.last()
        && segment.ident == "Result"
        && let PathArguments::AngleBracketed(args) = &segment.arguments
    {
        let mut types = args.args.iter().filter_map(|arg| match arg {
            GenericArgument::Type(ty) => Some(ty.clone()),
            _ => None,
        });
        if let Some(ok) = types.next() {
            return Output::Result {
                ok,
                err: types.next(),
            };
        }
    }
    Output::Value(ty.clone())
}

/// For `impl Stream<Item = T>` (any path ending in `Stream`), the `T`.
fn stream_item(impl_trait: &syn::TypeImplTrait) -> Option<&Type> {
    impl_trait.bounds.iter().find_map(|bound| {
        let syn::TypeParamBound::Trait(bound) = bound else {
            return None;
        };
        let segment = bound.path.segments.last()?;
        if segment.ident != "Stream" {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &segment.arguments else {
            return None;
        };
        args.args.iter().find_map(|arg| match arg {
            GenericArgument::AssocType(assoc) if assoc.ident == "Item" => Some(&assoc.ty),
            _ => None,
        })
    })
}

/// The name a toolset's type lends its tools' structs: `Db` for `Db`,
/// `crate::store::Db` or `&Db`.
fn type_prefix(ty: &Type) -> String {
    last_segment(ty)
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// The header name a bare `#[tool(header)]` gives a parameter named
/// `name` in the schema: each word capitalised, joined with `-`, as HTTP
/// headers are usually written (`tenant_id` → `Tenant-Id`; a `-` rather
/// than a `_`, which some proxies drop headers for).
fn header_name(name: &str) -> String {
    name.split(['_', '-'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// `weather_forecast` → `WeatherForecast`.
pub(crate) fn pascal_case(snake: &str) -> String {
    snake
        .trim_start_matches("r#")
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn model(args: TokenStream, item: MaybeFn) -> (ToolFn, String) {
        let mut errors = Errors::new();
        let model = tool(args, &item, None, &mut errors);
        let messages = match errors.finish() {
            Ok(()) => String::new(),
            Err(error) => error
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        };
        (model, messages)
    }

    #[test]
    fn reads_names_docs_defaults_and_context() {
        let (tool, errors) = model(
            TokenStream::new(),
            parse_quote! {
                /// Get the weather.
                async fn weather_forecast(
                    /// City name
                    city: String,
                    #[tool(default = 3, description = "Days ahead")]
                    days: u32,
                    unit: Option<Unit>,
                    ctx: &ToolContext,
                ) -> Result<String, ToolError> { Ok(city) }
            },
        );
        assert_eq!(errors, "");
        assert_eq!(tool.name.as_str(), "weather_forecast");
        assert_eq!(tool.struct_ident, "WeatherForecastTool");
        assert_eq!(tool.description.as_str(), "Get the weather.");
        assert!(tool.asyncness.is_some());
        let args: Vec<&ArgParam> = tool.args().map(|(_, _, arg)| arg).collect();
        assert_eq!(args.len(), 3);
        assert_eq!(args[0].description, "City name");
        assert!(args[0].required());
        assert_eq!(args[1].description, "Days ahead");
        assert!(!args[1].required());
        assert!(args[2].option_inner.is_some());
        assert!(matches!(
            tool.params[3].kind,
            ParamKind::Injected { context: true }
        ));
        assert!(matches!(tool.output, Output::Result { err: Some(_), .. }));
        assert_eq!(tool.extra_docs.len(), 5);
    }

    #[test]
    fn argument_section_supplies_missing_descriptions() {
        let (tool, errors) = model(
            quote::quote!(name = "lookup"),
            parse_quote! {
                /// Look a word up.
                ///
                /// # Arguments
                ///
                /// * `word` - The word
                fn find(word: String, #[tool(rename = "lang")] language: String) -> String { word }
            },
        );
        assert_eq!(errors, "");
        assert_eq!(tool.name.as_str(), "lookup");
        assert_eq!(tool.description.as_str(), "Look a word up.");
        let ParamKind::Arg(word) = &tool.params[0].kind else {
            panic!()
        };
        assert_eq!(word.description, "The word");
        let ParamKind::Arg(lang) = &tool.params[1].kind else {
            panic!()
        };
        assert_eq!(lang.name.as_str(), "lang");
        assert!(lang.renamed);
        assert!(tool.extra_docs.is_empty());
    }

    #[test]
    fn reports_only_what_the_model_cannot_hold() {
        let (tool, errors) = model(
            quote::quote!(nme = "x"),
            parse_quote! {
                const unsafe fn f<T>((a, b): (i32, i32), #[tool(rang(1))] x: u8) {}
            },
        );
        assert!(errors.contains("nme"), "{errors}");
        assert!(errors.contains("plain name"), "{errors}");
        assert!(errors.contains("rang"), "{errors}");
        assert!(!errors.contains("const fn"), "{errors}");
        // The rest is read for validation.
        assert!(tool.shape.constness.is_some() && tool.shape.generics.is_some());
        assert_eq!(tool.params.len(), 1);
    }

    #[test]
    fn records_written_keys_and_receivers() {
        let (tool, _) = model(
            TokenStream::new(),
            parse_quote! {
                fn f(&mut self, #[tool(inject, description = "x")] db: Db) {}
            },
        );
        assert_eq!(tool.receiver.as_ref().unwrap().form, ReceiverForm::Mut);
        let keys: Vec<&str> = tool.params[0].keys.iter().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["inject", "description"]);
        assert!(tool.params[0].key_span("description").is_some());
    }

    #[test]
    fn recognises_injected_types_by_name() {
        assert!(is_injected_type(&parse_quote!(&ToolContext)));
        assert!(is_injected_type(&parse_quote!(tool_runtime::ToolContext)));
        assert!(is_injected_type(&parse_quote!(State<Db>)));
        assert!(!is_injected_type(&parse_quote!(Config)));
        assert!(!is_injected_type(&parse_quote!(String)));
    }

    #[test]
    fn reads_options_and_streams() {
        let (tool, errors) = model(
            quote::quote!(
                title = "Search",
                read_only,
                strict,
                timeout = "1.5s",
                alias = "a",
                alias = "b"
            ),
            parse_quote! {
                /// Streams results.
                fn search(q: String) -> impl Stream<Item = Result<String, ToolError>> { stream::empty() }
            },
        );
        assert_eq!(errors, "");
        assert_eq!(tool.options.title.as_deref(), Some("Search"));
        assert_eq!(tool.options.read_only, Some(true));
        assert!(tool.options.strict);
        assert_eq!(tool.options.timeout_ms(), Some(1500));
        let aliases: Vec<&str> = tool.options.aliases.iter().map(|a| a.as_str()).collect();
        assert_eq!(aliases, ["a", "b"]);
        let Output::Stream { item } = &tool.output else {
            panic!("not a stream")
        };
        assert!(matches!(**item, Output::Result { .. }));
    }

    #[test]
    fn classifies_opaque_returns() {
        assert!(matches!(
            output(&parse_quote!(impl Fn())),
            Output::Opaque(_)
        ));
        let Output::Stream { item } = output(&parse_quote!(impl Stream<Item = impl Display>))
        else {
            panic!("not a stream")
        };
        assert!(matches!(*item, Output::Opaque(_)));
    }

    #[test]
    fn reads_headers() {
        let (tool, errors) = model(
            TokenStream::new(),
            parse_quote! {
                fn f(
                    #[tool(header)] tenant_id: String,
                    #[tool(header = "Zone", rename = "z")] zone: Option<u8>,
                    plain: bool,
                ) {}
            },
        );
        assert_eq!(errors, "");
        let headers: Vec<Option<(&str, bool)>> = tool
            .args()
            .map(|(_, _, arg)| arg.header.as_ref().map(|h| (h.name.as_str(), h.written)))
            .collect();
        assert_eq!(
            headers,
            [Some(("Tenant-Id", false)), Some(("Zone", true)), None]
        );
    }

    #[test]
    fn header_names_from_parameter_names() {
        assert_eq!(header_name("region"), "Region");
        assert_eq!(header_name("tenant_id"), "Tenant-Id");
        assert_eq!(header_name("x-api-version"), "X-Api-Version");
        assert_eq!(header_name("__a__b"), "A-B");
        assert_eq!(header_name("_"), "");
    }

    #[test]
    fn pascal_cases_names() {
        assert_eq!(pascal_case("weather_forecast"), "WeatherForecast");
        assert_eq!(pascal_case("r#type"), "Type");
        assert_eq!(pascal_case("a__b"), "AB");
    }
}
