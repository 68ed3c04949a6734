//! Rules on names that the providers impose.

use proc_macro2::Span;
use std::collections::HashMap;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(name_problem("get_weather-2").is_none());
        assert!(name_problem("").is_some());
        assert!(name_problem("has space").unwrap().contains("' '"));
        assert!(name_problem(&"x".repeat(65)).unwrap().contains("65"));
        assert!(name_problem("météo").is_some());
    }
}
