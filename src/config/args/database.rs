//! Where the data lives: Postgres (given, behind a pooler, or the private
//! one) and a standby for the fleet's reads. Their URLs may carry a password,
//! so neither is printed whole.

use std::fmt;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::config::settings::Invalid;

#[derive(Clone, Args)]
pub struct DatabaseArgs {
    /// Postgres to use; unset, a private Postgres runs in the data folder.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// The private Postgres's folder.
    #[arg(long, env = "COMPACTD_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// `transaction` when DATABASE_URL is a pooler in transaction mode
    /// (pgbouncer): every statement is sent unnamed, and migrations and
    /// LISTEN use COMPACTD_DIRECT_DATABASE_URL.
    #[arg(long, env = "COMPACTD_DATABASE_POOLER", value_enum, default_value_t = Pooler::None)]
    pub database_pooler: Pooler,
    /// Postgres itself, past the pooler, for what needs a session of its
    /// own: migrations (a session lock) and following key changes (LISTEN).
    #[arg(long, env = "COMPACTD_DIRECT_DATABASE_URL")]
    pub direct_database_url: Option<String>,
}

/// What stands between the service and Postgres.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Pooler {
    /// Nothing, or a pooler in session mode: statements are named and kept.
    None,
    /// A pooler in transaction mode.
    Transaction,
}

impl DatabaseArgs {
    /// Where migrations and LISTEN go; behind a transaction pooler, a direct
    /// URL is required (the pooler would hand a session lock's unlock, or a
    /// LISTEN's notifications, to another client's connection).
    pub fn session_url(&self) -> Result<Option<&str>, Invalid> {
        match (self.database_pooler, &self.direct_database_url) {
            (Pooler::Transaction, None) => Err(
                "COMPACTD_DATABASE_POOLER=transaction needs COMPACTD_DIRECT_DATABASE_URL \
                 (--direct-database-url): migrations and key-change notifications need a session of their own, \
                 straight to Postgres"
                    .to_owned(),
            ),
            (_, direct) => Ok(direct.as_deref()),
        }
    }
}

/// The URL may carry a password: never print it.
impl fmt::Debug for DatabaseArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseArgs")
            .field("database_url", &self.database_url.as_ref().map(|_| "[redacted]"))
            .field("data_dir", &self.data_dir)
            .field("database_pooler", &self.database_pooler)
            .field(
                "direct_database_url",
                &self.direct_database_url.as_ref().map(|_| "[redacted]"),
            )
            .finish()
    }
}

/// A streaming standby for the fleet's reads.
#[derive(Clone, Args)]
pub struct StandbyArgs {
    /// A streaming standby of DATABASE_URL's Postgres: the fleet's reads
    /// (/compactions, /stats, /stats/series, the conversation list)
    /// go there; a caller's reads of its own conversation stay on the primary.
    #[arg(long, env = "COMPACTD_READ_DATABASE_URL")]
    pub read_database_url: Option<String>,
    /// How far behind the primary the standby may be, in milliseconds,
    /// before the fleet's reads go to the primary instead.
    #[arg(long, env = "COMPACTD_READ_MAX_LAG_MS", default_value_t = 5_000,
          value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub read_max_lag_ms: u64,
}

/// The URL may carry a password: never print it.
impl fmt::Debug for StandbyArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StandbyArgs")
            .field(
                "read_database_url",
                &self.read_database_url.as_ref().map(|_| "[redacted]"),
            )
            .field("read_max_lag_ms", &self.read_max_lag_ms)
            .finish()
    }
}
