//! Optional values in strict mode: whether a schema accepts `null`, and
//! making a converted schema accept it.

use serde_json::{Map, Value};

use super::references::resolve_ref;

/// Whether `schema` accepts `null`, following local references.
fn accepts_null(schema: &Value, root: &Value) -> bool {
    accepts_null_within(schema, root, 0)
}

fn accepts_null_within(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    let Value::Object(object) = schema else {
        return schema == &Value::Bool(true);
    };
    if let Some(Value::String(reference)) = object.get("$ref") {
        return resolve_ref(root, reference)
            .is_some_and(|target| accepts_null_within(target, root, depth + 1));
    }
    if object.is_empty() {
        return true;
    }
    let type_allows = match object.get("type") {
        Some(Value::String(name)) => name == "null",
        Some(Value::Array(names)) => names.iter().any(|name| name == "null"),
        _ => false,
    };
    let enum_allows = match object.get("enum") {
        Some(Value::Array(values)) => values.contains(&Value::Null),
        _ => false,
    };
    let const_allows = object.get("const") == Some(&Value::Null);
    let union_allows = ["anyOf", "oneOf"].iter().any(|key| match object.get(*key) {
        Some(Value::Array(branches)) => branches
            .iter()
            .any(|branch| accepts_null_within(branch, root, depth + 1)),
        _ => false,
    });
    if union_allows || const_allows {
        return true;
    }
    if object.contains_key("enum") {
        return enum_allows;
    }
    type_allows
}

/// Makes a converted schema accept `null` as well.
pub(super) fn make_nullable(schema: Value, root: &Value) -> Value {
    if accepts_null(&schema, root) {
        return schema;
    }
    let Value::Object(mut object) = schema else {
        return schema;
    };
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        branches.push(null_schema());
        return Value::Object(object);
    }
    let simple_type = !object.contains_key("$ref") && !object.contains_key("enum");
    if simple_type {
        match object.get_mut("type") {
            Some(Value::String(name)) => {
                let name = std::mem::take(name);
                object.insert("type".into(), Value::from(vec![name, "null".into()]));
                return Value::Object(object);
            }
            Some(Value::Array(names)) => {
                names.push("null".into());
                return Value::Object(object);
            }
            _ => {}
        }
    }
    // A reference, an enum or an untyped schema: a union with null, the
    // annotations kept on the outside.
    let mut outer = Map::new();
    for key in ["description", "title"] {
        if let Some(value) = object.remove(key) {
            outer.insert(key.into(), value);
        }
    }
    outer.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(object), null_schema()]),
    );
    Value::Object(outer)
}

fn null_schema() -> Value {
    Value::Object(Map::from_iter([("type".into(), "null".into())]))
}

/// Whether a schema is `{"type": "null"}`.
pub(super) fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("null"))
}
