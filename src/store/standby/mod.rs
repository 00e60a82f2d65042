//! Where the fleet's reads go (issue 25): a streaming standby while it keeps
//! up with the primary, else the primary. Nothing a caller reads about its
//! own conversation goes there: only the tenant-wide reads, which may be a
//! moment old (read-your-writes stays on the primary). How far behind the
//! standby is, is measured in `lag`.

mod lag;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::{PgPool, Postgres, Transaction};

use lag::{Lag, LagMeter, replayed, wal_end};

use super::StoreResult;
use super::pool::begin_fleet_read_on;
use crate::records::{StandbyReport, StandbyState};

/// How long a fleet read may take on the standby before the primary is
/// asked instead (a standby that stopped answering must not hold a
/// dashboard's request for as long as a request may run).
const READ_PATIENCE: Duration = Duration::from_secs(5);

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
