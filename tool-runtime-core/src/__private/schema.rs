//! A tool's schemas as the expansion reaches them: cached per tool in a
//! `static` [`SchemaCells`], built from Rust types by the schema module's
//! `typed` builder.

use std::any::Any;
use std::sync::OnceLock;

use serde_json::Value;

use crate::schema::typed;
use crate::spec::ParamSpec;

/// A per-tool cache for a schema.
pub type SchemaCell = OnceLock<Value>;

/// A tool's input and output schemas, each built on first use; the
/// expansion holds one in a `static`, so a tool's spec can hand out
/// `&'static` schemas.
pub struct SchemaCells {
    input: OnceLock<Value>,
    output: OnceLock<Option<Value>>,
}

impl SchemaCells {
    /// Empty caches.
    #[allow(clippy::new_without_default)] // used in a `static`
    pub const fn new() -> Self {
        Self {
            input: OnceLock::new(),
            output: OnceLock::new(),
        }
    }

    /// The input schema of a tool with these parameters.
    pub fn input(&'static self, params: &[ParamSpec]) -> Option<&'static Value> {
        Some(self.input.get_or_init(|| typed::input_schema(params)))
    }

    /// The output schema `build` makes, when it makes one.
    pub fn output(&'static self, build: impl FnOnce() -> Option<Value>) -> Option<&'static Value> {
        self.output.get_or_init(build).as_ref()
    }
}

/// Builds the input schema of a tool with these parameters afresh, without
/// a cache (for the benchmark that measures the building).
pub fn input_schema(params: &[ParamSpec]) -> Value {
    typed::input_schema(params)
}

/// The schema of a return or configuration type, standing alone.
pub(super) fn output_schema<T: schemars::JsonSchema + ?Sized>() -> Value {
    typed::output_schema::<T>()
}

/// A parameter's schema, made with the generator its tool's input schema
/// is built with: a `ParamSpec`'s `schema_fn`.
pub(super) fn arg_schema<T: schemars::JsonSchema>(generator: &mut dyn Any) -> Value {
    typed::generator_of(generator)
        .subschema_for::<T>()
        .to_value()
}
