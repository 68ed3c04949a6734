//! `#[tool(transform = f)]`: functions that rewrite arguments before the
//! tool sees them.
//!
//! On a parameter, `f` is `fn(T) -> T` or `fn(T) -> Result<T, E>` with
//! `E: Display` ([`TransformFn`]); it runs on the value decoded as `T` (an
//! `Option`'s inner value, when present) and its result takes the value's
//! place, before the parameter's constraints are checked and before the
//! argument struct is decoded. On the function, `f` does the same for the
//! whole argument object as a `serde_json::Value`, before anything else.
//!
//! A parameter's transform works on JSON: the expansion's function for it
//! decodes the value, runs `f` and serialises what it returns
//! (`Kind::transform_json`, beside the tag's other methods), so every problem of a call, a transform's
//! refusal among them, is found in one pass and reported in one error.

use std::fmt::Display;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::spec::args::{
    Input, ToolArgs, check_constraints, decode, decode_checked, parse_text, too_deep,
};
use crate::spec::error::{ArgError, ArgErrorKind, ToolErrorKind};
use crate::{ToolError, ToolSpec};

/// A function `transform = f` can name for a value of type `T`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot transform a value of type `{T}`",
    label = "expected a function `fn({T}) -> {T}` or `fn({T}) -> Result<{T}, E>` with `E: Display`",
    note = "write the transform as `fn normalize(value: {T}) -> {T}`, or return `Result<{T}, String>` (any error type that implements `Display` will do) to refuse a value"
)]
pub trait TransformFn<T> {
    /// Runs the transform; a refusal's text reaches the model.
    fn run(&self, value: T) -> Result<T, String>;
}

impl<T, F, R> TransformFn<T> for F
where
    F: Fn(T) -> R,
    R: TransformOutcome<T>,
{
    fn run(&self, value: T) -> Result<T, String> {
        self(value).into_outcome()
    }
}

/// What a transform of `T` returns: a `T`, or `Result<T, E>` with
/// `E: Display`.
#[diagnostic::on_unimplemented(
    message = "a transform of `{T}` must return `{T}` or `Result<{T}, E>` with `E: Display`, not `{Self}`",
    label = "expected `{T}` or `Result<{T}, E>`"
)]
pub trait TransformOutcome<T> {
    /// The new value, or the refusal as text.
    fn into_outcome(self) -> Result<T, String>;
}

impl<T> TransformOutcome<T> for T {
    fn into_outcome(self) -> Result<T, String> {
        Ok(self)
    }
}

impl<T, E: Display> TransformOutcome<T> for Result<T, E> {
    fn into_outcome(self) -> Result<T, String> {
        self.map_err(|error| error.to_string())
    }
}

/// A type whose parameter can have a `transform`: what the transform
/// returns is serialised to take the argument's place.
#[diagnostic::on_unimplemented(
    message = "a parameter with `transform` needs a type that implements `serde::Serialize`, and `{Self}` does not",
    label = "the transformed value is checked against the parameter's constraints as JSON",
    note = "derive `serde::Serialize` for `{Self}`, or transform the value inside the function"
)]
pub trait Transformable: Serialize {}
impl<T: Serialize> Transformable for T {}

/// Compile-time check that a parameter's type can be transformed.
pub fn assert_transformable<T: Transformable>() {}

/// What a parameter's transform made of its JSON value.
#[derive(Debug)]
pub enum Transformed {
    /// The value does not decode as the parameter's type; decoding
    /// reports it.
    Undecoded,
    /// The transformed value, as JSON.
    Value(Value),
    /// The transform refused the value, with its reason.
    Refused(String),
}

/// Runs the function-level `transform` on the argument object.
pub fn transform_value<F: TransformFn<Value>>(value: Value, transform: F) -> Result<Value, String> {
    transform.run(value)
}

/// A tool's transforms, as its expansion lists them.
pub struct Transforms {
    /// `transform` on the function: rewrites the argument object.
    pub input: Option<fn(Value) -> Result<Value, String>>,
    /// `transform` on parameters: each parameter's schema name and the
    /// function that transforms its JSON value.
    pub params: &'static [(&'static str, ParamTransform)],
}

/// A parameter's transform, as the expansion emits it: from the JSON value
/// the model sent to what takes its place.
pub type ParamTransform = fn(&Value) -> Transformed;

/// Decodes a tool's arguments as [`decode_checked`] does, with its
/// transforms run first: the function's on the whole object, then each
/// parameter's on its value. A transform's refusal is an argument problem
/// named for the parameter, reported with every other problem of the call.
#[inline]
pub fn decode_transformed<'a, T: ToolArgs>(
    spec: &ToolSpec,
    input: impl Into<Input<'a>>,
    transforms: &Transforms,
) -> Result<T, ToolError> {
    transformed(spec, input.into(), transforms)
}

/// [`decode_transformed`], once for each argument struct whatever the
/// input's type.
fn transformed<T: ToolArgs>(
    spec: &ToolSpec,
    input: Input<'_>,
    transforms: &Transforms,
) -> Result<T, ToolError> {
    // What a transform returns is a new value, checked where it decodes.
    let rewritten;
    let input = match transforms.input {
        Some(transform) => {
            rewritten = transform_input(spec, input, transform)?;
            Input::from(&rewritten)
        }
        None => input,
    };
    let Value::Object(members) = input.value() else {
        return decode_checked(spec, input);
    };
    if transforms.params.is_empty() {
        return decode_checked(spec, input);
    }
    let mut changed: Option<Map<String, Value>> = None;
    let mut refused = Vec::new();
    for (name, transform) in transforms.params {
        let Some(value) = members.get(*name).filter(|value| !value.is_null()) else {
            continue;
        };
        match transform(value) {
            Transformed::Undecoded => {}
            Transformed::Value(new) => {
                changed
                    .get_or_insert_with(|| members.clone())
                    .insert((*name).to_owned(), new);
            }
            Transformed::Refused(message) => refused.push(ArgError {
                field: (*name).to_owned(),
                kind: ArgErrorKind::InvalidValue,
                message,
            }),
        }
    }
    let changed = changed.map(Value::Object);
    let input = changed.as_ref().map_or(input, Input::from);
    let problems = match decode::<T>(spec, input) {
        Ok(args) => match check_constraints(spec, input.value()) {
            Ok(()) if refused.is_empty() => return Ok(args),
            Ok(()) => Vec::new(),
            Err(error) => error.argument_errors().to_vec(),
        },
        Err(error)
            if error.kind() == ToolErrorKind::InvalidArguments
                && !error.argument_errors().is_empty() =>
        {
            error.argument_errors().to_vec()
        }
        Err(error) => return Err(error),
    };
    Err(ToolError::invalid_arguments(
        &spec.name,
        merge(spec, problems, refused),
    ))
}

/// Decodes a tool's arguments from JSON text, with its transforms: the
/// text is parsed into a `Value` first, for the transforms to work on.
pub fn decode_str_transformed<T: ToolArgs>(
    spec: &ToolSpec,
    input: &str,
    transforms: &Transforms,
) -> Result<T, ToolError> {
    decode_transformed(spec, &parse_text(spec, input)?, transforms)
}

/// Runs the function-level transform on a copy of `input`; its refusal is
/// an argument problem of the whole call.
fn transform_input(
    spec: &ToolSpec,
    input: Input<'_>,
    transform: fn(Value) -> Result<Value, String>,
) -> Result<Value, ToolError> {
    // The copy is made by recursion, so the depth is checked first.
    if input.too_deep() {
        return Err(too_deep(&spec.name));
    }
    let input = match input.value() {
        Value::Null => Value::Object(Map::new()),
        input => input.clone(),
    };
    transform(input).map_err(|message| {
        ToolError::invalid_arguments(
            &spec.name,
            vec![ArgError {
                field: String::new(),
                kind: ArgErrorKind::InvalidValue,
                message,
            }],
        )
    })
}

/// The problems of a call with the transforms' refusals: a refused
/// parameter's other problems are dropped (its value decoded, so they are
/// constraint problems of the value before the transform), and the
/// refusals join in parameter order.
fn merge(spec: &ToolSpec, mut problems: Vec<ArgError>, refused: Vec<ArgError>) -> Vec<ArgError> {
    let of = |problem: &ArgError, name: &str| {
        problem.field == name
            || problem
                .field
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
    };
    problems.retain(|problem| !refused.iter().any(|r| of(problem, &r.field)));
    let order = |problem: &ArgError| {
        let unknown = problem.kind == ArgErrorKind::Unknown;
        let index = spec
            .params
            .iter()
            .position(|param| of(problem, param.name))
            .unwrap_or(spec.params.len());
        (unknown, index)
    };
    problems.extend(refused);
    crate::order::sort_by_key(&mut problems, order);
    problems
}
