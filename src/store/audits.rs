//! Audits (SPEC §5): claiming a conversation whose audit is due, reading its
//! live turns, and applying what the audit decided in one transaction.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::postgres::PgRow;
use sqlx::{Connection, PgConnection, Row};

use super::StoreResult;
use super::events::EventKind;
use super::lease::free;
use super::processes::{ProcessId, SILENT_AFTER, holder_gone};
use super::scoring::append_event;
use super::statements;
use crate::domain::{ConversationId, TenantId};
use crate::policy::audit::{AuditConfig, LiveTurn};
use crate::records::Critical;

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
    let critical: serde_json::Value = row.try_get("critical")?;
    let critical = serde_json::from_value(critical).unwrap_or_default();
    let to_rescore = claim_turns_to_rescore(&mut tx, tenant, conversation_id, (abandoned_after, holder)).await?;
    let live = live_turns(&mut tx, tenant, conversation_id, reads_chars).await?;
    tx.commit().await?;
    Ok(Some(Claimed {
        tenant: tenant.to_owned(),
        conversation_id: conversation_id.to_owned(),
        claimed_at: row.try_get("audit_claimed_at")?,
        last_turn_seq: row.try_get("last_turn_seq")?,
        critical,
        memory: row.try_get("memory")?,
        memory_turn_seq: row.try_get("memory_turn_seq")?,
        live,
        to_rescore,
    }))
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
) -> StoreResult<Option<PgRow>> {
    let row = statements::query(concat!(
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

/// The live turns, oldest first, each side's text cut to `reads_chars`
/// characters.
async fn live_turns(
    tx: &mut PgConnection,
    tenant: &TenantId,
    conversation_id: &ConversationId,
    reads_chars: usize,
) -> StoreResult<Vec<LiveTurn>> {
    Ok(statements::query(
        "SELECT seq, score, left(user_text, $3) AS user_text, left(assistant_text, $3) AS assistant_text FROM turns
          WHERE tenant = $1 AND conversation_id = $2 AND NOT evicted ORDER BY seq",
    )
    .bind(tenant)
    .bind(conversation_id)
    .bind(i32::try_from(reads_chars).unwrap_or(i32::MAX))
    .fetch_all(&mut *tx)
    .await?
    .iter()
    .map(|row| {
        Ok(LiveTurn {
            seq: row.try_get("seq")?,
            score: row
                .try_get::<Option<i16>, _>("score")?
                .and_then(|s| u8::try_from(s).ok()),
            user: row.try_get("user_text")?,
            assistant: row.try_get("assistant_text")?,
        })
    })
    .collect::<sqlx::Result<Vec<_>>>()?)
}

/// What an audit decided.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    pub scores: HashMap<i64, u8>,
    pub critical: Vec<Critical>,
    /// The rebuilt memory and the newest turn in it; `None`: unchanged.
    pub memory: Option<(String, i64)>,
    pub evicted: Vec<i64>,
}

/// Applies an audit's outcome and ends its claim, in one transaction.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn finish(conn: &mut PgConnection, claimed: &Claimed, outcome: &Outcome) -> StoreResult<()> {
    let mut tx = conn.begin().await?;
    super::lock_conversation_first(&mut tx, &claimed.tenant, &claimed.conversation_id).await?;
    if !still_ours(&mut tx, claimed).await? {
        return Ok(());
    }
    for (seq, score) in &outcome.scores {
        statements::query(
            "UPDATE turns SET score = $4, score_source = 'audit', scored_at = now(), score_claimed_at = NULL,
                              score_failed = false
              WHERE tenant = $1 AND conversation_id = $2 AND seq = $3",
        )
        .bind(&claimed.tenant)
        .bind(&claimed.conversation_id)
        .bind(seq)
        .bind(i16::from(*score))
        .execute(&mut *tx)
        .await?;
    }
    release_turns(&mut tx, claimed).await?;
    statements::query("UPDATE turns SET evicted = true WHERE tenant = $1 AND conversation_id = $2 AND seq = ANY($3)")
        .bind(&claimed.tenant)
        .bind(&claimed.conversation_id)
        .bind(&outcome.evicted)
        .execute(&mut *tx)
        .await?;
    let (memory, memory_seq) = match &outcome.memory {
        Some((text, seq)) => (Some(text.clone()), *seq),
        None => (claimed.memory.clone(), claimed.memory_turn_seq),
    };
    statements::query(
        "UPDATE conversations SET critical = $3, memory = $4, memory_turn_seq = $5, audited_turn_seq = $6,
                                  audit_claimed_at = NULL, audit_attempted_at = NULL
          WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(&claimed.tenant)
    .bind(&claimed.conversation_id)
    .bind(json!(outcome.critical))
    .bind(memory)
    .bind(memory_seq)
    .bind(claimed.last_turn_seq)
    .execute(&mut *tx)
    .await?;
    let payload = json!({
        "rescored": outcome.scores.len(),
        "critical": outcome.critical.len(),
        "memory_rebuilt": outcome.memory.is_some(),
        "evicted": outcome.evicted,
        "through_turn": claimed.last_turn_seq,
    });
    append_event(
        &mut tx,
        &claimed.tenant,
        &claimed.conversation_id,
        EventKind::Audited,
        payload,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Ends a claimed audit without applying anything, and says why.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn give_up(conn: &mut PgConnection, claimed: &Claimed, reason: &str, detail: &str) -> StoreResult<()> {
    let mut tx = conn.begin().await?;
    super::lock_conversation_first(&mut tx, &claimed.tenant, &claimed.conversation_id).await?;
    if !still_ours(&mut tx, claimed).await? {
        return Ok(());
    }
    release_turns(&mut tx, claimed).await?;
    statements::query(
        "UPDATE conversations SET audit_claimed_at = NULL, audit_attempted_at = now()
          WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(&claimed.tenant)
    .bind(&claimed.conversation_id)
    .execute(&mut *tx)
    .await?;
    append_event(
        &mut tx,
        &claimed.tenant,
        &claimed.conversation_id,
        EventKind::Skipped,
        json!({"reason": reason, "detail": detail}),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Whether the audit's claim is still its own (with the conversation's row
/// locked): one taken over while its holder was silent is another's, whose
/// audit alone applies; this one ends without a trace.
async fn still_ours(tx: &mut sqlx::PgConnection, claimed: &Claimed) -> StoreResult<bool> {
    let ours: Option<bool> = statements::query_scalar(
        "SELECT audit_claimed_at IS NOT DISTINCT FROM $3 FROM conversations WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(&claimed.tenant)
    .bind(&claimed.conversation_id)
    .bind(claimed.claimed_at)
    .fetch_optional(&mut *tx)
    .await?;
    if ours != Some(true) {
        tracing::debug!("an audit's claim was taken over: its outcome is dropped");
    }
    Ok(ours == Some(true))
}

async fn release_turns(tx: &mut sqlx::PgConnection, claimed: &Claimed) -> StoreResult<()> {
    statements::query(
        "UPDATE turns SET score_claimed_at = NULL
          WHERE tenant = $1 AND conversation_id = $2 AND seq = ANY($3) AND score_claimed_at = $4",
    )
    .bind(&claimed.tenant)
    .bind(&claimed.conversation_id)
    .bind(&claimed.to_rescore)
    .bind(claimed.claimed_at)
    .execute(&mut *tx)
    .await?;
    Ok(())
}
