//! Conversion, checking and arguments back, on whole schemas.

use serde_json::json;

use super::convert::convert;
use super::{
    StrictViolation, arguments_differ, check, from_strict_arguments, is_strict, to_strict,
};

fn messages(violations: &[StrictViolation]) -> Vec<String> {
    violations.iter().map(ToString::to_string).collect()
}

#[test]
fn optional_properties_become_required_and_nullable_at_the_top_level() {
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "format": "uint32", "minimum": 0, "default": 3},
            "unit": {"$ref": "#/$defs/Unit", "description": "The unit"}
        },
        "required": ["city"],
        "additionalProperties": false,
        "$defs": {
            "Unit": {"oneOf": [
                {"type": "string", "const": "c", "description": "Celsius"},
                {"type": "string", "const": "f"}
            ]}
        }
    });
    let strict = convert(&schema, Some(&["city", "days", "unit"])).unwrap();
    assert_eq!(
        strict,
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": ["integer", "null"], "minimum": 0},
                "unit": {
                    "description": "The unit",
                    "anyOf": [
                        {"type": "string", "enum": ["c"], "description": "Celsius"},
                        {"type": "string", "enum": ["f"]},
                        {"type": "null"}
                    ]
                }
            },
            "required": ["city", "days", "unit"],
            "additionalProperties": false
        })
    );
    assert_eq!(messages(&check(&strict)), Vec::<String>::new());
}

#[test]
fn bare_references_stay_and_unions_gain_a_null_branch() {
    let schema = json!({
        "type": "object",
        "properties": {
            "slot": {"$ref": "#/$defs/Slot"},
            "choice": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "maybe": {"$ref": "#/$defs/Slot"}
        },
        "required": ["slot", "choice"],
        "$defs": {
            "Slot": {"type": "object", "properties": {"at": {"type": "string"}}}
        }
    });
    let strict = convert(&schema, Some(&["slot", "choice", "maybe"])).unwrap();
    assert_eq!(
        strict["properties"]["slot"],
        json!({"$ref": "#/$defs/Slot"})
    );
    assert_eq!(
        strict["properties"]["maybe"],
        json!({"anyOf": [{"$ref": "#/$defs/Slot"}, {"type": "null"}]})
    );
    assert_eq!(
        strict["properties"]["choice"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    assert_eq!(
        strict["$defs"]["Slot"],
        json!({
            "type": "object",
            "properties": {"at": {"type": "string"}},
            "required": ["at"],
            "additionalProperties": false
        })
    );
    assert!(is_strict(&strict));
}

#[test]
fn nested_optional_fields_are_required_and_only_nullable_when_they_were() {
    let schema = json!({
        "type": "object",
        "properties": {
            "person": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "email": {"type": ["string", "null"]},
                    "age": {"type": "integer", "default": 0}
                },
                "required": ["name"],
                "additionalProperties": false
            }
        },
        "required": ["person"],
        "additionalProperties": false
    });
    let strict = to_strict(&schema).unwrap();
    let person = &strict["properties"]["person"];
    assert_eq!(person["required"], json!(["name", "email", "age"]));
    assert_eq!(
        person["properties"]["email"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(person["properties"]["age"], json!({"type": "integer"}));
}

#[test]
fn recursive_references_with_descriptions_are_inlined_once_then_kept_bare() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tree": {"$ref": "#/$defs/Node", "description": "The tree"}
        },
        "required": ["tree"],
        "additionalProperties": false,
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "first": {"$ref": "#/$defs/Node", "description": "First child"},
                    "rest": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                },
                "required": ["label", "first", "rest"]
            }
        }
    });
    let strict = to_strict(&schema).unwrap();
    let tree = &strict["properties"]["tree"];
    assert_eq!(tree["description"], json!("The tree"));
    assert_eq!(tree["properties"]["first"], json!({"$ref": "#/$defs/Node"}));
    assert_eq!(
        strict["$defs"]["Node"]["properties"]["first"],
        json!({"$ref": "#/$defs/Node"})
    );
    assert!(is_strict(&strict), "{:?}", check(&strict));
}

#[test]
fn inexpressible_schemas_report_every_problem_with_its_pointer() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "anything": true,
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "meta": {"type": "object"},
            "either": {"allOf": [{"type": "string"}, {"minLength": 2}]},
            "ok": {"type": "string", "minLength": 2}
        },
        "required": ["tags"]
    });
    let errors = to_strict(&schema).unwrap_err();
    assert_eq!(
        messages(&errors),
        [
            "/properties/pair/prefixItems: tuples (prefixItems) cannot be expressed in strict mode",
            "/properties/either/allOf: allOf with several schemas cannot be expressed in strict mode",
        ]
    );
}

#[test]
fn maps_become_key_value_lists_and_any_values_json_text() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Tags"},
            "anything": {"description": "Whatever"},
            "meta": {"type": "object"},
            "nested": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}}
        },
        "required": ["tags"]
    });
    let strict = to_strict(&schema).unwrap();
    assert!(is_strict(&strict), "{:?}", check(&strict));
    assert_eq!(
        strict["properties"]["tags"],
        json!({
            "type": "array",
            "description": "Tags",
            "items": {
                "type": "object",
                "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                "required": ["key", "value"],
                "additionalProperties": false
            }
        })
    );
    assert_eq!(
        strict["properties"]["anything"],
        json!({"type": "string", "description": "Whatever (Write the value as JSON text.)"})
    );
    assert_eq!(
        strict["properties"]["meta"]["items"]["properties"]["value"]["type"],
        "string"
    );
    assert_eq!(
        strict["properties"]["nested"]["items"]["properties"]["value"]["items"]["properties"]["value"],
        json!({"type": "integer"})
    );
    // A fixed point.
    assert_eq!(to_strict(&strict).unwrap(), strict);
    assert!(arguments_differ(&schema));
    assert!(!arguments_differ(
        &json!({"type": "object", "properties": {"a": {"type": "string"}}})
    ));

    let sent = json!({
        "tags": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}],
        "anything": "[1, {\"x\": null}]",
        "meta": [{"key": "k", "value": "\"text\""}],
        "nested": [{"key": "n", "value": [{"key": "m", "value": 3}]}]
    });
    assert_eq!(
        from_strict_arguments(&schema, sent),
        json!({
            "tags": {"a": "1", "b": "2"},
            "anything": [1, {"x": null}],
            "meta": {"k": "text"},
            "nested": {"n": {"m": 3}}
        })
    );
    // What is not in strict form is left for the decoder.
    let odd = json!({"tags": [1, 2], "anything": "not json"});
    assert_eq!(from_strict_arguments(&schema, odd.clone()), odd);
}

#[test]
fn checker_points_at_each_broken_rule() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "format": "uint8", "default": 1},
            "b": {"$ref": "#/$defs/B", "description": "B"},
            "c": {"oneOf": [{"const": 1}, {"const": 2}]},
            "d/e": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": true}
        },
        "required": ["a", "b", "c"],
        "additionalProperties": false,
        "$defs": {"B": {"type": "string"}}
    });
    assert_eq!(
        messages(&check(&schema)),
        [
            "/required: must list \"d/e\"",
            "/properties/a/format: format \"uint8\" is not supported in strict mode",
            "/properties/a/default: default is not supported in strict mode",
            "/properties/b: $ref cannot have sibling keywords in strict mode (found description)",
            "/properties/c/oneOf: oneOf is not supported in strict mode; use anyOf",
            "/properties/c/oneOf/0/const: const is not supported in strict mode; use an enum with one value",
            "/properties/c/oneOf/1/const: const is not supported in strict mode; use an enum with one value",
            "/properties/d~1e/additionalProperties: must be false",
            "/properties/d~1e/required: must list \"x\"",
        ]
    );
}

#[test]
fn checker_reports_roots_that_are_not_objects_and_limits() {
    assert_eq!(
        messages(&check(&json!({"anyOf": [{"type": "object"}]}))),
        [
            "(root): the root must be an object schema, not a union",
            "/anyOf/0: a free-form object (no declared properties) cannot be expressed in strict mode",
        ]
    );
    let mut deep = json!({"type": "string"});
    for _ in 0..11 {
        deep = json!({
            "type": "object",
            "properties": {"next": deep},
            "required": ["next"],
            "additionalProperties": false
        });
    }
    let violations = check(&deep);
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].pointer, "/properties/next".repeat(10));
}

#[test]
fn unused_definitions_are_pruned_after_inlining() {
    let schema = json!({
        "type": "object",
        "properties": {"unit": {"$ref": "#/$defs/Unit", "description": "d"}},
        "required": ["unit"],
        "$defs": {"Unit": {"type": "string", "enum": ["a", "b"]}}
    });
    let strict = to_strict(&schema).unwrap();
    assert_eq!(
        strict,
        json!({
            "type": "object",
            "properties": {"unit": {"type": "string", "enum": ["a", "b"], "description": "d"}},
            "required": ["unit"],
            "additionalProperties": false
        })
    );
}
