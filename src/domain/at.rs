//! The moment an event happened (SPEC §1, `at`): RFC 3339 from the caller, or
//! the server's clock.

use chrono::{DateTime, Datelike, Timelike, Utc};

use super::InvalidValue;

/// A UTC instant with Postgres's precision (microseconds), within years
/// 1–9999, so what is stored is exactly what the policy saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct At(DateTime<Utc>);

impl At {
    pub(crate) fn now() -> Self {
        Self(truncate_to_micros(Utc::now()))
    }

    pub(crate) fn parse(field: &str, raw: &str) -> Result<Self, InvalidValue> {
        let parsed = DateTime::parse_from_rfc3339(raw).map_err(|err| {
            InvalidValue::new(
                field,
                format!("must be an RFC 3339 time such as 2026-10-18T09:30:00Z ({err})"),
            )
        })?;
        Self::from_datetime(field, parsed.to_utc())
    }

    /// The caller's time when it gave one, else the server's clock.
    pub(crate) fn parse_or_now(field: &str, raw: Option<&str>) -> Result<Self, InvalidValue> {
        Ok(Self::parse_optional(field, raw)?.unwrap_or_else(Self::now))
    }

    /// The caller's time when it gave one (a span's optional end, say).
    pub(crate) fn parse_optional(field: &str, raw: Option<&str>) -> Result<Option<Self>, InvalidValue> {
        raw.map(|raw| Self::parse(field, raw)).transpose()
    }

    /// Range-checks a time that did not come from text (a query default, say).
    pub(crate) fn from_datetime(field: &str, time: DateTime<Utc>) -> Result<Self, InvalidValue> {
        if !(1..=9999).contains(&time.year()) {
            return Err(InvalidValue::new(field, "must fall within the years 1 to 9999"));
        }
        Ok(Self(truncate_to_micros(time)))
    }

    pub(crate) fn get(self) -> DateTime<Utc> {
        self.0
    }
}

/// Drops what Postgres cannot store; a leap second becomes the last
/// microsecond of its minute.
fn truncate_to_micros(time: DateTime<Utc>) -> DateTime<Utc> {
    let micros = (time.nanosecond() / 1_000).min(999_999);
    time.with_nanosecond(micros * 1_000).unwrap_or(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_normalized_to_utc() {
        let at = At::parse("at", "2026-10-18T11:30:00+02:00").unwrap();
        assert_eq!(
            at.get().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "2026-10-18T09:30:00.000000Z"
        );
    }

    #[test]
    fn precision_beyond_microseconds_is_dropped() {
        let at = At::parse("at", "2026-10-18T09:30:00.123456789Z").unwrap();
        assert_eq!(
            at.get().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "2026-10-18T09:30:00.123456Z"
        );
    }

    #[test]
    fn a_leap_second_is_kept_within_its_minute() {
        let at = At::parse("at", "2016-12-31T23:59:60.5Z").unwrap();
        assert_eq!(
            at.get().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "2016-12-31T23:59:59.999999Z"
        );
    }

    #[test]
    fn text_that_is_not_rfc_3339_is_refused() {
        for bad in [
            "",
            "yesterday",
            "2026-10-18",
            "2026-13-01T00:00:00Z",
            "2026-10-18 09:30:00",
            "1729243800",
        ] {
            let err = At::parse("at", bad).unwrap_err();
            assert_eq!(err.field, "at");
            assert!(err.problem.contains("RFC 3339"), "{bad}");
        }
    }

    #[test]
    fn times_outside_four_digit_years_are_refused() {
        assert!(At::parse("at", "0000-12-31T23:00:00Z").is_err());
        assert!(At::parse("at", "9999-12-31T23:59:59Z").is_ok());
        assert!(
            At::parse("at", "9999-12-31T23:59:59-01:00").is_err(),
            "year 10000 in UTC"
        );
        assert!(At::parse("at", "0001-01-01T00:00:00Z").is_ok());
    }
}
