//! Everything that touches SQL. Each request on the hot path is one statement
//! (or one transaction) with the conversation's row locked, so concurrent
//! reports on one conversation never lose an update.

pub(crate) mod audits;
pub(crate) mod budget;
pub(crate) mod compactions;
pub(crate) mod conversations;
pub(crate) mod due;
pub(crate) mod events;
pub(crate) mod handoffs;
pub mod idempotency;
pub(crate) mod keep;
pub(crate) mod keys;
mod row;
pub(crate) mod scoring;
pub(crate) mod series;
mod state;
pub(crate) mod stats;
pub(crate) mod turns;

use std::future::Future;
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, Postgres, Transaction};

pub(crate) use row::StoredConversation;

/// What went wrong below the HTTP layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database went away or could not take the work now (unreachable,
    /// shutting down, restarting, the connection ended, out of connections,
    /// a lost race such as a deadlock): worth retrying.
    #[error("the database is unavailable ({})", describe(.0))]
    Unavailable(#[source] sqlx::Error),
    /// A row holds a value this version cannot read: a bug or a hand edit.
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
    #[error("database error ({})", describe(.0))]
    Other(#[source] sqlx::Error),
}

impl StoreError {
    /// A lost race (deadlock, serialization failure): running again at once
    /// is the remedy.
    pub(crate) fn is_lost_race(&self) -> bool {
        match self {
            Self::Unavailable(sqlx::Error::Database(db)) => matches!(db.code().as_deref(), Some("40001" | "40P01")),
            _ => false,
        }
    }
}

/// The error for a log line: its SQLSTATE and Postgres's message, or sqlx's.
fn describe(err: &sqlx::Error) -> String {
    match err {
        sqlx::Error::Database(db) => format!("SQLSTATE {}: {}", db.code().unwrap_or_default(), db.message()),
        other => other.to_string(),
    }
}

/// SQLSTATEs that say the database, not the request, is the trouble:
/// class 08 (the connection failed), 53 (out of connections, memory or
/// disk), 57 (shutdown, crash, restart, a terminated or cancelled backend),
/// 40 (a lost race), and 25006 (a read-only standby after a failover).
fn went_away(code: &str) -> bool {
    code.starts_with("08")
        || code.starts_with("53")
        || code.starts_with("57")
        || code.starts_with("40")
        || code == "25006"
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        let unavailable = match &err {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed
            | sqlx::Error::Protocol(_) => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|code| went_away(&code)),
            _ => false,
        };
        if unavailable {
            Self::Unavailable(err)
        } else {
            Self::Other(err)
        }
    }
}

pub(crate) type StoreResult<T> = Result<T, StoreError>;

/// Embedded migrations: the binary carries its schema.
pub(crate) static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// How long a request waits for a connection: past it the database is down or
/// overloaded, and the caller gets a fast 503 rather than a hang.
pub(crate) const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(1);

/// A pool sized for the hot path: a connection per in-flight request, no
/// round trip to test a connection before each use.
pub fn pool(options: PgConnectOptions, max_connections: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .min_connections(1)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire(false)
        .connect_lazy_with(options.options([("plan_cache_mode", "force_generic_plan")]))
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

/// Takes the conversation's row lock, first, in a transaction that will also
/// write its turns or keep items: every writer takes the row before those
/// (the hot path updates the row before it inserts a turn), so no two
/// writers ever wait on each other in opposite orders.
pub(crate) async fn lock_conversation_first(
    conn: &mut sqlx::PgConnection,
    tenant: &str,
    conversation_id: &str,
) -> StoreResult<()> {
    sqlx::query("SELECT 1 FROM conversations WHERE tenant = $1 AND conversation_id = $2 FOR NO KEY UPDATE")
        .bind(tenant)
        .bind(conversation_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Runs `write` (its own transaction) again at once when it lost a race
/// (a deadlock or serialization failure), a few times, instead of leaving
/// its work to a claim's timeout.
pub(crate) async fn retry_lost_races<T, F, Fut>(mut write: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = StoreResult<T>>,
{
    const TRIES: u32 = 3;
    let mut tried = 1;
    loop {
        match write().await {
            Err(err) if err.is_lost_race() && tried < TRIES => {
                tracing::debug!(%err, tried, "a write lost a race; running it again");
                tried += 1;
            }
            outcome => return outcome,
        }
    }
}

/// Runs `give_back` on a task of its own until the database takes it,
/// backing off from 100 ms to 5 s, for at most `for_at_most` (what it gives
/// back expires by itself by then). For returning a claim after a failure,
/// when the database may be what failed: a claim left behind would turn
/// every retry away for minutes.
pub(crate) fn keep_giving_back<F, Fut>(what: &'static str, for_at_most: Duration, mut give_back: F)
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: Future<Output = StoreResult<()>> + Send,
{
    tokio::spawn(async move {
        let mut wait = Duration::from_millis(100);
        let started = Instant::now();
        while let Err(err) = give_back().await {
            if started.elapsed() > for_at_most {
                tracing::warn!(%err, what, "could not be given back; it expires by itself");
                return;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(5));
        }
    });
}

pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}

/// Whether the database answers.
pub(crate) async fn ping(pool: &PgPool) -> StoreResult<()> {
    sqlx::query("SELECT 1").execute(pool).await?;
    Ok(())
}

/// A count for a `bigint` column. Counts reach the store through
/// `domain::Count` (at most 2^63 - 1); policy arithmetic saturates, so clamp.
pub(crate) fn db_count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A count read back from a `bigint` column.
pub(crate) fn count_of(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_going_away_is_told_apart_from_a_bad_statement() {
        for code in [
            "57P01", "57P02", "57P03", "57014", "08006", "08003", "53300", "40P01", "40001", "25006",
        ] {
            assert!(went_away(code), "{code}");
        }
        for code in ["23505", "22P02", "42P01", "42703", "23503"] {
            assert!(!went_away(code), "{code}");
        }
    }
}
