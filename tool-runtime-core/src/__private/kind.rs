//! Choosing behaviour by type: the tag `Kind<T>`.
//!
//! Some of what a tool does depends on a type the macro sees only as
//! tokens: a returned `ToolResult` is kept as a result while any other value
//! is serialised; a `ToolError` keeps its kind while any other error becomes
//! text; a default has a JSON form only if its type serialises. Stable Rust
//! has no specialisation, so the expansion names an item of the zero-sized
//! tag `Kind<T>` and lets lookup choose, in this order:
//!
//! 1. an inherent item of `Kind<T>` whose impl's bound `T` meets
//!    (`impl Kind<ToolResult>`, `impl<T: ToolArg> Kind<T>`); lookup skips
//!    an inherent impl whose bound fails;
//! 2. a trait method taking `self` whose impl's bound `T` meets
//!    ([`SerializeOutput`] for `T: Serialize`);
//! 3. the [`Fallback`] item: its methods take `&self`, so method lookup
//!    reaches them only after every candidate taking `Kind<T>` by value, and
//!    its associated constants are a trait's, which a path finds only when
//!    no inherent one applies.
//!
//! For a value, [`Kind::of`] makes the tag from a reference it does not
//! keep, and the chosen method then takes the value:
//! `Kind::of(&value).output(value)`. Nothing is wrapped and nothing can fail
//! at run time.
//!
//! Most fallbacks never run. A type without the traits a tool needs fails
//! its assertion, and the crate does not compile; the fallback only spares
//! the user a second error for the same type at each place the expansion
//! uses it. Two fallbacks are real answers: a return type with no JSON
//! Schema has no output schema, and a default that does not serialise has
//! no `default` keyword.

use std::fmt::Display;
use std::marker::PhantomData;

use serde::de::DeserializeSeed;
use serde::{Deserializer, Serialize};
use serde_json::Value;

use super::traits::{ArgValidator, ToolArg, ToolConfig};
use super::transform::{TransformFn, Transformed};
use super::{PARAM_DEFAULTS, schema};
use crate::spec::args::{self, ArgSeed};
use crate::spec::config::{self, ConfigValue};
use crate::{ToolError, ToolOutput, ToolResult, spec::ArgError, spec::ParamSpec};

/// Names the type `T` for the methods below; zero-sized.
pub struct Kind<T>(PhantomData<T>);

impl<T> Kind<T> {
    /// The tag of `T`.
    pub const NEW: Self = Kind(PhantomData);

    /// The tag of `value`'s type. It does not keep the reference, so the
    /// value can be moved into the method called on the tag.
    #[inline]
    pub fn of(value: &T) -> Self {
        let _ = value;
        Self::NEW
    }
}

impl<T> Clone for Kind<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Kind<T> {}

/// A `ToolResult` is the call's result as it is.
impl Kind<ToolResult> {
    /// Converts a return value.
    #[inline]
    pub fn output(self, result: ToolResult) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::Result(result))
    }
}

/// A `ToolOutput` is the call's output as it is.
impl Kind<ToolOutput> {
    /// Converts a return value.
    #[inline]
    pub fn output(self, output: ToolOutput) -> Result<ToolOutput, ToolError> {
        Ok(output)
    }
}

/// Content blocks, media and resources become a result holding them.
macro_rules! content_output {
    ($($ty:ty),*) => {$(
        impl Kind<$ty> {
            /// Converts a return value.
            #[inline]
            pub fn output(self, value: $ty) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::from(value))
            }
        }
    )*};
}
content_output!(
    crate::Content,
    Vec<crate::Content>,
    crate::content::Image,
    crate::content::Audio,
    crate::content::Resource,
    crate::content::ResourceLink
);

/// Text becomes a JSON string without going through the serialiser.
impl Kind<String> {
    /// Converts a return value.
    #[inline]
    pub fn output(self, text: String) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::Value(Value::String(text)))
    }
}

/// Any other value that serialises becomes JSON.
pub trait SerializeOutput<T> {
    /// Converts a return value.
    fn output(self, value: T) -> Result<ToolOutput, ToolError>;
}

impl<T: Serialize> SerializeOutput<T> for Kind<T> {
    #[inline]
    fn output(self, value: T) -> Result<ToolOutput, ToolError> {
        serde_json::to_value(&value)
            .map(ToolOutput::Value)
            .map_err(|error| {
                ToolError::new(format!(
                    "the tool's result could not be serialised: {error}"
                ))
            })
    }
}

/// A `ToolError` keeps its kind and argument errors.
impl Kind<ToolError> {
    /// Converts the error of a returned `Result`.
    #[inline]
    pub fn error(self, error: ToolError) -> ToolError {
        error
    }
}

/// Any other error that displays becomes a failed call with its text.
pub trait DisplayError<E> {
    /// Converts the error of a returned `Result`.
    fn error(self, error: E) -> ToolError;
}

impl<E: Display> DisplayError<E> for Kind<E> {
    #[inline]
    fn error(self, error: E) -> ToolError {
        ToolError::from_display(error)
    }
}

/// Text, unit and raw JSON returns have no output schema.
macro_rules! no_output_schema {
    ($($ty:ty),*) => {$(
        impl Kind<$ty> {
            /// No output schema.
            pub fn output_schema(self) -> Option<Value> {
                None
            }
        }
    )*};
}
no_output_schema!(String, &str, std::borrow::Cow<'_, str>, (), Value);

/// Any other return type with a JSON Schema has it as its output schema.
pub trait JsonSchemaOutput {
    /// The output schema.
    fn output_schema(self) -> Option<Value>;
}

impl<T: schemars::JsonSchema> JsonSchemaOutput for Kind<T> {
    fn output_schema(self) -> Option<Value> {
        Some(schema::output_schema::<T>())
    }
}

/// A default that serialises is shown in the schema.
impl<T: Serialize> Kind<T> {
    /// The default as JSON, for the schema's `default` keyword.
    pub fn default_json(self, value: T) -> Option<Value> {
        serde_json::to_value(value).ok()
    }
}

/// What the expansion does with a parameter's type.
impl<T: ToolArg> Kind<T> {
    /// A parameter of this type: its schema and its check, the rest
    /// [`PARAM_DEFAULTS`]. A generated `ParamSpec` sets its name and
    /// description and takes the rest from here (`..Kind::<T>::PARAM`).
    pub const PARAM: ParamSpec = ParamSpec {
        schema_fn: schema::arg_schema::<T>,
        check_fn: args::check::<T>,
        ..PARAM_DEFAULTS
    };

    /// What decodes one value of the type, for [`next_arg`](args::next_arg).
    pub const SEED: ArgSeed<T> = ArgSeed::new();

    /// Runs a `validate` function on a value that decodes as `T`; a value
    /// that does not decode is reported by the type check instead.
    pub fn arg_validate<V: ArgValidator<T>>(
        self,
        value: &Value,
        validator: V,
    ) -> Result<(), String> {
        match T::deserialize(value) {
            Ok(decoded) => validator.run(&decoded),
            Err(_) => Ok(()),
        }
    }
}

/// What the expansion does with a transformed parameter's type.
impl<T: ToolArg + Serialize> Kind<T> {
    /// Decodes `value` as `T`, runs `transform` on it and serialises the
    /// result.
    pub fn transform_json<F: TransformFn<T>>(self, value: &Value, transform: F) -> Transformed {
        let Ok(decoded) = T::deserialize(value) else {
            return Transformed::Undecoded;
        };
        match transform.run(decoded) {
            Ok(new) => match serde_json::to_value(new) {
                Ok(json) => Transformed::Value(json),
                Err(error) => {
                    Transformed::Refused(format!("the transformed value cannot be sent: {error}"))
                }
            },
            Err(reason) => Transformed::Refused(reason),
        }
    }
}

/// What the expansion does with a configuration type.
impl<T: ToolConfig> Kind<T> {
    /// The type's JSON Schema.
    pub fn config_schema(self) -> Value {
        schema::output_schema::<T>()
    }

    /// Validates and decodes a configuration.
    pub fn config_decode(
        self,
        value: &Value,
        schema: &Value,
    ) -> Result<ConfigValue, Vec<ArgError>> {
        config::decode::<T>(value, schema)
    }
}

const UNCHECKED: &str = "a type without the traits #[tool] needs is rejected at compile time";

/// The last choice of every item of [`Kind<T>`]: its methods take `&self`,
/// so they are found only when no method taking the tag by value applies,
/// and its constants only when no inherent one does. Only `output_schema`
/// and `default_json` run; the others are chosen only for a type whose
/// assertion fails, in a crate that therefore does not compile.
pub trait Fallback<T> {
    /// A return value that does not serialise: never runs.
    fn output(&self, value: T) -> Result<ToolOutput, ToolError> {
        let _ = value;
        unreachable!("{UNCHECKED}")
    }

    /// An error that does not display: never runs.
    fn error(&self, error: T) -> ToolError {
        let _ = error;
        unreachable!("{UNCHECKED}")
    }

    /// A return type without a JSON Schema has no output schema.
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// A default that does not serialise has no `default` keyword.
    fn default_json(&self, value: T) -> Option<Value> {
        let _ = value;
        None
    }

    /// A parameter whose schema and check never run.
    const PARAM: ParamSpec = PARAM_DEFAULTS;

    /// A seed that never runs.
    const SEED: UncheckedSeed<T> = UncheckedSeed(PhantomData);

    /// Never runs.
    fn arg_validate<V: ArgValidator<T>>(&self, value: &Value, validator: V) -> Result<(), String> {
        let _ = (value, validator);
        unreachable!("{UNCHECKED}")
    }

    /// Never runs: a transformed parameter's type that does not serialise
    /// fails its assertion.
    fn transform_json<F: TransformFn<T>>(&self, value: &Value, transform: F) -> Transformed {
        let _ = (value, transform);
        unreachable!("{UNCHECKED}")
    }

    /// Never runs.
    fn config_schema(&self) -> Value {
        unreachable!("{UNCHECKED}")
    }

    /// Never runs.
    fn config_decode(&self, value: &Value, schema: &Value) -> Result<ConfigValue, Vec<ArgError>> {
        let _ = (value, schema);
        unreachable!("{UNCHECKED}")
    }
}

impl<T> Fallback<T> for Kind<T> {}

/// The seed [`Fallback`] gives for a type that cannot be decoded; it never
/// runs.
pub struct UncheckedSeed<T>(PhantomData<T>);

impl<'de, T> DeserializeSeed<'de> for UncheckedSeed<T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<T, D::Error> {
        unreachable!("{UNCHECKED}")
    }
}
