//! A non-negative count (tokens, messages) that fits Postgres's `bigint`.

use super::InvalidValue;

/// `0 ..= 2^63 - 1`: what a `bigint` column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub(crate) struct Count(u64);

impl Count {
    pub(crate) const MAX: u64 = i64::MAX as u64;

    pub(crate) fn parse(field: &str, raw: u64) -> Result<Self, InvalidValue> {
        if raw > Self::MAX {
            return Err(InvalidValue::new(field, format!("must be at most {}", Self::MAX)));
        }
        Ok(Self(raw))
    }

    pub(crate) fn get(self) -> u64 {
        self.0
    }

    /// For binding to a `bigint`; exact, since the value fits by construction.
    pub(crate) fn to_i64(self) -> i64 {
        self.0 as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_up_to_two_to_the_sixty_three_minus_one_fit() {
        assert_eq!(Count::parse("used", 0).unwrap().get(), 0);
        assert_eq!(Count::parse("used", Count::MAX).unwrap().to_i64(), i64::MAX);
    }

    #[test]
    fn larger_counts_are_refused_with_the_field_named() {
        let err = Count::parse("used", Count::MAX + 1).unwrap_err();
        assert_eq!(err.field, "used");
        assert!(err.problem.contains("at most 9223372036854775807"));
    }
}
