//! Counts from JSON: JSON Schema's `integer` is any number with no fractional
//! part, so `444.0` and `4e2` are integers too and are accepted as such.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Unexpected, Visitor};

/// A count that may arrive as `7`, `7.0` or `7e0`.
struct Whole(u64);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(WholeVisitor)
    }
}

struct WholeVisitor;

impl Visitor<'_> for WholeVisitor {
    type Value = Whole;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a whole number from 0 to 9223372036854775807")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Whole, E> {
        Ok(Whole(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Whole, E> {
        u64::try_from(value)
            .map(Whole)
            .map_err(|_| E::invalid_value(Unexpected::Signed(value), &self))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Whole, E> {
        // Below 2^64 and whole: exactly representable as a u64.
        if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value < 18_446_744_073_709_551_616.0 {
            Ok(Whole(value as u64))
        } else {
            Err(E::invalid_value(Unexpected::Float(value), &self))
        }
    }
}

pub(crate) fn required<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    Whole::deserialize(deserializer).map(|whole| whole.0)
}

pub(crate) fn optional<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    Option::<Whole>::deserialize(deserializer).map(|whole| whole.map(|w| w.0))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct Counts {
        #[serde(deserialize_with = "super::required")]
        used: u64,
        #[serde(default, deserialize_with = "super::optional")]
        size: Option<u64>,
    }

    fn parse(json: &str) -> Result<Counts, String> {
        serde_json::from_str(json).map_err(|err| err.to_string())
    }

    #[test]
    fn whole_numbers_in_any_spelling_are_counts() {
        let counts = parse(r#"{"used": 444.0, "size": 2e5}"#).unwrap();
        assert_eq!((counts.used, counts.size), (444, Some(200_000)));
        assert_eq!(parse(r#"{"used": 7}"#).unwrap().size, None);
        assert_eq!(parse(r#"{"used": 7, "size": null}"#).unwrap().size, None);
    }

    #[test]
    fn fractions_negatives_and_huge_numbers_are_not() {
        for bad in [
            r#"{"used": 4.5}"#,
            r#"{"used": -1}"#,
            r#"{"used": -0.5}"#,
            r#"{"used": 1e30}"#,
            r#"{"used": "7"}"#,
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains("expected a whole number"), "{bad}: {err}");
        }
    }
}
