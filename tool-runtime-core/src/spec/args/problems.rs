//! The slow path: when the fast path fails, serde has stopped at the first
//! problem and worded it for Rust programmers. The model needs every
//! problem, in terms of the schema it was given, to fix its call in one
//! round trip; [`collect_problems`] re-examines the input and words each.

use serde_json::Value;
use serde_path_to_error::Segment;

use super::{CheckError, EMPTY_OBJECT, is_long_string};
use crate::names::closest;
use crate::spec::error::{ArgError, ArgErrorKind};
use crate::spec::tool_spec::{ParamSpec, ToolSpec};

/// `input` with each long string that sits where its parameter takes no
/// string cut short, or `None` when it has no such string. The copy fails
/// to decode exactly as `input` would, at a cost that does not grow with
/// the strings' length.
pub(super) fn shortened(spec: &ToolSpec, input: &Value) -> Option<Value> {
    let Value::Object(members) = input else {
        return None;
    };
    let long = is_long_string;
    let root = spec.input_schema();
    let misplaced = |name: &str, value: &Value| {
        long(value)
            && property_schema(root, name).is_some_and(|schema| !accepts_string(schema, root, 0))
    };
    if !members.iter().any(|(name, value)| misplaced(name, value)) {
        return None;
    }
    let copy = members
        .iter()
        .map(|(name, value)| {
            let value = match value {
                Value::String(text) if misplaced(name, value) => {
                    Value::String(text.chars().take(crate::quote::MAX_VALUE + 4).collect())
                }
                other => other.clone(),
            };
            (name.clone(), value)
        })
        .collect();
    Some(Value::Object(copy))
}

/// Whether a schema may accept a string; `true` when it cannot tell.
fn accepts_string(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 16 {
        return true;
    }
    let schema = resolve(schema, root);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().any(Value::is_string);
    }
    if let Some(value) = schema.get("const") {
        return value.is_string();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .any(|option| accepts_string(option, root, depth + 1));
        }
    }
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "string"),
        _ => true,
    }
}

/// Every problem with `input` as arguments to `spec`, in parameter order,
/// then unknown fields. `fallback` is used when no single parameter shows
/// the problem.
pub(super) fn collect_problems(spec: &ToolSpec, input: &Value, fallback: &str) -> Vec<ArgError> {
    let object = match input {
        Value::Object(object) => object,
        Value::Null => EMPTY_OBJECT.as_object().expect("an object"),
        other => {
            return vec![ArgError {
                field: String::new(),
                kind: ArgErrorKind::NotAnObject,
                message: format!(
                    "the arguments must be a JSON object, got {}",
                    preview(other)
                ),
            }];
        }
    };
    let schema = spec.input_schema();
    let mut problems = Vec::new();
    let mut missing = Vec::new();
    for param in spec.params {
        match object.get(param.name) {
            None if param.required => missing.push(param.name),
            None => {}
            Some(Value::Null) if !param.required => {}
            Some(value) => problems.extend(param_problems(param, value, schema)),
        }
    }
    // Report missing fields in parameter order, before unknown ones.
    let mut unknown = Vec::new();
    for key in object.keys() {
        if spec.param(key).is_some() {
            continue;
        }
        let suggestion = closest(key, spec.params.iter().map(|p| p.name));
        let message = match suggestion {
            Some(name) => {
                missing.retain(|m| *m != name);
                format!("unknown field, did you mean \"{name}\"?")
            }
            None if spec.params.is_empty() => "unknown field; this tool takes no arguments".into(),
            None => format!(
                "unknown field; expected one of {}",
                quoted_list(spec.params.iter().map(|p| p.name))
            ),
        };
        unknown.push(ArgError {
            field: crate::quote::name(key),
            kind: ArgErrorKind::Unknown,
            message,
        });
    }
    for name in missing {
        let expected = property_schema(schema, name)
            .and_then(|s| describe(s, schema))
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        problems.push(ArgError {
            field: name.to_owned(),
            kind: ArgErrorKind::Missing,
            message: format!("missing required field{expected}"),
        });
    }
    problems.extend(unknown);
    if problems.is_empty() {
        problems.push(ArgError {
            field: String::new(),
            kind: ArgErrorKind::InvalidValue,
            message: tidy(fallback),
        });
    }
    problems
}

/// What is wrong with `value` as the parameter `param` of a tool whose
/// input schema is `root`: its decoding's problem, else its constraints'.
pub(super) fn param_problems(param: &ParamSpec, value: &Value, root: &Value) -> Vec<ArgError> {
    match (param.check_fn)(value) {
        Err(error) => vec![explain(param.name, value, &error, root)],
        Ok(()) => constraint_problems(param, value),
    }
}

/// The constraint violations of one parameter's value.
pub(super) fn constraint_problems(param: &ParamSpec, value: &Value) -> Vec<ArgError> {
    if param.constraints.is_empty() {
        return Vec::new();
    }
    param
        .constraints
        .violations(value)
        .into_iter()
        .map(|message| ArgError {
            field: param.name.to_owned(),
            kind: ArgErrorKind::InvalidValue,
            message,
        })
        .collect()
}

/// Turns serde's message about one parameter into a problem for the model.
fn explain(name: &str, value: &Value, error: &CheckError, root: &Value) -> ArgError {
    let mut field = name.to_owned();
    for segment in &error.path {
        match segment {
            Segment::Map { key } => {
                field.push('.');
                field.push_str(&crate::quote::name(key));
            }
            Segment::Seq { index } => field.push_str(&format!("[{index}]")),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = error.message.as_str();
    let found = value_at(value, &error.path);
    let expected = || {
        property_schema(root, name)
            .and_then(|s| schema_at(s, root, &error.path))
            .and_then(|s| describe(s, root))
    };
    let (kind, message) = if let Some(rest) = message.strip_prefix("invalid type: ") {
        let serde_expected = rest.split_once(", expected ").map(|(_, e)| e);
        (
            ArgErrorKind::WrongType,
            expectation(expected(), serde_expected, found, rest),
        )
    } else if let Some(rest) = message.strip_prefix("invalid value: ") {
        let serde_expected = rest.split_once(", expected ").map(|(_, e)| e);
        (
            ArgErrorKind::InvalidValue,
            expectation(expected(), serde_expected, found, rest),
        )
    } else if let Some(rest) = message.strip_prefix("missing field ") {
        field.push('.');
        field.push_str(rest.trim_matches('`'));
        (ArgErrorKind::Missing, "missing required field".to_owned())
    } else if let Some(rest) = message.strip_prefix("unknown field ") {
        let (key, expected) = rest.split_once(", ").unwrap_or((rest, ""));
        let key = key.trim_matches('`');
        // The path already ends at the unknown key.
        if !matches!(error.path.last(), Some(Segment::Map { key: last }) if last == key) {
            field.push('.');
            field.push_str(&crate::quote::name(key));
        }
        let known = backticked(expected);
        let message = match closest(key, known.iter().copied()) {
            Some(close) => format!("unknown field, did you mean \"{close}\"?"),
            None if expected.is_empty() => "unknown field".to_owned(),
            None => format!("unknown field; {}", tidy(expected)),
        };
        (ArgErrorKind::Unknown, message)
    } else if let Some(rest) = message.strip_prefix("unknown variant ") {
        let variant = backticked(rest).first().copied().unwrap_or_default();
        let allowed = property_schema(root, name)
            .and_then(|s| schema_at(s, root, &error.path))
            .and_then(|s| allowed_values(s, root));
        let variant = crate::quote::name(variant);
        let message = match allowed {
            Some(values) => format!(
                "unknown variant \"{variant}\", expected one of {}",
                json_list(&values)
            ),
            None => tidy(message),
        };
        (ArgErrorKind::InvalidValue, message)
    } else {
        (ArgErrorKind::InvalidValue, tidy(message))
    };
    ArgError {
        field,
        kind,
        message,
    }
}

/// `expected X, got Y`, preferring the schema's wording of X to serde's.
fn expectation(
    from_schema: Option<String>,
    from_serde: Option<&str>,
    found: Option<&Value>,
    whole: &str,
) -> String {
    let expected = from_schema.or_else(|| from_serde.map(tidy));
    match (expected, found) {
        // A container is named by its kind: its text says less than that.
        (Some(expected), Some(Value::Array(_))) => format!("expected {expected}, got an array"),
        (Some(expected), Some(Value::Object(_))) => format!("expected {expected}, got an object"),
        (Some(expected), Some(found)) => format!("expected {expected}, got {}", preview(found)),
        _ => tidy(whole),
    }
}

/// The names serde quoted in backticks, in order.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The values an enum-like schema allows: `enum`, or `const`s under
/// `oneOf`/`anyOf` (schemars' form for documented variants).
fn allowed_values(schema: &Value, root: &Value) -> Option<Vec<Value>> {
    let schema = resolve(schema, root);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    let options = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut values = Vec::new();
    for option in options {
        values.extend(
            allowed_values(option, root)
                .or_else(|| resolve(option, root).get("const").map(|c| vec![c.clone()]))?,
        );
    }
    Some(values)
}

/// serde quotes names in backticks; the model reads JSON, so use `"`.
/// serde's messages may quote the input: escaped and cut like any echo.
fn tidy(message: &str) -> String {
    const LIMIT: usize = 240;
    let cut: String = message.chars().take(LIMIT).collect();
    let mut out = crate::quote::escape(&cut.replace('`', "\""));
    if message.chars().nth(LIMIT).is_some() {
        out.push('…');
    }
    out
}

/// The value at `path` inside `value`.
fn value_at<'v>(mut value: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    for segment in path {
        value = match segment {
            Segment::Map { key } => value.get(key)?,
            Segment::Seq { index } => value.get(index)?,
            Segment::Enum { .. } | Segment::Unknown => value,
        };
    }
    Some(value)
}

fn property_schema<'s>(root: &'s Value, name: &str) -> Option<&'s Value> {
    root.get("properties")?.get(name)
}

/// Follows a local `$ref` to its definition.
pub(super) fn resolve<'s>(schema: &'s Value, root: &'s Value) -> &'s Value {
    let mut schema = schema;
    for _ in 0..16 {
        let Some(target) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        match target.strip_prefix("#").and_then(|p| root.pointer(p)) {
            Some(next) => schema = next,
            None => break,
        }
    }
    schema
}

/// The subschema describing the value at `path`, when it can be found
/// without guessing.
fn schema_at<'s>(schema: &'s Value, root: &'s Value, path: &[Segment]) -> Option<&'s Value> {
    let mut schema = resolve(schema, root);
    for segment in path {
        schema = match segment {
            Segment::Map { key } => schema
                .get("properties")
                .and_then(|p| p.get(key))
                .or_else(|| schema.get("additionalProperties").filter(|s| s.is_object()))?,
            Segment::Seq { .. } => schema.get("items")?,
            Segment::Enum { .. } | Segment::Unknown => return None,
        };
        schema = resolve(schema, root);
    }
    Some(schema)
}

/// Words what a schema accepts: `a string`, `an integer from 0 to 255`,
/// `one of "celsius", "fahrenheit"`.
pub(super) fn describe(schema: &Value, root: &Value) -> Option<String> {
    let schema = resolve(schema, root);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(format!("one of {}", json_list(values)));
    }
    if let Some(value) = schema.get("const") {
        return Some(value.to_string());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let mut parts: Vec<String> = Vec::new();
            for option in options {
                let part = describe(option, root)?;
                if !parts.contains(&part) {
                    parts.push(part);
                }
            }
            return Some(parts.join(" or "));
        }
    }
    match schema.get("type")? {
        Value::String(kind) => describe_type(kind, schema),
        Value::Array(kinds) => {
            let parts: Option<Vec<String>> = kinds
                .iter()
                .map(|k| k.as_str().and_then(|k| describe_type(k, schema)))
                .collect();
            Some(parts?.join(" or "))
        }
        _ => None,
    }
}

fn describe_type(kind: &str, schema: &Value) -> Option<String> {
    Some(match kind {
        "integer" => {
            let (low, high) = integer_range(schema);
            match (low, high) {
                (Some(low), Some(high)) => format!("an integer from {low} to {high}"),
                (Some(low), None) => format!("an integer of at least {low}"),
                (None, Some(high)) => format!("an integer of at most {high}"),
                (None, None) => "an integer".to_owned(),
            }
        }
        "number" => match (schema.get("minimum"), schema.get("maximum")) {
            (Some(low), Some(high)) => format!("a number from {low} to {high}"),
            (Some(low), None) => format!("a number of at least {low}"),
            (None, Some(high)) => format!("a number of at most {high}"),
            (None, None) => "a number".to_owned(),
        },
        "string" => "a string".to_owned(),
        "boolean" => "true or false".to_owned(),
        "array" => "an array".to_owned(),
        "object" => "an object".to_owned(),
        "null" => "null".to_owned(),
        _ => return None,
    })
}

/// The bounds of an integer schema, from `minimum`/`maximum` or from the
/// `format` schemars gives Rust's integer types.
fn integer_range(schema: &Value) -> (Option<i128>, Option<i128>) {
    let (mut low, mut high): (Option<i128>, Option<i128>) =
        match schema.get("format").and_then(Value::as_str) {
            Some("int8") => (Some(i8::MIN.into()), Some(i8::MAX.into())),
            Some("int16") => (Some(i16::MIN.into()), Some(i16::MAX.into())),
            Some("int32") => (Some(i32::MIN.into()), Some(i32::MAX.into())),
            Some("int64" | "int") => (Some(i64::MIN.into()), Some(i64::MAX.into())),
            Some("uint8") => (Some(0), Some(u8::MAX.into())),
            Some("uint16") => (Some(0), Some(u16::MAX.into())),
            Some("uint32") => (Some(0), Some(u32::MAX.into())),
            Some("uint64" | "uint") => (Some(0), Some(u64::MAX.into())),
            _ => (None, None),
        };
    let bound = |key: &str| {
        schema.get(key).and_then(|v| {
            v.as_i64()
                .map(i128::from)
                .or_else(|| v.as_u64().map(i128::from))
                .or_else(|| v.as_f64().map(|f| f as i128))
        })
    };
    if let Some(min) = bound("minimum") {
        low = Some(low.map_or(min, |l| l.max(min)));
    }
    if let Some(max) = bound("maximum") {
        high = Some(high.map_or(max, |h| h.min(max)));
    }
    (low, high)
}

/// A value as the model wrote it, escaped and cut short when long.
pub(super) fn preview(value: &Value) -> String {
    crate::quote::value(value)
}

pub(super) fn json_list(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn quoted_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn describes_integer_formats_and_enums() {
        let root = json!({});
        assert_eq!(
            describe(
                &json!({"type": "integer", "format": "uint32", "minimum": 0}),
                &root
            )
            .unwrap(),
            "an integer from 0 to 4294967295"
        );
        assert_eq!(
            describe(&json!({"type": "string", "enum": ["a", "b"]}), &root).unwrap(),
            r#"one of "a", "b""#
        );
        assert_eq!(
            describe(&json!({"type": ["string", "null"]}), &root).unwrap(),
            "a string or null"
        );
    }

    #[test]
    fn follows_refs() {
        let root = json!({"$defs": {"Unit": {"type": "string", "enum": ["c"]}}});
        assert_eq!(
            describe(&json!({"$ref": "#/$defs/Unit"}), &root).unwrap(),
            r#"one of "c""#
        );
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(200));
        assert!(preview(&long).ends_with('…'));
        assert_eq!(preview(&json!(3)), "3");
    }
}
