//! Checks on the model, after parsing and before emission: every rule that
//! needs no type information, each error at the tokens that break it with a
//! sentence that says what to write instead. Nothing here stops at the first
//! problem; every check runs and pushes into the same `Errors`.

use std::collections::HashSet;

use crate::errors::Errors;
use crate::model::{Binding, Output, Param, ReceiverForm, Sp, ToolFn, ToolOptions, Toolset};
use header::unique_headers;

mod constraints;
mod header;
mod params;
mod spec_options;
#[cfg(test)]
mod tests;
mod types;

/// Checks a `#[toolset]` block and each of its tools.
pub fn toolset(set: &Toolset, errors: &mut Errors) {
    if let Some(path) = &set.trait_path {
        errors.push_spanned(
            path,
            "#[toolset] goes on an inherent impl block, not a trait impl. Write the tools in \
             `impl MyType { ... }`",
        );
    }
    if let Some(generics) = &set.generics {
        errors.push_spanned(
            generics,
            "a toolset cannot be generic: each tool needs one concrete type. Implement the \
             tools for a concrete type",
        );
    }
    for tool in &set.tools {
        self::tool(tool, errors);
    }
}

/// Checks one tool.
pub fn tool(tool: &ToolFn, errors: &mut Errors) {
    signature(tool, errors);
    receiver(tool, errors);
    let mut context: Option<&Param> = None;
    for param in &tool.params {
        params::param(param, &mut context, errors);
    }
    unique_param_names(tool, errors);
    unique_headers(tool, errors);
    tool_name(&tool.name, errors);
    if tool.description.trim().is_empty() {
        errors.push(
            tool.description.span(),
            format!(
                "tool `{}` has no description: a model cannot use a tool it is not told about. \
                 Add a doc comment above the function (`/// What the tool does.`) or write \
                 #[tool(description = \"...\")]",
                tool.name.as_str()
            ),
        );
    }
    output(&tool.output, errors);
    options(tool, &tool.options, errors);
}

/// Function shapes a tool cannot have.
fn signature(tool: &ToolFn, errors: &mut Errors) {
    let shape = &tool.shape;
    if let Some(span) = shape.constness {
        errors.push(
            span,
            "a tool cannot be a `const fn`: it runs when a model calls it. Remove `const`",
        );
    }
    if let Some(span) = shape.unsafety {
        errors.push(
            span,
            "a tool cannot be an `unsafe fn`: a model calling it cannot uphold its safety \
             contract. Make the function safe and put the `unsafe` block inside it",
        );
    }
    if let Some(span) = shape.abi {
        errors.push(
            span,
            "a tool cannot have an explicit ABI: it is called from Rust. Remove the `extern` part",
        );
    }
    if let Some(span) = shape.variadic {
        errors.push(
            span,
            "a tool cannot be variadic: the model passes named JSON arguments. Take a \
             `Vec<T>` parameter instead",
        );
    }
    if let Some(generics) = &shape.generics {
        errors.push_spanned(
            generics,
            "a tool cannot be generic: the model sends JSON, so each parameter needs one \
             concrete, owned type. Remove the generic parameters (and any `where` clause) and \
             name concrete types (`String`, not `&'a str`; `&ToolContext` needs no named lifetime), \
             or write one #[tool] per type that calls a generic helper",
        );
    }
}

/// `self`: only `&self`, and only in a `#[toolset]` block.
fn receiver(tool: &ToolFn, errors: &mut Errors) {
    let Some(receiver) = &tool.receiver else {
        return;
    };
    match (&tool.binding, receiver.form) {
        (Binding::Free, _) => errors.push(
            receiver.self_span,
            "#[tool] functions cannot take `self`: a tool is a free function the model calls \
             with JSON arguments. Mark the impl block with #[toolset] to make its `&self` \
             methods tools, or move the function out of the impl block and take what it needs \
             as parameters",
        ),
        (Binding::Method { .. }, ReceiverForm::Shared) => {}
        (Binding::Method { .. }, ReceiverForm::Mut) => errors.push_spanned(
            &receiver.tokens,
            "a tool method takes `&self`, not `&mut self`: calls may run at the same time, so \
             they share the instance. Keep mutable state behind a Mutex or atomics and take \
             `&self`",
        ),
        (Binding::Method { .. }, ReceiverForm::Other) => errors.push_spanned(
            &receiver.tokens,
            "a tool method takes `&self`: the instance is shared by every call, so it cannot \
             be consumed or taken in another form. Write `&self`",
        ),
    }
}

/// Two parameters may not share a schema name (after `rename`).
fn unique_param_names(tool: &ToolFn, errors: &mut Errors) {
    let mut seen = HashSet::new();
    for (_, param, arg) in tool.args() {
        if !seen.insert(arg.name.as_str()) {
            errors.push(
                param.ident.span(),
                format!(
                    "two parameters are named \"{}\" in the schema; rename one with \
                     #[tool(rename = \"...\")]",
                    arg.name.as_str()
                ),
            );
        }
    }
}

/// Checks a tool name against `^[a-zA-Z0-9_-]{1,64}$`, the names OpenAI,
/// Anthropic and Bedrock all accept.
fn tool_name(name: &Sp<String>, errors: &mut Errors) {
    if let Some(problem) = name_problem(name) {
        errors.push(
            name.span(),
            format!(
                "invalid tool name \"{}\": {problem}. Tool names must be 1 to 64 ASCII \
                 letters, digits, `_` or `-`, the names every provider accepts; choose one with \
                 #[tool(name = \"...\")]",
                name.as_str()
            ),
        );
    }
}

/// Checks a renamed parameter: the same alphabet as tool names.
fn param_name(name: &Sp<String>, errors: &mut Errors) {
    if let Some(problem) = name_problem(name) {
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

/// Return types the runtime cannot turn into a result.
fn output(output: &Output, errors: &mut Errors) {
    match output {
        Output::Opaque(tokens) => errors.push_spanned(
            tokens,
            "a tool cannot return `impl Trait` other than `impl Stream<Item = T>`: the runtime \
             must know how to turn the value into a result. Return a concrete type",
        ),
        Output::Stream { item } => {
            if let Output::Opaque(tokens) = &**item {
                errors.push_spanned(
                    tokens,
                    "a stream's `Item` must be a concrete type. Name the type of the items",
                );
            }
        }
        Output::Value(_) | Output::Unit | Output::Result { .. } => {}
    }
}

/// The spec options, against the function they annotate.
fn options(tool: &ToolFn, options: &ToolOptions, errors: &mut Errors) {
    if let Some(timeout) = &options.timeout
        && options.timeout_ms().is_none()
    {
        errors.push(
            timeout.span(),
            format!(
                "cannot read the timeout \"{}\": write a number and a unit, such as \"500ms\", \
                 \"5s\", \"1.5s\", \"2m\" or \"1h\"",
                timeout.as_str()
            ),
        );
    }
    if let Some(task) = &options.task
        && options.task_support().is_none()
    {
        errors.push(
            task.span(),
            format!(
                "unknown task support \"{}\": write `task` or `task = \"optional\"` for a tool \
                 whose calls may run as tasks, `task = \"required\"` for one whose calls \
                 must, or `task = \"after_input\"` for one whose calls must once it has \
                 the input it asks for first",
                task.as_deref().unwrap_or_default()
            ),
        );
    }
    if let Some(blocking) = options.blocking {
        if let Some(asyncness) = tool.asyncness {
            errors.push(
                asyncness,
                "`blocking` is for sync functions that would stall the executor; an `async fn` \
                 already yields at its await points. Remove `blocking`, or make the function sync",
            );
        } else if matches!(tool.output, Output::Stream { .. }) {
            errors.push(
                blocking,
                "`blocking` cannot apply to a tool that returns a stream. Remove `blocking`",
            );
        }
    }
    if let (Some(register), Binding::Method { .. }) = (&options.register, &tool.binding) {
        errors.push(
            register.span(),
            "`register` is for free functions: a #[toolset] method is never registered \
             globally, its tools reach a registry with the instance \
             (`RegistryBuilder::toolset`). Remove `register`",
        );
    }
    aliases(&tool.name, &options.aliases, errors);
    spec_options::spec_options(options, errors);
    crate::mcp::ui::validate(options.ui_keys(), errors);
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

/// Checks the aliases of tool `name`: not empty, no character a client could
/// not send as a name, not the tool's own name, not repeated. Returns those
/// to record.
/// `name` is the tool's name.
fn aliases(name: &str, aliases: &[Sp<String>], errors: &mut Errors) {
    let mut kept: Vec<&str> = Vec::new();
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
        } else if kept.contains(&text) {
            errors.push(
                alias.span(),
                format!("the alias \"{text}\" is given twice. Remove one"),
            );
        } else {
            kept.push(text);
        }
    }
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
