//! A row of the compaction ledger, and the filters on the fleet's history.

use chrono::{DateTime, Utc};

use crate::domain::{ConversationId, FleetCursor, HarnessName};
use crate::policy::keep::KeepFigures;
use crate::policy::{CompactionTrigger, Trigger, Writer};

/// A row of the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recorded {
    pub id: i64,
    pub conversation_id: ConversationId,
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub trigger: CompactionTrigger,
    pub by_host: bool,
    pub idle: bool,
    pub summarizer: Writer,
    pub model: Option<String>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub tokens_saved: u64,
    pub percent_saved: u64,
    pub total_messages: u64,
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub tool_messages: u64,
    pub kept_from: Option<u64>,
    pub duration_ms: u64,
    pub upstream_input_tokens: Option<u64>,
    pub upstream_output_tokens: Option<u64>,
    pub success: bool,
    pub error: Option<String>,
    pub summary: Option<String>,
    pub keep: Option<KeepFigures>,
    /// It merged a summary prepared ahead, this old (milliseconds).
    pub prepared_age_ms: Option<u64>,
    /// Which harness wrote the summary it reported.
    pub harness: Option<HarnessName>,
    pub upstream_calls: Option<u64>,
    pub fallback: Option<String>,
    pub recorded_at: DateTime<Utc>,
}

/// Filters on the fleet's history.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FleetFilter {
    pub trigger: Option<Trigger>,
    pub success: Option<bool>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Only summaries this harness reported.
    pub harness: Option<HarnessName>,
    /// Only attempts before this one in the history's order: the previous
    /// page's last, by its time and id.
    pub before: Option<FleetCursor>,
}
