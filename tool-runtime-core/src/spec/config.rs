//! A tool's configuration as its spec declares it ([`ConfigSpec`]) and as
//! it is once validated ([`ConfigValue`]); where configurations come from
//! is the registry's business.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::spec::error::{ArgError, ArgErrorKind};

/// The configuration a tool declares with `#[tool(config = T)]`.
#[derive(Debug, Clone, Copy)]
pub struct ConfigSpec {
    /// The configuration type, as written.
    pub type_name: &'static str,
    /// Builds the configuration schema once and returns the cached copy.
    #[doc(hidden)]
    pub schema_fn: fn() -> &'static Value,
    /// Validates and decodes a configuration.
    #[doc(hidden)]
    pub decode_fn: fn(&Value) -> Result<ConfigValue, Vec<ArgError>>,
}

impl ConfigSpec {
    /// The JSON Schema of the configuration.
    pub fn schema(&self) -> &'static Value {
        (self.schema_fn)()
    }

    /// Validates `value` as this configuration: every problem, or the
    /// decoded configuration.
    pub fn validate(&self, value: &Value) -> Result<ConfigValue, Vec<ArgError>> {
        (self.decode_fn)(value)
    }

    /// The configuration made from the type's defaults alone, if every
    /// field has one; `Err` lists the fields that must be given.
    pub fn defaults(&self) -> Result<ConfigValue, Vec<ArgError>> {
        self.validate(&Value::Object(Map::new()))
    }
}

/// A validated configuration: the decoded value and the JSON it came from.
#[derive(Clone)]
pub struct ConfigValue {
    decoded: Arc<dyn Any + Send + Sync>,
    json: Arc<Value>,
}

impl ConfigValue {
    /// The configuration as JSON (after defaults were applied by decoding,
    /// this is the JSON given, not re-serialised).
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The decoded configuration, if it is of type `T`.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        Arc::clone(&self.decoded).downcast::<T>().ok()
    }
}

impl fmt::Debug for ConfigValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ConfigValue").field(&self.json).finish()
    }
}

/// Decodes a configuration of type `T`, finding every bad field: serde stops
/// at the first problem, so each bad field is recorded and removed, and
/// decoding tried again. Then the schema's bounds are checked.
pub fn decode<T>(value: &Value, schema: &Value) -> Result<ConfigValue, Vec<ArgError>>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    let mut problems = Vec::new();
    let mut working = match value {
        Value::Null => Value::Object(Map::new()),
        other => other.clone(),
    };
    let mut decoded = None;
    for _ in 0..64 {
        match serde_path_to_error::deserialize::<_, T>(&working) {
            Ok(value) => {
                decoded = Some(value);
                break;
            }
            Err(error) => {
                let path: Vec<String> = error
                    .path()
                    .iter()
                    .filter_map(|segment| match segment {
                        serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                        serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                        _ => None,
                    })
                    .collect();
                let message = error.into_inner().to_string().replace('`', "\"");
                let field = path.join(".");
                let (kind, message, missing) = classify(&message, &field);
                let problem = ArgError {
                    field: missing.clone().unwrap_or_else(|| field.clone()),
                    kind,
                    message,
                };
                // A field removed for a bad value then shows up as missing:
                // it was reported already.
                if !problems.iter().any(|p: &ArgError| p.field == problem.field) {
                    problems.push(problem);
                }
                if missing.is_some() || path.is_empty() || !remove_at(&mut working, &path) {
                    break;
                }
            }
        }
    }
    problems.extend(schema_bounds(&working, schema));
    match decoded {
        Some(decoded) if problems.is_empty() => Ok(ConfigValue {
            decoded: Arc::new(decoded),
            json: Arc::new(value.clone()),
        }),
        _ => Err(problems),
    }
}

fn classify(message: &str, field: &str) -> (ArgErrorKind, String, Option<String>) {
    if let Some(rest) = message.strip_prefix("missing field ") {
        let name = rest.trim_matches('"');
        let full = if field.is_empty() {
            name.to_owned()
        } else {
            format!("{field}.{name}")
        };
        return (
            ArgErrorKind::Missing,
            "missing required field".into(),
            Some(full),
        );
    }
    if message.starts_with("unknown field") {
        let message = message.split_once(", expected").map_or(message, |(m, _)| m);
        return (ArgErrorKind::Unknown, message.to_owned(), None);
    }
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return (
            ArgErrorKind::WrongType,
            format!("expected {expected}, got {}", plain_value(got)),
            None,
        );
    }
    (ArgErrorKind::InvalidValue, message.to_owned(), None)
}

/// The value in serde's wording of an unexpected value (backticks already
/// turned into quotes): `integer "42"` becomes `42`, `string "x"` stays
/// quoted as `"x"`, and `map` stays as it is.
fn plain_value(got: &str) -> &str {
    if let Some(text) = got.strip_prefix("string ") {
        return text;
    }
    if let (Some(start), Some(end)) = (got.find('"'), got.rfind('"'))
        && start < end
    {
        return &got[start + 1..end];
    }
    got
}

fn remove_at(value: &mut Value, path: &[String]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut current = value;
    for key in parents {
        current = match current {
            Value::Object(map) => match map.get_mut(key) {
                Some(next) => next,
                None => return false,
            },
            Value::Array(items) => match key.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                Some(next) => next,
                None => return false,
            },
            _ => return false,
        };
    }
    match current {
        Value::Object(map) => map.remove(last).is_some(),
        Value::Array(items) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Checks `minimum`, `maximum`, `minLength`, `maxLength`, `pattern` and
/// `enum` on the top-level properties (schemars writes them from
/// `#[schemars(range(...), length(...), regex(...))]`), which serde does
/// not enforce.
fn schema_bounds(value: &Value, schema: &Value) -> Vec<ArgError> {
    let (Some(object), Some(properties)) = (
        value.as_object(),
        schema.get("properties").and_then(Value::as_object),
    ) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (name, property) in properties {
        let Some(field) = object.get(name).filter(|v| !v.is_null()) else {
            continue;
        };
        let bound = |key: &str| property.get(key).and_then(Value::as_f64);
        let constraints = crate::spec::constraints::Constraints {
            minimum: bound("minimum"),
            maximum: bound("maximum"),
            min_length: property.get("minLength").and_then(Value::as_u64),
            max_length: property.get("maxLength").and_then(Value::as_u64),
            ..crate::spec::constraints::Constraints::NONE
        };
        let mut messages = constraints.violations(field);
        if let (Some(pattern), Some(text)) = (
            property.get("pattern").and_then(Value::as_str),
            field.as_str(),
        ) {
            #[cfg(feature = "pattern")]
            if !regex_lite::Regex::new(pattern).is_ok_and(|re| re.is_match(text)) {
                messages.push(format!("must match the pattern {pattern:?}, got {field}"));
            }
            #[cfg(not(feature = "pattern"))]
            {
                let _ = text;
                messages.push(crate::spec::constraints::unchecked_pattern(pattern));
            }
        }
        if let Some(allowed) = property.get("enum").and_then(Value::as_array)
            && !allowed.contains(field)
        {
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            messages.push(format!("expected one of {}, got {field}", list.join(", ")));
        }
        problems.extend(messages.into_iter().map(|message| ArgError {
            field: name.clone(),
            kind: ArgErrorKind::InvalidValue,
            message,
        }));
    }
    problems
}
