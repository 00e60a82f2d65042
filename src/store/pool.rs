//! The connection pool, the embedded migrations, and what is about the pool
//! itself: the readiness ping and the fleet read's own transaction (begun
//! on the database `standby` chooses).

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, Executor, PgPool, Postgres, Transaction};

use super::error::{StoreResult, idle_through_a_loss};
use super::statements;

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
        .connect_lazy_with(for_this_process(options))
}

/// A small pool of its own to `options` (the requests' database, or
/// Postgres itself past a pooler), for work that holds a connection as long
/// as a client lets it (an export read at its reader's pace): it never takes
/// one of the requests' connections. Connected when asked, and each
/// connection closed once given back: its buffers grew to the longest row it
/// read, megabytes a turn (issue 37).
pub fn side_pool(options: PgConnectOptions, max_connections: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max_connections.max(1))
        .min_connections(0)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .after_release(|_, _| Box::pin(async { Ok(false) }))
        .connect_lazy_with(options)
}

/// The session's settings: generic plans for the hot path's named
/// statements. Behind a transaction pooler, nothing but what pgbouncer
/// tracks itself may be sent at startup (it refuses `options` and
/// `extra_float_digits` unless told to ignore them), and unnamed statements
/// are planned for their values anyway.
fn for_this_process(options: PgConnectOptions) -> PgConnectOptions {
    if statements::unnamed() {
        options.extra_float_digits(None).statement_cache_capacity(0)
    } else {
        options.options([("plan_cache_mode", "force_generic_plan")])
    }
}

/// A read-only transaction whose statements are planned for the values they
/// get. The pool plans generically (the hot path's statements gain from it),
/// but the fleet's reads take optional spans and filters, and a plan made
/// without knowing them scans the whole ledger: ten times slower at a few
/// million rows (bench/dashboard_reads).
#[tracing::instrument(level = "debug", skip_all)]
pub(super) async fn begin_fleet_read_on(pool: &PgPool) -> StoreResult<Transaction<'static, Postgres>> {
    let mut transaction = pool.begin().await?;
    // Sorts for percentiles stay in memory; compiling a plan (JIT) costs more
    // than these queries gain from it.
    statements::query(
        "SELECT set_config('transaction_read_only', 'on', true),
                set_config('plan_cache_mode', 'force_custom_plan', true),
                set_config('work_mem', '32MB', true), set_config('jit', 'off', true)",
    )
    .execute(&mut *transaction)
    .await?;
    Ok(transaction)
}

/// Whether the database answers.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn ping(pool: &PgPool) -> StoreResult<()> {
    // Text, not a statement: one message, which a transaction pooler cannot
    // split across server connections as it can a statement's two.
    pool.execute("SELECT 1").await?;
    Ok(())
}
