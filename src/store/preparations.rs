//! Summaries prepared ahead (issue 12), as rows: planned by a usage report,
//! claimed by one worker at a time (and taken again when its worker dies),
//! and written (or dropped, with the reason). What compactions and the idle
//! sweep do with them is in `prepared.rs`; every preparation stays, for the
//! fleet's figures (`stats.rs`).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::{Connection, PgConnection, Row};

use super::compactions::keep_json;
use super::events::EventKind;
use super::lease::{free, holder_gone};
use super::processes::{ProcessId, SILENT_AFTER};
use super::scoring::append_event;
use super::statements::{self, on};
use super::{StoreResult, db_count};
use crate::domain::{ConversationId, TenantId};
use crate::policy::prepare::{Covered, Reason};
use crate::records::StoredConversation;
use crate::summary::keep::KeepFigures;

/// Plans a preparation of the stored turns up to the newest, as `stored`
/// (the state a usage report just left) shows them; any open one is
/// superseded. Nothing is planned when the conversation moved on since
/// (another report planned, a turn was stored, it was compacted): the next
/// report looks again. Answers the new preparation's seq.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn plan(
    conn: &mut PgConnection,
    stored: &StoredConversation,
    at: DateTime<Utc>,
) -> StoreResult<Option<i64>> {
    let seq = statements::query_scalar(
        "WITH c AS (
           UPDATE conversations
              SET prepare_turn_seq = last_turn_seq, prepare_used = used,
                  last_preparation_seq = last_preparation_seq + 1
            WHERE tenant = $1 AND conversation_id = $2 AND boundary_turn_seq = $3
              AND prepare_turn_seq IS NOT DISTINCT FROM $4 AND last_turn_seq = $5 AND used = $6
           RETURNING tenant, conversation_id, last_preparation_seq, last_turn_seq, boundary_turn_seq,
                     summary_seq, used
         ), superseded AS (
           UPDATE preparations p
              SET status = CASE WHEN p.status = 'ready' THEN 'wasted' ELSE 'dropped' END,
                  reason = 'superseded', closed_at = now()
             FROM c
            WHERE (p.tenant, p.conversation_id) = (c.tenant, c.conversation_id)
              AND p.status IN ('planned', 'ready')
         )
         INSERT INTO preparations (tenant, conversation_id, seq, planned_at, planned_used, boundary_turn_seq,
                                   through_turn_seq, anchor_seq, status)
         SELECT tenant, conversation_id, last_preparation_seq, $7, used, boundary_turn_seq, last_turn_seq,
                summary_seq, 'planned'
           FROM c
         RETURNING seq",
    )
    .bind(&stored.tenant)
    .bind(&stored.conversation_id)
    .bind(stored.boundary_turn_seq)
    .bind(stored.planned.map(|planned| planned.through_turn))
    .bind(stored.last_turn_seq)
    .bind(db_count(stored.state.used))
    .bind(at)
    .fetch_optional(on(&mut *conn))
    .await?;
    Ok(seq)
}

/// A preparation a worker has claimed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct Claimed {
    pub tenant: TenantId,
    pub conversation_id: ConversationId,
    pub seq: i64,
    pub boundary_turn_seq: i64,
    pub through_turn_seq: i64,
    pub anchor_seq: Option<i64>,
    pub planned_at: DateTime<Utc>,
    /// When it was claimed: the write names it, so a claim taken over since
    /// (its worker was thought dead) is not overwritten.
    pub claimed_at: DateTime<Utc>,
}

/// Claims up to `limit` planned preparations for `holder` (of one
/// conversation, when `only` names it), oldest first, skipping those
/// another worker holds; a claim older than `abandoned_after`, or whose
/// holder has gone silent, is taken again.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn claim(
    conn: &mut PgConnection,
    limit: i64,
    (abandoned_after, holder): (Duration, ProcessId),
    only: Option<(&TenantId, &ConversationId)>,
) -> StoreResult<Vec<Claimed>> {
    let (tenant, id) = only.unzip();
    let claimed = statements::query_as::<Claimed>(concat!(
        "UPDATE preparations p SET claimed_at = now(), claimed_by = $5::uuid
           FROM (SELECT tenant, conversation_id, seq FROM preparations
                  WHERE status = 'planned' AND (",
        free!("claimed_at", "2"),
        " OR ",
        holder_gone!("claimed_by", "6"),
        ") AND ($3::text IS NULL OR (tenant, conversation_id) = ($3, $4))
                  ORDER BY planned_at
                  LIMIT $1
                  FOR UPDATE SKIP LOCKED) picked
          WHERE (p.tenant, p.conversation_id, p.seq) = (picked.tenant, picked.conversation_id, picked.seq)
         RETURNING p.tenant, p.conversation_id, p.seq, p.boundary_turn_seq, p.through_turn_seq, p.anchor_seq,
                   p.planned_at, p.claimed_at"
    ))
    .bind(limit)
    .bind(abandoned_after)
    .bind(tenant)
    .bind(id)
    .bind(holder.as_text())
    .bind(SILENT_AFTER)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(claimed)
}

/// Preparations waiting for a worker (the queue's depth).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn waiting(conn: &mut PgConnection) -> StoreResult<i64> {
    Ok(
        statements::query_scalar("SELECT count(*) FROM preparations WHERE status = 'planned'")
            .fetch_one(on(&mut *conn))
            .await?,
    )
}

/// The `skipped` event's reason for a preparation dropped for `reason`.
pub(crate) fn skipped_reason(reason: Reason) -> String {
    format!("prepare-{}", reason.as_str().replace('_', "-"))
}

/// A claimed preparation that will not be written, for `reason`, logged as
/// a `skipped` event; nothing happens when the claim was lost or it was
/// closed since.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn drop_claimed(conn: &mut PgConnection, claimed: &Claimed, reason: Reason) -> StoreResult<bool> {
    let mut tx = conn.begin().await?;
    super::lock_conversation_first(&mut tx, &claimed.tenant, &claimed.conversation_id).await?;
    let done = statements::query(
        "UPDATE preparations SET status = 'dropped', reason = $4, claimed_at = NULL, closed_at = now()
          WHERE tenant = $1 AND conversation_id = $2 AND seq = $3 AND status = 'planned' AND claimed_at = $5",
    )
    .bind(&claimed.tenant)
    .bind(&claimed.conversation_id)
    .bind(claimed.seq)
    .bind(reason)
    .bind(claimed.claimed_at)
    .execute(&mut *tx)
    .await?;
    let dropped = done.rows_affected() == 1;
    if dropped {
        let payload = json!({"reason": skipped_reason(reason), "preparation": claimed.seq});
        append_event(
            &mut tx,
            &claimed.tenant,
            &claimed.conversation_id,
            EventKind::Skipped,
            payload,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(dropped)
}

/// What a worker wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    pub covered: Covered,
    /// Tokens of each message it covers, and of the anchor.
    pub message_tokens: Vec<u64>,
    pub anchor_tokens: u64,
    pub narrative: String,
    pub summary: String,
    pub model: Option<String>,
    pub prompt_version: &'static str,
    pub upstream_input_tokens: Option<u64>,
    pub upstream_output_tokens: Option<u64>,
    pub duration_ms: u64,
    pub keep: KeepFigures,
}

/// What became of a written preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// Ready for a compaction.
    Ready,
    /// Closed while it was written (a compaction came first, a newer one
    /// was planned): its tokens are counted as wasted, for this reason.
    Wasted(Reason),
    /// Another worker took the claim over: this one's work is discarded.
    Lost,
}

/// Records a written preparation, inside the caller's transaction (which
/// holds the conversation's row, and checked it still stands where the
/// preparation was planned), and logs a `prepared` event.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn record_written(tx: &mut PgConnection, claimed: &Claimed, written: &Written) -> StoreResult<Kept> {
    let bind = |sql| {
        statements::query(sql)
            .bind(&claimed.tenant)
            .bind(&claimed.conversation_id)
            .bind(claimed.seq)
            .bind(claimed.claimed_at)
            .bind(i32::try_from(written.covered.messages).unwrap_or(i32::MAX))
            .bind(written.covered.fingerprint.to_vec())
            .bind(
                written
                    .message_tokens
                    .iter()
                    .map(|t| db_count(*t))
                    .collect::<Vec<i64>>(),
            )
            .bind(db_count(written.anchor_tokens))
            .bind(&written.narrative)
            .bind(&written.summary)
            .bind(&written.model)
            .bind(written.prompt_version)
            .bind(written.upstream_input_tokens.map(db_count))
            .bind(written.upstream_output_tokens.map(db_count))
            .bind(db_count(written.duration_ms))
            .bind(keep_json(&written.keep))
    };
    let ready = bind(
        "UPDATE preparations
            SET status = 'ready', claimed_at = NULL, written_at = now(), messages = $5, fingerprint = $6,
                message_tokens = $7, anchor_tokens = $8, narrative = $9, summary = $10, model = $11,
                prompt_version = $12, upstream_input_tokens = $13, upstream_output_tokens = $14,
                duration_ms = $15, keep = $16
          WHERE tenant = $1 AND conversation_id = $2 AND seq = $3 AND status = 'planned' AND claimed_at = $4",
    )
    .execute(&mut *tx)
    .await?;
    if ready.rows_affected() == 1 {
        let payload = json!({
            "preparation": claimed.seq,
            "through_turn_id": claimed.through_turn_seq,
            "upstream_input_tokens": written.upstream_input_tokens,
            "upstream_output_tokens": written.upstream_output_tokens,
        });
        append_event(
            tx,
            &claimed.tenant,
            &claimed.conversation_id,
            EventKind::Prepared,
            payload,
        )
        .await?;
        return Ok(Kept::Ready);
    }
    // Closed while it was being written: the tokens were spent all the same.
    let wasted = bind(
        "UPDATE preparations
            SET status = 'wasted', reason = CASE WHEN reason = 'superseded' THEN reason ELSE 'compacted_first' END,
                claimed_at = NULL, written_at = now(), messages = $5, fingerprint = $6, message_tokens = $7,
                anchor_tokens = $8, narrative = $9, summary = $10, model = $11, prompt_version = $12,
                upstream_input_tokens = $13, upstream_output_tokens = $14, duration_ms = $15, keep = $16
          WHERE tenant = $1 AND conversation_id = $2 AND seq = $3 AND status = 'dropped' AND claimed_at = $4
         RETURNING reason",
    )
    .fetch_optional(&mut *tx)
    .await?;
    match wasted {
        Some(row) => Ok(Kept::Wasted(row.try_get("reason")?)),
        None => Ok(Kept::Lost),
    }
}
