//! Tool schemas built from Rust types with `schemars`: a tool's input
//! schema from its parameters, and the schema of a return, configuration
//! or elicited type. Every schema then goes through [`normalize`].

use std::any::Any;

use serde_json::{Map, Value};

use crate::schema::{boolean_schema, normalize};
use crate::spec::tool_spec::ParamSpec;

/// The schema generator settings every tool schema is built with.
fn generator() -> schemars::SchemaGenerator {
    schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
}

/// The generator a parameter's `schema_fn` is given, as `Any` (a
/// `ParamSpec` names no `schemars` type).
pub(crate) fn generator_of(generator: &mut dyn Any) -> &mut schemars::SchemaGenerator {
    generator
        .downcast_mut()
        .expect("a parameter's schema is made with the generator `input_schema` passes")
}

/// Builds the object schema of a tool's arguments from its parameters.
pub(crate) fn input_schema(params: &[ParamSpec]) -> Value {
    let mut generator = generator();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in params {
        let mut schema = (param.schema_fn)(&mut generator);
        // `serde_json::Value` gives the schema `true`: make it an object so
        // the description has a place.
        if let Value::Bool(accepts) = schema {
            schema = boolean_schema(accepts);
        }
        if let Value::Object(object) = &mut schema {
            if !param.description.is_empty() {
                object.insert("description".into(), param.description.into());
            }
            if let Some(default) = param.default_fn.and_then(|f| f()) {
                object.insert("default".into(), default);
            }
            param.constraints.annotate(object);
            if let Some(header) = param.header {
                object.insert(ParamSpec::HEADER_KEYWORD.into(), header.into());
            }
        }
        properties.insert(param.name.to_owned(), schema);
        if param.required {
            required.push(Value::from(param.name));
        }
    }
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(properties));
    root.insert("required".into(), Value::Array(required));
    root.insert("additionalProperties".into(), false.into());
    let definitions = generator.take_definitions(true);
    if !definitions.is_empty() {
        root.insert("$defs".into(), Value::Object(definitions));
    }
    let mut root = Value::Object(root);
    strip_titles(&mut root);
    normalize(&mut root);
    root
}

/// Builds the schema of a return type (or a configuration type) as a
/// standalone schema: the type's own schema at the root, nested types under
/// `$defs`.
pub(crate) fn output_schema<T: schemars::JsonSchema + ?Sized>() -> Value {
    let mut schema = generator().root_schema_for::<T>().to_value();
    strip_titles(&mut schema);
    normalize(&mut schema);
    schema
}

/// Removes `title` keywords: schemars fills them with Rust type names, which
/// tell a model nothing.
fn strip_titles(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if matches!(object.get("title"), Some(Value::String(_))) {
                object.shift_remove("title");
            }
            for (key, child) in object.iter_mut() {
                // `properties` maps names to schemas; a property named
                // "title" must survive, so only its schema is visited.
                if key == "properties" || key == "$defs" {
                    if let Value::Object(map) = child {
                        map.values_mut().for_each(strip_titles);
                    }
                } else if !matches!(key.as_str(), "default" | "examples" | "const" | "enum") {
                    strip_titles(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_titles),
        _ => {}
    }
}
