//! The connection pool, the embedded migrations, and what is about the pool
//! itself: the readiness ping and the fleet read's own transaction.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgPool, Postgres, Transaction};

use super::error::StoreResult;

/// How long a request waits for a connection: past it the database is down or
/// overloaded, and the caller gets a fast 503 rather than a hang.
pub(crate) const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(1);

/// A pool sized for the hot path: a connection per in-flight request, no
/// round trip to test a connection before each use, except one that sat idle
/// while a connection was seen lost: an operator's `pg_terminate_backend` or a
/// failover ends the idle ones too, and each would cost a request its 503.
pub fn pool(options: PgConnectOptions, max_connections: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .min_connections(1)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if !idle_through_a_loss(meta.idle_for) {
                    return Ok(true);
                }
                // A dead one is dropped, and the pool hands out the next or a new one.
                Ok(conn.ping().await.is_ok())
            })
        })
        .connect_lazy_with(options.options([("plan_cache_mode", "force_generic_plan")]))
}

/// When a connection was last seen lost, in milliseconds after `EPOCH` (0:
/// never). One mark for the process: a pool that did not lose one pings its
/// idle connections once for nothing, which is cheap.
static LOST_AT: AtomicU64 = AtomicU64::new(0);
static EPOCH: OnceLock<Instant> = OnceLock::new();

fn millis_since_epoch() -> u64 {
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX).max(1)
}

/// Marks that a connection ended under a request: every connection that was
/// idle at that moment is tested before its next use.
pub(crate) fn note_lost_connection() {
    LOST_AT.fetch_max(millis_since_epoch(), Ordering::Relaxed);
}

/// Whether a connection idle for `idle_for` was idle when a loss was seen. One
/// released since was tested on its release (sqlx pings every connection it
/// takes back), so it is not suspect.
fn idle_through_a_loss(idle_for: Duration) -> bool {
    let lost_at = LOST_AT.load(Ordering::Relaxed);
    if lost_at == 0 {
        return false;
    }
    let now = millis_since_epoch();
    let idle_since = now.saturating_sub(u64::try_from(idle_for.as_millis()).unwrap_or(u64::MAX));
    // A millisecond's slack: the two clocks are read apart.
    idle_since <= lost_at.saturating_add(1)
}

/// A read-only transaction whose statements are planned for the values they
/// get. The pool plans generically (the hot path's statements gain from it),
/// but the fleet's reads take optional spans and filters, and a plan made
/// without knowing them scans the whole ledger: ten times slower at a few
/// million rows (bench/dashboard_reads).
pub(crate) async fn begin_fleet_read(pool: &PgPool) -> StoreResult<Transaction<'static, Postgres>> {
    let mut transaction = pool.begin().await?;
    // Sorts for percentiles stay in memory; compiling a plan (JIT) costs more
    // than these queries gain from it.
    sqlx::query(
        "SELECT set_config('transaction_read_only', 'on', true),
                set_config('plan_cache_mode', 'force_custom_plan', true),
                set_config('work_mem', '32MB', true), set_config('jit', 'off', true)",
    )
    .execute(&mut *transaction)
    .await?;
    Ok(transaction)
}

/// Whether the database answers.
pub(crate) async fn ping(pool: &PgPool) -> StoreResult<()> {
    sqlx::query("SELECT 1").execute(pool).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_idle_through_a_loss_is_suspect_and_one_released_since_is_not() {
        std::thread::sleep(Duration::from_millis(5));
        note_lost_connection();
        assert!(idle_through_a_loss(Duration::from_secs(3600)));
        std::thread::sleep(Duration::from_millis(20));
        assert!(!idle_through_a_loss(Duration::from_millis(5)));
        assert!(idle_through_a_loss(Duration::from_millis(1000)));
    }
}
