//! How a transformed tool's arguments become the tool's: the [`Plan`]
//! made from the tool's schema and the [`ArgTransform`]s (each checked as
//! it is made), the schema the model reads, and each call's arguments
//! renamed back, their hidden values and defaults filled in.

use serde_json::{Map, Value};

use super::error::{GivenValue, TransformError};
use super::{ArgTransform, valid_name};
use crate::spec::error::{ArgError, ArgErrorKind};
use crate::spec::tool_spec::ToolSpec;

/// How a call's arguments become the tool's.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Each argument the model sees, in the schema's order.
    pub(super) visible: Vec<Visible>,
    /// The hidden arguments (old names) and the value each always gets.
    pub(super) hidden: Vec<(String, Option<Value>)>,
    /// The new names a call must give.
    required: Vec<String>,
    /// Whether the schema takes no other properties.
    closed: bool,
}

/// One argument the model sees.
#[derive(Debug)]
pub(super) struct Visible {
    pub(super) new: String,
    pub(super) old: String,
    default: Option<Value>,
}

/// The plan of the tool with `inner`'s spec changed as `args` say (each
/// argument named there is one the tool has), and the input schema the
/// model reads; or the first mistake found, in the schema's order: a
/// required argument hidden without a value, a new name that is not one,
/// a hidden value or default the tool would refuse, a name taken twice.
pub(super) fn plan(
    inner: &ToolSpec,
    args: &[(String, ArgTransform)],
) -> Result<(Plan, Value), TransformError> {
    let schema = inner.input_schema();
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    let required = |name: &str| {
        schema["required"]
            .as_array()
            .is_some_and(|names| names.iter().any(|n| n == name))
    };
    let change = |old: &str| args.iter().find(|(name, _)| name == old).map(|(_, c)| c);
    let mut plan = Plan::default();
    let mut new_properties = Map::new();
    // Each name the model may not give twice, and whose it is.
    let mut taken: Vec<(String, String)> = Vec::new();
    for (old, property) in properties {
        let change = change(old);
        if let Some(hidden) = change.and_then(ArgTransform::hidden_value) {
            match hidden {
                None if required(old) => {
                    return Err(TransformError::HiddenRequired {
                        tool: inner.name.to_string(),
                        argument: old.clone(),
                    });
                }
                None => {}
                Some(value) => {
                    let role = match change.and_then(|c| c.hide.as_ref()) {
                        Some(Some(_)) => GivenValue::Hidden,
                        _ => GivenValue::Default,
                    };
                    check_value(inner, old, role, value)?;
                }
            }
            taken.push((old.clone(), old.clone()));
            plan.hidden.push((old.clone(), hidden.cloned()));
            continue;
        }
        let new = change
            .and_then(|change| change.rename.clone())
            .unwrap_or_else(|| old.clone());
        if !valid_name(&new) {
            return Err(TransformError::InvalidName {
                name: crate::quote::name(&new),
            });
        }
        let default = change.and_then(|change| change.default.clone());
        if let Some(default) = &default {
            check_value(inner, old, GivenValue::Default, default)?;
        }
        let mut property = property.clone();
        if let Some(object) = property.as_object_mut() {
            if let Some(text) = change.and_then(|change| change.description.clone()) {
                object.insert("description".to_owned(), Value::String(text));
            }
            if let Some(default) = &default {
                object.insert("default".to_owned(), default.clone());
            }
        }
        if required(old) && default.is_none() {
            plan.required.push(new.clone());
        }
        taken.push((new.clone(), old.clone()));
        new_properties.insert(new.clone(), property);
        plan.visible.push(Visible {
            new,
            old: old.clone(),
            default,
        });
    }
    check_taken(inner, &taken)?;
    plan.closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let mut new_schema = schema.clone();
    if let Some(object) = new_schema.as_object_mut() {
        object.insert("properties".to_owned(), Value::Object(new_properties));
        let listed: Vec<Value> = plan.required.iter().cloned().map(Value::String).collect();
        if listed.is_empty() {
            object.remove("required");
        } else {
            object.insert("required".to_owned(), Value::Array(listed));
        }
    }
    Ok((plan, new_schema))
}

/// An error when the tool with `inner`'s spec would refuse `value` for its
/// argument `argument`. A value that cannot be checked (a tool made at run
/// time, without the `dynamic` feature's validator) passes.
fn check_value(
    inner: &ToolSpec,
    argument: &str,
    value: GivenValue,
    given: &Value,
) -> Result<(), TransformError> {
    match crate::spec::args::argument_problems(inner, argument, given) {
        Some(problems) if !problems.is_empty() => Err(TransformError::InvalidValue {
            tool: inner.name.to_string(),
            argument: argument.to_owned(),
            value,
            problems,
        }),
        _ => Ok(()),
    }
}

/// An error when one name is taken twice: `taken` holds each name the
/// model may not give, and the old name of the argument it is.
fn check_taken(inner: &ToolSpec, taken: &[(String, String)]) -> Result<(), TransformError> {
    for (i, (name, old)) in taken.iter().enumerate() {
        if let Some((_, first)) = taken[..i].iter().find(|(other, _)| other == name) {
            let argument = if first == name { old } else { first };
            return Err(TransformError::NameTaken {
                tool: inner.name.to_string(),
                argument: argument.clone(),
                name: name.clone(),
            });
        }
    }
    Ok(())
}

impl Plan {
    fn by_new(&self, name: &str) -> Option<&Visible> {
        self.visible.iter().find(|arg| arg.new == name)
    }

    /// The call's arguments in the tool's names, with the hidden values and
    /// the defaults; or every mistake in them, in the new names.
    pub(super) fn arguments(&self, input: &Value, schema: &Value) -> Result<Value, Vec<ArgError>> {
        let empty = Map::new();
        let given = match input {
            Value::Object(object) => object,
            Value::Null => &empty,
            other => {
                return Err(vec![ArgError {
                    field: String::new(),
                    kind: ArgErrorKind::NotAnObject,
                    message: format!(
                        "the arguments must be a JSON object, got {}",
                        crate::quote::value(other)
                    ),
                }]);
            }
        };
        let mut out = Map::new();
        let mut unknown = Vec::new();
        for (key, value) in given {
            if let Some(arg) = self.by_new(key) {
                if !(value.is_null() && arg.default.is_some()) {
                    out.insert(arg.old.clone(), value.clone());
                }
                continue;
            }
            let message = if self.hidden.iter().any(|(old, _)| old == key) {
                "the tool sets this argument itself; leave it out".to_owned()
            } else if let Some(arg) = self.visible.iter().find(|arg| arg.old == *key) {
                format!("unknown field, did you mean \"{}\"?", arg.new)
            } else if !self.closed {
                out.insert(key.clone(), value.clone());
                continue;
            } else {
                self.unknown_message(key)
            };
            unknown.push(ArgError {
                field: crate::quote::name(key),
                kind: ArgErrorKind::Unknown,
                message,
            });
        }
        let mut problems: Vec<ArgError> = self
            .required
            .iter()
            .filter(|name| !given.contains_key(name.as_str()))
            .map(|name| ArgError {
                field: name.clone(),
                kind: ArgErrorKind::Missing,
                message: match kind_of(&schema["properties"][name.as_str()]) {
                    Some(kind) => format!("missing required field ({kind})"),
                    None => "missing required field".to_owned(),
                },
            })
            .collect();
        // A misspelt argument is one problem, not a missing and an unknown one.
        problems.retain(|missing| {
            !unknown.iter().any(|u| {
                u.message
                    .contains(&format!("did you mean \"{}\"?", missing.field))
            })
        });
        problems.extend(unknown);
        if !problems.is_empty() {
            return Err(problems);
        }
        for arg in &self.visible {
            if let Some(default) = &arg.default
                && !out.contains_key(&arg.old)
            {
                out.insert(arg.old.clone(), default.clone());
            }
        }
        for (old, value) in &self.hidden {
            if let Some(value) = value {
                out.insert(old.clone(), value.clone());
            }
        }
        Ok(Value::Object(out))
    }

    /// An unknown argument's message: the closest name the model may give,
    /// or the names it may.
    fn unknown_message(&self, key: &str) -> String {
        let names = || self.visible.iter().map(|arg| arg.new.as_str());
        if let Some(close) = crate::names::closest(key, names()) {
            return format!("unknown field, did you mean \"{close}\"?");
        }
        if self.visible.is_empty() {
            return "unknown field; this tool takes no arguments".to_owned();
        }
        let listed: Vec<String> = names().map(|name| format!("\"{name}\"")).collect();
        format!("unknown field; expected one of {}", listed.join(", "))
    }

    /// `field`, a path in the tool's names, in the names the model gives.
    pub(super) fn outward(&self, field: &str) -> String {
        let end = field.find(['.', '[']).unwrap_or(field.len());
        let (head, rest) = field.split_at(end);
        match self.visible.iter().find(|arg| arg.old == head) {
            Some(arg) => format!("{}{rest}", arg.new),
            None => field.to_owned(),
        }
    }
}

/// A property's type in words, for a missing argument's message, when its
/// schema states one plainly.
fn kind_of(property: &Value) -> Option<&'static str> {
    Some(match property.get("type")?.as_str()? {
        "string" => "a string",
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "true or false",
        "array" => "an array",
        "object" => "an object",
        _ => return None,
    })
}
