//! A `conversations` row and its mapping to the policy's state.

use sqlx::Row;
use sqlx::postgres::PgRow;
use sqlx::types::Json;

use super::{StoreError, count_of};
use crate::policy::prepare::Planned;
use crate::policy::{CacheLifeSetting, Conversation, ModelCall, PendingDecision};
use crate::records::{Saving, Savings, StoredConversation};

/// The columns [`StoredConversation::from_row`] reads: what a statement
/// answering a conversation returns, rather than `*` (a row has a dozen more
/// — claims, audit and preparation marks — that no caller of it reads, and
/// every hot write sent them back: issue 38). A macro, for `concat!`.
macro_rules! conversation_columns {
    () => {
        "tenant, conversation_id, used, size, cache_life_source, cache_life, \
     context_pressure_tokens, created_at, last_turn_at, turns_since_compaction, compactions, host_compactions_24h, \
     used_after_compaction, idle_compacted, rollover_declined, total_user_messages, user_messages_since_boundary, \
     runs_completed_since_boundary, user_messages_since_run_completed, failed_compactions_in_row, summary, \
     summary_seq, predecessor_id, successor_id, pending_decision, last_call, last_event_seq, last_turn_seq, \
     last_compaction_seq, boundary_turn_seq, critical, memory, prepare_turn_seq, prepare_used, updated_at, \
     saving_seq, saving_tokens, saving_prefix, saving_warm, saved_calls"
    };
}
pub(super) use conversation_columns;

impl StoredConversation {
    pub(super) fn from_row(row: &PgRow) -> Result<Self, StoreError> {
        let source: String = row.try_get("cache_life_source")?;
        let life: Option<String> = row.try_get("cache_life")?;
        let cache_life = CacheLifeSetting::from_parts(&source, life.as_deref())
            .ok_or_else(|| StoreError::Corrupt(format!("cache life {life:?} from {source:?}")))?;
        let count = |column: &str| row.try_get::<i64, _>(column).map(count_of);
        let optional_count = |column: &str| row.try_get::<Option<i64>, _>(column).map(|n| n.map(count_of));
        let summary: Option<String> = row.try_get("summary")?;
        let summary_seq: Option<i64> = row.try_get("summary_seq")?;
        Ok(Self {
            tenant: row.try_get("tenant")?,
            conversation_id: row.try_get("conversation_id")?,
            state: Conversation {
                used: count("used")?,
                size: count("size")?,
                cache_life,
                context_pressure_tokens: optional_count("context_pressure_tokens")?,
                created_at: row.try_get("created_at")?,
                last_turn_at: row.try_get("last_turn_at")?,
                turns_since_compaction: count("turns_since_compaction")?,
                compactions: count("compactions")?,
                host_compactions_24h: row.try_get("host_compactions_24h")?,
                used_after_compaction: optional_count("used_after_compaction")?,
                idle_compacted: row.try_get("idle_compacted")?,
                rollover_declined: row.try_get("rollover_declined")?,
                total_user_messages: count("total_user_messages")?,
                user_messages_since_boundary: count("user_messages_since_boundary")?,
                runs_completed_since_boundary: count("runs_completed_since_boundary")?,
                user_messages_since_run_completed: count("user_messages_since_run_completed")?,
                failed_compactions_in_row: count("failed_compactions_in_row")?,
            },
            summary: summary.zip(summary_seq),
            predecessor_id: row.try_get("predecessor_id")?,
            successor_id: row.try_get("successor_id")?,
            pending_decision: row
                .try_get::<Option<Json<PendingDecision>>, _>("pending_decision")?
                .map(|Json(pending)| pending),
            last_call: row
                .try_get::<Option<Json<ModelCall>>, _>("last_call")?
                .map(|Json(call)| call),
            last_event_seq: row.try_get("last_event_seq")?,
            last_turn_seq: row.try_get("last_turn_seq")?,
            last_compaction_seq: row.try_get("last_compaction_seq")?,
            boundary_turn_seq: row.try_get("boundary_turn_seq")?,
            critical: serde_json::from_value(row.try_get("critical")?)
                .map_err(|err| StoreError::Corrupt(format!("critical list: {err}")))?,
            memory: row.try_get("memory")?,
            planned: match (
                row.try_get::<Option<i64>, _>("prepare_turn_seq")?,
                optional_count("prepare_used")?,
            ) {
                (Some(through_turn), Some(used)) => Some(Planned { through_turn, used }),
                _ => None,
            },
            updated_at: row.try_get("updated_at")?,
            saving: match row.try_get::<Option<i64>, _>("saving_seq")? {
                Some(seq) => Some(Saving {
                    seq,
                    per_call: count("saving_tokens")?,
                    prefix: count("saving_prefix")?,
                    warm: row.try_get("saving_warm")?,
                    calls_so_far: count("saved_calls")?,
                }),
                None => None,
            },
        })
    }
}

/// Where a row holds savings: its calls, tokens, dollars and unpriced calls.
pub(super) type SavingsColumns = [&'static str; 5];
/// A conversation's accruing savings, and a ledger row's closed ones.
pub(super) const SAVED: SavingsColumns = [
    "saved_calls",
    "saved_tokens",
    "saved_usd",
    "saved_rewrite_usd",
    "saved_unpriced_calls",
];

pub(super) fn savings(row: &PgRow, [calls, tokens, usd, rewrite, unpriced]: SavingsColumns) -> sqlx::Result<Savings> {
    let count = |column: &str| row.try_get::<i64, _>(column).map(count_of);
    Ok(Savings {
        calls: count(calls)?,
        tokens: count(tokens)?,
        usd: row.try_get(usd)?,
        cache_rewrite_usd: row.try_get(rewrite)?,
        unpriced_calls: count(unpriced)?,
    })
}
