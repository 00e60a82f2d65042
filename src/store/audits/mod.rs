//! Audits (SPEC §5): claiming a conversation whose audit is due, reading its
//! live turns (`claim`), and applying what the audit decided in one
//! transaction.

mod claim;

use std::collections::HashMap;

use serde_json::json;
use sqlx::{Connection, PgConnection};

use super::StoreResult;
use super::events::EventKind;
use super::scoring::append_event;
use super::statements;
use crate::records::Critical;

pub(crate) use claim::{Claimed, claim};

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
