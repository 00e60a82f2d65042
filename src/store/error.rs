//! What goes wrong below the use cases, told apart by whether the database
//! or the request is the trouble.

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
        if ends_the_connection(&err) {
            super::pool::note_lost_connection();
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
