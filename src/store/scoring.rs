//! Turn scores: claiming unscored turns so that any number of workers never
//! score one twice (and a dead worker's claims are taken again), and
//! recording a score or why there is none.

use std::time::Duration;

use chrono::{DateTime, Utc};

use serde_json::json;
use sqlx::{Connection, PgConnection};

use super::StoreResult;
use super::events::EventKind;
use super::lease::{free, holder_gone};
use super::processes::{ProcessId, SILENT_AFTER};
use super::statements::{self, on};
use crate::domain::{ConversationId, TenantId};

/// A turn a worker has claimed for scoring.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct ClaimedTurn {
    pub tenant: TenantId,
    pub conversation_id: ConversationId,
    pub seq: i64,
    #[sqlx(rename = "user_text")]
    pub user: Option<String>,
    #[sqlx(rename = "assistant_text")]
    pub assistant: Option<String>,
    /// When it was claimed: a give-back names it, so a claim taken since
    /// (an audit's, another worker's) is left alone.
    #[sqlx(rename = "score_claimed_at")]
    pub claimed_at: DateTime<Utc>,
}

/// Claims up to `limit` unscored turns for `holder`, oldest first, skipping
/// those another worker holds; a claim older than `abandoned_after`, or
/// whose holder has gone silent, is taken again (a score is recorded once
/// whoever finishes first). Each
/// side's text comes cut at `reads_chars` characters (what a score reads),
/// so a paste of megabytes is never carried to the worker whole.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn claim(
    conn: &mut PgConnection,
    limit: i64,
    (abandoned_after, holder): (Duration, ProcessId),
    reads_chars: usize,
) -> StoreResult<Vec<ClaimedTurn>> {
    let claimed = statements::query_as::<ClaimedTurn>(concat!(
        "UPDATE turns t SET score_claimed_at = now(), score_claimed_by = $4::uuid
           FROM (SELECT tenant, conversation_id, seq FROM turns
                  WHERE score IS NULL AND NOT score_failed AND (",
        free!("score_claimed_at", "2"),
        " OR ",
        holder_gone!("score_claimed_by", "5"),
        ") ORDER BY at
                  LIMIT $1
                  FOR UPDATE SKIP LOCKED) picked
          WHERE (t.tenant, t.conversation_id, t.seq) = (picked.tenant, picked.conversation_id, picked.seq)
         RETURNING t.tenant, t.conversation_id, t.seq, left(t.user_text, $3) AS user_text,
                   left(t.assistant_text, $3) AS assistant_text, t.score_claimed_at"
    ))
    .bind(limit)
    .bind(abandoned_after)
    .bind(i32::try_from(reads_chars).unwrap_or(i32::MAX))
    .bind(holder.as_text())
    .bind(SILENT_AFTER)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(claimed)
}

/// Turns waiting to be scored (the scorer's queue).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn waiting(conn: &mut PgConnection) -> StoreResult<i64> {
    Ok(
        statements::query_scalar("SELECT count(*) FROM turns WHERE score IS NULL AND NOT score_failed")
            .fetch_one(on(&mut *conn))
            .await?,
    )
}

/// Appends an event to a conversation's log and, in the same statement,
/// announces it to listeners (see `store::events`).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn append_event(
    conn: &mut PgConnection,
    tenant: &TenantId,
    conversation_id: &ConversationId,
    kind: EventKind,
    payload: serde_json::Value,
) -> StoreResult<()> {
    statements::query(
        "WITH c AS (
           UPDATE conversations SET last_event_seq = last_event_seq + 1
            WHERE tenant = $1 AND conversation_id = $2
           RETURNING tenant, conversation_id, last_event_seq
         )
         , e AS (
           INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
           SELECT tenant, conversation_id, last_event_seq, now(), $3, $4 FROM c
           RETURNING tenant, conversation_id, kind
         )
         SELECT pg_notify('compactd_background', tenant || '/' || conversation_id || '/' || kind) FROM e",
    )
    .bind(tenant)
    .bind(conversation_id)
    .bind(kind.as_str())
    .bind(&payload)
    .execute(on(&mut *conn))
    .await?;
    Ok(())
}

/// Records a claimed turn's score; `false` when the claim was lost (another
/// worker took it as abandoned, or an audit scored it), and nothing is written.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn record(conn: &mut PgConnection, turn: &ClaimedTurn, score: u8, source: &str) -> StoreResult<bool> {
    let mut tx = conn.begin().await?;
    super::lock_conversation_first(&mut tx, &turn.tenant, &turn.conversation_id).await?;
    let done = statements::query(
        "UPDATE turns SET score = $4, score_source = $5, scored_at = now(), score_claimed_at = NULL
          WHERE tenant = $1 AND conversation_id = $2 AND seq = $3 AND score IS NULL",
    )
    .bind(&turn.tenant)
    .bind(&turn.conversation_id)
    .bind(turn.seq)
    .bind(i16::from(score))
    .bind(source)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    let payload = json!({"turn_id": turn.seq, "score": score, "source": source});
    append_event(&mut tx, &turn.tenant, &turn.conversation_id, EventKind::Scored, payload).await?;
    tx.commit().await?;
    Ok(true)
}

/// Gives a claimed turn back after its score could not be recorded, so the
/// next round takes it instead of waiting for the claim to lapse.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn release(conn: &mut PgConnection, turn: &ClaimedTurn) -> StoreResult<()> {
    statements::query(
        "UPDATE turns SET score_claimed_at = NULL
          WHERE tenant = $1 AND conversation_id = $2 AND seq = $3 AND score IS NULL AND score_claimed_at = $4",
    )
    .bind(&turn.tenant)
    .bind(&turn.conversation_id)
    .bind(turn.seq)
    .bind(turn.claimed_at)
    .execute(on(&mut *conn))
    .await?;
    Ok(())
}

/// The score call failed: the turn stays unscored, left to the next audit.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn record_failure(
    conn: &mut PgConnection,
    turn: &ClaimedTurn,
    reason: &str,
    detail: &str,
) -> StoreResult<()> {
    let mut tx = conn.begin().await?;
    super::lock_conversation_first(&mut tx, &turn.tenant, &turn.conversation_id).await?;
    let done = statements::query(
        "UPDATE turns SET score_failed = true, score_claimed_at = NULL
          WHERE tenant = $1 AND conversation_id = $2 AND seq = $3 AND score IS NULL AND score_claimed_at = $4",
    )
    .bind(&turn.tenant)
    .bind(&turn.conversation_id)
    .bind(turn.seq)
    // Only while the claim is still this worker's: one taken over (its
    // holder fell silent) is another's to score.
    .bind(turn.claimed_at)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 1 {
        let payload = json!({"reason": reason, "turn_id": turn.seq, "detail": detail});
        append_event(
            &mut tx,
            &turn.tenant,
            &turn.conversation_id,
            EventKind::Skipped,
            payload,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}
