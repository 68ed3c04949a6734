//! How a JSON Schema reads in Python: the annotation of a value's type,
//! the keys of an object, and in words what the types do not say (bounds,
//! lengths, a pattern, a format, a long enumeration).

use serde_json::Value;

/// How deep a schema is followed for an annotation; deeper is `Any`.
const MAX_DEPTH: usize = 6;

/// The most values of an enumeration a docstring lists.
const MAX_LISTED: usize = 50;

/// Whether `annotation` lets the value be `None`.
pub(super) fn takes_none(annotation: &str) -> bool {
    annotation == "Any" || annotation == "None" || annotation.ends_with(" | None")
}

/// A JSON string, which is also a Python string literal.
pub(super) fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// A JSON value as a Python literal.
pub(super) fn literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => json_string(text),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(literal).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(key, value)| format!("{}: {}", json_string(key), literal(value)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// The Python annotation of `schema`, whose `$ref`s point into `root`.
pub(super) fn annotation(schema: &Value, root: &Value, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "Any".to_owned();
    }
    let Some(object) = schema.as_object() else {
        return "Any".to_owned();
    };
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        return match resolve(reference, root) {
            Some(target) => annotation(target, root, depth + 1),
            None => "Any".to_owned(),
        };
    }
    if let Some(value) = object.get("const") {
        return format!("Literal[{}]", literal(value));
    }
    if let Some(choices) = object.get("enum").and_then(Value::as_array)
        && !choices.is_empty()
        && choices.len() <= 12
    {
        let choices: Vec<String> = choices.iter().map(literal).collect();
        return format!("Literal[{}]", choices.join(", "));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(choices) = object.get(key).and_then(Value::as_array) {
            return union(
                choices
                    .iter()
                    .map(|choice| annotation(choice, root, depth + 1)),
            );
        }
    }
    if let Some(all) = object.get("allOf").and_then(Value::as_array)
        && all.len() == 1
    {
        return annotation(&all[0], root, depth + 1);
    }
    match object.get("type") {
        Some(Value::String(kind)) => simple(kind, object, root, depth),
        Some(Value::Array(kinds)) => union(
            kinds
                .iter()
                .filter_map(Value::as_str)
                .map(|kind| simple(kind, object, root, depth)),
        ),
        _ if object.contains_key("properties") => "dict".to_owned(),
        _ => "Any".to_owned(),
    }
}

/// The annotation of one JSON type.
fn simple(
    kind: &str,
    object: &serde_json::Map<String, Value>,
    root: &Value,
    depth: usize,
) -> String {
    match kind {
        "string" => "str".to_owned(),
        "integer" => "int".to_owned(),
        "number" => "float".to_owned(),
        "boolean" => "bool".to_owned(),
        "null" => "None".to_owned(),
        "array" => match object.get("items") {
            Some(items) if items.is_object() => {
                format!("list[{}]", annotation(items, root, depth + 1))
            }
            _ => "list".to_owned(),
        },
        "object" => match object.get("additionalProperties") {
            Some(values) if values.is_object() && !object.contains_key("properties") => {
                format!("dict[str, {}]", annotation(values, root, depth + 1))
            }
            _ => "dict".to_owned(),
        },
        _ => "Any".to_owned(),
    }
}

/// The union of `parts`, each once, literals in one `Literal[...]`,
/// `None` last.
fn union(parts: impl Iterator<Item = String>) -> String {
    let mut seen = Vec::new();
    let mut literals: Vec<String> = Vec::new();
    let mut none = false;
    for part in parts {
        if part == "Any" {
            return part;
        }
        if part == "None" {
            none = true;
        } else if let Some(values) = part
            .strip_prefix("Literal[")
            .and_then(|rest| rest.strip_suffix(']'))
        {
            literals.push(values.to_owned());
        } else if !seen.contains(&part) {
            seen.push(part);
        }
    }
    if !literals.is_empty() {
        seen.insert(0, format!("Literal[{}]", literals.join(", ")));
    }
    if none {
        seen.push("None".to_owned());
    }
    match seen.len() {
        0 => "Any".to_owned(),
        _ => seen.join(" | "),
    }
}

/// The keys of the object `schema` takes, or of its list's items, with
/// their types: `{"date": str, "minutes": int}`; `None` for other schemas.
pub(super) fn keys(schema: &Value, root: &Value, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    let object = schema.as_object()?;
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        return keys(resolve(reference, root)?, root, depth + 1);
    }
    if let Some(items) = object.get("items") {
        return keys(items, root, depth + 1).map(|keys| format!("(each {keys})"));
    }
    let properties = object.get("properties")?.as_object()?;
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let entries: Vec<String> = properties
        .iter()
        .map(|(name, property)| {
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                " (optional)"
            };
            format!(
                "{}: {}{optional}",
                json_string(name),
                annotation(property, root, depth + 1)
            )
        })
        .collect();
    Some(format!("{{{}}}", entries.join(", ")))
}

/// What `schema` asks of a value that its annotation does not say, in
/// words: bounds, lengths, a pattern, a format, an enumeration too long
/// for a `Literal`, and the same of a list's items; `None` when nothing.
pub(super) fn constraints(schema: &Value, root: &Value, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    let object = schema.as_object()?;
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        return constraints(resolve(reference, root)?, root, depth + 1);
    }
    let mut parts = Vec::new();
    // `Option<T>`'s schema: T, or null; T's constraints are the value's.
    for key in ["anyOf", "oneOf"] {
        if let Some(choices) = object.get(key).and_then(Value::as_array) {
            let mut values = choices
                .iter()
                .filter(|choice| choice.get("type").and_then(Value::as_str) != Some("null"));
            if let (Some(only), None) = (values.next(), values.next())
                && let Some(inner) = constraints(only, root, depth + 1)
            {
                parts.push(inner);
            }
        }
    }
    if let Some(all) = object.get("allOf").and_then(Value::as_array)
        && let [only] = all.as_slice()
        && let Some(inner) = constraints(only, root, depth + 1)
    {
        parts.push(inner);
    }
    bounds(object, &mut parts);
    if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
        parts.push(format!("pattern {}", raw_string(pattern)));
    }
    // A string's format says what it holds; a number's (`uint32`,
    // `double`) only how wide it is.
    let string = match object.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "string"),
        _ => false,
    };
    if string && let Some(format) = object.get("format").and_then(Value::as_str) {
        parts.push(format!("format {}", json_string(format)));
    }
    if let Some(choices) = object.get("enum").and_then(Value::as_array)
        && !annotation(schema, root, depth).starts_with("Literal[")
        && !choices.is_empty()
    {
        let mut listed: Vec<String> = choices.iter().take(MAX_LISTED).map(literal).collect();
        if choices.len() > MAX_LISTED {
            listed.push(format!("... ({} more)", choices.len() - MAX_LISTED));
        }
        parts.push(format!("one of {}", listed.join(", ")));
    }
    if let Some(items) = object.get("items")
        && let Some(each) = constraints(items, root, depth + 1)
    {
        parts.push(format!("each item {each}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The numeric bounds of `object` as words: of the value, its length, or
/// its number of items or keys.
fn bounds(object: &serde_json::Map<String, Value>, parts: &mut Vec<String>) {
    let number = |key: &str| object.get(key).filter(|value| value.is_number());
    for (key, sign) in [
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
    ] {
        if let Some(value) = number(key) {
            parts.push(format!("{sign} {value}"));
        }
    }
    if let Some(value) = number("multipleOf") {
        parts.push(format!("a multiple of {value}"));
    }
    for (min, max, what) in [
        ("minLength", "maxLength", "characters"),
        ("minItems", "maxItems", "items"),
        ("minProperties", "maxProperties", "keys"),
    ] {
        match (number(min), number(max)) {
            (Some(min), Some(max)) if min == max => parts.push(format!("exactly {min} {what}")),
            (Some(min), Some(max)) => parts.push(format!("{min} to {max} {what}")),
            (Some(min), None) => parts.push(format!("at least {min} {what}")),
            (None, Some(max)) => parts.push(format!("at most {max} {what}")),
            (None, None) => {}
        }
    }
    if object.get("uniqueItems") == Some(&Value::Bool(true)) {
        parts.push("no item twice".to_owned());
    }
}

/// `text` as a Python raw string where it can be one (`r"^\d+$"`), else
/// as a plain string literal.
fn raw_string(text: &str) -> String {
    let plain = text.chars().all(|c| !c.is_control());
    if plain && !text.contains('"') && !text.ends_with('\\') {
        format!("r\"{text}\"")
    } else {
        json_string(text)
    }
}

/// The schema a local `$ref` (`#/...`, a JSON pointer) names in `root`.
fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_lists_and_enumerations_are_followed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "unit": {"$ref": "#/$defs/Unit"},
                "tags": {"type": "array", "items": {"type": "integer"}},
                "more": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "$defs": {"Unit": {"type": "string", "enum": ["m", "km"]}},
        });
        assert_eq!(
            annotation(&schema["properties"]["unit"], &schema, 0),
            "Literal[\"m\", \"km\"]"
        );
        assert_eq!(
            annotation(&schema["properties"]["tags"], &schema, 0),
            "list[int]"
        );
        assert_eq!(
            annotation(&schema["properties"]["more"], &schema, 0),
            "dict[str, str]"
        );
        assert_eq!(annotation(&json!({"$ref": "#/nowhere"}), &schema, 0), "Any");
    }
}
