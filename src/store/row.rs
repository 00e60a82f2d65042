//! A `conversations` row and its mapping to the policy's state.

use chrono::{DateTime, Utc};
use sqlx::FromRow;
use sqlx::postgres::PgRow;
use sqlx::types::Json;

use super::{StoreError, count_of};
use crate::domain::{ConversationId, TenantId};
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

/// A `conversations` row as [`conversation_columns`] reads it, before its
/// counts are clamped and its settings and JSON parsed.
#[derive(sqlx::FromRow)]
struct ConversationRow {
    tenant: TenantId,
    conversation_id: ConversationId,
    used: i64,
    size: i64,
    cache_life_source: String,
    cache_life: Option<String>,
    context_pressure_tokens: Option<i64>,
    created_at: DateTime<Utc>,
    last_turn_at: Option<DateTime<Utc>>,
    turns_since_compaction: i64,
    compactions: i64,
    host_compactions_24h: Vec<DateTime<Utc>>,
    used_after_compaction: Option<i64>,
    idle_compacted: bool,
    rollover_declined: bool,
    total_user_messages: i64,
    user_messages_since_boundary: i64,
    runs_completed_since_boundary: i64,
    user_messages_since_run_completed: i64,
    failed_compactions_in_row: i64,
    summary: Option<String>,
    summary_seq: Option<i64>,
    predecessor_id: Option<ConversationId>,
    successor_id: Option<ConversationId>,
    pending_decision: Option<Json<PendingDecision>>,
    last_call: Option<Json<ModelCall>>,
    last_event_seq: i64,
    last_turn_seq: i64,
    last_compaction_seq: i64,
    boundary_turn_seq: i64,
    critical: serde_json::Value,
    memory: Option<String>,
    prepare_turn_seq: Option<i64>,
    prepare_used: Option<i64>,
    updated_at: DateTime<Utc>,
    saving_seq: Option<i64>,
    saving_tokens: i64,
    saving_prefix: i64,
    saving_warm: bool,
    saved_calls: i64,
}

impl StoredConversation {
    pub(super) fn from_row(row: &PgRow) -> Result<Self, StoreError> {
        Self::try_from(ConversationRow::from_row(row)?)
    }
}

impl TryFrom<ConversationRow> for StoredConversation {
    type Error = StoreError;

    fn try_from(row: ConversationRow) -> Result<Self, StoreError> {
        let (source, life) = (row.cache_life_source, row.cache_life);
        let cache_life = CacheLifeSetting::from_parts(&source, life.as_deref())
            .ok_or_else(|| StoreError::Corrupt(format!("cache life {life:?} from {source:?}")))?;
        Ok(Self {
            tenant: row.tenant,
            conversation_id: row.conversation_id,
            state: Conversation {
                used: count_of(row.used),
                size: count_of(row.size),
                cache_life,
                context_pressure_tokens: row.context_pressure_tokens.map(count_of),
                created_at: row.created_at,
                last_turn_at: row.last_turn_at,
                turns_since_compaction: count_of(row.turns_since_compaction),
                compactions: count_of(row.compactions),
                host_compactions_24h: row.host_compactions_24h,
                used_after_compaction: row.used_after_compaction.map(count_of),
                idle_compacted: row.idle_compacted,
                rollover_declined: row.rollover_declined,
                total_user_messages: count_of(row.total_user_messages),
                user_messages_since_boundary: count_of(row.user_messages_since_boundary),
                runs_completed_since_boundary: count_of(row.runs_completed_since_boundary),
                user_messages_since_run_completed: count_of(row.user_messages_since_run_completed),
                failed_compactions_in_row: count_of(row.failed_compactions_in_row),
            },
            summary: row.summary.zip(row.summary_seq),
            predecessor_id: row.predecessor_id,
            successor_id: row.successor_id,
            pending_decision: row.pending_decision.map(|Json(pending)| pending),
            last_call: row.last_call.map(|Json(call)| call),
            last_event_seq: row.last_event_seq,
            last_turn_seq: row.last_turn_seq,
            last_compaction_seq: row.last_compaction_seq,
            boundary_turn_seq: row.boundary_turn_seq,
            critical: serde_json::from_value(row.critical)
                .map_err(|err| StoreError::Corrupt(format!("critical list: {err}")))?,
            memory: row.memory,
            planned: match (row.prepare_turn_seq, row.prepare_used.map(count_of)) {
                (Some(through_turn), Some(used)) => Some(Planned { through_turn, used }),
                _ => None,
            },
            updated_at: row.updated_at,
            saving: row.saving_seq.map(|seq| Saving {
                seq,
                per_call: count_of(row.saving_tokens),
                prefix: count_of(row.saving_prefix),
                warm: row.saving_warm,
                calls_so_far: count_of(row.saved_calls),
            }),
        })
    }
}

/// A row's savings as stored: a conversation's accruing ones, a ledger
/// row's closed ones, or a sum of those.
#[derive(sqlx::FromRow)]
pub(super) struct Saved {
    saved_calls: i64,
    saved_tokens: i64,
    saved_usd: f64,
    saved_rewrite_usd: f64,
    saved_unpriced_calls: i64,
}

impl From<Saved> for Savings {
    fn from(row: Saved) -> Self {
        savings(
            row.saved_calls,
            row.saved_tokens,
            row.saved_usd,
            row.saved_rewrite_usd,
            row.saved_unpriced_calls,
        )
    }
}

/// Savings from their columns: calls, tokens, dollars, the cache rewrite's
/// dollars and unpriced calls.
pub(super) fn savings(calls: i64, tokens: i64, usd: f64, cache_rewrite_usd: f64, unpriced_calls: i64) -> Savings {
    Savings {
        calls: count_of(calls),
        tokens: count_of(tokens),
        usd,
        cache_rewrite_usd,
        unpriced_calls: count_of(unpriced_calls),
    }
}
