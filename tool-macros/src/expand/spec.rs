//! The tool's spec: the `SPEC` constant, with the functions it points to as
//! closures (the schemas, cached in one `static`; each parameter's schema,
//! check and default), and the assertions that each type the user named can
//! play its part.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr::OneOfValue;
use crate::model::{
    ArgParam, Limit, Output, Param, ParamConstraints, TaskMode, ToolFn, ToolOptions,
};

/// `impl Tool { pub const SPEC }` and the items it names.
pub fn spec(tool: &ToolFn) -> TokenStream {
    let struct_ident = &tool.struct_ident;
    let name = tool.name.as_str();
    let description = tool.description.as_str();
    let params = tool.args().map(|(i, param, arg)| param_spec(i, param, arg));
    let line = quote_spanned!(tool.fn_ident.span()=> ::core::line!());
    let (config, config_fn) = config(tool);
    let mut options = options(tool);
    options.extend(config);
    // `..` only when some option is left unset (else clippy says it is
    // needless, in the user's crate).
    let defaults = (options.len() < SPEC_OPTIONS).then(|| quote!(..__tool_rt::SPEC_DEFAULTS));
    let output_ty = match tool.output.value_type() {
        Some(ty) => quote!(#ty),
        None => quote!(()),
    };
    let assertions = assertions(tool);
    quote! {
        impl #struct_ident {
            /// The tool's name, description and parameters.
            pub const SPEC: __tool_rt::ToolSpec = __tool_rt::ToolSpec {
                name: __tool_rt::Cow::Borrowed(#name),
                description: __tool_rt::Cow::Borrowed(#description),
                params: &[#(#params),*],
                location: __tool_rt::location(::core::module_path!(), ::core::file!(), #line),
                #(#options)*
                input_schema: __tool_rt::SchemaSource::Generated(|| __TOOL_SCHEMAS.input(Self::SPEC.params)),
                output_schema: __tool_rt::SchemaSource::Generated(|| __TOOL_SCHEMAS.output(|| __tool_rt::Kind::<#output_ty>::NEW.output_schema())),
                #defaults
            };
        }

        static __TOOL_SCHEMAS: __tool_rt::SchemaCells = __tool_rt::SchemaCells::new();

        #config_fn
        #assertions
    }
}

/// How many of `ToolSpec`'s fields are options, with a default in
/// `SPEC_DEFAULTS`: `title`, `annotations`, `strict`, `timeout`, `blocking`,
/// `needs_approval`, `streaming`, `aliases`, `config`, `task_support`,
/// `version`, `deprecated`, `requires`, `sequential`, `scopes`,
/// `result_limit`, `formatter`.
const SPEC_OPTIONS: usize = 17;

/// The fields of the options the attribute sets, `config` apart; the others
/// come from `SPEC_DEFAULTS`.
fn options(tool: &ToolFn) -> Vec<TokenStream> {
    let options = &tool.options;
    let mut fields = Vec::new();
    if let Some(title) = &options.title {
        fields.push(quote!(title: __tool_rt::Some(__tool_rt::Cow::Borrowed(#title)),));
    }
    let hints = [
        ("read_only", options.read_only),
        ("destructive", options.destructive),
        ("idempotent", options.idempotent),
        ("open_world", options.open_world),
    ];
    if hints.iter().any(|(_, hint)| hint.is_some()) {
        let hints = hints.iter().map(|(name, hint)| {
            let name = format_ident!("{}", name);
            let hint = option(hint.map(|hint| quote!(#hint)));
            quote!(#name: #hint)
        });
        fields.push(quote!(annotations: __tool_rt::ToolAnnotations { #(#hints),* },));
    }
    if options.strict {
        fields.push(quote!(strict: true,));
    }
    if let Some(ms) = options.timeout_ms() {
        fields.push(quote! {
            timeout: __tool_rt::Some(::core::time::Duration::from_millis(#ms)),
        });
    }
    if options.blocking.is_some() {
        fields.push(quote!(blocking: true,));
    }
    if options.needs_approval {
        fields.push(quote!(needs_approval: true,));
    }
    match options.task_support() {
        Some(TaskMode::Optional) => {
            fields.push(quote!(task_support: __tool_rt::TaskSupport::Optional,));
        }
        Some(TaskMode::Required) => {
            fields.push(quote!(task_support: __tool_rt::TaskSupport::Required,));
        }
        Some(TaskMode::AfterInput) => {
            fields.push(quote!(task_support: __tool_rt::TaskSupport::AfterInput,));
        }
        None => {}
    }
    if matches!(tool.output, Output::Stream { .. }) {
        fields.push(quote!(streaming: true,));
    }
    if !options.aliases.is_empty() {
        let aliases = options.aliases.iter().map(|alias| alias.as_str());
        fields.push(
            quote!(aliases: __tool_rt::Cow::Borrowed(&[#(__tool_rt::Cow::Borrowed(#aliases)),*]),),
        );
    }
    fields.extend(registry_options(options));
    fields
}

/// The fields of the options that describe the tool to a registry:
/// `version`, `deprecated`, `requires`, `sequential`, `scopes`,
/// `result_limit` and `formatter`.
fn registry_options(options: &ToolOptions) -> Vec<TokenStream> {
    let mut fields = Vec::new();
    if let Some(version) = &options.version {
        let version = version.as_str();
        fields.push(quote!(version: __tool_rt::Some(__tool_rt::Cow::Borrowed(#version)),));
    }
    if let Some(deprecated) = &options.deprecated {
        fields.push(quote!(deprecated: __tool_rt::Some(__tool_rt::Cow::Borrowed(#deprecated)),));
    }
    let requires = &options.requires;
    if !requires.is_empty() {
        let names = |values: &[crate::model::Sp<String>]| {
            let values = values.iter().map(|value| value.as_str());
            quote!(__tool_rt::Cow::Borrowed(&[#(__tool_rt::Cow::Borrowed(#values)),*]))
        };
        let env = names(&requires.env);
        let programs = names(&requires.programs);
        // `cfg!` expands in the user's crate: whether it was built with
        // the feature. A feature may also be a name the registry turns on,
        // which no Cargo feature declares: no warning for that.
        let features = requires.features.iter().map(|feature| {
            let name = feature.as_str();
            quote! {
                __tool_rt::Feature {
                    name: __tool_rt::Cow::Borrowed(#name),
                    built: {
                        #[allow(unexpected_cfgs)]
                        let __tool_built = ::core::cfg!(feature = #name);
                        __tool_built
                    },
                }
            }
        });
        fields.push(quote! {
            requires: __tool_rt::Requirements {
                env: #env,
                programs: #programs,
                features: __tool_rt::Cow::Borrowed(&[#(#features),*]),
            },
        });
    }
    if options.sequential {
        fields.push(quote!(sequential: true,));
    }
    if !options.scopes.is_empty() {
        let scopes = options.scopes.iter().map(|scope| scope.as_str());
        fields.push(
            quote!(scopes: __tool_rt::Cow::Borrowed(&[#(__tool_rt::Cow::Borrowed(#scopes)),*]),),
        );
    }
    match options.limit() {
        Some(Limit::Bytes(bytes)) => {
            let bytes = proc_macro2::Literal::u64_unsuffixed(bytes);
            fields.push(
                quote!(result_limit: __tool_rt::Some(__tool_rt::ResultLimit::Bytes(#bytes)),),
            );
        }
        Some(Limit::Tokens(tokens)) => {
            let tokens = proc_macro2::Literal::u64_unsuffixed(tokens);
            fields.push(
                quote!(result_limit: __tool_rt::Some(__tool_rt::ResultLimit::Tokens(#tokens)),),
            );
        }
        None => {}
    }
    // Spanned at the path: a value whose type is not a `ToolFormat` fails
    // its coercion to `&dyn ToolFormat` there, with the trait's message.
    if let Some(format) = &options.format {
        let formatter = quote_spanned!(format.span()=> __tool_rt::Formatter::Static(&#format));
        fields.push(quote!(formatter: __tool_rt::Some(#formatter),));
    }
    fields
}

/// One parameter's `ParamSpec`: what sets it apart from a required
/// parameter with no constraints; its type's schema and check, and the
/// rest, come from `Kind::<T>::PARAM`.
fn param_spec(index: usize, param: &Param, arg: &ArgParam) -> TokenStream {
    let name = arg.name.as_str();
    let description = &arg.description;
    let ty = &param.ty;
    // An `Option<T>` parameter is described, and checked alone, as its `T`.
    let schema_ty = arg.option_inner.as_ref().unwrap_or(ty);
    let required = (!arg.required()).then(|| quote!(required: false,));
    let default = arg.default.as_ref().map(|default| {
        let source = default.source();
        let make = super::default_fn(index);
        quote! {
            default: __tool_rt::Some(#source),
            default_fn: __tool_rt::Some(|| __tool_rt::Kind::<#ty>::NEW.default_json(#make())),
        }
    });
    let constraints = (!arg.constraints.is_empty()).then(|| {
        let constraints = constraints(&arg.constraints, schema_ty);
        quote!(constraints: #constraints,)
    });
    let header = arg.header.as_ref().map(|header| {
        let name = header.name.as_str();
        quote!(header: __tool_rt::Some(#name),)
    });
    quote! {
        __tool_rt::ParamSpec {
            name: #name,
            description: #description,
            #required
            #default
            #constraints
            #header
            ..__tool_rt::Kind::<#schema_ty>::PARAM
        }
    }
}

/// The `Constraints` literal for a parameter whose values are `ty`s.
fn constraints(constraints: &ParamConstraints, ty: &syn::Type) -> TokenStream {
    let float = |value: Option<f64>| option(value.map(|v| quote!(#v)));
    let whole = |value: Option<f64>| {
        option(value.map(|v| {
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
    let pattern = option(constraints.pattern.as_ref().map(|p| {
        let p = p.as_str();
        quote!(#p)
    }));
    let one_of = option(constraints.one_of.as_ref().map(|one_of| {
        let values = one_of.values.iter().map(|value| match value {
            OneOfValue::Str(s) => quote!(__tool_rt::Literal::Str(#s)),
            OneOfValue::Int(i) => quote!(__tool_rt::Literal::Int(#i)),
            OneOfValue::Float(f) => quote!(__tool_rt::Literal::Float(#f)),
            OneOfValue::Bool(b) => quote!(__tool_rt::Literal::Bool(#b)),
        });
        quote!(&[#(#values),*])
    }));
    // Spanned at the path, so a validator of the wrong shape is reported
    // where it is named.
    let validate_fn = option(constraints.validate.as_ref().map(|validate| {
        let call = quote_spanned! {validate.span()=>
            __tool_rt::Kind::<#ty>::NEW.arg_validate(__tool_value, #validate)
        };
        quote!(|__tool_value| #call)
    }));
    quote! {
        __tool_rt::Constraints {
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

/// The `config` field for `#[tool(config = T)]`, and its cached schema.
fn config(tool: &ToolFn) -> (Option<TokenStream>, TokenStream) {
    let Some(ty) = &tool.options.config else {
        return (None, quote!());
    };
    let type_name = quote!(#ty).to_string().replace(' ', "");
    let spec = quote! {
        config: __tool_rt::Some(__tool_rt::ConfigSpec {
            type_name: #type_name,
            schema_fn: __tool_config_schema,
            decode_fn: |__tool_value| {
                __tool_rt::Kind::<#ty>::NEW.config_decode(__tool_value, __tool_config_schema())
            },
        }),
    };
    let schema_fn = quote! {
        fn __tool_config_schema() -> &'static __tool_rt::serde_json::Value {
            static SCHEMA: __tool_rt::SchemaCell = __tool_rt::SchemaCell::new();
            SCHEMA.get_or_init(|| __tool_rt::Kind::<#ty>::NEW.config_schema())
        }
    };
    (Some(spec), schema_fn)
}

/// One compile-time check per type the user named, spanned at the type as
/// written, so an unmet bound is reported there, once, with the message of
/// the runtime's marker trait.
fn assertions(tool: &ToolFn) -> TokenStream {
    let args = tool.args().map(|(_, param, arg)| {
        let ty = arg.option_inner.as_ref().unwrap_or(&param.ty);
        quote_spanned!(ty.span()=> __tool_rt::assert_tool_arg::<#ty>();)
    });
    let output = output_assertions(&tool.output);
    let config = tool
        .options
        .config
        .as_ref()
        .map(|ty| quote_spanned!(ty.span()=> __tool_rt::assert_tool_config::<#ty>();));
    quote! {
        #[allow(dead_code)]
        fn __tool_assert_types() {
            #(#args)*
            #output
            #config
        }
    }
}

fn output_assertions(output: &Output) -> TokenStream {
    match output {
        Output::Value(ty) => quote_spanned!(ty.span()=> __tool_rt::assert_tool_return::<#ty>();),
        Output::Unit | Output::Opaque(_) => quote!(),
        Output::Result { ok, err } => {
            let ok = quote_spanned!(ok.span()=> __tool_rt::assert_tool_return::<#ok>(););
            let err = err
                .as_ref()
                .map(|err| quote_spanned!(err.span()=> __tool_rt::assert_tool_error::<#err>();));
            quote!(#ok #err)
        }
        Output::Stream { item } => output_assertions(item),
    }
}

fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(__tool_rt::Some(#value)),
        None => quote!(__tool_rt::None),
    }
}
