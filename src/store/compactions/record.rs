//! Recording a compaction attempt inside the caller's transaction: the
//! conversation's new state and anchor, the ledger's row, and the event that
//! announces it.

use serde_json::json;
use sqlx::PgConnection;

use super::attempt::{Applied, Attempt};
use crate::domain::{ConversationId, HarnessName, TenantId};
use crate::records::{Recorded, StoredConversation};
use crate::store::events::EventKind;
use crate::store::ledger::LedgerRow;
use crate::store::row::conversation_columns;
use crate::store::state::{STATE_COLUMNS, bind_state};
use crate::store::statements;
use crate::store::{StoreResult, db_count};
use crate::summary::keep::KeepFigures;

/// Records `attempt` and writes what it `applied` to the conversation (locked
/// by `conversations::lock`): the ledger row, the new state and anchor, the event that
/// announces it. The claim ends. Runs inside the caller's transaction.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn record(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    attempt: &Attempt,
    applied: &Applied,
    cost_usd: Option<f64>,
) -> StoreResult<(Recorded, StoredConversation)> {
    let after = write_state(tx, tenant, id, attempt, applied).await?;
    let ledger = insert(tx, tenant, id, applied.seq, attempt, cost_usd).await?;
    announce(tx, &after, attempt, &ledger).await?;
    Ok((ledger, after))
}

async fn write_state(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    attempt: &Attempt,
    applied: &Applied,
) -> StoreResult<StoredConversation> {
    let success = attempt.outcome.is_ok();
    // A success is the conversation's new boundary: the savings of the one
    // before close onto its ledger row, and the calls from now on save for
    // this one (SPEC §6).
    let updated = bind_state(
        statements::query(&format!(
            "WITH closed AS ({close})
             UPDATE conversations SET ({STATE_COLUMNS}) = ($3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20),
                    summary = $21, summary_seq = $22, boundary_turn_seq = $23, last_compaction_seq = $24,
                    pending_decision = CASE WHEN $25 THEN NULL ELSE pending_decision END,
                    prepare_turn_seq = CASE WHEN $25 THEN NULL ELSE prepare_turn_seq END,
                    prepare_used = CASE WHEN $25 THEN NULL ELSE prepare_used END,
                    saving_seq = CASE WHEN $25 THEN $24 ELSE saving_seq END,
                    saving_tokens = CASE WHEN $25 THEN $26 ELSE saving_tokens END,
                    saving_prefix = CASE WHEN $25 THEN $27 ELSE saving_prefix END,
                    saving_warm = CASE WHEN $25 THEN NOT $28 ELSE saving_warm END,
                    saved_rewrite_usd = CASE WHEN $25 THEN 0 ELSE saved_rewrite_usd END,
                    saved_calls = CASE WHEN $25 THEN 0 ELSE saved_calls END,
                    saved_tokens = CASE WHEN $25 THEN 0 ELSE saved_tokens END,
                    saved_usd = CASE WHEN $25 THEN 0 ELSE saved_usd END,
                    saved_unpriced_calls = CASE WHEN $25 THEN 0 ELSE saved_unpriced_calls END,
                    compacting_since = NULL, last_event_seq = last_event_seq + 1, updated_at = now(), active_on = (now() AT TIME ZONE 'UTC')::date
              WHERE tenant = $1 AND conversation_id = $2
             RETURNING {columns}",
            close = close_savings("$25 AND v.conversation_id = $2"),
            columns = conversation_columns!()
        ))
        .bind(tenant.as_str())
        .bind(id.as_str()),
        &applied.state,
    )
    .bind(&applied.summary)
    .bind(applied.summary_seq)
    .bind(applied.boundary_turn_seq)
    .bind(applied.seq)
    .bind(success)
    .bind(db_count(attempt.tokens_saved()))
    .bind(db_count(attempt.tokens_after))
    .bind(attempt.idle)
    .fetch_one(&mut *tx)
    .await?;
    StoredConversation::from_row(&updated)
}

/// Moves the savings accrued on the tenant's (`$1`) conversations that
/// `which` picks (as `v`) onto the ledger rows they were accruing for: the
/// conversation's next boundary, or its deletion, closes them.
pub(in crate::store) fn close_savings(which: &str) -> String {
    format!(
        "UPDATE compactions k
            SET saved_calls = v.saved_calls, saved_tokens = v.saved_tokens, saved_usd = v.saved_usd,
                saved_rewrite_usd = v.saved_rewrite_usd, saved_unpriced_calls = v.saved_unpriced_calls
           FROM conversations v
          WHERE v.tenant = $1 AND {which}
            AND k.tenant = v.tenant AND k.conversation_id = v.conversation_id AND k.seq = v.saving_seq"
    )
}

/// The ledger's row for the attempt.
async fn insert(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    seq: i64,
    attempt: &Attempt,
    cost_usd: Option<f64>,
) -> StoreResult<Recorded> {
    let ledger = statements::query_as::<LedgerRow>(
        "INSERT INTO compactions (tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
                tokens_before, tokens_after, tokens_saved, percent_saved, total_messages, user_messages,
                assistant_messages, tool_messages, kept_from, duration_ms, upstream_input_tokens,
                upstream_output_tokens, success, error, summary, prompt_version, keep, prepared, prepared_age_ms,
                harness, upstream_calls, fallback, cost_usd)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
                 $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)
         RETURNING *, $33::boolean AS saving, 0::bigint AS open_calls, 0::bigint AS open_tokens,
                   0::float8 AS open_usd, 0::float8 AS open_rewrite_usd, 0::bigint AS open_unpriced_calls",
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
    .bind(attempt.outcome.is_ok())
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
    .bind(cost_usd)
    .bind(attempt.outcome.is_ok())
    .fetch_one(&mut *tx)
    .await?;
    Ok(Recorded::from(ledger))
}

/// The keep figures as the ledger stores them: totals, and each kind's.
pub(in crate::store) fn keep_json(figures: &KeepFigures) -> serde_json::Value {
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

/// The `compaction` event, announced to listeners in the same statement.
async fn announce(
    tx: &mut PgConnection,
    after: &StoredConversation,
    attempt: &Attempt,
    ledger: &Recorded,
) -> StoreResult<()> {
    statements::query(&format!(
        "WITH e AS (
           INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
           VALUES ($1, $2, $3, $4, '{}', $5)
           RETURNING tenant, conversation_id, kind
         )
         SELECT pg_notify('compactd_background', tenant || '/' || conversation_id || '/' || kind) FROM e",
        EventKind::Compaction
    ))
    .bind(after.tenant.as_str())
    .bind(after.conversation_id.as_str())
    .bind(after.last_event_seq)
    .bind(attempt.at)
    .bind(json!({
        "compaction_id": ledger.id,
        "seq": ledger.seq,
        "trigger": ledger.trigger.as_str(),
        "success": ledger.success,
        "error": ledger.error,
        "summarizer": ledger.summarizer.as_str(),
        "tokens_before": ledger.tokens_before,
        "tokens_after": ledger.tokens_after,
        "prepared": ledger.prepared_age_ms.is_some(),
        "harness": ledger.harness.as_ref().map(HarnessName::as_str),
    }))
    .execute(&mut *tx)
    .await?;
    Ok(())
}
