//! The keys that describe a tool to a registry rather than to a model:
//! `version`, `requires(..)` and `result_limit`.

use crate::errors::Errors;
use crate::model::{Limit, Sp, ToolOptions};

/// Checks `version`, `requires(..)` and `result_limit`.
pub(super) fn spec_options(options: &ToolOptions, errors: &mut Errors) {
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
