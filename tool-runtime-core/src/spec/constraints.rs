//! Checks on argument values beyond their type: `range`, `length`,
//! `pattern`, `one_of` and custom `validate` functions, declared on a
//! parameter with `#[tool(...)]`. They appear in the schema (`minimum`,
//! `maxLength`, `pattern`, `enum`, ...) and are enforced before the tool's
//! body runs, reported together with any type errors.

#[cfg(feature = "pattern")]
use std::collections::HashMap;
#[cfg(feature = "pattern")]
use std::sync::{LazyLock, RwLock};

use serde_json::{Map, Value};

/// One allowed value of a `one_of` constraint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Literal {
    /// A string.
    Str(&'static str),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl Literal {
    /// The value as JSON.
    pub fn to_json(self) -> Value {
        match self {
            Literal::Str(s) => Value::from(s),
            Literal::Int(i) => Value::from(i),
            Literal::Float(f) => Value::from(f),
            Literal::Bool(b) => Value::from(b),
        }
    }

    fn matches(self, value: &Value) -> bool {
        match (self, value) {
            (Literal::Str(s), Value::String(v)) => s == v,
            (Literal::Bool(b), Value::Bool(v)) => b == *v,
            (Literal::Int(i), Value::Number(n)) => {
                n.as_i64() == Some(i) || n.as_f64() == Some(i as f64)
            }
            (Literal::Float(f), Value::Number(n)) => n.as_f64() == Some(f),
            _ => false,
        }
    }
}

/// The constraints on one parameter. All `None` means none.
#[derive(Debug, Clone, Copy, Default)]
pub struct Constraints {
    /// `range(min = ..)`: the smallest number allowed.
    pub minimum: Option<f64>,
    /// `range(max = ..)`: the largest number allowed.
    pub maximum: Option<f64>,
    /// `length(min = ..)`: the fewest characters (strings) or items (lists).
    pub min_length: Option<u64>,
    /// `length(max = ..)`: the most characters (strings) or items (lists).
    pub max_length: Option<u64>,
    /// `pattern = "..."`: a regular expression a string must match
    /// (anywhere, as JSON Schema's `pattern`; anchor it with `^...$`).
    pub pattern: Option<&'static str>,
    /// `one_of = [...]`: the only values allowed.
    pub one_of: Option<&'static [Literal]>,
    /// `validate = path`: a custom check; its message reaches the model.
    #[doc(hidden)]
    pub validate_fn: Option<ValidateFn>,
}

/// The type-erased form of a `validate = path` check.
#[doc(hidden)]
pub type ValidateFn = fn(&Value) -> Result<(), String>;

impl Constraints {
    /// No constraints.
    pub const NONE: Constraints = Constraints {
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        pattern: None,
        one_of: None,
        validate_fn: None,
    };

    /// Whether any constraint is set.
    pub fn is_empty(&self) -> bool {
        self.minimum.is_none()
            && self.maximum.is_none()
            && self.min_length.is_none()
            && self.max_length.is_none()
            && self.pattern.is_none()
            && self.one_of.is_none()
            && self.validate_fn.is_none()
    }

    /// Adds the constraints' JSON Schema keywords to a parameter's schema.
    pub(crate) fn annotate(&self, schema: &mut Map<String, Value>) {
        if let Some(min) = self.minimum {
            schema.insert("minimum".into(), number(min));
        }
        if let Some(max) = self.maximum {
            schema.insert("maximum".into(), number(max));
        }
        let is_array = schema.get("type").and_then(Value::as_str) == Some("array");
        let (min_key, max_key) = if is_array {
            ("minItems", "maxItems")
        } else {
            ("minLength", "maxLength")
        };
        if let Some(min) = self.min_length {
            schema.insert(min_key.into(), min.into());
        }
        if let Some(max) = self.max_length {
            schema.insert(max_key.into(), max.into());
        }
        if let Some(pattern) = self.pattern {
            schema.insert("pattern".into(), pattern.into());
        }
        if let Some(values) = self.one_of {
            schema.insert(
                "enum".into(),
                Value::Array(values.iter().map(|v| v.to_json()).collect()),
            );
        }
    }

    /// Every way `value` breaks these constraints, worded for the model.
    pub(crate) fn violations(&self, value: &Value) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(n) = value.as_f64() {
            match (self.minimum, self.maximum) {
                (Some(min), Some(max)) if n < min || n > max => problems.push(format!(
                    "must be from {} to {}, got {value}",
                    number(min),
                    number(max)
                )),
                (Some(min), None) if n < min => {
                    problems.push(format!("must be at least {}, got {value}", number(min)))
                }
                (None, Some(max)) if n > max => {
                    problems.push(format!("must be at most {}, got {value}", number(max)))
                }
                _ => {}
            }
        }
        let length = match value {
            Value::String(s) => Some((s.chars().count() as u64, "characters")),
            Value::Array(items) => Some((items.len() as u64, "items")),
            _ => None,
        };
        if let Some((len, unit)) = length {
            let too_short = self.min_length.is_some_and(|min| len < min);
            let too_long = self.max_length.is_some_and(|max| len > max);
            if too_short || too_long {
                let bound = match (self.min_length, self.max_length) {
                    (Some(min), Some(max)) => format!("from {min} to {max} {unit}"),
                    (Some(min), None) => format!("at least {min} {unit}"),
                    (None, Some(max)) => format!("at most {max} {unit}"),
                    (None, None) => unreachable!("a bound was broken"),
                };
                problems.push(format!("must have {bound}, got {len}"));
            }
        }
        if let (Some(pattern), Value::String(text)) = (self.pattern, value)
            && let Some(problem) = pattern_problem(pattern, text, value)
        {
            problems.push(problem);
        }
        if let Some(values) = self.one_of
            && !values.iter().any(|v| v.matches(value))
        {
            let allowed: Vec<String> = values.iter().map(|v| v.to_json().to_string()).collect();
            problems.push(format!(
                "expected one of {}, got {value}",
                allowed.join(", ")
            ));
        }
        if problems.is_empty()
            && let Some(validate) = self.validate_fn
            && let Err(message) = validate(value)
        {
            problems.push(message);
        }
        problems
    }
}

/// A bound as JSON: whole numbers without a fraction.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Value::from(n as i64)
    } else {
        Value::from(n)
    }
}

/// Why `value` (the string `text`) breaks the constraint `pattern`, if it
/// does.
#[cfg(feature = "pattern")]
fn pattern_problem(pattern: &'static str, text: &str, value: &Value) -> Option<String> {
    (!matches_pattern(pattern, text))
        .then(|| format!("must match the pattern {pattern:?}, got {value}"))
}

/// Without the `pattern` feature no pattern can be checked (the macro
/// refuses them then; only a hand-written spec gets here): every string is
/// refused, saying why.
#[cfg(not(feature = "pattern"))]
fn pattern_problem(pattern: &'static str, _text: &str, _value: &Value) -> Option<String> {
    Some(unchecked_pattern(pattern))
}

/// The problem of a pattern this build cannot check.
#[cfg(not(feature = "pattern"))]
pub(crate) fn unchecked_pattern(pattern: &str) -> String {
    format!(
        "must match the pattern {pattern:?}, which this program cannot check: \
         tool-runtime's `pattern` feature is off"
    )
}

#[cfg(feature = "pattern")]
type Regexes = HashMap<&'static str, Option<regex_lite::Regex>>;

#[cfg(feature = "pattern")]
static REGEXES: LazyLock<RwLock<Regexes>> = LazyLock::new(|| RwLock::new(HashMap::new()));

/// Whether `text` matches `pattern`, compiling each pattern once. The macro
/// rejects invalid patterns at compile time; one that still fails to
/// compile here matches nothing.
#[cfg(feature = "pattern")]
fn matches_pattern(pattern: &'static str, text: &str) -> bool {
    if let Some(compiled) = REGEXES
        .read()
        .ok()
        .and_then(|cache| cache.get(pattern).cloned())
    {
        return compiled.is_some_and(|re| re.is_match(text));
    }
    let compiled = regex_lite::Regex::new(pattern).ok();
    let result = compiled.as_ref().is_some_and(|re| re.is_match(text));
    if let Ok(mut cache) = REGEXES.write() {
        cache.insert(pattern, compiled);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ranges_lengths_patterns_and_sets() {
        let c = Constraints {
            minimum: Some(1.0),
            maximum: Some(50.0),
            ..Constraints::NONE
        };
        assert!(c.violations(&json!(5)).is_empty());
        assert_eq!(c.violations(&json!(51)), ["must be from 1 to 50, got 51"]);
        let c = Constraints {
            min_length: Some(2),
            max_length: Some(3),
            pattern: Some("^[a-z]+$"),
            ..Constraints::NONE
        };
        #[cfg(feature = "pattern")]
        {
            assert_eq!(
                c.violations(&json!("ABCD")),
                [
                    "must have from 2 to 3 characters, got 4",
                    "must match the pattern \"^[a-z]+$\", got \"ABCD\""
                ]
            );
            assert!(c.violations(&json!("abc")).is_empty());
        }
        #[cfg(not(feature = "pattern"))]
        assert_eq!(c.violations(&json!("abc")), [unchecked_pattern("^[a-z]+$")]);
        let c = Constraints {
            one_of: Some(&[Literal::Str("a"), Literal::Int(2)]),
            ..Constraints::NONE
        };
        assert!(c.violations(&json!(2)).is_empty());
        assert_eq!(
            c.violations(&json!("b")),
            ["expected one of \"a\", 2, got \"b\""]
        );
    }

    #[test]
    fn keywords_follow_the_type() {
        let c = Constraints {
            min_length: Some(1),
            ..Constraints::NONE
        };
        let mut array = json!({"type": "array"}).as_object().unwrap().clone();
        c.annotate(&mut array);
        assert_eq!(array["minItems"], 1);
        let mut string = json!({"type": "string"}).as_object().unwrap().clone();
        c.annotate(&mut string);
        assert_eq!(string["minLength"], 1);
    }
}
