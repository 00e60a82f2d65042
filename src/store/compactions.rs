//! The compaction ledger's writes: claiming a conversation while its
//! summary is written, and recording every attempt with the state change it
//! makes (the reads are in `ledger.rs`).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::{PgConnection, Row};

use super::ledger::{Recorded, recorded};
use super::state::{STATE_COLUMNS, bind_state};
use super::{StoreResult, StoredConversation, db_count};
use crate::domain::{ConversationId, HarnessName, TenantId};
use crate::policy::CompactionTrigger;
use crate::policy::Writer;
use crate::policy::keep::KeepFigures;

/// Why a conversation could not be claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unclaimed {
    Missing,
    /// Another /summarize of it is running.
    Busy,
}

/// Claims the conversation for one summary; a claim older than `stale_after`
/// was abandoned (its process died) and is taken over.
pub(crate) async fn claim(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    stale_after: Duration,
) -> StoreResult<Result<(StoredConversation, DateTime<Utc>), Unclaimed>> {
    let claimed = sqlx::query(
        "UPDATE conversations SET compacting_since = now()
          WHERE tenant = $1 AND conversation_id = $2
            AND (compacting_since IS NULL OR compacting_since < now() - $3::interval)
         RETURNING *",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(stale_after)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(row) = claimed {
        let since: DateTime<Utc> = row.try_get("compacting_since")?;
        return Ok(Ok((StoredConversation::from_row(&row)?, since)));
    }
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT FROM conversations WHERE tenant = $1 AND conversation_id = $2)")
            .bind(tenant.as_str())
            .bind(id.as_str())
            .fetch_one(&mut *conn)
            .await?;
    Ok(Err(if exists { Unclaimed::Busy } else { Unclaimed::Missing }))
}

/// Gives the claim made at `since` back without recording anything; a claim
/// made since (this one was taken over) is left alone.
pub(crate) async fn release(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    since: DateTime<Utc>,
) -> StoreResult<()> {
    sqlx::query(
        "UPDATE conversations SET compacting_since = NULL
          WHERE tenant = $1 AND conversation_id = $2 AND compacting_since = $3",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(since)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// One attempt, as the ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attempt {
    pub at: DateTime<Utc>,
    pub trigger: CompactionTrigger,
    pub by_host: bool,
    pub idle: bool,
    pub summarizer: Writer,
    pub model: Option<String>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub total_messages: u64,
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub tool_messages: u64,
    pub kept_from: Option<u64>,
    pub duration_ms: u64,
    pub upstream_input_tokens: Option<u64>,
    pub upstream_output_tokens: Option<u64>,
    /// The new summary, or why there is none.
    pub outcome: Result<String, String>,
    pub prompt_version: Option<&'static str>,
    /// Stored turns up to this one are now behind the boundary.
    pub boundary_turn_seq: i64,
    /// What became of the keep set's items (none when no summary was written).
    pub keep: Option<KeepFigures>,
    /// It merged a summary prepared ahead, this old (between the `at` that
    /// planned it and this attempt's), in milliseconds.
    pub prepared_age_ms: Option<u64>,
    /// Which harness wrote the summary it reported.
    pub harness: Option<HarnessName>,
    /// Upstream calls the summary took (none recorded when it failed).
    pub upstream_calls: Option<u32>,
    /// Why it was written extractively though a model is configured.
    pub fallback: Option<&'static str>,
}

impl Attempt {
    pub(crate) fn tokens_saved(&self) -> u64 {
        self.tokens_before.saturating_sub(self.tokens_after)
    }

    pub(crate) fn percent_saved(&self) -> u64 {
        if self.tokens_before == 0 {
            0
        } else {
            (u128::from(self.tokens_saved()) * 100 / u128::from(self.tokens_before)) as u64
        }
    }
}

/// The keep figures as the ledger stores them: totals, and each kind's.
pub(super) fn keep_json(figures: &KeepFigures) -> serde_json::Value {
    let by_kind: serde_json::Map<String, serde_json::Value> = figures
        .by_kind
        .iter()
        .map(|(kind, f)| (kind.as_str().to_owned(), json!(f)))
        .collect();
    let mut total = json!(figures.total());
    total["by_kind"] = serde_json::Value::Object(by_kind);
    total
}

fn small_count(n: u64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Records `attempt` and applies it to the conversation, which the caller
/// claimed: on success it is compacted (the policy's transition) and the
/// summary becomes the anchor; on failure only the failure counts. The claim
/// ends. Runs inside the caller's transaction.
pub(crate) async fn record(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    attempt: &Attempt,
) -> StoreResult<(Recorded, StoredConversation)> {
    let row = sqlx::query("SELECT * FROM conversations WHERE tenant = $1 AND conversation_id = $2 FOR UPDATE")
        .bind(tenant.as_str())
        .bind(id.as_str())
        .fetch_one(&mut *tx)
        .await?;
    let stored = StoredConversation::from_row(&row)?;
    let mut state = stored.state.clone();
    let seq = stored.last_compaction_seq + 1;
    let (summary, summary_seq, boundary) = match &attempt.outcome {
        Ok(summary) => {
            state.compacted(attempt.by_host, attempt.idle, attempt.at);
            (stored_summary_text(summary), Some(seq), attempt.boundary_turn_seq)
        }
        Err(_) => {
            state.compaction_failed();
            (
                stored.summary.as_ref().map(|(text, _)| text.clone()),
                stored.summary.as_ref().map(|(_, s)| *s),
                stored.boundary_turn_seq,
            )
        }
    };
    let success = attempt.outcome.is_ok();
    let updated = bind_state(
        sqlx::query(&format!(
            "UPDATE conversations SET ({STATE_COLUMNS}) = ($3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20),
                    summary = $21, summary_seq = $22, boundary_turn_seq = $23, last_compaction_seq = $24,
                    pending_decision = CASE WHEN $25 THEN NULL ELSE pending_decision END,
                    prepare_turn_seq = CASE WHEN $25 THEN NULL ELSE prepare_turn_seq END,
                    prepare_used = CASE WHEN $25 THEN NULL ELSE prepare_used END,
                    compacting_since = NULL, last_event_seq = last_event_seq + 1, updated_at = now()
              WHERE tenant = $1 AND conversation_id = $2
             RETURNING *"
        ))
        .bind(tenant.as_str())
        .bind(id.as_str()),
        &state,
    )
    .bind(summary)
    .bind(summary_seq)
    .bind(boundary)
    .bind(seq)
    .bind(success)
    .fetch_one(&mut *tx)
    .await?;
    let after = StoredConversation::from_row(&updated)?;
    let ledger = sqlx::query(
        "INSERT INTO compactions (tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
                tokens_before, tokens_after, tokens_saved, percent_saved, total_messages, user_messages,
                assistant_messages, tool_messages, kept_from, duration_ms, upstream_input_tokens,
                upstream_output_tokens, success, error, summary, prompt_version, keep, prepared, prepared_age_ms,
                harness, upstream_calls, fallback)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
                 $22, $23, $24, $25, $26, $27, $28, $29, $30, $31)
         RETURNING *",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(seq)
    .bind(attempt.at)
    .bind(attempt.trigger)
    .bind(attempt.by_host)
    .bind(attempt.idle)
    .bind(attempt.summarizer)
    .bind(&attempt.model)
    .bind(db_count(attempt.tokens_before))
    .bind(db_count(attempt.tokens_after))
    .bind(db_count(attempt.tokens_saved()))
    .bind(i16::try_from(attempt.percent_saved()).unwrap_or(100))
    .bind(small_count(attempt.total_messages))
    .bind(small_count(attempt.user_messages))
    .bind(small_count(attempt.assistant_messages))
    .bind(small_count(attempt.tool_messages))
    .bind(attempt.kept_from.map(small_count))
    .bind(db_count(attempt.duration_ms))
    .bind(attempt.upstream_input_tokens.map(db_count))
    .bind(attempt.upstream_output_tokens.map(db_count))
    .bind(success)
    .bind(attempt.outcome.as_ref().err())
    .bind(attempt.outcome.as_ref().ok())
    .bind(attempt.prompt_version)
    .bind(attempt.keep.as_ref().map(keep_json))
    .bind(attempt.prepared_age_ms.is_some())
    .bind(attempt.prepared_age_ms.map(db_count))
    .bind(attempt.harness.as_ref().map(HarnessName::as_str))
    .bind(
        attempt
            .upstream_calls
            .map(|calls| i32::try_from(calls).unwrap_or(i32::MAX)),
    )
    .bind(attempt.fallback)
    .fetch_one(&mut *tx)
    .await?;
    let ledger = recorded(&ledger)?;
    // Announced to listeners in the same statement (see `store::events`).
    sqlx::query(
        "WITH e AS (
           INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
           VALUES ($1, $2, $3, $4, 'compaction', $5)
           RETURNING tenant, conversation_id, kind
         )
         SELECT pg_notify('compactd_background', tenant || '/' || conversation_id || '/' || kind) FROM e",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(after.last_event_seq)
    .bind(attempt.at)
    .bind(json!({
        "compaction_id": ledger.id,
        "seq": seq,
        "trigger": ledger.trigger.as_str(),
        "success": success,
        "error": ledger.error,
        "summarizer": ledger.summarizer.as_str(),
        "tokens_before": ledger.tokens_before,
        "tokens_after": ledger.tokens_after,
        "prepared": ledger.prepared_age_ms.is_some(),
        "harness": ledger.harness,
    }))
    .execute(&mut *tx)
    .await?;
    Ok((ledger, after))
}

/// An empty anchor is no anchor.
fn stored_summary_text(summary: &str) -> Option<String> {
    (!summary.trim().is_empty()).then(|| summary.to_owned())
}
