//! A row of the compaction ledger, and the filters on the fleet's history.

use chrono::{DateTime, Utc};

use crate::domain::{ConversationId, FleetCursor, HarnessName};
use crate::policy::{CompactionTrigger, Trigger};
use crate::summary::Writer;
use crate::summary::keep::KeepFigures;

/// What a compaction saved (SPEC §6): the calls reported after it, the
/// tokens they did not resend, and those tokens at the agent's model's price.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Savings {
    pub calls: u64,
    pub tokens: u64,
    pub usd: f64,
    /// Of `usd` (already taken from it): what the first call after the
    /// compaction paid to write the new prefix to the prompt cache, where
    /// without it it would have read the old one from there.
    pub cache_rewrite_usd: f64,
    /// Calls whose model had no price: counted in tokens, not in dollars.
    pub unpriced_calls: u64,
}

impl Savings {
    pub(crate) fn plus(self, other: Self) -> Self {
        Self {
            calls: self.calls.saturating_add(other.calls),
            tokens: self.tokens.saturating_add(other.tokens),
            usd: self.usd + other.usd,
            cache_rewrite_usd: self.cache_rewrite_usd + other.cache_rewrite_usd,
            unpriced_calls: self.unpriced_calls.saturating_add(other.unpriced_calls),
        }
    }
}

/// A row of the ledger.
#[derive(Debug, Clone, PartialEq)]
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
    /// The summary's upstream tokens at its model's price; `None`: a model
    /// was called that has no price.
    pub cost_usd: Option<f64>,
    /// What it saved so far, and whether it still saves (it is the
    /// conversation's latest boundary).
    pub savings: Savings,
    pub saving: bool,
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
