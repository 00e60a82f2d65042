//! The fleet history's paging cursor: where the previous page ended, by the
//! attempt's time and id (the history's order). Opaque to callers; written as
//! `<microseconds since 1970>_<id>` so it needs no escaping in a URL.

use chrono::{DateTime, Utc};

use super::InvalidValue;

/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z: the span of [`super::At`].
const FIRST_MICROS: i64 = -62_135_596_800_000_000;
const LAST_MICROS: i64 = 253_402_300_799_999_999;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FleetCursor {
    pub at: DateTime<Utc>,
    pub id: i64,
}

impl FleetCursor {
    pub(crate) fn parse(field: &str, raw: &str) -> Result<Self, InvalidValue> {
        let refused = || InvalidValue::new(field, "is not a cursor this service gave");
        let (micros, id) = raw.split_once('_').ok_or_else(refused)?;
        let micros: i64 = micros.parse().map_err(|_| refused())?;
        let id: i64 = id.parse().map_err(|_| refused())?;
        if id <= 0 {
            return Err(refused());
        }
        // Only this service's cursors are meaningful, but one that lies beyond
        // the times the ledger can hold still says plainly where to read
        // from: everything before year 10000, or nothing before year 1.
        let at = DateTime::from_timestamp_micros(micros.clamp(FIRST_MICROS, LAST_MICROS)).ok_or_else(refused)?;
        Ok(Self { at, id })
    }
}

impl std::fmt::Display for FleetCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}", self.at.timestamp_micros(), self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::At;

    #[test]
    fn a_cursor_reads_back_what_it_wrote() {
        for time in [
            "2026-10-18T09:30:00.123456Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999Z",
        ] {
            let cursor = FleetCursor {
                at: At::parse("at", time).unwrap().get(),
                id: 42,
            };
            assert_eq!(FleetCursor::parse("cursor", &cursor.to_string()), Ok(cursor), "{time}");
        }
    }

    #[test]
    fn a_time_beyond_the_ledgers_years_reads_from_its_end() {
        let late = FleetCursor::parse("cursor", "999999999999999999_7").unwrap();
        assert_eq!(late.at, At::parse("at", "9999-12-31T23:59:59.999999Z").unwrap().get());
        let early = FleetCursor::parse("cursor", "-999999999999999999_7").unwrap();
        assert_eq!(early.at, At::parse("at", "0001-01-01T00:00:00Z").unwrap().get());
        assert_eq!(early.id, 7);
    }

    #[test]
    fn anything_else_is_refused_naming_the_field() {
        for raw in [
            "",
            "42",
            "_42",
            "1760779800000000_",
            "1760779800000000_0",
            "1760779800000000_-3",
            "x_42",
            "1760779800000000_42_1",
            "9223372036854775808_1",
            "1760779800000000_9223372036854775808",
        ] {
            let refused = FleetCursor::parse("cursor", raw).unwrap_err();
            assert_eq!(refused.field, "cursor", "{raw}");
        }
    }
}
