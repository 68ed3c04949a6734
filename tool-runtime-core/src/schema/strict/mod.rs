//! OpenAI strict mode: converting a tool's schema to the subset OpenAI's
//! structured outputs accept, and checking a schema against that subset.
//!
//! With `"strict": true` on a function tool, OpenAI constrains the model's
//! arguments to the tool's schema exactly, but only accepts schemas that
//! follow a few rules:
//!
//! - every object has `additionalProperties: false` and lists *all* its
//!   properties in `required`; an optional value is written as a required
//!   value that may be `null` (`"type": ["string", "null"]`, or `anyOf` with
//!   `{"type": "null"}`);
//! - the root is an object (not `anyOf`);
//! - only these keywords are used: `type`, `properties`, `required`,
//!   `additionalProperties`, `items`, `enum`, `anyOf`, `$ref`, `$defs`,
//!   `description`, `title`, `pattern`, `format` (`date-time`, `time`,
//!   `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`),
//!   `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//!   `multipleOf`, `minItems` and `maxItems`;
//! - a `$ref` stands alone (no `description` or other keyword beside it);
//! - at most 5000 object properties, 1000 enum values and 10 levels of
//!   nested objects.
//!
//! [`strict_input_schema`] makes a tool's input schema follow them:
//!
//! | in the ordinary schema | in the strict schema |
//! | --- | --- |
//! | a parameter that is optional or has a default | required, and `null` is allowed; the runtime reads `null` as "absent", so the default applies |
//! | an optional field of a nested struct that already accepts `null` (`Option<T>`) | required; `null` decodes as `None` |
//! | an optional field of a nested struct that does not accept `null` (`#[serde(default)] x: u32`) | required and not nullable: the model always gives a value, since `null` would not decode |
//! | an object without `additionalProperties: false` but with properties | `additionalProperties: false` |
//! | `oneOf` | `anyOf` (schemars emits `oneOf` for enums, whose branches never overlap) |
//! | `const: v` | `enum: [v]` |
//! | `allOf` with one schema | that schema, merged in |
//! | `$ref` with sibling keywords | the referenced schema inlined with the siblings on top; inside a recursive type, the bare `$ref` (the siblings, usually a description, are dropped) |
//! | `default`, `examples`, `deprecated`, `readOnly`, `writeOnly`, `$comment`, `$schema`, `$id`, unknown keywords | dropped (annotations only) |
//! | `format` values strict mode does not know (schemars' `uint32`, `double`, ...) | dropped (`minimum`/`maximum`, which carry the range, stay) |
//! | `minLength`, `maxLength`, `uniqueItems`, `minProperties`, `maxProperties` | dropped: the model is no longer told the limit; the Rust type or the tool still checks what it checks |
//! | a free-form map (`HashMap<String, T>`, `BTreeMap<String, T>`) | an array of `{"key": ..., "value": ...}` objects |
//! | a value of any type (`serde_json::Value`, `{}`) | a string of JSON text |
//! | `$defs` no longer referenced after inlining | removed |
//!
//! The last two rows change the shape of the arguments a model sends:
//! [`from_strict_arguments`] turns them back, and a registry does so before
//! decoding for every tool it renders strict whose schema
//! [has such parts](arguments_differ).
//!
//! What cannot be expressed is reported, never silently changed, as a
//! [`StrictViolation`] with the JSON pointer of the problem: tuples
//! (`prefixItems`), `allOf` with several
//! schemas, `not`, `if`/`then`/`else`, `patternProperties`,
//! `propertyNames`, `dependentRequired`, `dependentSchemas`,
//! `unevaluatedProperties`/`unevaluatedItems` and `contains`.
//!
//! [`check`](fn@check) lists every rule a schema breaks as it is, so a hand-written
//! schema can be tested too:
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::schema::strict;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {
//!         "query": {"type": "string"},
//!         "filters": {"type": "object", "properties": {"lang": {"type": "string"}}},
//!         "tags": {"type": "object", "additionalProperties": {"type": "string"}}
//!     },
//!     "required": ["query"],
//!     "additionalProperties": false
//! });
//! let problems: Vec<String> = strict::check(&schema).iter().map(|v| v.to_string()).collect();
//! assert_eq!(problems, [
//!     "/required: must list \"filters\"",
//!     "/required: must list \"tags\"",
//!     "/properties/filters/additionalProperties: must be false",
//!     "/properties/filters/required: must list \"lang\"",
//!     "/properties/tags: free-form map keys cannot be expressed in strict mode",
//! ]);
//!
//! // Conversion fixes them: `tags` becomes a list of key/value objects.
//! let converted = strict::to_strict(&schema).unwrap();
//! assert!(strict::check(&converted).is_empty());
//! assert_eq!(converted["properties"]["tags"]["type"], "array");
//! assert_eq!(converted["properties"]["tags"]["items"]["required"], json!(["key", "value"]));
//!
//! // What it cannot express is reported, with where.
//! let tuple = json!({"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{}, {}]}}});
//! let errors = strict::to_strict(&tuple).unwrap_err();
//! assert_eq!(errors[0].pointer, "/properties/pair/prefixItems");
//! ```

// Each transform or concern in a file of its own; this file composes them.
// The files depend one way: `convert` on the others, `check` and
// `arguments` on the schema predicates, nothing back on this file.
mod arguments;
mod check;
mod convert;
mod free_form;
mod nullable;
mod references;
mod rules;
mod shape;
mod violation;

#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::spec::tool_spec::ToolSpec;

pub use arguments::{arguments_differ, from_strict_arguments};
pub use check::{check, is_strict};
pub(crate) use references::resolve_ref;
pub use rules::{MAX_DEPTH, MAX_ENUM_VALUES, MAX_PROPERTIES, SUPPORTED_FORMATS};
pub use violation::StrictViolation;
pub(crate) use violation::push_pointer;

/// The strict-mode form of a tool's input schema, or everything that keeps
/// it from having one.
///
/// Parameters that are optional or have a default become required and
/// nullable: the runtime reads a `null` argument as an absent one, so the
/// parameter's default (or `None`) applies. See the [module
/// documentation](self) for every other change. The result passes
/// [`check`](fn@check).
///
/// ```
/// use tool_runtime::{schema::strict, tool};
/// use serde_json::json;
///
/// /// Searches the catalogue.
/// #[tool(strict)]
/// fn search(
///     /// Words to look for
///     query: String,
///     /// Most results to return
///     #[tool(default = 10)]
///     limit: u32,
/// ) -> String {
///     format!("{limit} results for {query}")
/// }
///
/// let schema = strict::strict_input_schema(&SearchTool::SPEC).unwrap();
/// assert_eq!(schema["required"], json!(["query", "limit"]));
/// assert_eq!(schema["properties"]["limit"]["type"], json!(["integer", "null"]));
/// assert!(schema["properties"]["limit"].get("default").is_none());
/// assert!(strict::check(&schema).is_empty());
/// ```
pub fn strict_input_schema(spec: &ToolSpec) -> Result<Value, Vec<StrictViolation>> {
    let order: Vec<&str> = spec.params.iter().map(|param| param.name).collect();
    convert::convert(spec.input_schema(), Some(&order))
}

/// The strict-mode form of any object schema, or everything that keeps it
/// from having one.
///
/// Unlike [`strict_input_schema`], a property that is not required becomes
/// required as it is: nullable only when it already accepts `null`. Use it
/// for schemas whose readers do not treat `null` as absent.
pub fn to_strict(schema: &Value) -> Result<Value, Vec<StrictViolation>> {
    convert::convert(schema, None)
}
