//! What the API answers about a conversation, shared by every resource.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::ConversationId;
use crate::policy::{CacheLife, CacheLifeSetting, ModelCall, PendingDecision, PolicyConfig};
use crate::records::StoredConversation;

/// A conversation's state (SPEC §1), with its summary, pending decision and lineage.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ConversationState {
    pub conversation_id: String,
    /// Context tokens in use, from the last usage report.
    pub used: u64,
    /// The context window's size (0 until a report gives one).
    pub size: u64,
    /// The cache life the policy uses now.
    pub cache_life: CacheLife,
    pub cache_life_source: CacheLifeSource,
    /// This conversation's own context-pressure threshold, if set.
    pub context_pressure_tokens: Option<u64>,
    /// The `at` of the first event seen for it.
    pub created_at: DateTime<Utc>,
    pub last_turn_at: Option<DateTime<Utc>>,
    pub turns_since_compaction: u64,
    /// Successful compactions of any kind.
    pub compactions: u64,
    /// Times of compactions the caller asked for, within 24 hours of the latest.
    pub host_compactions_24h: Vec<DateTime<Utc>>,
    /// Context in use reported just after the last compaction.
    pub used_after_compaction: Option<u64>,
    pub idle_compacted: bool,
    pub rollover_declined: bool,
    pub total_user_messages: u64,
    pub user_messages_since_boundary: u64,
    pub runs_completed_since_boundary: u64,
    pub user_messages_since_run_completed: u64,
    /// Consecutive failed compaction attempts (the `failing` guard reads it).
    pub failed_compactions_in_row: u64,
    /// The latest successful summary: the anchor of the next one.
    pub summary: Option<Summary>,
    /// The latest non-keep decision.
    pub pending_decision: Option<PendingDecision>,
    /// Token counts of the last model call reported.
    pub last_call: Option<ModelCall>,
    pub predecessor_id: Option<String>,
    pub successor_id: Option<String>,
    /// Events in its log (the seq of the latest).
    pub event_count: i64,
    /// Turns stored (the id of the latest).
    pub turn_count: i64,
    pub updated_at: DateTime<Utc>,
}

/// Where the cache life came from.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CacheLifeSource {
    Declared,
    Observed,
    Default,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Summary {
    pub text: String,
    /// The seq of the compaction that wrote it.
    pub seq: i64,
}

impl ConversationState {
    pub(crate) fn new(stored: StoredConversation, config: &PolicyConfig) -> Self {
        let c = stored.state;
        Self {
            conversation_id: stored.conversation_id.to_string(),
            used: c.used,
            size: c.size,
            cache_life: c.effective_cache_life(config),
            cache_life_source: match c.cache_life {
                CacheLifeSetting::Declared(_) => CacheLifeSource::Declared,
                CacheLifeSetting::Observed(_) => CacheLifeSource::Observed,
                CacheLifeSetting::Default => CacheLifeSource::Default,
            },
            context_pressure_tokens: c.context_pressure_tokens,
            created_at: c.created_at,
            last_turn_at: c.last_turn_at,
            turns_since_compaction: c.turns_since_compaction,
            compactions: c.compactions,
            host_compactions_24h: c.host_compactions_24h,
            used_after_compaction: c.used_after_compaction,
            idle_compacted: c.idle_compacted,
            rollover_declined: c.rollover_declined,
            total_user_messages: c.total_user_messages,
            user_messages_since_boundary: c.user_messages_since_boundary,
            runs_completed_since_boundary: c.runs_completed_since_boundary,
            user_messages_since_run_completed: c.user_messages_since_run_completed,
            failed_compactions_in_row: c.failed_compactions_in_row,
            summary: stored.summary.map(|(text, seq)| Summary { text, seq }),
            pending_decision: stored.pending_decision,
            last_call: stored.last_call,
            predecessor_id: stored.predecessor_id.map(ConversationId::into_string),
            successor_id: stored.successor_id.map(ConversationId::into_string),
            event_count: stored.last_event_seq,
            turn_count: stored.last_turn_seq,
            updated_at: stored.updated_at,
        }
    }
}
