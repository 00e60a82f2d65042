//! What a compaction attempt hands the ledger: the attempt as its row keeps
//! it, and what it leaves the conversation with (the policy's transition, as
//! the use case applied it).

use chrono::{DateTime, Utc};

use crate::domain::HarnessName;
use crate::policy::{CompactionTrigger, Conversation};
use crate::summary::Writer;
use crate::summary::keep::KeepFigures;

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

/// What an attempt leaves the conversation with, as the use case applied
/// the policy's transition to it.
#[derive(Debug, Clone)]
pub(crate) struct Applied {
    pub state: Conversation,
    /// The anchor from now on (`None`: none), and the compaction that wrote it.
    pub summary: Option<String>,
    pub summary_seq: Option<i64>,
    pub boundary_turn_seq: i64,
    /// This attempt's number.
    pub seq: i64,
}
