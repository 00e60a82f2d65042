//! The shapes GET /stats answers with: per trigger, what compactions cost
//! and saved, decisions, deletions, summaries prepared ahead and keep rates.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::policy::prepare::Reason;
use crate::records::{Money, PreparationStats};
use crate::summary::keep::KeepKind;

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TriggerStats {
    pub trigger: String,
    /// Compaction attempts, successful or not.
    pub count: u64,
    pub successes: u64,
    pub failures: u64,
    /// Mean percent saved over the successful ones.
    pub mean_percent_saved: Option<f64>,
    pub p50_duration_ms: Option<f64>,
    pub p95_duration_ms: Option<f64>,
    pub tokens_saved: u64,
    /// What they cost and saved.
    pub money: MoneyFigures,
}

/// What compactions cost and what they saved, in US dollars (SPEC §6): the
/// net says whether they paid for themselves. Null where nothing was priced
/// (`COMPACTD_PRICES`).
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct MoneyFigures {
    /// Savings less cost.
    pub net_usd: Option<f64>,
    /// The summaries' upstream tokens at the summary model's price.
    pub cost_usd: Option<f64>,
    /// The tokens later calls did not resend, at their models' prices, less
    /// what rewriting the prompt cache after each compaction cost.
    pub saved_usd: Option<f64>,
    /// Of `saved_usd` (already taken from it): the prompt cache's rewrites.
    pub cache_rewrite_usd: Option<f64>,
    /// Calls reported after a compaction, up to its next boundary.
    pub saved_calls: u64,
    /// The tokens those calls did not resend.
    pub saved_tokens: u64,
    /// Calls whose model had no price (in `saved_tokens`, not in `saved_usd`).
    pub unpriced_calls: u64,
    /// Summaries whose model had no price (not in `cost_usd`).
    pub unpriced_summaries: u64,
}

impl MoneyFigures {
    pub(super) fn new(money: Money, priced: bool) -> Self {
        let cost_usd = priced.then_some(money.cost_usd);
        let saved_usd = priced.then_some(money.savings.usd);
        Self {
            net_usd: cost_usd.zip(saved_usd).map(|(cost, saved)| saved - cost),
            cost_usd,
            saved_usd,
            cache_rewrite_usd: priced.then_some(money.savings.cache_rewrite_usd),
            saved_calls: money.savings.calls,
            saved_tokens: money.savings.tokens,
            unpriced_calls: money.savings.unpriced_calls,
            unpriced_summaries: money.unpriced_summaries,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct DecisionCount {
    pub decision: String,
    pub count: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Stats {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Whether compaction paid for itself over the span: every trigger's
    /// cost and savings together.
    pub money: MoneyFigures,
    pub triggers: Vec<TriggerStats>,
    /// Logged decisions by kind (`keep` is not logged).
    pub decisions: Vec<DecisionCount>,
    /// Conversations rolled over into a successor.
    pub rollovers: u64,
    /// Rollovers the user declined.
    pub declined_rollovers: u64,
    /// What the summaries written in the span kept of the keep set, by kind.
    pub keep: Vec<KeepRate>,
    /// Summaries prepared ahead, so that compactions need not wait.
    pub preparation: PreparationFigures,
    /// Deletions in the span, by kind; none when nothing was deleted.
    pub deletions: Vec<DeletionCount>,
}

/// The span's deletions of one kind, as their audit lines count them.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct DeletionCount {
    /// `conversation` and `lineage` (DELETE /conversations/{id}), `tenant`
    /// (a purge's batches) or `retention` (`COMPACTD_RETENTION_DAYS`).
    pub kind: String,
    /// Audit lines: one per request, or per batch of a purge or of retention.
    pub deletions: u64,
    pub conversations: u64,
    pub turns: u64,
}

/// Summaries prepared ahead (`COMPACTD_PREPARE_AT_PERCENT`): compactions in
/// the span that merged one, and the preparations the span's usage reports
/// planned, by what became of them.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PreparationFigures {
    /// Compactions that merged a prepared summary (no upstream call of their own).
    pub prepared_compactions: u64,
    /// Preparations planned…
    pub planned: u64,
    /// …still to be written…
    pub waiting: u64,
    /// …written and waiting for a compaction…
    pub ready: u64,
    /// …merged by a compaction…
    pub used: u64,
    /// …written and never used (their upstream tokens spent for nothing)…
    pub wasted: u64,
    /// …or never written (a compaction came first, the budget was spent, the upstream failed).
    pub dropped: u64,
    /// `wasted / (used + wasted)`: the share of the written ones no compaction used.
    pub wasted_rate: Option<f64>,
    /// Upstream tokens the preparations took (they count against the daily budget).
    pub upstream_input_tokens: u64,
    pub upstream_output_tokens: u64,
    /// The wasted ones by reason, most first.
    pub wasted_by_reason: Vec<WastedCount>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct WastedCount {
    pub reason: Reason,
    pub count: u64,
}

impl From<PreparationStats> for PreparationFigures {
    fn from(p: PreparationStats) -> Self {
        let written = p.used + p.wasted;
        Self {
            prepared_compactions: p.prepared_compactions,
            planned: p.planned,
            waiting: p.waiting,
            ready: p.ready,
            used: p.used,
            wasted: p.wasted,
            dropped: p.dropped,
            wasted_rate: (written > 0).then(|| p.wasted as f64 / written as f64),
            upstream_input_tokens: p.upstream_input_tokens,
            upstream_output_tokens: p.upstream_output_tokens,
            wasted_by_reason: p
                .wasted_by_reason
                .into_iter()
                .map(|(reason, count)| WastedCount { reason, count })
                .collect(),
        }
    }
}

/// How well summaries kept one kind of item (SPEC §4).
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct KeepRate {
    pub kind: KeepKind,
    /// Items the summaries were to carry…
    pub checked: u64,
    /// …already in the writer's text…
    pub present: u64,
    /// …appended by the keep guard…
    pub appended: u64,
    /// …or parked for want of room.
    pub parked: u64,
    /// Identifiers of this kind a model wrote that appear in nothing it was
    /// given: marked `[unverified]` in its summary.
    pub invented: u64,
    /// `(present + appended) / checked`: the share kept word for word.
    pub kept_rate: Option<f64>,
}
