//! Argument decoding, whole: the fast path through the tool's generated
//! argument struct (the entry points here, the reading in [`read`]), the
//! depth limit, the constraints, and, when the fast path fails, a second
//! pass that finds every problem and words it for the model
//! ([`problems`]). Structs inside arguments are read from JSON objects only
//! ([`objects`]).
//!
//! One JSON argument's way in: the registry (or a direct caller) hands the
//! tool's `call` the arguments (the registry hands `call_checked` them as
//! [`Checked`], having checked their depth); the generated `call` asks
//! [`decode`] for its argument struct; [`decode`] checks the depth of a
//! plain `&Value` (not of [`Checked`] arguments) and runs the one visitor
//! ([`read`]), which reads each key
//! as the index of a parameter and each value with the seed of its type,
//! through the `read` and `finish` of the struct's [`ToolArgs`] impl.

#[cfg(feature = "dynamic")]
pub(crate) mod json_schema;
mod objects;
mod problems;
mod read;

use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use read::{ArgSeed, ToolArgs, default_arg, next_arg, required_arg};

use crate::spec::error::{ArgError, ArgErrorKind, ToolError};
use crate::spec::tool_spec::ToolSpec;
use problems::{collect_problems, constraint_problems, param_problems, shortened};
use read::Args;

pub use crate::spec::error::CheckError;

/// Decodes a value of type `T` only to learn what is wrong with it.
pub fn check<T: DeserializeOwned>(value: &Value) -> Result<(), CheckError> {
    match serde_path_to_error::deserialize::<_, T>(objects::ObjectsOnly(value)) {
        Ok(_) => Ok(()),
        Err(error) => Err(CheckError {
            path: error.path().iter().cloned().collect(),
            message: error.into_inner().to_string(),
        }),
    }
}

/// How deeply arguments may nest: objects and arrays inside one another,
/// the argument object itself counting as one. Deeper arguments are refused
/// with an [`InvalidArguments`](crate::spec::ToolErrorKind::InvalidArguments)
/// error before anything decodes them. JSON text stops at the same depth
/// (`serde_json`'s own limit); a `serde_json::Value` built in code could
/// otherwise nest deep enough to overflow a thread's stack while it is
/// decoded, or dropped.
pub const MAX_ARGUMENT_DEPTH: usize = 128;

/// Whether `value` nests no deeper than [`MAX_ARGUMENT_DEPTH`], found
/// without recursion and without reading past the first level too deep.
/// The registry asks it of every call's arguments before it looks at
/// anything else; [`decode`] asks it of arguments that are not
/// [`Checked`].
#[inline]
pub(crate) fn within_depth(value: &Value) -> bool {
    // Most arguments are one object of plain values: no walk needed.
    let flat = match value {
        Value::Object(members) => !members.values().any(is_container),
        Value::Array(items) => !items.iter().any(is_container),
        _ => true,
    };
    flat || within_depth_walk(value)
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_))
}

fn within_depth_walk(value: &Value) -> bool {
    enum Level<'a> {
        Items(std::slice::Iter<'a, Value>),
        Members(serde_json::map::Values<'a>),
    }
    fn level(value: &Value) -> Option<Level<'_>> {
        match value {
            Value::Array(items) => Some(Level::Items(items.iter())),
            Value::Object(members) => Some(Level::Members(members.values())),
            _ => None,
        }
    }
    let mut stack: Vec<Level<'_>> = level(value).into_iter().collect();
    while let Some(top) = stack.last_mut() {
        let next = match top {
            Level::Items(items) => items.next(),
            Level::Members(members) => members.next(),
        };
        match next {
            None => {
                stack.pop();
            }
            Some(child) => {
                if let Some(inner) = level(child) {
                    if stack.len() >= MAX_ARGUMENT_DEPTH {
                        return false;
                    }
                    stack.push(inner);
                }
            }
        }
    }
    true
}

/// The error for arguments that nest too deeply.
pub(crate) fn too_deep(tool: &str) -> ToolError {
    ToolError::invalid_arguments(
        tool,
        vec![ArgError {
            field: String::new(),
            kind: ArgErrorKind::InvalidValue,
            message: format!(
                "the arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels of objects and arrays"
            ),
        }],
    )
}

/// Drops a value without recursion, however deeply it nests.
pub(crate) fn dismantle(value: Value) {
    if within_depth(&value) {
        return;
    }
    let mut stack = vec![value];
    while let Some(mut value) = stack.pop() {
        match &mut value {
            Value::Array(items) => stack.append(items),
            Value::Object(members) => {
                stack.extend(std::mem::take(members).into_iter().map(|(_, v)| v))
            }
            _ => {}
        }
    }
}

/// Arguments whose depth is known to be within [`MAX_ARGUMENT_DEPTH`]. A
/// registry checks every call's arguments before it looks the tool up, and
/// hands them to [`Tool::call_checked`](crate::Tool::call_checked) as this
/// type, so the decoder `#[tool]` emits does not walk them a second time; a
/// plain `&Value` (a direct [`Tool::call`](crate::Tool::call)) is checked
/// where it is decoded. Only a check makes one.
#[derive(Clone, Copy, Debug)]
pub struct Checked<'a>(&'a Value);

impl<'a> Checked<'a> {
    /// `value`, if it nests no deeper than [`MAX_ARGUMENT_DEPTH`].
    #[inline]
    pub fn new(value: &'a Value) -> Option<Self> {
        within_depth(value).then_some(Self(value))
    }

    /// Arguments the registry checked before it moved them into the call
    /// (`invoke::prepare`, which refuses deeper ones).
    #[inline]
    pub(crate) fn checked_by_registry(value: &'a Value) -> Self {
        Self(value)
    }

    /// The arguments.
    #[inline]
    pub fn get(self) -> &'a Value {
        self.0
    }
}

/// What the decoders take: a plain `&Value`, whose depth they check, or
/// [`Checked`] arguments, whose depth they need not.
#[derive(Clone, Copy)]
pub struct Input<'a> {
    value: &'a Value,
    checked: bool,
}

impl<'a> From<&'a Value> for Input<'a> {
    #[inline]
    fn from(value: &'a Value) -> Self {
        Self {
            value,
            checked: false,
        }
    }
}

impl<'a> From<Checked<'a>> for Input<'a> {
    #[inline]
    fn from(checked: Checked<'a>) -> Self {
        Self {
            value: checked.0,
            checked: true,
        }
    }
}

impl<'a> Input<'a> {
    /// The arguments.
    #[inline]
    pub(crate) fn value(self) -> &'a Value {
        self.value
    }

    /// Whether the arguments nest too deeply; false without a walk for
    /// [`Checked`] ones.
    #[inline]
    pub(crate) fn too_deep(self) -> bool {
        !self.checked && !within_depth(self.value)
    }
}

static EMPTY_OBJECT: LazyLock<Value> = LazyLock::new(|| Value::Object(Map::new()));

/// Decodes a tool's arguments into its generated argument struct `T`.
///
/// `null` counts as an empty argument object. On failure the input is
/// examined parameter by parameter, and the error lists every problem.
/// Arguments nested deeper than [`MAX_ARGUMENT_DEPTH`] are refused, unless
/// they come as [`Checked`].
#[inline]
pub fn decode<'a, T: ToolArgs>(
    spec: &ToolSpec,
    input: impl Into<Input<'a>>,
) -> Result<T, ToolError> {
    decode_input(spec, input.into())
}

/// [`decode`], once for each argument struct whatever the input's type.
fn decode_input<T: ToolArgs>(spec: &ToolSpec, input: Input<'_>) -> Result<T, ToolError> {
    let checked = input.checked;
    let input = input.value;
    let target = if input.is_null() {
        &*EMPTY_OBJECT
    } else {
        input
    };
    // One look at the top level says whether the deeper checks are needed.
    let (nested, long) = match target {
        Value::Object(members) => members.values().fold((false, false), |(n, l), value| {
            (n || is_container(value), l || is_long_string(value))
        }),
        _ => (true, false),
    };
    if nested && !checked && !within_depth(target) {
        return Err(too_deep(&spec.name));
    }
    if long && let Some(short) = shortened(spec, target) {
        // A long string where no string belongs: serde would quote it whole
        // in its message, so the problems are found on a short copy.
        return Err(ToolError::invalid_arguments(
            &spec.name,
            collect_problems(spec, &short, "invalid arguments"),
        ));
    }
    match Args::<T>::deserialize(target) {
        Ok(args) => Ok(args.0),
        Err(error) => Err(ToolError::invalid_arguments(
            &spec.name,
            collect_problems(spec, input, &error.to_string()),
        )),
    }
}

/// Decodes a tool's arguments, then checks their constraints.
#[inline]
pub fn decode_checked<'a, T: ToolArgs>(
    spec: &ToolSpec,
    input: impl Into<Input<'a>>,
) -> Result<T, ToolError> {
    let input = input.into();
    let args = decode_input(spec, input)?;
    check_constraints(spec, input.value)?;
    Ok(args)
}

/// Strings longer than this, sent where a parameter takes no string, are
/// examined on a short copy (see [`shortened`]).
const LONG_STRING: usize = 4096;

/// Text longer than this is parsed before it is decoded, so a long string
/// in the wrong place is caught by [`shortened`] too.
const LONG_TEXT: usize = 64 * 1024;

fn is_long_string(value: &Value) -> bool {
    matches!(value, Value::String(text) if text.len() > LONG_STRING)
}

/// Decodes a tool's arguments from JSON text, as providers that send them
/// as a string (OpenAI) give them: straight into `T`, with no `Value` in
/// between. Empty text counts as an empty argument object.
///
/// On failure the text is parsed and examined as [`decode`] examines a
/// value, so the problems are worded the same; text that is not JSON at all
/// is one problem of kind [`NotJson`](ArgErrorKind::NotJson).
#[inline]
pub fn decode_str<T: ToolArgs>(spec: &ToolSpec, input: &str) -> Result<T, ToolError> {
    let text = if input.trim().is_empty() { "{}" } else { input };
    if text.len() > LONG_TEXT {
        return decode(spec, &parse_text(spec, text)?);
    }
    match serde_json::from_str::<Args<T>>(text) {
        Ok(args) => Ok(args.0),
        // `null`, duplicate keys: what the value path accepts, it accepts.
        Err(_) => decode(spec, &parse_text(spec, text)?),
    }
}

/// Decodes a tool's arguments from JSON text, then checks their
/// constraints (which are checked on the JSON value, so the text is parsed
/// into one first).
#[inline]
pub fn decode_str_checked<T: ToolArgs>(spec: &ToolSpec, input: &str) -> Result<T, ToolError> {
    decode_checked(spec, &parse_text(spec, input)?)
}

/// The arguments as a JSON value, from text. Empty text is an empty
/// object; text that is not JSON is an error naming where it stops being.
pub fn parse_text(spec: &ToolSpec, input: &str) -> Result<Value, ToolError> {
    if input.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(input).map_err(|error| {
        ToolError::invalid_arguments(
            &spec.name,
            vec![ArgError {
                field: String::new(),
                kind: ArgErrorKind::NotJson,
                message: format!("the arguments are not valid JSON: {error}"),
            }],
        )
    })
}

/// After a successful decode: the constraint violations of every parameter,
/// as one error.
pub fn check_constraints(spec: &ToolSpec, input: &Value) -> Result<(), ToolError> {
    let mut problems = Vec::new();
    for param in spec.params {
        if let Some(value) = input.get(param.name).filter(|v| !v.is_null()) {
            problems.extend(constraint_problems(param, value));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ToolError::invalid_arguments(&spec.name, problems))
    }
}

/// What is wrong with `value` given as the argument `name` of the tool
/// with `spec`, worded as a call's problems are (`expected an integer from
/// 0 to 255, got 300`); empty when the tool would take it. `null` for an
/// argument that is not required reads as absent, as in a call.
///
/// A `#[tool]` function's parameter is checked as a call decodes it, with
/// its constraints; a tool made at run time, against its input schema
/// (feature `dynamic`, whose validator it needs). `None` when it cannot be
/// told: no such parameter, or no validator.
pub(crate) fn argument_problems(
    spec: &ToolSpec,
    name: &str,
    value: &Value,
) -> Option<Vec<ArgError>> {
    let schema = spec.input_schema();
    let required = schema["required"]
        .as_array()
        .is_some_and(|names| names.iter().any(|n| n == name));
    if value.is_null() && !required {
        return Some(Vec::new());
    }
    if let Some(param) = spec.param(name) {
        return Some(param_problems(param, value, schema));
    }
    if !spec.params.is_empty() {
        return None;
    }
    #[cfg(feature = "dynamic")]
    return json_schema::property_problems(schema, name, value);
    #[cfg(not(feature = "dynamic"))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A `#[tool]`-like argument struct of one parameter of any type.
    struct AnyValue;

    impl ToolArgs for AnyValue {
        const FIELDS: &'static [&'static str] = &["value"];
        type Slots = Option<Value>;
        const EMPTY: Self::Slots = None;
        fn read<'de, A: serde::de::MapAccess<'de>>(
            slots: &mut Self::Slots,
            _index: usize,
            map: &mut A,
        ) -> Result<(), A::Error> {
            *slots = Some(map.next_value()?);
            Ok(())
        }
        fn finish<E: serde::de::Error>(slots: Self::Slots) -> Result<Self, E> {
            slots
                .map(|_| AnyValue)
                .ok_or_else(|| E::missing_field("value"))
        }
    }

    fn nested(depth: usize) -> Value {
        (0..depth).fold(json!(1), |inner, _| json!([inner]))
    }

    #[test]
    fn only_arguments_that_are_not_checked_are_walked_for_depth() {
        let spec = ToolSpec::new("any", "Takes any value.", json!({"type": "object"}));
        let deep = json!({"value": nested(MAX_ARGUMENT_DEPTH + 10)});
        let error = decode::<AnyValue>(&spec, &deep).err().unwrap();
        assert!(error.message().contains("nest deeper than 128"), "{error}");
        // Only a check makes `Checked`, and it refuses these arguments.
        assert!(Checked::new(&deep).is_none());
        // Arguments the registry checked are not walked again.
        let vouched = Checked::checked_by_registry(&deep);
        assert!(decode::<AnyValue>(&spec, vouched).is_ok());
        let fits = json!({"value": nested(MAX_ARGUMENT_DEPTH - 2)});
        let checked = Checked::new(&fits).unwrap();
        assert!(std::ptr::eq(checked.get(), &fits));
        assert!(decode::<AnyValue>(&spec, checked).is_ok());
        assert!(decode::<AnyValue>(&spec, &fits).is_ok());
    }
}
