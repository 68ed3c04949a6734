//! Reading a tool's argument struct.
//!
//! `#[tool]` does not derive `Deserialize` for it: it implements
//! [`ToolArgs`] with what is particular to the tool (the names, the type
//! each value decodes as, how the struct is put together), and the visitor
//! here does the rest. It reads a map only (arguments are always a JSON
//! object), each value with the seed [`Kind<T>`](crate::__private::Kind)
//! gives, with no per-field wrapper types. Errors are worded as serde's
//! derive words them with `deny_unknown_fields`.

use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::objects;

/// A tool's argument struct, as the decoder reads it.
pub trait ToolArgs: Sized {
    /// The parameters' names, in order.
    const FIELDS: &'static [&'static str];

    /// A slot per parameter, for its value while the object is read.
    type Slots;

    /// The slots, empty.
    const EMPTY: Self::Slots;

    /// Reads the value of the parameter at `index` in `FIELDS` into its
    /// slot, with [`next_arg`].
    fn read<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// The arguments, from the slots once the object is read.
    fn finish<E: de::Error>(slots: Self::Slots) -> Result<Self, E>;
}

/// Decodes `T` as the object of a tool's arguments.
pub(super) struct Args<T>(pub(super) T);

impl<'de, T: ToolArgs> Deserialize<'de> for Args<T> {
    #[inline]
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("arguments", T::FIELDS, ArgsVisitor(PhantomData))
    }
}

struct ArgsVisitor<T>(PhantomData<T>);

impl<'de, T: ToolArgs> Visitor<'de> for ArgsVisitor<T> {
    type Value = Args<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the tool's arguments as a JSON object")
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Args<T>, A::Error> {
        let mut slots = T::EMPTY;
        while let Some(index) = map.next_key_seed(Key::<T>(PhantomData))? {
            T::read(&mut slots, index, &mut map)?;
        }
        T::finish(slots).map(Args)
    }
}

/// Reads a key of an argument object as the index of the parameter it
/// names; any other key is an `unknown field` error listing them all.
struct Key<T>(PhantomData<T>);

impl<'de, T: ToolArgs> DeserializeSeed<'de> for Key<T> {
    type Value = usize;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, T: ToolArgs> Visitor<'de> for Key<T> {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a parameter name")
    }

    #[inline]
    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        match T::FIELDS.iter().position(|field| *field == key) {
            Some(index) => Ok(index),
            None => Err(E::unknown_field(key, T::FIELDS)),
        }
    }

    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<usize, E> {
        match std::str::from_utf8(key) {
            Ok(key) => self.visit_str(key),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(key), &self)),
        }
    }
}

/// Reads the value of the parameter `name` into its slot with `seed`; a
/// second value for the same parameter is a `duplicate field` error.
#[inline]
pub fn next_arg<'de, A, S>(
    map: &mut A,
    slot: &mut Option<S::Value>,
    seed: S,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    S: DeserializeSeed<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(seed)?);
    Ok(())
}

/// The value of the required parameter `name`, or a `missing field` error.
#[inline]
pub fn required_arg<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    match slot {
        Some(value) => Ok(value),
        None => Err(E::missing_field(name)),
    }
}

/// The value of a parameter with a default: the model's, unless it sent
/// none or `null`.
#[inline]
pub fn default_arg<T>(slot: Option<Option<T>>, default: fn() -> T) -> T {
    match slot.flatten() {
        Some(value) => value,
        None => default(),
    }
}

/// Decodes one argument of type `T`: what a tool's argument struct reads
/// each parameter with, in the value path and the text path alike. Structs
/// are read from JSON objects only, as their schemas say (serde alone also
/// takes their fields as an array).
pub struct ArgSeed<T>(PhantomData<T>);

impl<T> ArgSeed<T> {
    /// The seed for `T`.
    #[inline]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for ArgSeed<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for ArgSeed<T> {
    type Value = T;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(objects::ObjectsOnly(deserializer))
    }
}
