//! How the ledger reads: one compaction attempt, as /summarize answers it and
//! as the history lists it.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::HarnessName;
use crate::policy::Trigger;
use crate::records::{Recorded, Savings};
use crate::summary::Writer;
use crate::summary::keep::{KeepFigures, KindFigures};

/// One compaction attempt, successful or not.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Compaction {
    /// Fleet-wide, increasing: the fleet history's cursor.
    pub id: i64,
    /// 1, 2, 3… within the conversation.
    pub seq: i64,
    pub conversation_id: String,
    pub at: DateTime<Utc>,
    pub trigger: Trigger,
    /// The caller asked for it (it counts toward `too_many_today`).
    pub by_host: bool,
    pub idle: bool,
    pub summarizer: Writer,
    pub model: Option<String>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub tokens_saved: u64,
    /// 0–100.
    pub percent_saved: u64,
    pub total_messages: u64,
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub tool_messages: u64,
    /// The index of the first message kept verbatim (with `keep_recent_tokens`).
    pub kept_from: Option<u64>,
    pub duration_ms: u64,
    pub upstream_input_tokens: Option<u64>,
    pub upstream_output_tokens: Option<u64>,
    pub success: bool,
    pub error: Option<String>,
    /// The summary it wrote (null when it failed).
    pub summary: Option<String>,
    /// What became of the keep set's items in the summary (null when none was written).
    pub keep: Option<KeepCounts>,
    /// It merged a summary prepared ahead of time, with the turns since it,
    /// instead of asking the upstream now.
    pub prepared: bool,
    /// How old that prepared summary was: from the `at` of the usage report
    /// that planned it to this attempt's (null unless `prepared`).
    pub prepared_age_ms: Option<u64>,
    /// Which harness wrote the summary it reported (`claude-code`, `codex`,
    /// …); null when compactd wrote it or the harness did not say.
    pub harness: Option<String>,
    /// Upstream calls the summary took: more than one when its delta did not
    /// fit the summary model's context and was summarized in chunks (null
    /// when the attempt failed, and for compactions recorded before it was kept).
    pub upstream_calls: Option<u64>,
    /// Why the summary was written extractively though a model is
    /// configured (the model's context could not hold the conversation).
    pub fallback: Option<String>,
    pub recorded_at: DateTime<Utc>,
    /// What its summary cost upstream, in US dollars: its upstream tokens at
    /// the summary model's price (`COMPACTD_PRICES`); 0 when no model was
    /// called; null when one was that has no price.
    pub cost_usd: Option<f64>,
    /// What it saved the agent.
    pub savings: SavingsView,
    /// `savings.usd` less `cost_usd`: whether it paid for itself (null when
    /// either is unknown).
    pub net_usd: Option<f64>,
}

/// What a compaction saved (SPEC §6): each call the agent reported after it
/// did not resend `tokens_saved` tokens, until its next boundary.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct SavingsView {
    /// Calls reported after it (to /usage), up to its next boundary.
    pub calls: u64,
    /// The tokens those calls did not resend.
    pub tokens: u64,
    /// Those tokens at the price of the model each call named: cached
    /// input's while the call's cache was warm (the spared tokens were the
    /// old prefix, which the cache held), fresh input's where it had lapsed;
    /// less `cache_rewrite_usd`. Null when no call's model had a price.
    pub usd: Option<f64>,
    /// Of `usd` (already taken from it): what the first call after it paid
    /// to write the new, shorter prefix to the prompt cache, where it would
    /// have read the old one from there.
    pub cache_rewrite_usd: Option<f64>,
    /// Calls whose model had no price: in `tokens`, not in `usd`.
    pub unpriced_calls: u64,
    /// It is its conversation's latest boundary: its savings still grow.
    pub accruing: bool,
}

impl SavingsView {
    pub(crate) fn new(savings: Savings, accruing: bool) -> Self {
        let priced = savings.calls == 0 || savings.unpriced_calls < savings.calls;
        Self {
            calls: savings.calls,
            tokens: savings.tokens,
            usd: priced.then_some(savings.usd),
            cache_rewrite_usd: priced.then_some(savings.cache_rewrite_usd),
            unpriced_calls: savings.unpriced_calls,
            accruing,
        }
    }
}

/// What became of a summary's must-keep items (SPEC §4).
#[derive(Debug, Clone, Copy, Default, Serialize, ToSchema)]
pub(crate) struct KindCounts {
    /// Items the summary was to carry.
    pub checked: u64,
    /// Already in the writer's text, word for word.
    pub present: u64,
    /// Added by compactd: the latest request where things stand, the rest
    /// under `Kept word for word:`.
    pub appended: u64,
    /// Did not fit the budget: in the keep set and the stored turns only.
    pub parked: u64,
    /// In the model's text but in nothing it was given (no stored turn,
    /// delta, anchor or keep item): marked `[unverified]` where it stands.
    pub invented: u64,
}

impl From<KindFigures> for KindCounts {
    fn from(f: KindFigures) -> Self {
        Self {
            checked: f.checked,
            present: f.present,
            appended: f.appended,
            parked: f.parked,
            invented: f.invented,
        }
    }
}

/// The keep guard's figures: in all, and by kind.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct KeepCounts {
    pub checked: u64,
    pub present: u64,
    pub appended: u64,
    pub parked: u64,
    /// Identifiers the model invented, marked `[unverified]`.
    pub invented: u64,
    /// By kind: request, prohibition, path, url, id, command, quantity, file_changed.
    pub by_kind: BTreeMap<String, KindCounts>,
}

impl From<&KeepFigures> for KeepCounts {
    fn from(figures: &KeepFigures) -> Self {
        let total = KindCounts::from(figures.total());
        Self {
            checked: total.checked,
            present: total.present,
            appended: total.appended,
            parked: total.parked,
            invented: total.invented,
            by_kind: figures
                .by_kind
                .iter()
                .map(|(kind, f)| (kind.as_str().to_owned(), KindCounts::from(*f)))
                .collect(),
        }
    }
}

impl Compaction {
    fn with_net(mut self) -> Self {
        self.net_usd = self.savings.usd.zip(self.cost_usd).map(|(saved, cost)| saved - cost);
        self
    }
}

impl From<Recorded> for Compaction {
    fn from(row: Recorded) -> Self {
        Self {
            trigger: row.trigger.into(),
            summarizer: row.summarizer,
            id: row.id,
            seq: row.seq,
            conversation_id: row.conversation_id.into_string(),
            at: row.at,
            by_host: row.by_host,
            idle: row.idle,
            model: row.model,
            tokens_before: row.tokens_before,
            tokens_after: row.tokens_after,
            tokens_saved: row.tokens_saved,
            percent_saved: row.percent_saved,
            total_messages: row.total_messages,
            user_messages: row.user_messages,
            assistant_messages: row.assistant_messages,
            tool_messages: row.tool_messages,
            kept_from: row.kept_from,
            duration_ms: row.duration_ms,
            upstream_input_tokens: row.upstream_input_tokens,
            upstream_output_tokens: row.upstream_output_tokens,
            success: row.success,
            error: row.error,
            summary: row.summary,
            keep: row.keep.as_ref().map(KeepCounts::from),
            prepared: row.prepared_age_ms.is_some(),
            prepared_age_ms: row.prepared_age_ms,
            harness: row.harness.map(HarnessName::into_string),
            upstream_calls: row.upstream_calls,
            fallback: row.fallback,
            recorded_at: row.recorded_at,
            net_usd: None,
            cost_usd: row.cost_usd,
            savings: SavingsView::new(row.savings, row.saving),
        }
        .with_net()
    }
}
