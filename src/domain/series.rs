//! A span of time cut into equal buckets, for counts over time: buckets
//! start on whole multiples of their width since the Unix epoch, so two
//! dashboards asking about overlapping spans draw the same bars.

use chrono::{DateTime, TimeDelta, Utc};

use super::{At, InvalidValue};

/// The most buckets one answer holds.
pub(crate) const MAX_BUCKETS: i64 = 2_000;
/// Buckets drawn when the caller gives no `since`.
pub(crate) const DEFAULT_BUCKETS: i64 = 48;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Bucket {
    Minute,
    Hour,
    Day,
}

impl Bucket {
    pub(crate) fn parse(field: &str, raw: &str) -> Result<Self, InvalidValue> {
        match raw {
            "minute" => Ok(Self::Minute),
            "hour" => Ok(Self::Hour),
            "day" => Ok(Self::Day),
            _ => Err(InvalidValue::new(field, "must be minute, hour or day")),
        }
    }

    pub(crate) fn seconds(self) -> i64 {
        match self {
            Self::Minute => 60,
            Self::Hour => 3_600,
            Self::Day => 86_400,
        }
    }

    /// The start of the bucket `time` falls in.
    pub(crate) fn floor(self, time: DateTime<Utc>) -> DateTime<Utc> {
        let seconds = time.timestamp().div_euclid(self.seconds()) * self.seconds();
        DateTime::from_timestamp(seconds, 0).unwrap_or(time)
    }
}

/// `[since, until)` with `since` on a bucket's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Series {
    pub bucket: Bucket,
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// The caller's `since` lay more than [`MAX_BUCKETS`] buckets back and
    /// was moved forward: the answer holds the latest buckets only.
    pub truncated: bool,
}

impl Series {
    /// `until` defaults to `now`, `since` to [`DEFAULT_BUCKETS`] buckets
    /// before it; `since` is moved back to its bucket's start. Like every
    /// read of a span, a backwards one holds nothing rather than failing; a
    /// span too long for one answer keeps its latest [`MAX_BUCKETS`].
    pub(crate) fn new(bucket: Bucket, since: Option<At>, until: Option<At>, now: At) -> Self {
        let width = TimeDelta::seconds(bucket.seconds());
        let until = until.unwrap_or(now).get();
        let since = match since {
            Some(since) => since.get(),
            None => until
                .checked_sub_signed(width * DEFAULT_BUCKETS as i32)
                .unwrap_or(earliest()),
        };
        let mut series = Self {
            bucket,
            since: bucket.floor(since).max(earliest()),
            until,
            truncated: false,
        };
        if series.buckets() > MAX_BUCKETS {
            let last = bucket.floor(until - TimeDelta::microseconds(1));
            series.since = last - width * (MAX_BUCKETS - 1) as i32;
            series.truncated = true;
        }
        series
    }

    /// How many buckets the span holds, the last perhaps partial.
    pub(crate) fn buckets(&self) -> i64 {
        let width = self.bucket.seconds();
        let span = (self.until - self.since).num_microseconds().unwrap_or(i64::MAX);
        if span <= 0 {
            return 0;
        }
        let span = span.div_euclid(1_000_000) + i64::from(span.rem_euclid(1_000_000) > 0);
        span / width + i64::from(span % width > 0)
    }
}

/// The first moment a stored time may have (the year 1).
fn earliest() -> DateTime<Utc> {
    DateTime::from_timestamp(-62_135_596_800, 0).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(raw: &str) -> At {
        At::parse("t", raw).unwrap()
    }

    #[test]
    fn buckets_start_on_whole_multiples_of_their_width() {
        let time = at("2026-11-30T08:47:13.5Z").get();
        assert_eq!(Bucket::Minute.floor(time), at("2026-11-30T08:47:00Z").get());
        assert_eq!(Bucket::Hour.floor(time), at("2026-11-30T08:00:00Z").get());
        assert_eq!(Bucket::Day.floor(time), at("2026-11-30T00:00:00Z").get());
    }

    #[test]
    fn times_before_1970_floor_downwards() {
        let time = at("1969-12-31T23:30:00Z").get();
        assert_eq!(Bucket::Hour.floor(time), at("1969-12-31T23:00:00Z").get());
    }

    #[test]
    fn without_since_the_span_is_the_default_number_of_buckets_before_until() {
        let series = Series::new(
            Bucket::Hour,
            None,
            Some(at("2026-11-30T12:00:00Z")),
            at("2026-12-01T00:00:00Z"),
        );
        assert_eq!(series.since, at("2026-11-28T12:00:00Z").get());
        assert_eq!(series.buckets(), DEFAULT_BUCKETS);
    }

    #[test]
    fn without_until_the_span_ends_now() {
        let now = at("2026-11-30T12:30:00Z");
        let series = Series::new(Bucket::Hour, Some(at("2026-11-30T10:15:00Z")), None, now);
        assert_eq!(
            (series.since, series.until),
            (at("2026-11-30T10:00:00Z").get(), now.get())
        );
        assert_eq!(series.buckets(), 3, "10:00, 11:00 and the partial 12:00");
    }

    #[test]
    fn a_partial_last_bucket_counts_to_the_microsecond() {
        let now = at("2026-11-30T00:00:00Z");
        let series = Series::new(
            Bucket::Minute,
            Some(at("2026-11-30T10:00:00Z")),
            Some(at("2026-11-30T10:01:00.000001Z")),
            now,
        );
        assert_eq!(series.buckets(), 2);
    }

    #[test]
    fn an_empty_or_backwards_span_holds_no_buckets() {
        let now = at("2026-11-30T12:00:00Z");
        for (since, until) in [
            ("2026-11-30T12:00:00Z", "2026-11-30T12:00:00Z"),
            ("2026-11-30T13:00:00Z", "2026-11-30T12:00:00Z"),
        ] {
            let series = Series::new(Bucket::Minute, Some(at(since)), Some(at(until)), now);
            assert_eq!(series.buckets(), 0, "{since}..{until}");
        }
    }

    #[test]
    fn a_span_too_long_keeps_its_latest_buckets_and_says_so() {
        let now = at("2026-11-30T12:00:30Z");
        let year = Series::new(Bucket::Minute, Some(at("2025-11-30T12:00:00Z")), None, now);
        assert!(year.truncated);
        assert_eq!(year.buckets(), MAX_BUCKETS);
        assert_eq!(
            year.since,
            at("2026-11-29T02:41:00Z").get(),
            "the partial 12:00 minute is the last"
        );
        let on_a_boundary = Series::new(
            Bucket::Minute,
            Some(at("2025-11-30T12:00:00Z")),
            Some(at("2026-11-30T12:00:00Z")),
            now,
        );
        assert_eq!(on_a_boundary.since, at("2026-11-29T02:40:00Z").get());
        assert_eq!(on_a_boundary.buckets(), MAX_BUCKETS);
        let by_day = Series::new(Bucket::Day, Some(at("2025-11-30T12:00:00Z")), None, now);
        assert_eq!((by_day.buckets(), by_day.truncated), (366, false));
    }

    #[test]
    fn a_span_reaching_before_year_one_starts_at_year_one() {
        let now = at("2026-11-30T00:00:00Z");
        let series = Series::new(Bucket::Day, None, Some(at("0001-01-02T00:00:00Z")), now);
        assert_eq!(series.since, at("0001-01-01T00:00:00Z").get());
        assert_eq!(series.buckets(), 1);
    }

    #[test]
    fn unknown_bucket_names_are_refused() {
        assert_eq!(Bucket::parse("bucket", "hour"), Ok(Bucket::Hour));
        assert_eq!(Bucket::parse("bucket", "week").unwrap_err().field, "bucket");
    }
}
