//! Emits the code for a [`ToolFn`]: the user's function as written (parameter
//! attributes removed, their docs moved to the function's rustdoc), the
//! tool's unit struct, and, inside `const _: () = { ... }`, the spec, the
//! shim and the registration.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Type};

use crate::attr::{DefaultValue, OneOfValue};
use crate::errors::Errors;
use crate::model::{ArgParam, Binding, Output, ParamConstraints, ParamKind, ToolFn};
use crate::parse;

/// The whole expansion of `#[tool]`. On errors, the function and a stub
/// struct are still emitted beside the errors, so the rest of the crate and
/// the IDE keep working and the user sees only the real mistakes.
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                format!("#[tool] goes on a function (`fn` or `async fn`): {error}"),
            );
            let error = error.to_compile_error();
            return quote!(#error #input);
        }
    };
    let mut errors = Errors::default();
    let model = parse::parse(args, &item, &mut errors);
    strip_param_attributes(&mut item);
    match (errors.finish(), model) {
        (Ok(()), Some(model)) => {
            append_docs(&mut item, &model.extra_docs);
            let generated = emit(&model);
            quote!(#item #generated)
        }
        (result, _) => {
            let errors = result.err().map(|e| e.to_compile_error());
            let stub = stub_struct(&item);
            quote!(#errors #item #stub)
        }
    }
}

/// Removes `#[tool(...)]` and doc attributes from parameters: rustc rejects
/// doc comments there, and the macro has read them.
fn strip_param_attributes(item: &mut ItemFn) {
    strip_signature_attributes(&mut item.sig);
}

/// Removes `#[tool(...)]` and doc attributes from a signature's parameters.
pub fn strip_signature_attributes(sig: &mut syn::Signature) {
    for input in &mut sig.inputs {
        if let syn::FnArg::Typed(typed) = input {
            typed
                .attrs
                .retain(|attr| !attr.path().is_ident("tool") && !attr.path().is_ident("doc"));
        }
    }
}

fn append_docs(item: &mut ItemFn, lines: &[String]) {
    append_doc_lines(&mut item.attrs, lines);
}

/// Appends `#[doc = ...]` lines to an item's attributes.
pub fn append_doc_lines(attrs: &mut Vec<syn::Attribute>, lines: &[String]) {
    for line in lines {
        attrs.push(syn::parse_quote!(#[doc = #line]));
    }
}

fn stub_struct(item: &ItemFn) -> TokenStream {
    // A function with `self` sits in an impl block, where a struct cannot go.
    if matches!(item.sig.inputs.first(), Some(syn::FnArg::Receiver(_))) {
        return TokenStream::new();
    }
    let vis = &item.vis;
    let ident = format_ident!(
        "{}Tool",
        parse::pascal_case(&item.sig.ident.to_string()),
        span = item.sig.ident.span()
    );
    quote! {
        #[allow(dead_code)]
        #vis struct #ident;
    }
}

pub fn emit(tool: &ToolFn) -> TokenStream {
    let krate = &tool.krate;
    let rt = quote!(#krate::__private);
    let struct_ident = &tool.struct_ident;
    let fn_ident = &tool.fn_ident;
    let name = &tool.name;
    let description = &tool.description;
    let target = match &tool.binding {
        Binding::Free => fn_ident.to_string(),
        Binding::Method { self_ty, .. } => {
            format!(
                "{}::{fn_ident}",
                quote!(#self_ty).to_string().replace(' ', "")
            )
        }
    };
    let doc = format!(
        "The tool `{name}`, made by `#[tool]` from [`{target}`]: its spec is \
         [`{struct_ident}::SPEC`]."
    );

    let args: Vec<(usize, &crate::model::Param, &ArgParam)> = tool
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.kind {
            ParamKind::Arg(arg) => Some((i, p, arg)),
            ParamKind::Injected => None,
        })
        .collect();

    let param_specs = args.iter().map(|(i, _, arg)| {
        let name = &arg.name;
        let description = &arg.description;
        let required = arg.required();
        let (default_source, default_fn) = match &arg.default {
            Some(default) => {
                let source = default.source();
                let json_fn = format_ident!("__tool_default_json_{}", i);
                (
                    quote!(::core::option::Option::Some(#source)),
                    quote!(::core::option::Option::Some(Self::#json_fn)),
                )
            }
            None => (
                quote!(::core::option::Option::None),
                quote!(::core::option::Option::None),
            ),
        };
        let constraints = constraints_tokens(&arg.constraints, *i, &rt);
        let schema_fn = format_ident!("__tool_schema_{}", i);
        let check_fn = format_ident!("__tool_check_{}", i);
        quote! {
            #rt::ParamSpec {
                name: #name,
                description: #description,
                required: #required,
                default: #default_source,
                constraints: #constraints,
                schema_fn: Self::#schema_fn,
                default_fn: #default_fn,
                check_fn: Self::#check_fn,
            }
        }
    });

    let default_fns = args.iter().filter_map(|(i, param, arg)| {
        let default = arg.default.as_ref()?;
        let ty = &param.ty;
        let value_fn = format_ident!("__tool_default_{}", i);
        let json_fn = format_ident!("__tool_default_json_{}", i);
        let value = default_expr(default, ty);
        Some(quote! {
            #[doc(hidden)]
            fn #value_fn() -> #ty {
                #value
            }
            #[doc(hidden)]
            fn #json_fn() -> ::core::option::Option<#rt::serde_json::Value> {
                #[allow(unused_imports)]
                use #rt::Fallback as _;
                #rt::Kind::<#ty>::NEW.default_json(Self::#value_fn())
            }
        })
    });

    // Everything generated code does with a parameter's type goes through
    // `Kind<T>`, whose fallback makes a type that is not a `ToolArg` fail
    // only its assertion (see `tool_runtime::__private`).
    let probe_imports = quote! {
        #[allow(unused_imports)]
        use #rt::Fallback as _;
    };
    let arg_fns = args.iter().map(|(i, param, arg)| {
        let ty = &param.ty;
        let schema_ty = arg.option_inner.as_ref().unwrap_or(ty);
        let schema_fn = format_ident!("__tool_schema_{}", i);
        let check_fn = format_ident!("__tool_check_{}", i);
        let probe = quote!(#rt::Kind::<#schema_ty>::NEW);
        quote! {
            #[doc(hidden)]
            fn #schema_fn(
                generator: &mut #rt::schemars::SchemaGenerator,
            ) -> #rt::schemars::Schema {
                #probe_imports
                #probe.arg_schema(generator)
            }
            #[doc(hidden)]
            fn #check_fn(
                value: &#rt::serde_json::Value,
            ) -> ::core::result::Result<(), #rt::CheckError> {
                #probe_imports
                #probe.arg_check(value)
            }
        }
    });

    let validator_fns = args.iter().filter_map(|(i, param, arg)| {
        let validate = arg.constraints.validate.as_ref()?;
        let ty = arg.option_inner.as_ref().unwrap_or(&param.ty);
        let validate_fn = format_ident!("__tool_validate_{}", i);
        let call = quote_spanned! {validate.span()=>
            #rt::Kind::<#ty>::NEW.arg_validate(value, #validate)
        };
        Some(quote! {
            #[doc(hidden)]
            fn #validate_fn(value: &#rt::serde_json::Value) -> ::core::result::Result<(), ::std::string::String> {
                #[allow(unused_imports)]
                use #rt::Fallback as _;
                #call
            }
        })
    });
    let (decode_fn, decode_str_fn) = if args.iter().any(|(_, _, arg)| !arg.constraints.is_empty()) {
        (quote!(decode_checked), quote!(decode_str_checked))
    } else {
        (quote!(decode), quote!(decode_str))
    };

    let args_deserialize = args_deserialize(&args, struct_ident, &rt);

    let assertions = tool.params.iter().filter_map(|param| match &param.kind {
        ParamKind::Arg(arg) => {
            let ty = arg.option_inner.as_ref().unwrap_or(&param.ty);
            Some(quote_spanned!(ty.span()=> #rt::assert_tool_arg::<#ty>();))
        }
        ParamKind::Injected => None,
    });
    let output_assertions = output_assertions(&tool.output, &rt);

    let mut extract = Vec::new();
    let mut call_args = Vec::new();
    for (i, param) in tool.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Arg(_) => {
                let ident = &param.ident;
                call_args.push(quote!(__tool_args.#ident));
            }
            ParamKind::Injected => {
                let ty = &param.ty;
                let binding = format_ident!("__tool_inject_{}", i);
                extract.push(quote_spanned! {ty.span()=>
                    let #binding = match <#ty as #rt::FromToolContext<'_>>::from_tool_context(__tool_ctx) {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(error) => {
                            return #rt::ToolFuture::ready(::core::result::Result::Err(error));
                        }
                    };
                });
                call_args.push(quote!(#binding));
            }
        }
    }

    let vis = &tool.vis;
    let (struct_def, callee, registration) = match &tool.binding {
        Binding::Free => (
            quote! {
                #[doc = #doc]
                #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
                #[allow(dead_code)]
                #vis struct #struct_ident;
            },
            quote!(#fn_ident),
            quote! {
                #rt::inventory::submit! {
                    #rt::Registration::new(&#struct_ident)
                }
            },
        ),
        Binding::Method {
            self_ty,
            takes_self: true,
        } => {
            call_args.insert(0, quote!(&*self.instance));
            (
                quote! {
                    #[doc = #doc]
                    #[allow(dead_code)]
                    #vis struct #struct_ident {
                        instance: ::std::sync::Arc<#self_ty>,
                    }

                    impl #struct_ident {
                        /// The tool, bound to `instance`.
                        #vis fn new(instance: ::std::sync::Arc<#self_ty>) -> Self {
                            Self { instance }
                        }
                    }

                    impl ::core::clone::Clone for #struct_ident {
                        fn clone(&self) -> Self {
                            Self { instance: ::std::sync::Arc::clone(&self.instance) }
                        }
                    }

                    impl ::core::fmt::Debug for #struct_ident {
                        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            f.write_str(::core::stringify!(#struct_ident))
                        }
                    }
                },
                quote!(<#self_ty>::#fn_ident),
                quote!(),
            )
        }
        Binding::Method { self_ty, .. } => (
            quote! {
                #[doc = #doc]
                #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
                #[allow(dead_code)]
                #vis struct #struct_ident;
            },
            quote!(<#self_ty>::#fn_ident),
            quote!(),
        ),
    };

    let await_call = if tool.is_async {
        quote!(.await)
    } else {
        quote!()
    };
    let run = match &tool.output {
        Output::Stream { item } => {
            let convert = convert_output(item, &rt);
            quote! {
                #rt::ToolFuture::pending(async move {
                    let __tool_stream = #callee(#(#call_args),*) #await_call;
                    #rt::drive_stream(__tool_stream, __tool_ctx, |__tool_ret| #convert).await
                })
            }
        }
        output => {
            let convert = convert_output(output, &rt);
            let call = quote! {
                let __tool_ret = #callee(#(#call_args),*) #await_call;
                #convert
            };
            if tool.is_async {
                quote!(#rt::ToolFuture::pending(async move { #call }))
            } else {
                quote!(#rt::ToolFuture::ready({ #call }))
            }
        }
    };

    let output_ty = match tool.output.value_type() {
        Some(ty) => quote!(#ty),
        None => quote!(()),
    };
    let options = &tool.options;
    let title = option_tokens(options.title.as_ref().map(|t| quote!(#t)));
    let hint = |value: Option<bool>| option_tokens(value.map(|v| quote!(#v)));
    let (read_only, destructive, idempotent, open_world) = (
        hint(options.read_only),
        hint(options.destructive),
        hint(options.idempotent),
        hint(options.open_world),
    );
    let strict = options.strict;
    let timeout = option_tokens(
        options
            .timeout_ms
            .map(|ms| quote!(::core::time::Duration::from_millis(#ms))),
    );
    let blocking = options.blocking;
    let needs_approval = options.needs_approval;
    let streaming = matches!(tool.output, Output::Stream { .. });
    let aliases = &options.aliases;
    let (config_spec, config_fns) = match &options.config {
        Some(ty) => {
            let type_name = quote!(#ty).to_string().replace(' ', "");
            (
                quote! {
                    ::core::option::Option::Some(#rt::ConfigSpec {
                        type_name: #type_name,
                        schema_fn: Self::__tool_config_schema,
                        decode_fn: Self::__tool_config_decode,
                    })
                },
                quote! {
                    #[doc(hidden)]
                    fn __tool_config_schema() -> &'static #rt::serde_json::Value {
                        static SCHEMA: #rt::SchemaCell = #rt::SchemaCell::new();
                        SCHEMA.get_or_init(|| {
                            #[allow(unused_imports)]
                            use #rt::Fallback as _;
                            #rt::Kind::<#ty>::NEW.config_schema()
                        })
                    }

                    #[doc(hidden)]
                    fn __tool_config_decode(
                        value: &#rt::serde_json::Value,
                    ) -> ::core::result::Result<#rt::ConfigValue, ::std::vec::Vec<#rt::ArgError>> {
                        #[allow(unused_imports)]
                        use #rt::Fallback as _;
                        #rt::Kind::<#ty>::NEW.config_decode(value, Self::__tool_config_schema())
                    }
                },
            )
        }
        None => (quote!(::core::option::Option::None), quote!()),
    };
    let config_assertion = options
        .config
        .as_ref()
        .map(|ty| quote_spanned!(ty.span()=> #rt::assert_tool_config::<#ty>();));
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    let args_ident = if args.is_empty() {
        quote!(_)
    } else {
        quote!(__tool_args)
    };

    // Decoding from text instantiates the argument struct's `Deserialize`
    // a second time, for serde_json's text deserializer: a cost in compile
    // time every tool pays, so it is opt-in.
    // Both entry points decode `__tool_input` with `decode`, then run the
    // function or end with the decoding error.
    let decode_then_run = |decode: &TokenStream| {
        quote! {
            match #rt::#decode::<__ToolArgs>(&Self::SPEC, __tool_input) {
                ::core::result::Result::Ok(args) => self.__tool_run(args, __tool_ctx),
                ::core::result::Result::Err(error) => {
                    #rt::ToolFuture::ready(::core::result::Result::Err(error))
                }
            }
        }
    };
    let call_body = decode_then_run(&decode_fn);
    // The context reaches the function only through injected parameters,
    // and a stream's items through it; a tool with neither never reads it,
    // and says so, so a registry need not build one per call.
    let reads_context = streaming
        || tool
            .params
            .iter()
            .any(|param| matches!(param.kind, ParamKind::Injected));
    let takes_context = if reads_context {
        quote!()
    } else {
        quote! {
            fn takes_context(&self) -> bool {
                false
            }
        }
    };
    let call_str = if cfg!(feature = "text-args") {
        let body = decode_then_run(&decode_str_fn);
        quote! {
            fn call_str<'__tool>(
                &'__tool self,
                __tool_input: &'__tool str,
                __tool_ctx: &'__tool #rt::ToolContext,
            ) -> #rt::ToolFuture<'__tool> {
                #body
            }
        }
    } else {
        quote!()
    };

    quote! {
        #struct_def

        const _: () = {
            #[automatically_derived]
            impl #struct_ident {
                /// The tool's name, description and parameters.
                pub const SPEC: #rt::ToolSpec = #rt::ToolSpec {
                    name: #name,
                    description: #description,
                    params: &[#(#param_specs),*],
                    location: #rt::SourceLocation {
                        module: ::core::module_path!(),
                        file: ::core::file!(),
                        line: #line,
                    },
                    title: #title,
                    annotations: #rt::ToolAnnotations {
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                    },
                    strict: #strict,
                    timeout: #timeout,
                    blocking: #blocking,
                    needs_approval: #needs_approval,
                    streaming: #streaming,
                    aliases: &[#(#aliases),*],
                    config: #config_spec,
                    input_schema_fn: Self::__tool_input_schema,
                    output_schema_fn: Self::__tool_output_schema,
                };

                #[doc(hidden)]
                fn __tool_input_schema() -> &'static #rt::serde_json::Value {
                    static SCHEMA: #rt::SchemaCell = #rt::SchemaCell::new();
                    SCHEMA.get_or_init(|| #rt::input_schema(Self::SPEC.params))
                }

                #[doc(hidden)]
                fn __tool_output_schema() -> ::core::option::Option<&'static #rt::serde_json::Value> {
                    static SCHEMA: #rt::OptionalSchemaCell = #rt::OptionalSchemaCell::new();
                    SCHEMA
                        .get_or_init(|| {
                            #[allow(unused_imports)]
                            use #rt::{Fallback as _, JsonSchemaOutput as _};
                            #rt::Kind::<#output_ty>::NEW.output_schema()
                        })
                        .as_ref()
                }

                #[doc(hidden)]
                #[allow(dead_code)]
                fn __tool_assert_types() {
                    #(#assertions)*
                    #output_assertions
                    #config_assertion
                }

                #config_fns

                #(#arg_fns)*
                #(#default_fns)*
                #(#validator_fns)*
            }

            #args_deserialize

            #[automatically_derived]
            impl #struct_ident {
                /// Injects what the function asks of the context and calls
                /// it with the decoded arguments.
                #[doc(hidden)]
                #[inline]
                fn __tool_run<'__tool>(
                    &'__tool self,
                    #args_ident: __ToolArgs,
                    __tool_ctx: &'__tool #rt::ToolContext,
                ) -> #rt::ToolFuture<'__tool> {
                    #(#extract)*
                    #run
                }
            }

            #[automatically_derived]
            impl #rt::Tool for #struct_ident {
                fn spec(&self) -> &#rt::ToolSpec {
                    &Self::SPEC
                }

                fn call<'__tool>(
                    &'__tool self,
                    __tool_input: &'__tool #rt::serde_json::Value,
                    __tool_ctx: &'__tool #rt::ToolContext,
                ) -> #rt::ToolFuture<'__tool> {
                    #call_body
                }

                #takes_context

                #call_str
            }

            #registration
        };
    }
}

/// The expression a default stands for, spanned so a type mismatch points
/// at what the user wrote.
fn default_expr(default: &DefaultValue, ty: &Type) -> TokenStream {
    match default {
        DefaultValue::Trait(span) => quote_spanned!(*span=> ::core::default::Default::default()),
        DefaultValue::Expr(
            expr @ syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(_),
                ..
            }),
        ) => {
            quote_spanned!(expr.span()=> <#ty as ::core::convert::From<&'static str>>::from(#expr))
        }
        DefaultValue::Expr(expr) => quote_spanned!(expr.span()=> #expr),
    }
}

/// The `Constraints` literal for a parameter.
fn constraints_tokens(
    constraints: &ParamConstraints,
    index: usize,
    rt: &TokenStream,
) -> TokenStream {
    if constraints.is_empty() {
        return quote!(#rt::Constraints::NONE);
    }
    let float = |value: Option<f64>| option_tokens(value.map(|v| quote!(#v)));
    let whole = |value: Option<f64>| {
        option_tokens(value.map(|v| {
            let v = v as u64;
            quote!(#v)
        }))
    };
    let (minimum, maximum) = match &constraints.range {
        Some(range) => (float(range.min), float(range.max)),
        None => (float(None), float(None)),
    };
    let (min_length, max_length) = match &constraints.length {
        Some(length) => (whole(length.min), whole(length.max)),
        None => (whole(None), whole(None)),
    };
    let pattern = option_tokens(constraints.pattern.as_ref().map(|p| quote!(#p)));
    let one_of = option_tokens(constraints.one_of.as_ref().map(|values| {
        let values = values.iter().map(|value| match value {
            OneOfValue::Str(s) => quote!(#rt::Literal::Str(#s)),
            OneOfValue::Int(i) => quote!(#rt::Literal::Int(#i)),
            OneOfValue::Float(f) => quote!(#rt::Literal::Float(#f)),
            OneOfValue::Bool(b) => quote!(#rt::Literal::Bool(#b)),
        });
        quote!(&[#(#values),*])
    }));
    let validate_fn = option_tokens(constraints.validate.as_ref().map(|_| {
        let ident = format_ident!("__tool_validate_{}", index);
        quote!(Self::#ident)
    }));
    quote! {
        #rt::Constraints {
            minimum: #minimum,
            maximum: #maximum,
            min_length: #min_length,
            max_length: #max_length,
            pattern: #pattern,
            one_of: #one_of,
            validate_fn: #validate_fn,
        }
    }
}

fn option_tokens(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// Compile-time checks that the return type can become a result, spanned at
/// the return type so errors point there.
fn output_assertions(output: &Output, rt: &TokenStream) -> TokenStream {
    match output {
        Output::Value(ty) => quote_spanned!(ty.span()=> #rt::assert_tool_return::<#ty>();),
        Output::Unit => quote!(),
        Output::Result { ok, err } => {
            let ok_check = quote_spanned!(ok.span()=> #rt::assert_tool_return::<#ok>(););
            let err_check = err
                .as_ref()
                .map(|err| quote_spanned!(err.span()=> #rt::assert_tool_error::<#err>();));
            quote!(#ok_check #err_check)
        }
        Output::Stream { item } => output_assertions(item, rt),
    }
}

/// Converts `__tool_ret` into `Result<ToolOutput, ToolError>`, through
/// `Convert`, whose last fallback leaves a type that cannot convert to its
/// assertion in `output_assertions`.
fn convert_output(output: &Output, rt: &TokenStream) -> TokenStream {
    let value = |v: TokenStream| {
        quote! {{
            #[allow(unused_imports)]
            use #rt::{Fallback as _, SerializeOutput as _};
            #rt::Kind::of(&#v).output(#v)
        }}
    };
    match output {
        Output::Unit | Output::Value(_) | Output::Stream { .. } => value(quote!(__tool_ret)),
        Output::Result { .. } => {
            let ok = value(quote!(__tool_value));
            quote! {
                match __tool_ret {
                    ::core::result::Result::Ok(__tool_value) => #ok,
                    ::core::result::Result::Err(__tool_error) => ::core::result::Result::Err({
                        #[allow(unused_imports)]
                        use #rt::{DisplayError as _, Fallback as _};
                        #rt::Kind::of(&__tool_error).error(__tool_error)
                    }),
                }
            }
        }
    }
}

/// The argument struct and its `Deserialize` impl, written out rather than
/// derived: it reads a map only, and each field's value goes through the
/// `Kind<T>` dispatch, so a type without `Deserialize` fails only its
/// assertion, and no wrapper type is generated per field.
fn args_deserialize(
    args: &[(usize, &crate::model::Param, &ArgParam)],
    struct_ident: &syn::Ident,
    rt: &TokenStream,
) -> TokenStream {
    let de = quote!(#rt::serde::de);
    let names: Vec<&String> = args.iter().map(|(_, _, arg)| &arg.name).collect();
    let indices = 0..args.len();
    let slots: Vec<syn::Ident> = (0..args.len())
        .map(|n| format_ident!("__tool_slot_{}", n))
        .collect();
    let fields = args.iter().map(|(_, param, _)| {
        let ident = &param.ident;
        let ty = &param.ty;
        quote!(#ident: #ty)
    });
    // The type each field's value decodes as: a parameter with a default
    // reads `null` as the default, so it decodes as an `Option`. `KEYS`
    // yields only the indices of parameters, so the last one's arm is `_`:
    // the match is exhaustive with no arm that cannot run.
    let reads = args
        .iter()
        .zip(&slots)
        .enumerate()
        .map(|(n, ((_, param, arg), slot))| {
            let ty = &param.ty;
            let read_ty = match &arg.default {
                Some(_) => quote!(::core::option::Option<#ty>),
                None => quote!(#ty),
            };
            let name = &arg.name;
            let pattern = if n + 1 == args.len() {
                quote!(_)
            } else {
                quote!(#n)
            };
            quote! {
                #pattern => #rt::next_arg(
                    &mut __tool_map,
                    &mut #slot,
                    #rt::Kind::<#read_ty>::NEW.arg_seed(),
                    #name,
                )?,
            }
        });
    let read_loop = if args.is_empty() {
        quote! {
            while __tool_map.next_key_seed(KEYS)?.is_some() {}
        }
    } else {
        quote! {
            while let ::core::option::Option::Some(__tool_key) = __tool_map.next_key_seed(KEYS)? {
                match __tool_key {
                    #(#reads)*
                }
            }
        }
    };
    let values = args.iter().zip(&slots).map(|((i, param, arg), slot)| {
        let ident = &param.ident;
        let name = &arg.name;
        let value = match (&arg.default, &arg.option_inner) {
            (Some(_), _) => {
                let default_fn = format_ident!("__tool_default_{}", i);
                quote! {
                    match ::core::option::Option::flatten(#slot) {
                        ::core::option::Option::Some(value) => value,
                        ::core::option::Option::None => #struct_ident::#default_fn(),
                    }
                }
            }
            (None, Some(_)) => quote!(::core::option::Option::flatten(#slot)),
            (None, None) => quote!(#rt::required_arg(#slot, #name)?),
        };
        quote!(#ident: #value)
    });

    quote! {
        /// The arguments the model supplies, decoded from its JSON.
        struct __ToolArgs {
            #(#fields,)*
        }

        #[automatically_derived]
        impl<'de> #rt::serde::Deserialize<'de> for __ToolArgs {
            fn deserialize<__D>(__tool_deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: #rt::serde::Deserializer<'de>,
            {
                const FIELDS: &[&str] = &[#(#names),*];
                const KEYS: #rt::FieldKey = #rt::FieldKey {
                    fields: FIELDS,
                    index: |key| match key {
                        #(#names => ::core::option::Option::Some(#indices),)*
                        _ => ::core::option::Option::None,
                    },
                };

                struct __ToolArgsVisitor;

                impl<'de> #de::Visitor<'de> for __ToolArgsVisitor {
                    type Value = __ToolArgs;

                    fn expecting(
                        &self,
                        f: &mut ::core::fmt::Formatter<'_>,
                    ) -> ::core::fmt::Result {
                        f.write_str("the tool's arguments as a JSON object")
                    }

                    fn visit_map<__A>(
                        self,
                        mut __tool_map: __A,
                    ) -> ::core::result::Result<__ToolArgs, __A::Error>
                    where
                        __A: #de::MapAccess<'de>,
                    {
                        #[allow(unused_imports)]
                        use #rt::Fallback as _;
                        #(let mut #slots = ::core::option::Option::None;)*
                        #read_loop
                        ::core::result::Result::Ok(__ToolArgs {
                            #(#values,)*
                        })
                    }
                }

                __tool_deserializer.deserialize_struct("arguments", FIELDS, __ToolArgsVisitor)
            }
        }
    }
}
