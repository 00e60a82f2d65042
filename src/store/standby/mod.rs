//! Where the fleet's reads go (issue 25): a streaming standby while it keeps
//! up with the primary, else the primary. Nothing a caller reads about its
//! own conversation goes there: only the tenant-wide reads, which may be a
//! moment old (read-your-writes stays on the primary).
//!
//! The standby's lag is measured as time, from positions in the WAL: every
//! probe notes where the primary's WAL ends, then asks the standby how far it
//! has replayed. The lag is how long ago the primary had already written
//! something the standby still lacks (0 when it has all the primary had at
//! the probe): an idle primary never looks lagged, unlike the age of the
//! standby's last replayed transaction.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::{PgPool, Postgres, Transaction};

use super::StoreResult;
use super::pool::begin_fleet_read_on;
use super::statements::{self, on};
use crate::records::{StandbyReport, StandbyState};

/// Primary positions kept while the standby is behind them: a standby paused
/// for long keeps the oldest (its lag) and sheds the ones after it.
const MOST_SAMPLES: usize = 4096;

/// How long a fleet read may take on the standby before the primary is
/// asked instead (a standby that stopped answering must not hold a
/// dashboard's request for as long as a request may run).
const READ_PATIENCE: Duration = Duration::from_secs(5);

/// A lag measured, and whether it can be trusted to be all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lag {
    pub behind: Duration,
    /// The standby has been seen with all the primary had at the first
    /// probe: before that, it may lack writes older than any probe, and
    /// `behind` is only the least it lags (a standby hours behind looks a
    /// moment behind to a service that has just started).
    pub whole: bool,
}

/// Turns probes into a lag: pure, so it is tested without a standby.
#[derive(Debug, Default)]
pub(crate) struct LagMeter {
    /// (when, where the primary's WAL ended then), oldest first.
    samples: VecDeque<(Instant, u64)>,
    /// Whether the standby was seen with all the primary had at the first probe.
    whole: bool,
}

impl LagMeter {
    /// Notes where the primary's WAL ended at `at`.
    pub(crate) fn primary_at(&mut self, at: Instant, lsn: u64) {
        if self.samples.len() == MOST_SAMPLES {
            self.samples.remove(1);
        }
        self.samples.push_back((at, lsn));
    }

    /// The standby has replayed up to `replayed`: how far behind it is at `now`.
    pub(crate) fn standby_at(&mut self, now: Instant, replayed: u64) -> Lag {
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

/// The fleet's reads: the primary's pool, and the standby's with what was
/// last measured of it.
#[derive(Clone)]
pub(crate) struct FleetReads {
    primary: PgPool,
    standby: Option<Arc<Standby>>,
}

struct Standby {
    pool: PgPool,
    max_lag: Duration,
    /// How long a read on it may take before it is given to the primary.
    patience: Duration,
    meter: Mutex<LagMeter>,
    report: Mutex<StandbyReport>,
}

impl FleetReads {
    /// Every read on the primary.
    pub(crate) fn primary_only(primary: PgPool) -> Self {
        Self { primary, standby: None }
    }

    /// The fleet's reads on `standby` while it lags at most `max_lag`.
    pub(crate) fn with_standby(primary: PgPool, standby: PgPool, max_lag: Duration) -> Self {
        let standby = Standby {
            pool: standby,
            max_lag,
            patience: READ_PATIENCE,
            meter: Mutex::default(),
            report: Mutex::new(StandbyReport {
                state: StandbyState::Starting,
                lag: None,
                trouble: None,
            }),
        };
        Self {
            primary,
            standby: Some(Arc::new(standby)),
        }
    }

    /// The standby as last measured; `None` without one.
    pub(crate) fn standby(&self) -> Option<StandbyReport> {
        let standby = self.standby.as_ref()?;
        Some(lock(&standby.report).clone())
    }

    /// The standby when it is to be read, else the primary.
    fn chosen(&self) -> Option<&Standby> {
        self.standby
            .as_deref()
            .filter(|standby| lock(&standby.report).state == StandbyState::Following)
    }

    /// A fleet read's transaction on the standby, while it follows; one that
    /// cannot be begun there marks it lost (`None`: read the primary).
    pub(crate) async fn begin_on_standby(&self) -> Option<Transaction<'static, Postgres>> {
        let standby = self.chosen()?;
        match tokio::time::timeout(standby.patience, begin_fleet_read_on(&standby.pool)).await {
            Ok(Ok(transaction)) => Some(transaction),
            Ok(Err(err)) => {
                standby.lost(&err.to_string());
                None
            }
            Err(_) => {
                standby.lost(&format!("a read could not begin within {:?}", standby.patience));
                None
            }
        }
    }

    /// A fleet read's transaction on the primary.
    pub(crate) async fn begin_on_primary(&self) -> StoreResult<Transaction<'static, Postgres>> {
        metrics::counter!("compactd_fleet_reads_total", "database" => "primary").increment(1);
        begin_fleet_read_on(&self.primary).await
    }

    /// How long a read on the standby may take.
    pub(crate) fn patience(&self) -> Duration {
        self.standby.as_ref().map_or(READ_PATIENCE, |standby| standby.patience)
    }

    /// What became of a read on the standby: `Some` is the caller's answer
    /// (its value, or an error of the read's own, the same on the primary);
    /// `None`: the standby could not answer, is marked lost, and the read
    /// goes to the primary.
    pub(crate) fn on_standby<T>(
        &self,
        ran: Result<StoreResult<T>, tokio::time::error::Elapsed>,
    ) -> Option<StoreResult<T>> {
        let standby = self.standby.as_deref()?;
        match ran {
            Ok(Ok(value)) => {
                metrics::counter!("compactd_fleet_reads_total", "database" => "standby").increment(1);
                Some(Ok(value))
            }
            Ok(Err(err)) if !err.is_unavailable() => Some(Err(err)),
            Ok(Err(err)) => {
                standby.lost(&err.to_string());
                None
            }
            Err(_) => {
                standby.lost(&format!("a read took longer than {:?}", standby.patience));
                None
            }
        }
    }

    /// Measures the standby once: where the primary's WAL ends, then how far
    /// the standby has replayed, each within `patience`.
    pub(crate) async fn probe(&self, patience: Duration) {
        let Some(standby) = self.standby.as_deref() else { return };
        let primary_at = Instant::now();
        let primary = tokio::time::timeout(patience, wal_end(&self.primary)).await;
        let Ok(Ok(primary)) = primary else {
            // The primary's own trouble is /readyz's; the standby is not judged by it.
            return;
        };
        lock(&standby.meter).primary_at(primary_at, primary);
        match tokio::time::timeout(patience, replayed(&standby.pool)).await {
            Ok(Ok(Some(replayed))) => {
                let lag = lock(&standby.meter).standby_at(Instant::now(), replayed);
                standby.measured(lag);
            }
            Ok(Ok(None)) => standby.lost("it is not a standby (promoted, or never one)"),
            Ok(Err(err)) => standby.lost(&err.to_string()),
            Err(_) => standby.lost(&format!("it did not answer within {patience:?}")),
        }
    }
}

impl Standby {
    fn measured(&self, Lag { behind: lag, whole }: Lag) {
        let state = if lag > self.max_lag {
            StandbyState::Lagging
        } else if whole {
            StandbyState::Following
        } else {
            StandbyState::Starting
        };
        let mut report = lock(&self.report);
        if report.state != state {
            tracing::warn!(
                from = report.state.as_str(),
                to = state.as_str(),
                lag_ms = lag.as_millis() as u64,
                "the standby's state changed"
            );
        }
        *report = StandbyReport {
            state,
            lag: Some(lag),
            trouble: None,
        };
        publish(&report);
    }

    fn lost(&self, why: &str) {
        let mut report = lock(&self.report);
        if report.state != StandbyState::Lost {
            tracing::warn!(why, "the standby is lost: the fleet's reads go to the primary");
        }
        report.state = StandbyState::Lost;
        report.trouble = Some(why.to_owned());
        publish(&report);
    }
}

fn publish(report: &StandbyReport) {
    let serving = f64::from(u8::from(report.state == StandbyState::Following));
    metrics::gauge!("compactd_standby_serving").set(serving);
    if let Some(lag) = report.lag {
        metrics::gauge!("compactd_standby_lag_seconds").set(lag.as_secs_f64());
    }
}

/// A poisoned lock still holds a whole value here (each is replaced whole).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Where the primary's WAL ends, in bytes.
async fn wal_end(primary: &PgPool) -> StoreResult<u64> {
    let mut conn = primary.acquire().await?;
    let end: i64 = statements::query_scalar("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
        .fetch_one(on(&mut conn))
        .await?;
    Ok(u64::try_from(end).unwrap_or_default())
}

/// How far the standby has replayed, in bytes; `None`: it is no standby.
async fn replayed(standby: &PgPool) -> StoreResult<Option<u64>> {
    let mut conn = standby.acquire().await?;
    let replayed: Option<i64> = statements::query_scalar(
        "SELECT CASE WHEN pg_is_in_recovery() THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint END",
    )
    .fetch_one(on(&mut conn))
    .await?;
    Ok(replayed.map(|lsn| u64::try_from(lsn).unwrap_or_default()))
}

/// Evaluates `$read` (a `StoreResult`, with `$tx` the `&mut PgConnection`
/// it reads on) in a fleet read's transaction: on the standby while it
/// follows, within its patience, else, or when the standby could not
/// answer, on the primary (`FleetReads::on_standby`). A macro, not a
/// function taking a closure: a future borrowing the closure's arguments
/// is not provably `Send` to the router.
macro_rules! fleet_read {
    ($reads:expr, |$tx:ident| $read:expr) => {
        async {
            let reads: &$crate::store::FleetReads = &$reads;
            if let Some(mut transaction) = reads.begin_on_standby().await {
                let ran = tokio::time::timeout(reads.patience(), async {
                    let $tx: &mut sqlx::PgConnection = &mut transaction;
                    let value = $read?;
                    transaction.commit().await?;
                    Ok::<_, $crate::store::StoreError>(value)
                })
                .await;
                if let Some(answer) = reads.on_standby(ran) {
                    return answer;
                }
            }
            let mut transaction = reads.begin_on_primary().await?;
            let $tx: &mut sqlx::PgConnection = &mut transaction;
            let value = $read?;
            transaction.commit().await?;
            Ok::<_, $crate::store::StoreError>(value)
        }
    };
}
pub(crate) use fleet_read;

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
