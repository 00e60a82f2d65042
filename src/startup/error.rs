//! Why the service could not start: the step of start-up that failed, and
//! on what.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use crate::llm::LlmError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("could not listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: io::Error },
    #[error("the database did not answer within {waited:?}: {last}")]
    DatabaseUnavailable { waited: Duration, last: StoreError },
    #[error("migrations failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the upstream LLM client could not be built: {0}")]
    Llm(#[from] LlmError),
    #[error("COMPACTD_DIRECT_DATABASE_URL is not a Postgres URL: {0}")]
    DirectUrl(sqlx::Error),
    #[error("COMPACTD_READ_DATABASE_URL is not a Postgres URL: {0}")]
    StandbyUrl(sqlx::Error),
    #[error("the API keys could not be read: {0}")]
    Keys(#[from] StoreError),
}
