//! The compaction ledger's writes: claiming a conversation while its
//! summary is written (here), and recording every attempt with the state
//! change the use case applied (`record`, of an `attempt`); the reads are in
//! `ledger.rs`.

mod attempt;
mod record;

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};

use super::StoreResult;
use super::lease::{free, holder_gone};
use super::processes::{ProcessId, SILENT_AFTER};
use super::row::conversation_columns;
use super::statements::{self, on};
use crate::domain::{ConversationId, TenantId};
use crate::records::StoredConversation;

pub(crate) use attempt::{Applied, Attempt};
pub(crate) use record::record;
pub(super) use record::{close_savings, keep_json};

/// Why a conversation could not be claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unclaimed {
    Missing,
    /// Another /summarize of it is running.
    Busy,
}

/// Claims the conversation for `holder`'s summary; a claim older than
/// `stale_after`, or whose holder has gone silent, was abandoned (its
/// process died) and is taken over.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn claim(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    (stale_after, holder): (Duration, ProcessId),
) -> StoreResult<Result<(StoredConversation, DateTime<Utc>), Unclaimed>> {
    let claimed = statements::query(concat!(
        "UPDATE conversations SET compacting_since = now(), compacting_by = $4::uuid
          WHERE tenant = $1 AND conversation_id = $2 AND (",
        free!("compacting_since", "3"),
        " OR ",
        holder_gone!("compacting_by", "5"),
        ") RETURNING compacting_since, ",
        conversation_columns!()
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(stale_after)
    .bind(holder.as_text())
    .bind(SILENT_AFTER)
    .fetch_optional(on(&mut *conn))
    .await?;
    if let Some(row) = claimed {
        let since: DateTime<Utc> = row.try_get("compacting_since")?;
        return Ok(Ok((StoredConversation::from_row(&row)?, since)));
    }
    let exists: bool = statements::query_scalar(
        "SELECT EXISTS (SELECT FROM conversations WHERE tenant = $1 AND conversation_id = $2)",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_one(on(&mut *conn))
    .await?;
    Ok(Err(if exists { Unclaimed::Busy } else { Unclaimed::Missing }))
}

/// When the conversation was claimed for the compaction running now; `None`
/// when none is (read under the caller's lock on the row, it stays so).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn claimed_since(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<DateTime<Utc>>> {
    let since: Option<Option<DateTime<Utc>>> = statements::query_scalar(
        "SELECT compacting_since FROM conversations WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_optional(on(&mut *conn))
    .await?;
    Ok(since.flatten())
}

/// Gives the claim made at `since` back without recording anything; a claim
/// made since (this one was taken over) is left alone.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn release(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    since: DateTime<Utc>,
) -> StoreResult<()> {
    statements::query(
        "UPDATE conversations SET compacting_since = NULL
          WHERE tenant = $1 AND conversation_id = $2 AND compacting_since = $3",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(since)
    .execute(on(&mut *conn))
    .await?;
    Ok(())
}
