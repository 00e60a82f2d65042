//! Tenant purges (issue 25): asked for once, then worked a batch of
//! conversations at a time, each batch in its own short transaction that
//! also counts it, by whichever process holds the purge's lease.
//!
//! A purge deletes the conversations the tenant had when it was asked for
//! (stored before, by the service's clock): one that an agent starts later
//! is not its to delete, so a purge always ends, however busy the tenant.

use std::time::Duration;

use sqlx::{PgConnection, Row};

use super::StoreResult;
use super::deletions::{Erased, doomed_of, lock_doomed_and_near};
use super::lease::{free, holder_gone};
use super::processes::{ProcessId, SILENT_AFTER};
use super::statements::{self, on};
use crate::domain::TenantId;
use crate::records::{Purge, PurgeAsker};

const COLUMNS: &str = "tenant, id, requested_at, requested_by, key_id, finished_at, batches, conversations, turns";

fn purge_of(row: &sqlx::postgres::PgRow) -> sqlx::Result<Purge> {
    Ok(Purge {
        tenant: row.try_get("tenant")?,
        id: row.try_get("id")?,
        requested_at: row.try_get("requested_at")?,
        requested_by: row.try_get("requested_by")?,
        key_id: row.try_get("key_id")?,
        finished_at: row.try_get("finished_at")?,
        batches: super::count_of(row.try_get("batches")?),
        conversations: super::count_of(row.try_get("conversations")?),
        turns: super::count_of(row.try_get("turns")?),
    })
}

/// Asks for a purge of `tenant`; one already unfinished is answered
/// instead. `true` with a purge asked for now.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn ask(
    conn: &mut PgConnection,
    tenant: &TenantId,
    asker: PurgeAsker,
    key_id: Option<&str>,
) -> StoreResult<(Purge, bool)> {
    // The unfinished one may finish between the two statements: then ask again.
    loop {
        let asked = statements::query(&format!(
            "INSERT INTO purges (tenant, requested_by, key_id) VALUES ($1, $2, $3)
             ON CONFLICT (tenant) WHERE finished_at IS NULL DO NOTHING
             RETURNING {COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(asker.as_str())
        .bind(key_id)
        .fetch_optional(on(&mut *conn))
        .await?;
        if let Some(row) = asked {
            return Ok((purge_of(&row)?, true));
        }
        // A statement of its own: its snapshot sees the purge the insert
        // waited for.
        let unfinished = statements::query(&format!(
            "SELECT {COLUMNS} FROM purges WHERE tenant = $1 AND finished_at IS NULL"
        ))
        .bind(tenant.as_str())
        .fetch_optional(on(&mut *conn))
        .await?;
        if let Some(row) = unfinished {
            return Ok((purge_of(&row)?, false));
        }
    }
}

/// The tenant's purge `id`.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn show(conn: &mut PgConnection, tenant: &TenantId, id: i64) -> StoreResult<Option<Purge>> {
    let row = statements::query(&format!("SELECT {COLUMNS} FROM purges WHERE tenant = $1 AND id = $2"))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(on(&mut *conn))
        .await?;
    Ok(row.as_ref().map(purge_of).transpose()?)
}

/// Leases the oldest unfinished purge nobody works (or whose worker died:
/// silent, or its lease `window` passed) to `holder`.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn claim(
    conn: &mut PgConnection,
    (window, holder): (Duration, ProcessId),
) -> StoreResult<Option<Purge>> {
    let row = statements::query(&format!(
        "UPDATE purges SET claimed_at = now(), claimed_by = $2::uuid
          WHERE (tenant, id) = (SELECT tenant, id FROM purges
                                 WHERE finished_at IS NULL AND ({} OR {})
                                 ORDER BY requested_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING {COLUMNS}",
        free!("claimed_at", "1"),
        holder_gone!("claimed_by", "3")
    ))
    .bind(window)
    .bind(holder.as_text())
    .bind(SILENT_AFTER)
    .fetch_optional(on(&mut *conn))
    .await?;
    Ok(row.as_ref().map(purge_of).transpose()?)
}

/// Locks the purge's row and says whether it is still to be worked by
/// `holder`: unfinished, and (when a holder leased it) still leased to it,
/// whose lease a batch renews. The command line works without a lease.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn lock(conn: &mut PgConnection, purge: &Purge, holder: Option<ProcessId>) -> StoreResult<bool> {
    let ours: Option<bool> = statements::query_scalar(
        "UPDATE purges SET claimed_at = CASE WHEN $3::uuid IS NULL THEN claimed_at ELSE now() END
          WHERE tenant = $1 AND id = $2 AND finished_at IS NULL
            AND ($3::uuid IS NULL OR claimed_by = $3::uuid)
         RETURNING true",
    )
    .bind(&purge.tenant)
    .bind(purge.id)
    .bind(holder.map(|holder| holder.as_text()))
    .fetch_optional(on(&mut *conn))
    .await?;
    Ok(ours.unwrap_or(false))
}

/// Up to `limit` of the conversations the purge is to delete (those the
/// service stored before it was asked for), locked in id order with those
/// they link to, as every writer locks them.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn lock_batch(conn: &mut PgConnection, purge: &Purge, limit: i64) -> StoreResult<Vec<String>> {
    let doomed = "doomed(id) AS (SELECT conversation_id FROM conversations WHERE tenant = $1 AND stored_at <= $2
                                  ORDER BY conversation_id LIMIT $3)";
    let rows = statements::query(&lock_doomed_and_near(doomed))
        .bind(&purge.tenant)
        .bind(purge.requested_at)
        .bind(limit)
        .fetch_all(on(&mut *conn))
        .await?;
    doomed_of(&rows)
}

/// Counts a batch the purge deleted, and renews its lease.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn count_batch(conn: &mut PgConnection, purge: &Purge, erased: &Erased) -> StoreResult<Purge> {
    let row = statements::query(&format!(
        "UPDATE purges SET batches = batches + 1, conversations = conversations + $3, turns = turns + $4,
                           claimed_at = now()
          WHERE tenant = $1 AND id = $2 RETURNING {COLUMNS}"
    ))
    .bind(&purge.tenant)
    .bind(purge.id)
    .bind(super::db_count(erased.conversations))
    .bind(super::db_count(erased.turns))
    .fetch_one(on(&mut *conn))
    .await?;
    Ok(purge_of(&row)?)
}

/// Ends the purge: the answers kept for the tenant's Idempotency-Keys that
/// name no conversation go too (those asked for before it).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn finish(conn: &mut PgConnection, purge: &Purge) -> StoreResult<Purge> {
    statements::query("DELETE FROM idempotency_keys WHERE tenant = $1 AND status IS NOT NULL AND created_at <= $2")
        .bind(&purge.tenant)
        .bind(purge.requested_at)
        .execute(on(&mut *conn))
        .await?;
    let row = statements::query(&format!(
        "UPDATE purges SET finished_at = now(), claimed_at = NULL
          WHERE tenant = $1 AND id = $2 RETURNING {COLUMNS}"
    ))
    .bind(&purge.tenant)
    .bind(purge.id)
    .fetch_one(on(&mut *conn))
    .await?;
    super::deletions::announce(conn, &purge.tenant, "purge finished").await?;
    Ok(purge_of(&row)?)
}
