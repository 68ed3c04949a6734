//! A deserializer that reads structs from JSON objects only.
//!
//! serde's derived `Deserialize` for a struct also accepts a sequence, the
//! struct's fields by position (`["2025-03-14", "10:00", 30]` for a
//! `TimeSlot`). A tool's schema says `"type": "object"` for such a
//! parameter, and the model must be held to what the schema says: a value
//! that decodes must be a value the schema accepts. [`ObjectsOnly`] wraps
//! any deserializer and refuses a sequence wherever a struct (or a struct
//! variant) is asked for, at every depth: inside options, sequences, maps,
//! newtypes and enums. Everything else passes through unchanged, so the
//! wrapper costs nothing a compiler cannot inline away.

use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// A deserializer whose structs must be maps; see the module docs.
pub(super) struct ObjectsOnly<D>(pub(super) D);

/// Forwards a `deserialize_*` method with its visitor wrapped.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method($($arg,)* Wrap(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectsOnly<D> {
    type Error = D::Error;

    forward! {
        deserialize_any()
        deserialize_bool()
        deserialize_i8()
        deserialize_i16()
        deserialize_i32()
        deserialize_i64()
        deserialize_i128()
        deserialize_u8()
        deserialize_u16()
        deserialize_u32()
        deserialize_u64()
        deserialize_u128()
        deserialize_f32()
        deserialize_f64()
        deserialize_char()
        deserialize_str()
        deserialize_string()
        deserialize_bytes()
        deserialize_byte_buf()
        deserialize_option()
        deserialize_unit()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_seq()
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_map()
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
        deserialize_identifier()
        deserialize_ignored_any()
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_struct(name, fields, Struct(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// A visitor whose nested values are read through [`ObjectsOnly`].
struct Wrap<V>(V);

/// A struct's visitor: as [`Wrap`], but a sequence is refused.
struct Struct<V>(V);

/// The `visit_*` methods that carry a plain value, forwarded.
macro_rules! forward_visits {
    ($($method:ident($ty:ty))*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
            self.0.$method(value)
        }
    )*};
}

/// The visitor methods [`Wrap`] and [`Struct`] share.
macro_rules! visitor_body {
    () => {
        type Value = V::Value;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.expecting(f)
        }

        forward_visits! {
            visit_bool(bool)
            visit_i8(i8)
            visit_i16(i16)
            visit_i32(i32)
            visit_i64(i64)
            visit_i128(i128)
            visit_u8(u8)
            visit_u16(u16)
            visit_u32(u32)
            visit_u64(u64)
            visit_u128(u128)
            visit_f32(f32)
            visit_f64(f64)
            visit_char(char)
            visit_str(&str)
            visit_borrowed_str(&'de str)
            visit_string(String)
            visit_bytes(&[u8])
            visit_borrowed_bytes(&'de [u8])
            visit_byte_buf(Vec<u8>)
        }

        #[inline]
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            self.0.visit_none()
        }

        #[inline]
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.0.visit_unit()
        }

        #[inline]
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.0.visit_some(ObjectsOnly(d))
        }

        #[inline]
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.0.visit_newtype_struct(ObjectsOnly(d))
        }

        #[inline]
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            self.0.visit_map(Wrap(map))
        }

        #[inline]
        fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
            self.0.visit_enum(Wrap(data))
        }
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    visitor_body!();

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(Wrap(seq))
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Struct<V> {
    visitor_body!();

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::invalid_type(de::Unexpected::Seq, &self))
    }
}

/// A seed whose value is read through [`ObjectsOnly`].
struct Seed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(ObjectsOnly(d))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Wrap<A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Wrap<A> {
    type Error = A::Error;

    /// Keys are names, never structs: read as they are.
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }

    #[inline]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Wrap<A> {
    type Error = A::Error;
    type Variant = Wrap<A::Variant>;

    #[inline]
    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(seed)?;
        Ok((value, Wrap(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Wrap<A> {
    type Error = A::Error;

    #[inline]
    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }

    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap(visitor))
    }

    #[inline]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Struct(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Slot {
        date: String,
        minutes: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    enum Shape {
        Unit,
        Point { x: i32 },
        Boxed(Slot),
    }

    fn read<T: for<'de> Deserialize<'de>>(value: serde_json::Value) -> Result<T, String> {
        T::deserialize(ObjectsOnly(&value)).map_err(|e| e.to_string())
    }

    fn read_text<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, String> {
        let mut de = serde_json::Deserializer::from_str(text);
        T::deserialize(ObjectsOnly(&mut de)).map_err(|e| e.to_string())
    }

    #[test]
    fn structs_read_objects_and_refuse_arrays_at_any_depth() {
        let slot = Slot {
            date: "d".into(),
            minutes: 3,
        };
        assert_eq!(read::<Slot>(json!({"date": "d", "minutes": 3})), Ok(slot));
        for bad in [
            json!(["d", 3]),
            json!({"a": ["d", 3]}),
            json!([["d", 3]]),
            json!({"Boxed": ["d", 3]}),
            json!({"Point": [1]}),
        ] {
            let error = match &bad {
                serde_json::Value::Array(items) if items[0].is_array() => {
                    read::<Vec<Slot>>(bad.clone()).unwrap_err()
                }
                serde_json::Value::Array(_) => read::<Slot>(bad.clone()).unwrap_err(),
                _ if bad.get("a").is_some() => {
                    read::<std::collections::BTreeMap<String, Slot>>(bad.clone()).unwrap_err()
                }
                _ => read::<Shape>(bad.clone()).unwrap_err(),
            };
            assert!(
                error.starts_with("invalid type: sequence"),
                "{bad}: {error}"
            );
        }
        assert_eq!(read::<Option<Slot>>(json!(null)), Ok(None));
        assert!(read::<Option<Slot>>(json!(["d", 1])).is_err());
        assert_eq!(read::<Shape>(json!("Unit")), Ok(Shape::Unit));
        assert_eq!(
            read::<Shape>(json!({"Point": {"x": 1}})),
            Ok(Shape::Point { x: 1 })
        );
        // Sequences of plain values still read.
        assert_eq!(read::<(u8, String)>(json!([1, "a"])), Ok((1, "a".into())));
    }

    #[test]
    fn text_is_held_to_the_same_rule() {
        assert!(read_text::<Slot>(r#"["d", 3]"#).is_err());
        assert!(read_text::<Vec<Slot>>(r#"[{"date": "d", "minutes": 3}]"#).is_ok());
        let borrowed: &str = {
            let mut de = serde_json::Deserializer::from_str(r#""plain""#);
            <&str>::deserialize(ObjectsOnly(&mut de)).unwrap()
        };
        assert_eq!(borrowed, "plain");
    }
}
