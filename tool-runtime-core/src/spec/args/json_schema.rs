//! Arguments checked against a JSON Schema given at run time (feature
//! `dynamic`), with every problem worded the way `#[tool]` functions word
//! theirs: the field, what was expected, what came.

use jsonschema::error::{ValidationError, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use serde_json::Value;

use super::problems::{describe, json_list, preview, quoted_list, resolve};
use crate::names::closest;
use crate::spec::error::{ArgError, ArgErrorKind};

/// Every problem `validator` finds in `input`, in the order a model fixes
/// them best: wrong values first, then missing fields, then unknown ones;
/// each once. `root` is the schema the validator was built from.
///
/// Two keywords may fail alike on one value and be worded alike (`type`
/// and `enum` of a string enum given `false` both say `expected one of
/// "a", "b", got false`): a problem already listed for its field is not
/// listed again.
pub(crate) fn problems(
    validator: &jsonschema::Validator,
    root: &Value,
    input: &Value,
) -> Vec<ArgError> {
    let mut values = Vec::new();
    let mut missing = Vec::new();
    let mut unknown = Vec::new();
    for error in validator.iter_errors(input) {
        for problem in explain(&error, root) {
            let list = match problem.kind {
                ArgErrorKind::Missing => &mut missing,
                ArgErrorKind::Unknown => &mut unknown,
                _ => &mut values,
            };
            let listed =
                |other: &ArgError| other.field == problem.field && other.message == problem.message;
            if !list.iter().any(listed) {
                list.push(problem);
            }
        }
    }
    // A misspelt field is one problem, not a missing one and an unknown one.
    missing.retain(|m: &ArgError| {
        !unknown.iter().any(|u| {
            u.message
                .contains(&format!("did you mean \"{}\"?", last_name(&m.field)))
        })
    });
    values.extend(missing);
    values.extend(unknown);
    values
}

/// What is wrong with `value` as the property `name` of the object schema
/// `root`: the problems the validator finds in an object holding that
/// property alone, those at the property or inside it. `None` when `root`
/// is not a schema the validator can build.
pub(crate) fn property_problems(root: &Value, name: &str, value: &Value) -> Option<Vec<ArgError>> {
    let validator = jsonschema::validator_for(root).ok()?;
    let object = Value::Object(serde_json::Map::from_iter([(
        name.to_owned(),
        value.clone(),
    )]));
    if validator.is_valid(&object) {
        return Some(Vec::new());
    }
    let field = crate::quote::name(name);
    let at_property = |problem: &ArgError| {
        problem
            .field
            .strip_prefix(&field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
    };
    Some(
        problems(&validator, root, &object)
            .into_iter()
            .filter(at_property)
            .collect(),
    )
}

/// The last property name of a field path (`a.b` gives `b`).
fn last_name(field: &str) -> &str {
    field.rsplit('.').next().unwrap_or(field)
}

/// The problems one validation error stands for (an object with several
/// unknown properties is one error and several problems).
fn explain(error: &ValidationError<'_>, root: &Value) -> Vec<ArgError> {
    let field = field_path(error);
    let schema = keyword_parent(error, root);
    let found = preview(error.instance());
    let join = |name: &str| {
        let name = crate::quote::name(name);
        if field.is_empty() {
            name
        } else {
            format!("{field}.{name}")
        }
    };
    let invalid = |expected: String| ArgError {
        field: field.clone(),
        kind: ArgErrorKind::InvalidValue,
        message: format!("expected {expected}, got {found}"),
    };
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let expected = schema
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(name))
                .and_then(|s| describe(s, root))
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            vec![ArgError {
                field: join(name),
                kind: ArgErrorKind::Missing,
                message: format!("missing required field{expected}"),
            }]
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let known: Vec<&str> = schema
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            unexpected
                .iter()
                .map(|key| {
                    let message = match closest(key, known.iter().copied()) {
                        Some(name) => format!("unknown field, did you mean \"{name}\"?"),
                        None if known.is_empty() && field.is_empty() => {
                            "unknown field; this tool takes no arguments".to_owned()
                        }
                        None if known.is_empty() => "unknown field".to_owned(),
                        None => format!(
                            "unknown field; expected one of {}",
                            quoted_list(known.iter().copied())
                        ),
                    };
                    ArgError {
                        field: join(key),
                        kind: ArgErrorKind::Unknown,
                        message,
                    }
                })
                .collect()
        }
        ValidationErrorKind::Type { kind } => {
            let expected = schema
                .and_then(|s| describe(s, root))
                .unwrap_or_else(|| format!("{kind:?}").to_lowercase());
            if field.is_empty() && !error.instance().is_object() {
                return vec![ArgError {
                    field,
                    kind: ArgErrorKind::NotAnObject,
                    message: format!("the arguments must be a JSON object, got {found}"),
                }];
            }
            vec![ArgError {
                field: field.clone(),
                kind: ArgErrorKind::WrongType,
                message: format!("expected {expected}, got {found}"),
            }]
        }
        ValidationErrorKind::Enum { options } => {
            let options = options.as_array().map(|o| json_list(o)).unwrap_or_default();
            vec![invalid(format!("one of {options}"))]
        }
        ValidationErrorKind::Constant { expected_value } => {
            vec![invalid(expected_value.to_string())]
        }
        ValidationErrorKind::Minimum { limit } => {
            vec![invalid(format!("a number of at least {limit}"))]
        }
        ValidationErrorKind::Maximum { limit } => {
            vec![invalid(format!("a number of at most {limit}"))]
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            vec![invalid(format!("a number greater than {limit}"))]
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            vec![invalid(format!("a number less than {limit}"))]
        }
        ValidationErrorKind::MultipleOf { .. } => {
            let step = schema
                .and_then(|s| s.get("multipleOf"))
                .cloned()
                .unwrap_or(Value::Null);
            vec![invalid(format!("a multiple of {step}"))]
        }
        ValidationErrorKind::MinLength { limit } => {
            vec![invalid(format!("text of at least {limit} characters"))]
        }
        ValidationErrorKind::MaxLength { limit } => {
            vec![invalid(format!("text of at most {limit} characters"))]
        }
        ValidationErrorKind::Pattern { pattern } => vec![invalid(format!(
            "text matching {}",
            crate::quote::value(&Value::String(pattern.clone()))
        ))],
        ValidationErrorKind::Format { format } => {
            vec![invalid(format!("a string in the {format} format"))]
        }
        ValidationErrorKind::MinItems { limit } => vec![invalid(format!("at least {limit} items"))],
        ValidationErrorKind::MaxItems { limit } => vec![invalid(format!("at most {limit} items"))],
        ValidationErrorKind::UniqueItems => vec![invalid("items that are all different".into())],
        ValidationErrorKind::MinProperties { limit } => {
            vec![invalid(format!("an object with at least {limit} fields"))]
        }
        ValidationErrorKind::MaxProperties { limit } => {
            vec![invalid(format!("an object with at most {limit} fields"))]
        }
        ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::OneOfMultipleValid { .. } => {
            let expected = schema
                .and_then(|s| describe(s, root))
                .unwrap_or_else(|| "a value matching one of the allowed shapes".to_owned());
            vec![invalid(expected)]
        }
        ValidationErrorKind::FalseSchema if !field.is_empty() => vec![ArgError {
            field: field.clone(),
            kind: ArgErrorKind::Unknown,
            message: "unknown field".to_owned(),
        }],
        // Anything rarer: the validator's own words, without the value
        // (which `found` quotes, escaped and cut short).
        _ => vec![ArgError {
            field: field.clone(),
            kind: ArgErrorKind::InvalidValue,
            message: format!("{}, got {found}", error.masked()),
        }],
    }
}

/// The instance path as `#[tool]` functions write it: `items[2].name`.
fn field_path(error: &ValidationError<'_>) -> String {
    let mut field = String::new();
    for segment in error.instance_path().iter() {
        match segment {
            LocationSegment::Property(name) => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(&crate::quote::name(&name));
            }
            LocationSegment::Index(index) => field.push_str(&format!("[{index}]")),
        }
    }
    field
}

/// The schema holding the keyword that failed, found by walking the
/// error's schema path from the root and following local `$ref`s.
fn keyword_parent<'s>(error: &ValidationError<'_>, root: &'s Value) -> Option<&'s Value> {
    let segments: Vec<LocationSegment<'_>> = error.schema_path().iter().collect();
    let (_, parents) = segments.split_last()?;
    let mut schema = root;
    for segment in parents {
        schema = match segment {
            LocationSegment::Property(key) if key == "$ref" => resolve(schema, root),
            LocationSegment::Property(key) => schema.get(key.as_ref())?,
            LocationSegment::Index(index) => schema.get(index)?,
        };
    }
    Some(resolve(schema, root))
}
