//! A conversation as stored: the policy's state and what the service keeps
//! beside it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::{ConversationId, TenantId};
use crate::policy::prepare::Planned;
use crate::policy::{Conversation, ModelCall, PendingDecision};

/// A turn scored 5, kept word for word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Critical {
    pub turn_id: i64,
    pub user: Option<String>,
    pub assistant: Option<String>,
}

/// A conversation as stored: the policy's state plus what the service keeps
/// beside it.
#[derive(Debug, Clone)]
pub(crate) struct StoredConversation {
    pub tenant: TenantId,
    pub conversation_id: ConversationId,
    pub state: Conversation,
    /// The anchor summary and the seq of the compaction that wrote it.
    pub summary: Option<(String, i64)>,
    pub predecessor_id: Option<ConversationId>,
    pub successor_id: Option<ConversationId>,
    pub pending_decision: Option<PendingDecision>,
    pub last_call: Option<ModelCall>,
    pub last_event_seq: i64,
    pub last_turn_seq: i64,
    /// The seq of its latest compaction attempt.
    pub last_compaction_seq: i64,
    /// Stored turns up to this one are behind the latest boundary.
    pub boundary_turn_seq: i64,
    /// Turns scored 5, word for word (SPEC §5).
    pub critical: Vec<Critical>,
    /// The rolling memory.
    pub memory: Option<String>,
    /// The latest preparation planned since the boundary (issue 12).
    pub planned: Option<Planned>,
    pub updated_at: DateTime<Utc>,
    /// The compaction later calls save for, and what they saved so far.
    pub saving: Option<Saving>,
}

/// The latest successful compaction's savings, accruing with each call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Saving {
    /// Its seq in the ledger.
    pub seq: i64,
    /// Tokens each later call does not resend.
    pub per_call: u64,
    /// The context it left: what the first call after it writes to the cache.
    pub prefix: u64,
    /// Without it, the cache would have been warm at that first call.
    pub warm: bool,
    /// The calls that saved for it so far, this one included (the rest of
    /// what accrued is read where it is shown, never on the hot path).
    pub calls_so_far: u64,
}
