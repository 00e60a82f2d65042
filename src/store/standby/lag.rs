//! The standby's lag, measured as time from positions in the WAL: every
//! probe notes where the primary's WAL ends, then asks the standby how far it
//! has replayed. The lag is how long ago the primary had already written
//! something the standby still lacks (0 when it has all the primary had at
//! the probe): an idle primary never looks lagged, unlike the age of the
//! standby's last replayed transaction.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::store::StoreResult;
use crate::store::statements::{self, on};

/// Primary positions kept while the standby is behind them: a standby paused
/// for long keeps the oldest (its lag) and sheds the ones after it.
const MOST_SAMPLES: usize = 4096;

/// A lag measured, and whether it can be trusted to be all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lag {
    pub behind: Duration,
    /// The standby has been seen with all the primary had at the first
    /// probe: before that, it may lack writes older than any probe, and
    /// `behind` is only the least it lags (a standby hours behind looks a
    /// moment behind to a service that has just started).
    pub whole: bool,
}

/// Turns probes into a lag: pure, so it is tested without a standby.
#[derive(Debug, Default)]
pub(super) struct LagMeter {
    /// (when, where the primary's WAL ended then), oldest first.
    samples: VecDeque<(Instant, u64)>,
    /// Whether the standby was seen with all the primary had at the first probe.
    whole: bool,
}

impl LagMeter {
    /// Notes where the primary's WAL ended at `at`.
    pub(super) fn primary_at(&mut self, at: Instant, lsn: u64) {
        if self.samples.len() == MOST_SAMPLES {
            self.samples.remove(1);
        }
        self.samples.push_back((at, lsn));
    }

    /// The standby has replayed up to `replayed`: how far behind it is at `now`.
    pub(super) fn standby_at(&mut self, now: Instant, replayed: u64) -> Lag {
        while self.samples.front().is_some_and(|&(_, lsn)| lsn <= replayed) {
            self.samples.pop_front();
            // Every sample it passes was taken after the first, or is it.
            self.whole = true;
        }
        let behind = self
            .samples
            .front()
            .map_or(Duration::ZERO, |&(since, _)| now.saturating_duration_since(since));
        Lag {
            behind,
            whole: self.whole,
        }
    }
}

/// Where the primary's WAL ends, in bytes.
pub(super) async fn wal_end(primary: &PgPool) -> StoreResult<u64> {
    let mut conn = primary.acquire().await?;
    let end: i64 = statements::query_scalar("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
        .fetch_one(on(&mut conn))
        .await?;
    Ok(u64::try_from(end).unwrap_or_default())
}

/// How far the standby has replayed, in bytes; `None`: it is no standby.
pub(super) async fn replayed(standby: &PgPool) -> StoreResult<Option<u64>> {
    let mut conn = standby.acquire().await?;
    let replayed: Option<i64> = statements::query_scalar(
        "SELECT CASE WHEN pg_is_in_recovery() THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint END",
    )
    .fetch_one(on(&mut conn))
    .await?;
    Ok(replayed.map(|lsn| u64::try_from(lsn).unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn a_standby_with_all_the_primary_had_is_not_behind() {
        let start = Instant::now();
        let mut meter = LagMeter::default();
        meter.primary_at(start, 100);
        assert_eq!(meter.standby_at(start + SECOND, 100), whole(Duration::ZERO));
        assert_eq!(
            meter.standby_at(start + SECOND, 150),
            whole(Duration::ZERO),
            "past the sample"
        );
    }

    #[test]
    fn an_idle_primary_never_makes_its_standby_look_behind() {
        let start = Instant::now();
        let mut meter = LagMeter::default();
        for second in 0..60 {
            meter.primary_at(start + SECOND * second, 500);
            assert_eq!(meter.standby_at(start + SECOND * second, 500), whole(Duration::ZERO));
        }
    }

    #[test]
    fn the_lag_is_the_age_of_the_oldest_write_the_standby_lacks() {
        let start = Instant::now();
        let mut meter = LagMeter::default();
        meter.primary_at(start, 100);
        assert_eq!(meter.standby_at(start, 100), whole(Duration::ZERO));
        // The standby stops at 100 while the primary goes on.
        meter.primary_at(start + SECOND, 200);
        meter.primary_at(start + SECOND * 2, 300);
        meter.primary_at(start + SECOND * 3, 300);
        assert_eq!(meter.standby_at(start + SECOND * 3, 100), whole(SECOND * 2));
        assert_eq!(
            meter.standby_at(start + SECOND * 4, 100),
            whole(SECOND * 3),
            "it grows while stopped"
        );
        // Replaying part of it: the oldest write still lacked is younger.
        assert_eq!(meter.standby_at(start + SECOND * 4, 200), whole(SECOND * 2));
        assert_eq!(
            meter.standby_at(start + SECOND * 4, 300),
            whole(Duration::ZERO),
            "caught up"
        );
    }

    #[test]
    fn a_long_stop_keeps_its_oldest_sample_and_bounded_memory() {
        let start = Instant::now();
        let mut meter = LagMeter::default();
        for step in 0..(MOST_SAMPLES as u32 * 3) {
            meter.primary_at(start + Duration::from_millis(u64::from(step)), 10 + u64::from(step));
        }
        assert_eq!(meter.samples.len(), MOST_SAMPLES);
        let now = start + Duration::from_secs(60);
        assert_eq!(meter.standby_at(now, 0).behind, Duration::from_secs(60));
    }

    #[test]
    fn a_standby_behind_the_first_probe_is_not_trusted_until_it_passes_it() {
        let start = Instant::now();
        let mut meter = LagMeter::default();
        // Hours behind when the service starts: the first probe cannot tell.
        meter.primary_at(start, 1_000_000);
        let first = meter.standby_at(start + Duration::from_millis(5), 10);
        assert_eq!((first.behind, first.whole), (Duration::from_millis(5), false));
        meter.primary_at(start + SECOND, 1_000_100);
        assert!(!meter.standby_at(start + SECOND, 999_999).whole);
        // Past the first probe's position: nothing older can be missing.
        assert_eq!(meter.standby_at(start + SECOND, 1_000_000), whole(Duration::ZERO));
    }

    fn whole(behind: Duration) -> Lag {
        Lag { behind, whole: true }
    }
}
