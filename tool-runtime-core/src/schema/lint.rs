//! Schemas no value can satisfy: valid JSON Schema that still makes a tool
//! impossible to call (or an argument impossible to give), such as an
//! `enum` of strings on an `integer`. [`unsatisfiable`] finds the plain
//! cases, each named by its keyword and where it is (the cases are listed
//! on it).

use std::fmt;

use serde_json::{Map, Value};

use super::{CLOSED, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};

/// A part of a schema no value can satisfy (see [`unsatisfiable`]).
///
/// Its `Display` text is `pointer: message`, for example
/// ``/properties/order/enum: `enum` lists no value of a type `type`
/// allows ("integer"): "asc", "desc"``.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaProblem {
    /// The JSON pointer (RFC 6901) of the keyword within the schema.
    pub pointer: String,
    /// The keyword (`enum`, `minimum`, `required`, ...).
    pub keyword: &'static str,
    /// What is wrong, naming the keywords that contradict each other.
    pub message: String,
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

/// Every part of `schema` no value can satisfy, in the order of the
/// schema; empty when it has none it can tell. The cases:
///
/// | in a schema (or a schema inside it) | why no value satisfies it |
/// | --- | --- |
/// | `"type": []`, `"enum": []` | nothing is listed |
/// | `enum` values none of which is of a type `type` allows | each value fails `type` |
/// | a `const` of a type `type` does not allow | the one value fails `type` |
/// | `minimum` above `maximum` (or equal, either exclusive), on numbers only | no number lies between |
/// | `minLength` above `maxLength`, on strings only | no length fits |
/// | `minItems` above `maxItems`, on arrays only | no length fits |
/// | `minProperties` above `maxProperties`, on objects only | no size fits |
/// | a `required` name neither in `properties` nor allowed by `additionalProperties: false` (without `patternProperties`), on objects only | the object must have and may not have it |
///
/// "On numbers only" and the like: the bounds constrain one type, so they
/// exclude every value only when `type` allows no other. Schemas under
/// `not` and `if` are passed over: there a schema no value satisfies
/// has a meaning (`false` as a property's schema, normalized, is `{"not":
/// {}}`).
///
/// ```
/// use serde_json::json;
/// use tool_runtime::schema;
///
/// let problems = schema::unsatisfiable(&json!({
///     "type": "object",
///     "properties": {
///         "order": {"type": "integer", "enum": ["asc", "desc"]},
///         "size": {"type": "integer", "minimum": 10, "maximum": 1}
///     }
/// }));
/// let found: Vec<String> = problems.iter().map(ToString::to_string).collect();
/// assert_eq!(found, [
///     "/properties/order/enum: `enum` lists no value of a type `type` allows (\"integer\"): \"asc\", \"desc\"",
///     "/properties/size/minimum: no number is at least 10 and at most 1 (`minimum`, `maximum`)",
/// ]);
/// ```
pub fn unsatisfiable(schema: &Value) -> Vec<SchemaProblem> {
    let mut problems = Vec::new();
    // An explicit stack, in reverse so problems come in schema order.
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), schema)];
    while let Some((pointer, node)) = stack.pop() {
        let Value::Object(object) = node else {
            continue;
        };
        check(&pointer, object, &mut problems);
        let mut children = Vec::new();
        for (key, child) in object {
            let at = format!("{pointer}/{}", token(key));
            let key = key.as_str();
            if CLOSED.contains(&key) || (ONE_SCHEMA.contains(&key) && !["not", "if"].contains(&key))
            {
                match child {
                    Value::Array(items) => children.extend(listed(&at, items)),
                    _ => children.push((at, child)),
                }
            } else if SCHEMA_LISTS.contains(&key) {
                if let Value::Array(items) = child {
                    children.extend(listed(&at, items));
                }
            } else if SCHEMA_MAPS.contains(&key)
                && let Value::Object(map) = child
            {
                children.extend(
                    map.iter()
                        .map(|(name, child)| (format!("{at}/{}", token(name)), child)),
                );
            }
        }
        stack.extend(children.into_iter().rev());
    }
    problems
}

/// The schemas of a list keyword, with their pointers.
fn listed<'a>(at: &str, items: &'a [Value]) -> Vec<(String, &'a Value)> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| (format!("{at}/{i}"), item))
        .collect()
}

/// A JSON pointer's token for `key`.
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The problems of one schema object, whose pointer is `pointer`.
fn check(pointer: &str, object: &Map<String, Value>, problems: &mut Vec<SchemaProblem>) {
    let mut problem = |keyword: &'static str, message: String| {
        problems.push(SchemaProblem {
            pointer: format!("{pointer}/{keyword}"),
            keyword,
            message,
        });
    };
    let types: Option<Vec<&str>> = match object.get("type") {
        Some(Value::String(kind)) => Some(vec![kind.as_str()]),
        Some(Value::Array(kinds)) => kinds.iter().map(Value::as_str).collect(),
        _ => None,
    };
    if types.as_ref().is_some_and(Vec::is_empty) {
        problem("type", "`type` lists no type".to_owned());
    }
    let allows = |value: &Value| {
        types
            .as_ref()
            .is_none_or(|t| t.iter().any(|k| is(value, k)))
    };
    let named = || {
        let names: Vec<String> = types.iter().flatten().map(|k| format!("\"{k}\"")).collect();
        names.join(", ")
    };
    match object.get("enum") {
        Some(Value::Array(values)) if values.is_empty() => {
            problem("enum", "`enum` lists no value".to_owned());
        }
        Some(Value::Array(values)) if !values.iter().any(allows) => problem(
            "enum",
            format!(
                "`enum` lists no value of a type `type` allows ({}): {}",
                named(),
                listing(values)
            ),
        ),
        _ => {}
    }
    if let Some(value) = object.get("const")
        && !allows(value)
    {
        problem(
            "const",
            format!(
                "`const` is {}, not of a type `type` allows ({})",
                crate::quote::value(value),
                named()
            ),
        );
    }
    let only = |kinds: &[&str]| {
        types
            .as_ref()
            .is_some_and(|t| t.iter().all(|k| kinds.contains(k)))
    };
    if only(&["number", "integer"]) {
        number_bounds(object, &mut problem);
    }
    for (kinds, low, high, what) in [
        ("string", "minLength", "maxLength", "length"),
        ("array", "minItems", "maxItems", "number of items"),
        (
            "object",
            "minProperties",
            "maxProperties",
            "number of properties",
        ),
    ] {
        if only(&[kinds])
            && let (Some(min), Some(max)) = (count(object, low), count(object, high))
            && min > max
        {
            problem(
                low,
                format!("no {what} is at least {min} and at most {max} (`{low}`, `{high}`)"),
            );
        }
    }
    if only(&["object"]) {
        required_but_forbidden(object, problem);
    }
}

/// A problem when no number lies within the bounds of `object`.
fn number_bounds(object: &Map<String, Value>, problem: &mut impl FnMut(&'static str, String)) {
    let bound = |key: &'static str| {
        let given = object.get(key)?;
        Some((key, given.as_f64()?, key.starts_with("exclusive"), given))
    };
    let low = [bound("minimum"), bound("exclusiveMinimum")]
        .into_iter()
        .flatten()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)));
    let high = [bound("maximum"), bound("exclusiveMaximum")]
        .into_iter()
        .flatten()
        .min_by(|a, b| a.1.total_cmp(&b.1).then(b.2.cmp(&a.2)));
    let (Some((low_key, low, low_open, low_given)), Some((high_key, high, high_open, high_given))) =
        (low, high)
    else {
        return;
    };
    if low < high || (low == high && !low_open && !high_open) {
        return;
    }
    let above = if low_open { "above" } else { "at least" };
    let below = if high_open { "below" } else { "at most" };
    problem(
        low_key,
        format!(
            "no number is {above} {low_given} and {below} {high_given} (`{low_key}`, \
             `{high_key}`)"
        ),
    );
}

/// A problem for each name `required` lists that the object may not have.
fn required_but_forbidden(
    object: &Map<String, Value>,
    mut problem: impl FnMut(&'static str, String),
) {
    if object.get("additionalProperties") != Some(&Value::Bool(false))
        || object.contains_key("patternProperties")
    {
        return;
    }
    let properties = object.get("properties").and_then(Value::as_object);
    let Some(Value::Array(required)) = object.get("required") else {
        return;
    };
    for name in required.iter().filter_map(Value::as_str) {
        if !properties.is_some_and(|p| p.contains_key(name)) {
            problem(
                "required",
                format!(
                    "`required` names \"{}\", which `properties` does not have and \
                     `additionalProperties: false` forbids",
                    crate::quote::name(name)
                ),
            );
        }
    }
}

/// Whether `value` is of the JSON Schema type `kind`; `true` for a type
/// name JSON Schema does not have (a validator refuses it before this).
fn is(value: &Value, kind: &str) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

/// A count keyword's value, when it is a whole number.
fn count(object: &Map<String, Value>, key: &str) -> Option<u64> {
    object.get(key)?.as_u64()
}

/// An enum's values as JSON, cut short when long.
fn listing(values: &[Value]) -> String {
    const SHOWN: usize = 8;
    let mut out: Vec<String> = values.iter().take(SHOWN).map(crate::quote::value).collect();
    if values.len() > SHOWN {
        out.push(format!("and {} more", values.len() - SHOWN));
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn found(schema: Value) -> Vec<(String, &'static str)> {
        unsatisfiable(&schema)
            .into_iter()
            .map(|p| (p.pointer, p.keyword))
            .collect()
    }

    #[test]
    fn finds_each_contradiction_where_it_is() {
        let schema = json!({
            "type": "object",
            "properties": {
                "sort": {"type": "array", "items": {"type": "string"}, "enum": ["asc", "desc"]},
                "n": {"type": "integer", "enum": ["one", "two"]},
                "c": {"type": "boolean", "const": "yes"},
                "low": {"type": "number", "exclusiveMinimum": 5, "maximum": 5},
                "word": {"type": "string", "minLength": 4, "maxLength": 2},
                "few": {"type": "array", "minItems": 3, "maxItems": 1},
                "any": {"anyOf": [{"type": "string"}, {"type": []}]},
                "none": {"enum": []},
                "a/b": {"type": "object", "properties": {}, "required": ["x"],
                        "additionalProperties": false}
            },
            "$defs": {"Bad": {"type": "null", "enum": [1]}}
        });
        assert_eq!(
            found(schema),
            [
                ("/properties/sort/enum".to_owned(), "enum"),
                ("/properties/n/enum".to_owned(), "enum"),
                ("/properties/c/const".to_owned(), "const"),
                (
                    "/properties/low/exclusiveMinimum".to_owned(),
                    "exclusiveMinimum"
                ),
                ("/properties/word/minLength".to_owned(), "minLength"),
                ("/properties/few/minItems".to_owned(), "minItems"),
                ("/properties/any/anyOf/1/type".to_owned(), "type"),
                ("/properties/none/enum".to_owned(), "enum"),
                ("/properties/a~1b/required".to_owned(), "required"),
                ("/$defs/Bad/enum".to_owned(), "enum"),
            ]
        );
    }

    #[test]
    fn passes_what_some_value_satisfies() {
        for schema in [
            // A value of the enum is of the type; `null` beside it too.
            json!({"type": "string", "enum": ["a", null]}),
            json!({"type": ["string", "null"], "enum": ["a", null]}),
            json!({"type": "integer", "enum": [1.0, 2]}),
            json!({"type": "number", "const": 3}),
            // Bounds that leave one value, or constrain one type of two.
            json!({"type": "number", "minimum": 5, "maximum": 5}),
            json!({"type": ["number", "string"], "minimum": 5, "maximum": 1}),
            json!({"minimum": 5, "maximum": 1}),
            json!({"type": "string", "minLength": 2, "maxLength": 2}),
            // A required name the open object may have.
            json!({"type": "object", "required": ["x"]}),
            json!({"type": "object", "required": ["x"], "additionalProperties": false,
                   "patternProperties": {"^x$": {}}}),
            // Under `not` and `if`, a schema no value satisfies means something.
            json!({"type": "object", "properties": {"gone": {"not": {}}}}),
            json!({"not": {"type": "integer", "enum": ["a"]}}),
            json!({"if": {"type": "integer", "enum": ["a"]}, "then": {}}),
        ] {
            assert_eq!(unsatisfiable(&schema), [], "{schema}");
        }
    }

    #[test]
    fn names_the_keywords_in_its_message() {
        let problems = unsatisfiable(&json!({"type": "object", "required": ["id"],
            "properties": {}, "additionalProperties": false, "minProperties": 2,
            "maxProperties": 1}));
        let found: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                "/minProperties: no number of properties is at least 2 and at most 1 \
                 (`minProperties`, `maxProperties`)",
                "/required: `required` names \"id\", which `properties` does not have and \
                 `additionalProperties: false` forbids",
            ]
        );
    }
}
