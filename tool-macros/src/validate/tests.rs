//! Unit tests of the checks, through parsing as the macro does.

use super::constraints::TypeKind;
use super::params::owned_param_type;
use super::*;
use crate::item::MaybeFn;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Type, parse_quote};

/// Every message parsing and validating `item` gives, one a line.
fn check(args: TokenStream, item: MaybeFn) -> String {
    let mut errors = Errors::new();
    let tool = crate::parse::tool(args, &item, None, &mut errors);
    super::tool(&tool, &mut errors);
    match errors.finish() {
        Ok(()) => String::new(),
        Err(error) => error
            .into_iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The messages for one parameter `x: ty` with `#[tool(keys)]`.
fn fit(ty: Type, keys: TokenStream) -> String {
    check(
        TokenStream::new(),
        parse_quote! {
            /// Doc.
            fn f(#[tool(#keys)] x: #ty) {}
        },
    )
}

#[test]
fn reports_every_error_at_once() {
    let error = check(
        quote!(nme = "x"),
        parse_quote! {
            const unsafe fn f<T>((a, b): (i32, i32), x: impl Fn()) {}
        },
    );
    for expected in [
        "nme",
        "const fn",
        "unsafe fn",
        "generic",
        "plain name",
        "impl Trait",
        "no description",
    ] {
        assert!(
            error.contains(expected),
            "{expected:?} missing from {error}"
        );
    }
}

#[test]
fn option_with_default_is_an_error() {
    let error = fit(parse_quote!(Option<u8>), quote!(default = 1));
    assert!(error.contains("already defaults to `None`"), "{error}");
}

#[test]
fn rejects_bad_timeouts_and_blocking_async() {
    let error = check(
        quote!(timeout = "soon", blocking),
        parse_quote! {
            /// Doc.
            async fn f() {}
        },
    );
    assert!(error.contains("cannot read the timeout"), "{error}");
    assert!(
        error.contains("`blocking` is for sync functions"),
        "{error}"
    );
}

#[test]
fn keys_on_injected_parameters_are_errors() {
    let error = check(
        TokenStream::new(),
        parse_quote! {
            /// Doc.
            fn f(
                #[tool(inject, rename = "d")] db: Db,
                #[tool(descripton = "x")] a: &ToolContext,
                b: &ToolContext,
            ) {}
        },
    );
    assert!(error.contains("`rename` has no effect"), "{error}");
    // A misspelt key is reported once, when the keys are read.
    assert!(!error.contains("`descripton` has no effect"), "{error}");
    assert!(error.contains("at most one `ToolContext`"), "{error}");
}

#[test]
fn receivers_depend_on_the_binding() {
    let error = check(
        TokenStream::new(),
        parse_quote! {
            /// Doc.
            fn f(&self) {}
        },
    );
    assert!(error.contains("cannot take `self`"), "{error}");
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
    assert!(fit(parse_quote!(String), quote!(range(1, 5))).contains("`range` bounds a number"));
    assert!(fit(parse_quote!(u8), quote!(length(max = 5))).contains("Use `range(...)`"));
    assert!(
        fit(parse_quote!(Vec<String>), quote!(pattern = "a")).contains("`pattern` matches strings")
    );
    assert!(fit(parse_quote!(u32), quote!(one_of = ["a"])).contains("allows a string (\"a\")"));
    assert!(fit(parse_quote!(String), quote!(one_of = [1])).contains("one_of = [\"a\", \"b\"]"));
    assert!(fit(parse_quote!(Vec<u8>), quote!(one_of = [1])).contains("single values"));
    assert!(
        fit(parse_quote!(HashMap<String, u8>), quote!(length(max = 2))).contains("Remove `length`")
    );
    assert!(fit(parse_quote!(u8), quote!(range(5, 1))).contains("swap them"));
    assert!(fit(parse_quote!(String), quote!(length(max = 1.5))).contains("whole number"));
    // What fits, and what the macro cannot judge, passes.
    assert_eq!(
        fit(parse_quote!(f64), quote!(range(0, 1), one_of = [0, 0.5])),
        ""
    );
    assert_eq!(
        fit(parse_quote!(String), quote!(length(1, 5), one_of = ["a"])),
        ""
    );
    assert_eq!(fit(parse_quote!(Vec<u8>), quote!(length(max = 3))), "");
    assert_eq!(
        fit(parse_quote!(Meters), quote!(range(0, 1), length(1, 2))),
        ""
    );
}

#[cfg(feature = "pattern")]
#[test]
fn patterns_must_compile_with_the_runtime_s_engine() {
    assert!(fit(parse_quote!(String), quote!(pattern = "(")).contains("not a valid regular"));
    assert!(fit(parse_quote!(String), quote!(pattern = r"^\p{L}+$")).contains("do not support"));
    assert_eq!(
        fit(
            parse_quote!(String),
            quote!(length(1, 5), pattern = "^a", one_of = ["a"])
        ),
        ""
    );
    assert_eq!(
        fit(
            parse_quote!(Meters),
            quote!(range(0, 1), length(1, 2), pattern = "a")
        ),
        ""
    );
}

#[cfg(not(feature = "pattern"))]
#[test]
fn patterns_need_the_pattern_feature() {
    assert!(fit(parse_quote!(String), quote!(pattern = "^a")).contains("`pattern` feature"));
}

#[test]
fn headers_need_primitive_parameters_and_header_names() {
    let header = |ty: Type| fit(ty, quote!(header));
    for ty in [
        parse_quote!(String),
        parse_quote!(std::string::String),
        parse_quote!(u64),
        parse_quote!(i8),
        parse_quote!(bool),
        parse_quote!(Option<String>),
        parse_quote!(Option<u32>),
    ] {
        assert_eq!(header(ty), "");
    }
    assert!(header(parse_quote!(f64)).contains("a floating-point number (`f64`)"));
    assert!(header(parse_quote!(Option<f32>)).contains("a floating-point number (`f32`)"));
    assert!(header(parse_quote!(Vec<String>)).contains("`x`, a list (`Vec<String>`)"));
    assert!(header(parse_quote!(HashMap<String, u8>)).contains("a map"));
    assert!(header(parse_quote!(Filter)).contains("`x` is `Filter`"));
    assert!(header(parse_quote!(Option<Option<String>>)).contains("`Option<String>`"));
    // A borrowed type is reported once, as borrowed.
    let borrowed = header(parse_quote!(&str));
    assert!(borrowed.contains("cannot borrow"), "{borrowed}");
    assert!(!borrowed.contains("`header`"), "{borrowed}");

    assert_eq!(
        fit(parse_quote!(String), quote!(header = "Tenant-Id_2")),
        ""
    );
    assert!(
        fit(parse_quote!(String), quote!(header = "Has Space"))
            .contains("invalid header name \"Has Space\": ' ' is not allowed")
    );
    assert!(
        fit(parse_quote!(String), quote!(header = ""))
            .contains("invalid header name \"\": it is empty")
    );
    assert!(
        fit(parse_quote!(String), quote!(header = "mcp-param-Region"))
            .contains("without `Mcp-Param-`, which the client adds: header = \"Region\"")
    );
    assert!(fit(parse_quote!(String), quote!(header = 5)).contains("Unexpected type `int`"));
}

#[test]
fn headers_are_unique_and_only_on_arguments() {
    let error = check(
        TokenStream::new(),
        parse_quote! {
            /// Doc.
            fn f(
                #[tool(header)] region: String,
                #[tool(header = "REGION")] zone: String,
                #[tool(header = "Zone")] other: u8,
                #[tool(inject, header)] db: Db,
                #[tool(header)] météo: String,
            ) {}
        },
    );
    assert!(
        error.contains(
            "`region` also sends the header Mcp-Param-REGION (header names are compared \
             ignoring case)"
        ),
        "{error}"
    );
    assert!(!error.contains("Mcp-Param-Zone"), "{error}");
    assert!(
        error.contains("`header` has no effect on an injected parameter"),
        "{error}"
    );
    assert!(
        error.contains(
            "the header name made from `météo` is not a valid HTTP header name ('é' is not \
             allowed)"
        ),
        "{error}"
    );
}

#[test]
fn borrowed_types_suggest_owned_ones() {
    let check = |ty: Type| {
        let mut errors = Errors::new();
        owned_param_type(&ty, &mut errors);
        errors
            .finish()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(check(parse_quote!(&str)).contains("Write `String` instead of `&str`"));
    assert!(check(parse_quote!(&'a [u32])).contains("Write `Vec<u32>` instead of `&'a [u32]`"));
    assert!(check(parse_quote!(Option<&Point>)).contains("Write `Point` instead of `&Point`"));
    assert_eq!(check(parse_quote!(Vec<String>)), "");
}

#[test]
fn aliases_are_checked() {
    let error = check(
        quote!(
            alias = "get",
            alias = "tools.get",
            alias = "get page",
            alias = "fetch",
            alias = "get",
            alias = ""
        ),
        parse_quote! {
            /// Doc.
            fn fetch() {}
        },
    );
    assert!(
        error.contains("invalid alias \"get page\": ' ' is not allowed"),
        "{error}"
    );
    assert!(error.contains("is the tool's own name"), "{error}");
    assert!(error.contains("given twice"), "{error}");
    assert!(error.contains("invalid alias \"\": it is empty"), "{error}");
    assert!(!error.contains("tools.get"), "{error}");
}

#[test]
fn names() {
    assert!(name_problem("get_weather-2").is_none());
    assert!(name_problem("").is_some());
    assert!(name_problem("has space").unwrap().contains("' '"));
    assert!(name_problem(&"x".repeat(65)).unwrap().contains("65"));
    assert!(name_problem("météo").is_some());
}

#[test]
fn reads_task_support_and_rejects_other_values() {
    let tool = |args: TokenStream| {
        let mut errors = Errors::new();
        let item: MaybeFn = parse_quote! {
            /// Doc.
            fn f() {}
        };
        let tool = crate::parse::tool(args, &item, None, &mut errors);
        super::tool(&tool, &mut errors);
        assert!(errors.finish().is_ok());
        tool.options.task_support()
    };
    use crate::model::TaskMode;
    assert_eq!(tool(quote!()), None);
    assert_eq!(tool(quote!(task)), Some(TaskMode::Optional));
    assert_eq!(tool(quote!(task = "optional")), Some(TaskMode::Optional));
    assert_eq!(tool(quote!(task = "required")), Some(TaskMode::Required));
    assert_eq!(
        tool(quote!(task = "after_input")),
        Some(TaskMode::AfterInput)
    );
    let error = check(
        quote!(task = "always"),
        parse_quote! {
            /// Doc.
            fn f() {}
        },
    );
    assert!(error.contains("unknown task support \"always\""), "{error}");
    assert!(error.contains("task = \"required\""), "{error}");
}

/// The messages for a tool `/// Doc. fn f(x: String) {}` with `#[tool(args)]`.
fn keys(args: TokenStream) -> String {
    check(
        args,
        parse_quote! {
            /// Doc.
            fn f(x: String) {}
        },
    )
}

#[test]
fn versions_are_semantic() {
    for good in [
        "2.0.0",
        "0.1.0-alpha.1",
        "1.2.3+build.5",
        "1.0.0-rc.1+sha.abc",
    ] {
        assert_eq!(keys(quote!(version = #good)), "", "{good}");
    }
    for bad in ["2.0", "v2.0.0", "01.0.0", "2.0.0-", ""] {
        let error = keys(quote!(version = #bad));
        assert!(
            error.contains("`version` takes a semantic version such as \"2.0.0\"")
                && error.contains(&format!("found \"{bad}\"")),
            "{bad}: {error}"
        );
    }
    assert!(keys(quote!(version = 2)).contains("Unexpected type `int`"));
}

#[test]
fn deprecation_takes_a_word_or_a_string() {
    assert_eq!(keys(quote!(deprecated)), "");
    assert_eq!(keys(quote!(deprecated = "use g")), "");
    for bad in [quote!(deprecated = 5), quote!(deprecated(note = "x"))] {
        let error = keys(bad);
        assert!(error.starts_with("write `deprecated`, or"), "{error}");
    }
}

#[test]
fn requirements_are_named() {
    assert_eq!(
        keys(quote!(requires(
            env = "A",
            env = ["B", "C"],
            program = "git",
            feature = "f"
        ))),
        ""
    );
    let error = keys(quote!(requires(envs = "A")));
    assert!(
        error.starts_with("unknown requirement `envs`, did you mean `env`?")
            && error.contains("`program = \"name\"` and `feature = \"name\"`"),
        "{error}"
    );
    let error = keys(quote!(requires(path = "A")));
    assert!(
        error.starts_with("unknown requirement `path`. `requires(..)` takes"),
        "{error}"
    );
    let error = keys(quote!(requires(env = "", program = [" "], feature = "ok")));
    assert_eq!(error.lines().count(), 2, "{error}");
    assert!(error.contains("an empty `env` names nothing"), "{error}");
    assert!(
        error.contains("an empty `program` names nothing"),
        "{error}"
    );
    assert!(keys(quote!(requires(env = 1))).contains("takes a string or a list of strings"));
    assert!(keys(quote!(requires(env = []))).starts_with("an empty list names nothing"));
    assert!(keys(quote!(requires)).starts_with("write the requirements as requires("));
    assert!(keys(quote!(requires())).starts_with("write the requirements as requires("));
}

#[test]
fn scopes_are_scope_tokens() {
    assert_eq!(keys(quote!(scopes("files:read", "files:write"))), "");
    assert_eq!(keys(quote!(scopes("https://api.example.com/files"))), "");
    let error = keys(quote!(scopes(
        "files:read files:write",
        "",
        "caf\u{e9}",
        "a\"b"
    )));
    assert_eq!(error.lines().count(), 4, "{error}");
    assert!(
        error.contains("the scope \"files:read files:write\" holds ' ': a scope is one word"),
        "{error}"
    );
    assert!(error.contains("an empty scope names nothing"), "{error}");
    assert!(
        error.contains("holds 'é', which OAuth does not allow in a scope"),
        "{error}"
    );
    assert!(error.contains("holds '\"', which OAuth"), "{error}");
    let error = keys(quote!(scopes("a", "b", "a")));
    assert_eq!(error, "the scope \"a\" is given twice. Remove one");
    let error = keys(quote!(scopes("a"), scopes("b")));
    assert!(error.starts_with("`scopes` is written twice"), "{error}");
    assert!(keys(quote!(scopes())).starts_with("an empty `scopes()` asks for no scope"));
    for bad in [quote!(scopes), quote!(scopes = "a"), quote!(scopes = ["a"])] {
        let error = keys(bad);
        assert!(
            error.starts_with("`scopes` takes a list of string literals"),
            "{error}"
        );
    }
    let error = keys(quote!(scopes("a", files_read, 3)));
    assert_eq!(error.lines().count(), 2, "{error}");
    assert!(
        error.starts_with("each scope is a string literal"),
        "{error}"
    );
}

#[test]
fn flags_take_no_value() {
    assert_eq!(keys(quote!(sequential)), "");
    for bad in [
        quote!(sequential = 3),
        quote!(sequential = true),
        quote!(sequential(x)),
    ] {
        let error = keys(bad);
        assert!(
            error.starts_with("`sequential` is a flag and takes no value"),
            "{error}"
        );
    }
}

#[test]
fn result_limits_are_read() {
    for good in [
        "64KB",
        "64 KiB",
        "2MB",
        "1 MiB",
        "500",
        "500 bytes",
        "2000 tokens",
    ] {
        assert_eq!(keys(quote!(result_limit = #good)), "", "{good}");
    }
    let error = keys(quote!(result_limit = "0 KB"));
    assert!(error.starts_with("a result limit of zero"), "{error}");
    for bad in ["64 GB", "1.5MB", "lots", "-1"] {
        let error = keys(quote!(result_limit = #bad));
        assert!(
            error.starts_with(&format!("cannot read the result limit \"{bad}\""))
                && error.contains("\"2000 tokens\""),
            "{bad}: {error}"
        );
    }
}

#[test]
fn format_and_transforms_take_paths() {
    assert_eq!(keys(quote!(format = Terse, transform = legacy::rename)), "");
    assert_eq!(keys(quote!(transform = "legacy::rename")), "");
    for bad in [quote!(format), quote!(format = 1), quote!(format(Terse))] {
        let error = keys(bad);
        assert!(
            error.starts_with("`format` takes the path of a value"),
            "{error}"
        );
    }
    let error = keys(quote!(transform = |v| v));
    assert!(
        error.starts_with("`transform` on the function takes the path"),
        "{error}"
    );
    assert_eq!(fit(parse_quote!(String), quote!(transform = trim)), "");
    for bad in [
        quote!(transform),
        quote!(transform = 3),
        quote!(transform(trim)),
    ] {
        let error = fit(parse_quote!(String), bad);
        assert!(
            error.starts_with("`transform` takes the path of a function `fn(T) -> T`"),
            "{error}"
        );
    }
    // An injected parameter is not the model's to send: nothing to transform.
    let error = check(
        TokenStream::new(),
        parse_quote! {
            /// Doc.
            fn f(#[tool(inject, transform = trim)] db: Db) {}
        },
    );
    assert!(
        error.starts_with("`transform` has no effect on an injected parameter"),
        "{error}"
    );
}

#[test]
fn rust_deprecated_is_read() {
    let read = |item: MaybeFn| {
        let mut errors = Errors::new();
        let tool = crate::parse::tool(TokenStream::new(), &item, None, &mut errors);
        errors.finish().unwrap();
        tool.options.deprecated
    };
    let note = read(parse_quote! {
        /// Doc.
        #[deprecated(since = "1.0.0", note = "use g")]
        fn f() {}
    });
    assert_eq!(note.as_deref(), Some("use g"));
    let bare = read(parse_quote! {
        /// Doc.
        #[deprecated]
        fn f() {}
    });
    assert_eq!(bare.as_deref(), Some("deprecated"));
    let named = read(parse_quote! {
        /// Doc.
        #[deprecated = "use h"]
        fn f() {}
    });
    assert_eq!(named.as_deref(), Some("use h"));
    let neither = read(parse_quote! {
        /// Doc.
        fn f() {}
    });
    assert_eq!(neither, None);
}
