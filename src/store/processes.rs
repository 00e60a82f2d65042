//! The service processes that are alive. Each beats while it runs; a request
//! claim records its holder, and a claim whose holder has been silent past
//! [`SILENT_AFTER`] is taken over by the next retry (`lease::holder_gone!`) instead
//! of waiting out its lease (`COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS`): a replica
//! killed mid-request holds its keys and conversations for seconds, not
//! minutes. Taking over a claim whose holder is only slow (a database it
//! could not reach for that long) is safe: each holder's final write checks
//! that the claim is still its own — an Idempotency-Key's token, a
//! compaction's `compacting_since`, a score's `score_claimed_at`, an audit's
//! `audit_claimed_at`, a purge's `claimed_by` — and drops its work otherwise.

use std::time::Duration;

use sqlx::PgConnection;

use super::StoreResult;
use super::statements::{self, on};

/// How often a process says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// A process silent this long is taken for dead (ten beats missed; each
/// beat goes on a connection of its own, so a busy pool never silences it).
pub const SILENT_AFTER: Duration = Duration::from_secs(10);

/// A dead process's row is forgotten after this.
const FORGOTTEN_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// One service process, for the claims it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessId(uuid::Uuid);

impl ProcessId {
    pub fn new() -> Self {
        Self(uuid::Uuid::new_v4())
    }

    /// As a statement's parameter: text, cast to `uuid` in the statement.
    pub(crate) fn as_text(&self) -> String {
        self.to_string()
    }
}

impl std::fmt::Display for ProcessId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Default for ProcessId {
    fn default() -> Self {
        Self::new()
    }
}

/// Says `process` is alive now (and was started, the first time).
#[tracing::instrument(level = "debug", skip_all)]
pub async fn beat(conn: &mut PgConnection, process: ProcessId) -> StoreResult<()> {
    statements::query(
        "INSERT INTO processes (id) VALUES ($1::uuid)
         ON CONFLICT (id) DO UPDATE SET seen_at = now()",
    )
    .bind(process.as_text())
    .execute(on(conn))
    .await?;
    Ok(())
}

/// `process` stops: its claims are free at once (it answered or gave back
/// what it held before stopping).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn leave(conn: &mut PgConnection, process: ProcessId) -> StoreResult<()> {
    statements::query("DELETE FROM processes WHERE id = $1::uuid")
        .bind(process.as_text())
        .execute(on(conn))
        .await?;
    Ok(())
}

/// Forgets processes long dead; answers how many.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn forget_the_long_dead(conn: &mut PgConnection) -> StoreResult<u64> {
    let done = statements::query("DELETE FROM processes WHERE seen_at < now() - $1::interval")
        .bind(FORGOTTEN_AFTER)
        .execute(on(conn))
        .await?;
    Ok(done.rows_affected())
}
