//! The keys that describe a tool to a registry rather than to a model:
//! `version`, `requires(..)`, `result_limit` and `scopes(..)`.

use crate::errors::Errors;
use crate::model::{Limit, Sp, ToolOptions};

/// Checks `version`, `requires(..)`, `result_limit` and `scopes(..)`.
pub(super) fn spec_options(options: &ToolOptions, errors: &mut Errors) {
    scopes(options, errors);
    if let Some(version) = &options.version {
        version_problem(version, errors);
    }
    let requires = &options.requires;
    for (key, values) in [
        ("env", &requires.env),
        ("program", &requires.programs),
        ("feature", &requires.features),
    ] {
        for value in values.iter().filter(|value| value.trim().is_empty()) {
            errors.push(
                value.span(),
                format!(
                    "an empty `{key}` names nothing to require; write a name, as in \
                     {key} = \"{}\", or remove it",
                    match key {
                        "env" => "GITHUB_TOKEN",
                        "program" => "git",
                        _ => "search",
                    }
                ),
            );
        }
    }
    if let Some(limit) = &options.result_limit {
        match options.limit() {
            Some(Limit::Bytes(0) | Limit::Tokens(0)) => errors.push(
                limit.span(),
                "a result limit of zero would leave the model nothing of any result; write a \
                 size such as \"64KB\" or \"2000 tokens\", or remove `result_limit`",
            ),
            Some(_) => {}
            None => errors.push(
                limit.span(),
                format!(
                    "cannot read the result limit \"{}\": write a whole number of bytes or \
                     tokens, such as \"4096\", \"4096 bytes\", \"64KB\" (or \"64 KiB\", 1024 \
                     bytes each), \"2MB\" (or \"2 MiB\") or \"2000 tokens\"",
                    limit.as_str()
                ),
            ),
        }
    }
}

/// `version` must be a semantic version (semver.org): MAJOR.MINOR.PATCH,
/// with an optional `-pre` and `+build`.
fn version_problem(version: &Sp<String>, errors: &mut Errors) {
    if semver::Version::parse(version.as_str()).is_err() {
        errors.push(
            version.span(),
            format!(
                "`version` takes a semantic version such as \"2.0.0\" (MAJOR.MINOR.PATCH, \
                 optionally with a -pre-release and +build part, as in \"2.1.0-beta.1\"); \
                 found \"{}\"",
                version.as_str()
            ),
        );
    }
}

/// `scopes(..)`: written once, each scope an OAuth scope token (RFC 6749
/// §3.3: printable ASCII but space, `"` and `\`), none given twice.
fn scopes(options: &ToolOptions, errors: &mut Errors) {
    for again in &options.repeated_scopes {
        errors.push(
            *again,
            "`scopes` is written twice: list every scope a caller needs in one `scopes(..)`, \
             as in scopes(\"files:read\", \"files:write\")",
        );
    }
    let mut kept: Vec<&str> = Vec::new();
    for scope in &options.scopes {
        let text = scope.as_str();
        if let Some(problem) = scope_problem(text) {
            errors.push(scope.span(), problem);
        } else if kept.contains(&text) {
            errors.push(
                scope.span(),
                format!("the scope \"{text}\" is given twice. Remove one"),
            );
        } else {
            kept.push(text);
        }
    }
}

/// What is wrong with `scope` as a scope token, as the error to show.
fn scope_problem(scope: &str) -> Option<String> {
    if scope.is_empty() {
        return Some(
            "an empty scope names nothing a caller needs: write a scope, as in \
             scopes(\"files:read\"), or remove the empty string"
                .to_owned(),
        );
    }
    let token = |c: char| matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E');
    let bad = scope.chars().find(|c| !token(*c))?;
    Some(if bad.is_whitespace() {
        format!(
            "the scope {scope:?} holds {bad:?}: a scope is one word, so write each scope \
             as a string of its own, as in scopes(\"files:read\", \"files:write\")"
        )
    } else {
        format!(
            "the scope {scope:?} holds {bad:?}, which OAuth does not allow in a scope: use \
             printable ASCII other than space, `\"` and `\\`, as in scopes(\"files:read\")"
        )
    })
}
