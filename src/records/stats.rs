//! The figures of GET /stats: per trigger, and the summaries prepared ahead.

use super::Savings;
use crate::policy::prepare::Reason;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TriggerStats {
    pub trigger: String,
    pub count: u64,
    pub successes: u64,
    pub failures: u64,
    /// Over successful attempts.
    pub mean_percent_saved: Option<f64>,
    pub p50_duration_ms: Option<f64>,
    pub p95_duration_ms: Option<f64>,
    pub tokens_saved: u64,
    pub money: Money,
}

/// What compactions cost and saved (SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Money {
    /// Their summaries' upstream cost, of those priced.
    pub cost_usd: f64,
    /// Summaries whose model had no price.
    pub unpriced_summaries: u64,
    pub savings: Savings,
}

impl Money {
    pub(crate) fn plus(self, other: Self) -> Self {
        Self {
            cost_usd: self.cost_usd + other.cost_usd,
            unpriced_summaries: self.unpriced_summaries.saturating_add(other.unpriced_summaries),
            savings: self.savings.plus(other.savings),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Stats {
    pub triggers: Vec<TriggerStats>,
    /// Logged (non-keep) decisions by kind.
    pub decisions: Vec<(String, u64)>,
    pub rollovers: u64,
    pub declined_rollovers: u64,
    /// The span's deletions by kind, those with any.
    pub deletions: Vec<DeletionStats>,
}

/// A span's deletions of one kind (as the audit lines name it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeletionStats {
    pub kind: String,
    /// Audit lines: a request, or a batch of a purge or of retention.
    pub deletions: u64,
    pub conversations: u64,
    pub turns: u64,
}

/// A span's preparations (by the `at` that planned them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PreparationStats {
    /// Compactions in the span that merged a prepared summary.
    pub prepared_compactions: u64,
    pub planned: u64,
    /// Still to be written.
    pub waiting: u64,
    /// Written and waiting for a compaction.
    pub ready: u64,
    pub used: u64,
    pub wasted: u64,
    pub dropped: u64,
    pub upstream_input_tokens: u64,
    pub upstream_output_tokens: u64,
    /// The wasted ones by reason, most first.
    pub wasted_by_reason: Vec<(Reason, u64)>,
}
