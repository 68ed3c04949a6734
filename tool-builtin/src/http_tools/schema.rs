//! An OpenAPI document's schemas as the JSON Schema (2020-12) of a tool.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

/// The document's schemas made into the JSON Schema (2020-12) of one
/// tool: references within the document inlined (a recursive one kept in
/// `$defs`), OpenAPI 3.0's dialect converted (`nullable`, boolean
/// `exclusiveMinimum`/`exclusiveMaximum`), `example` made `examples`, and
/// OpenAPI's own keywords (`discriminator`, `xml`, `externalDocs`, `x-*`)
/// dropped.
pub(super) struct Schemas<'d> {
    doc: &'d Value,
    v30: bool,
    defs: Map<String, Value>,
    /// The `$defs` name of each recursive reference.
    names: HashMap<String, String>,
    pending: Vec<String>,
    pub(super) errors: Vec<String>,
}

impl<'d> Schemas<'d> {
    pub(super) fn new(doc: &'d Value, v30: bool) -> Self {
        Schemas {
            doc,
            v30,
            defs: Map::new(),
            names: HashMap::new(),
            pending: Vec::new(),
            errors: Vec::new(),
        }
    }

    pub(super) fn convert(&mut self, schema: &Value) -> Value {
        self.walk(schema, &mut Vec::new(), 0)
    }

    /// Puts the recursive schemas met into `root`'s `$defs`.
    pub(super) fn finish(&mut self, root: &mut Value) {
        while let Some(reference) = self.pending.pop() {
            let name = self.names[&reference].clone();
            if self.defs.contains_key(&name) {
                continue;
            }
            self.defs.insert(name.clone(), json!({}));
            let target = local_pointer(&reference).and_then(|p| self.doc.pointer(&p));
            let converted = match target {
                Some(target) => self.walk(target, &mut vec![reference.clone()], 0),
                None => json!({}),
            };
            self.defs.insert(name, converted);
        }
        if !self.defs.is_empty() {
            root["$defs"] = Value::Object(std::mem::take(&mut self.defs));
        }
    }

    fn walk(&mut self, schema: &Value, stack: &mut Vec<String>, depth: usize) -> Value {
        if depth > 64 {
            self.errors
                .push("a schema nests more than 64 levels deep".into());
            return json!({});
        }
        let Value::Object(object) = schema else {
            return schema.clone();
        };
        if let Some(Value::String(reference)) = object.get("$ref") {
            let resolved = if stack.contains(reference) {
                let name = self.def_name(reference);
                json!({"$ref": format!("#/$defs/{name}")})
            } else {
                match local_pointer(reference).and_then(|p| self.doc.pointer(&p)) {
                    Some(target) => {
                        stack.push(reference.clone());
                        let converted = self.walk(target, stack, depth + 1);
                        stack.pop();
                        converted
                    }
                    None => {
                        self.errors.push(format!("$ref {reference:?} does not resolve (only references within the document are followed)"));
                        json!({})
                    }
                }
            };
            // OpenAPI 3.0 ignores what stands beside a $ref; 3.1 (JSON
            // Schema 2020-12) applies it.
            let siblings: Map<String, Value> = object
                .iter()
                .filter(|(key, _)| *key != "$ref")
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            if self.v30 || siblings.is_empty() {
                return resolved;
            }
            let Value::Object(siblings) = self.walk(&Value::Object(siblings), stack, depth + 1)
            else {
                return resolved;
            };
            return match resolved {
                Value::Object(mut merged) => {
                    merged.extend(siblings);
                    Value::Object(merged)
                }
                other => other,
            };
        }
        let mut out = Map::new();
        for (key, value) in object {
            let converted = match key.as_str() {
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" => match value {
                    Value::Object(map) => Value::Object(
                        map.iter()
                            .map(|(name, child)| (name.clone(), self.walk(child, stack, depth + 1)))
                            .collect(),
                    ),
                    other => other.clone(),
                },
                "items"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "additionalItems" => match value {
                    Value::Array(items) => Value::Array(
                        items
                            .iter()
                            .map(|child| self.walk(child, stack, depth + 1))
                            .collect(),
                    ),
                    child => self.walk(child, stack, depth + 1),
                },
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value {
                    Value::Array(items) => Value::Array(
                        items
                            .iter()
                            .map(|child| self.walk(child, stack, depth + 1))
                            .collect(),
                    ),
                    other => other.clone(),
                },
                "discriminator" | "xml" | "externalDocs" | "example" | "nullable" => continue,
                other if other.starts_with("x-") => continue,
                _ => value.clone(),
            };
            out.insert(key.clone(), converted);
        }
        if let Some(example) = object.get("example")
            && !out.contains_key("examples")
        {
            out.insert("examples".into(), json!([example]));
        }
        if self.v30 {
            for (exclusive, bound) in [
                ("exclusiveMinimum", "minimum"),
                ("exclusiveMaximum", "maximum"),
            ] {
                if let Some(Value::Bool(is_exclusive)) = out.get(exclusive).cloned() {
                    out.remove(exclusive);
                    if is_exclusive && let Some(limit) = out.remove(bound) {
                        out.insert(exclusive.into(), limit);
                    }
                }
            }
            if object.get("nullable") == Some(&Value::Bool(true)) {
                return nullable(out);
            }
        }
        Value::Object(out)
    }

    fn def_name(&mut self, reference: &str) -> String {
        if let Some(name) = self.names.get(reference) {
            return name.clone();
        }
        let last = reference.rsplit('/').next().unwrap_or("schema");
        let base: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut name = base.clone();
        let mut n = 2;
        while self.names.values().any(|taken| *taken == name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.names.insert(reference.to_owned(), name.clone());
        self.pending.push(reference.to_owned());
        name
    }
}

/// OpenAPI 3.0's `nullable: true` in JSON Schema: `null` added to `type`
/// (and to `enum`), or the schema made one branch of an `anyOf` with it.
fn nullable(mut schema: Map<String, Value>) -> Value {
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match schema.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = kind.clone();
            schema.insert("type".into(), json!([kind, "null"]));
            Value::Object(schema)
        }
        Some(Value::Array(kinds)) => {
            if !kinds.contains(&json!("null")) {
                kinds.push(json!("null"));
            }
            Value::Object(schema)
        }
        _ => {
            let description = schema.remove("description");
            let mut wrapped = json!({"anyOf": [Value::Object(schema), {"type": "null"}]});
            if let Some(description) = description {
                wrapped["description"] = description;
            }
            wrapped
        }
    }
}

/// The JSON pointer of a reference within the document (`#/components/...`).
pub(super) fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    // A fragment may be percent-encoded.
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = fragment
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_3_0_schemas_become_json_schema() {
        let doc = json!({"components": {"schemas": {
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}},
            "Age": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "nullable": true, "example": 3, "x-internal": true}
        }}});
        let mut schemas = Schemas::new(&doc, true);
        let age = schemas.convert(&json!({"$ref": "#/components/schemas/Age"}));
        assert_eq!(
            age,
            json!({"type": ["integer", "null"], "exclusiveMinimum": 0, "examples": [3]})
        );
        let mut root = json!({"type": "object", "properties": {"node": schemas.convert(&json!({"$ref": "#/components/schemas/Node"}))}});
        schemas.finish(&mut root);
        assert_eq!(
            root["properties"]["node"]["properties"]["next"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            root["$defs"]["Node"]["properties"]["next"],
            json!({"$ref": "#/$defs/Node"})
        );
        let broken = schemas.convert(&json!({"$ref": "#/components/schemas/Missing"}));
        assert_eq!(broken, json!({}));
        assert!(
            schemas.errors[0].contains("does not resolve"),
            "{:?}",
            schemas.errors
        );
    }
}
