//! Claiming a conversation whose audit is due, with the turns it will
//! re-score, and reading its live turns: one transaction, so the audit
//! reads what it claimed.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::{Connection, PgConnection};

use crate::domain::{ConversationId, TenantId};
use crate::policy::audit::{AuditConfig, LiveTurn};
use crate::records::Critical;
use crate::store::StoreResult;
use crate::store::lease::{free, holder_gone};
use crate::store::processes::{ProcessId, SILENT_AFTER};
use crate::store::statements;

/// A conversation claimed for its audit.
#[derive(Debug, Clone)]
pub(crate) struct Claimed {
    pub tenant: TenantId,
    pub conversation_id: ConversationId,
    /// When it was claimed, the conversation's and its turns' claims alike
    /// (one transaction's `now()`): what says the claims are still its own.
    pub claimed_at: DateTime<Utc>,
    /// The newest turn now: the audit covers up to it.
    pub last_turn_seq: i64,
    pub critical: Vec<Critical>,
    pub memory: Option<String>,
    pub memory_turn_seq: i64,
    /// Live turns, oldest first, each side's text its first `reads_chars`
    /// characters (what a score reads, and at most what a critical turn
    /// carries word for word).
    pub live: Vec<LiveTurn>,
    /// The unscored and weak turns it claimed to re-score (a weak score an
    /// audit gave already stands).
    pub to_rescore: Vec<i64>,
}

/// Claims the conversation's audit when one is due and no other worker runs
/// it; also claims the turns it will re-score, so the scorer leaves them.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn claim(
    conn: &mut PgConnection,
    tenant: &TenantId,
    conversation_id: &ConversationId,
    config: &AuditConfig,
    (abandoned_after, holder): (Duration, ProcessId),
    retry_after: Duration,
    reads_chars: usize,
) -> StoreResult<Option<Claimed>> {
    let mut tx = conn.begin().await?;
    let claimed = claim_conversation(
        &mut tx,
        tenant,
        conversation_id,
        config,
        (abandoned_after, holder),
        retry_after,
    )
    .await?;
    let Some(row) = claimed else { return Ok(None) };
    let critical = serde_json::from_value(row.critical).unwrap_or_default();
    let to_rescore = claim_turns_to_rescore(&mut tx, tenant, conversation_id, (abandoned_after, holder)).await?;
    let live = live_turns(&mut tx, tenant, conversation_id, reads_chars).await?;
    tx.commit().await?;
    Ok(Some(Claimed {
        tenant: tenant.to_owned(),
        conversation_id: conversation_id.to_owned(),
        claimed_at: row.audit_claimed_at,
        last_turn_seq: row.last_turn_seq,
        critical,
        memory: row.memory,
        memory_turn_seq: row.memory_turn_seq,
        live,
        to_rescore,
    }))
}

/// The conversation as its audit claim returns it.
#[derive(sqlx::FromRow)]
struct ClaimedRow {
    last_turn_seq: i64,
    critical: serde_json::Value,
    memory: Option<String>,
    memory_turn_seq: i64,
    audit_claimed_at: DateTime<Utc>,
}

/// Stamps the conversation's audit claim when its audit is due and free (no
/// claim held, none failed lately); `None` when it is not.
async fn claim_conversation(
    tx: &mut PgConnection,
    tenant: &TenantId,
    conversation_id: &ConversationId,
    config: &AuditConfig,
    (abandoned_after, holder): (Duration, ProcessId),
    retry_after: Duration,
) -> StoreResult<Option<ClaimedRow>> {
    let row = statements::query_as::<ClaimedRow>(concat!(
        "UPDATE conversations c SET audit_claimed_at = now(), audit_claimed_by = $7::uuid
          WHERE tenant = $1 AND conversation_id = $2 AND (",
        free!("audit_claimed_at", "3"),
        " OR ",
        holder_gone!("audit_claimed_by", "8"),
        // A failed audit waits before it is tried again, as a lapsed lease.
        ") AND ",
        free!("audit_attempted_at", "4"),
        " AND (last_turn_seq - audited_turn_seq >= $5
                 OR (SELECT count(*) FROM turns t
                      WHERE t.tenant = c.tenant AND t.conversation_id = c.conversation_id AND NOT t.evicted) > $6)
         RETURNING last_turn_seq, critical, memory, memory_turn_seq, audit_claimed_at"
    ))
    .bind(tenant)
    .bind(conversation_id)
    .bind(abandoned_after)
    .bind(retry_after)
    .bind(i64::try_from(config.every_new_turns).unwrap_or(i64::MAX))
    .bind(i64::try_from(config.live_turns).unwrap_or(i64::MAX))
    .bind(holder.as_text())
    .bind(SILENT_AFTER)
    .fetch_optional(&mut *tx)
    .await?;
    Ok(row)
}

/// Claims the live turns the audit re-scores: the unscored ones no scorer
/// holds, and the weak ones; answers their seqs.
async fn claim_turns_to_rescore(
    tx: &mut PgConnection,
    tenant: &TenantId,
    conversation_id: &ConversationId,
    (abandoned_after, holder): (Duration, ProcessId),
) -> StoreResult<Vec<i64>> {
    let to_rescore: Vec<i64> = statements::query_scalar(concat!(
        "UPDATE turns SET score_claimed_at = now(), score_claimed_by = $4::uuid
          WHERE tenant = $1 AND conversation_id = $2 AND NOT evicted
            AND ((score IS NULL AND (",
        free!("score_claimed_at", "3"),
        " OR ",
        holder_gone!("score_claimed_by", "5"),
        ")) OR (score <= 2 AND score_source <> 'audit'))
         RETURNING seq"
    ))
    .bind(tenant)
    .bind(conversation_id)
    .bind(abandoned_after)
    .bind(holder.as_text())
    .bind(SILENT_AFTER)
    .fetch_all(&mut *tx)
    .await?;
    Ok(to_rescore)
}

/// A live turn as [`live_turns`] reads it.
#[derive(sqlx::FromRow)]
struct LiveRow {
    seq: i64,
    score: Option<i16>,
    user_text: Option<String>,
    assistant_text: Option<String>,
}

/// The live turns, oldest first, each side's text cut to `reads_chars`
/// characters.
async fn live_turns(
    tx: &mut PgConnection,
    tenant: &TenantId,
    conversation_id: &ConversationId,
    reads_chars: usize,
) -> StoreResult<Vec<LiveTurn>> {
    Ok(statements::query_as::<LiveRow>(
        "SELECT seq, score, left(user_text, $3) AS user_text, left(assistant_text, $3) AS assistant_text FROM turns
          WHERE tenant = $1 AND conversation_id = $2 AND NOT evicted ORDER BY seq",
    )
    .bind(tenant)
    .bind(conversation_id)
    .bind(i32::try_from(reads_chars).unwrap_or(i32::MAX))
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .map(|row| LiveTurn {
        seq: row.seq,
        score: row.score.and_then(|s| u8::try_from(s).ok()),
        user: row.user_text,
        assistant: row.assistant_text,
    })
    .collect())
}
