//! What goes wrong below the use cases, told apart by whether the database
//! or the request is the trouble; and the mark a lost connection leaves,
//! which the pool reads to test the connections idle through it.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
    /// The database could not take the work now: a retry later may succeed.
    pub(crate) fn is_unavailable(&self) -> bool {
        matches!(self, Self::Unavailable(_))
    }

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
        if ends_the_connection(&err) {
            note_lost_connection();
        }
        if unavailable {
            Self::Unavailable(err)
        } else {
            Self::Other(err)
        }
    }
}

/// Whether `err` says the connection itself is gone (its socket closed, or
/// Postgres ending its backend: class 08, or 57P01–57P03), not only the
/// statement.
fn ends_the_connection(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|code| code.starts_with("08") || matches!(code.as_ref(), "57P01" | "57P02" | "57P03")),
        _ => false,
    }
}

pub(crate) type StoreResult<T> = Result<T, StoreError>;

/// A count for a `bigint` column. Counts reach the store through
/// `domain::Count` (at most 2^63 - 1); policy arithmetic saturates, so clamp.
pub(crate) fn db_count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A count read back from a `bigint` column.
pub(crate) fn count_of(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
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
fn note_lost_connection() {
    LOST_AT.fetch_max(millis_since_epoch(), Ordering::Relaxed);
}

/// Whether a connection idle for `idle_for` was idle when a loss was seen. One
/// released since was tested on its release (sqlx pings every connection it
/// takes back), so it is not suspect.
pub(super) fn idle_through_a_loss(idle_for: Duration) -> bool {
    let lost_at = LOST_AT.load(Ordering::Relaxed);
    if lost_at == 0 {
        return false;
    }
    let now = millis_since_epoch();
    let idle_since = now.saturating_sub(u64::try_from(idle_for.as_millis()).unwrap_or(u64::MAX));
    // A millisecond's slack: the two clocks are read apart.
    idle_since <= lost_at.saturating_add(1)
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
