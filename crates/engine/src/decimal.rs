//! Integers too wide for every JSON reader (above 2^53: a seed, a generator's
//! position), written as decimal strings: the serde of such fields and, for the JSON
//! Schema, the type they read as. Shared by [`crate::Position`] and the saved-game
//! formats.

/// Serde for integers too wide for every JSON reader (above 2^53): written as a decimal
/// string, read from a string or from a number that fits in `u64`.
pub(crate) mod text {
    use std::fmt::Display;
    use std::marker::PhantomData;
    use std::str::FromStr;

    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    /// Writes `n` as a decimal string.
    pub(crate) fn serialize<T: Display, S: Serializer>(n: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(n)
    }

    /// Reads a decimal string or a number.
    pub(crate) fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr + TryFrom<u64>,
        D: Deserializer<'de>,
    {
        d.deserialize_any(Text(PhantomData))
    }

    struct Text<T>(PhantomData<T>);

    impl<T: FromStr + TryFrom<u64>> Visitor<'_> for Text<T> {
        type Value = T;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a non-negative integer as a decimal string or a number")
        }

        fn visit_u64<E: Error>(self, n: u64) -> Result<T, E> {
            T::try_from(n).map_err(|_| E::custom(format!("{n} is out of range")))
        }

        fn visit_i64<E: Error>(self, n: i64) -> Result<T, E> {
            let n = u64::try_from(n).map_err(|_| E::custom(format!("{n} is negative")))?;
            self.visit_u64(n)
        }

        fn visit_str<E: Error>(self, s: &str) -> Result<T, E> {
            s.parse()
                .map_err(|_| E::custom(format!("{s:?} is not a decimal integer")))
        }
    }
}
/// The JSON Schema of a [`text`] field: written as a decimal string without leading
/// zeros; read from a decimal string (as Rust parses one: an optional `+`, digits) or a
/// non-negative integer.
#[cfg(feature = "schema")]
pub(crate) struct Decimal;

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Decimal {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Decimal".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let description = "A non-negative integer as a decimal string: it may exceed 2^53, \
                           which not every JSON reader keeps exact.";
        if generator.contract().is_serialize() {
            schemars::json_schema!({
                "description": description,
                "type": "string",
                "pattern": "^(0|[1-9][0-9]*)$",
            })
        } else {
            schemars::json_schema!({
                "description": description,
                "anyOf": [
                    {"type": "string", "pattern": "^\\+?[0-9]+$"},
                    {"type": "integer", "minimum": 0, "maximum": u64::MAX},
                ],
            })
        }
    }
}
