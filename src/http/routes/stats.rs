//! GET /stats (SPEC §3): per trigger, count, successes, failures, mean
//! percent saved and p50/p95 duration; decisions by kind; rollovers; keep
//! rates; summaries prepared ahead. And
//! GET /stats/series: compactions per trigger over time, bucket by bucket.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::queries;
use crate::domain::At;
use crate::domain::series::{Bucket, Series};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, QueryParams};
use crate::policy::prepare::Reason;
use crate::records::{Money, PreparationStats};
use crate::summary::keep::KeepKind;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/stats", get(read))
        .route("/stats/series", get(read_series))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct StatsQuery {
    /// From this time on (RFC 3339); absent: from the start.
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<String>,
    /// Before this time (RFC 3339); absent: until now.
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<String>,
}

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
    fn new(money: Money, priced: bool) -> Self {
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

/// The tenant's numbers
#[utoipa::path(
    get,
    path = "/stats",
    tag = "stats",
    operation_id = "get_stats",
    params(StatsQuery),
    responses(
        (status = 200, description = "Per trigger, decisions by kind, rollovers.", body = Stats),
        (status = 422, description = "A parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn read(
    State(app): State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<StatsQuery>,
) -> ApiResult<Json<Stats>> {
    let since = At::parse_optional("since", query.since.as_deref())?.map(At::get);
    let until = At::parse_optional("until", query.until.as_deref())?.map(At::get);
    let queries::fleet::Figures {
        stats: read,
        keep,
        preparation,
    } = queries::fleet::statistics(&app.services, &caller.tenant, since, until).await?;
    let priced = !app.services.prices.is_empty();
    let money = read.triggers.iter().fold(Money::default(), |sum, t| sum.plus(t.money));
    Ok(Json(Stats {
        since,
        until,
        money: MoneyFigures::new(money, priced),
        triggers: read
            .triggers
            .into_iter()
            .map(|t| TriggerStats {
                trigger: t.trigger,
                count: t.count,
                successes: t.successes,
                failures: t.failures,
                mean_percent_saved: t.mean_percent_saved,
                p50_duration_ms: t.p50_duration_ms,
                p95_duration_ms: t.p95_duration_ms,
                tokens_saved: t.tokens_saved,
                money: MoneyFigures::new(t.money, priced),
            })
            .collect(),
        decisions: read
            .decisions
            .into_iter()
            .map(|(decision, count)| DecisionCount { decision, count })
            .collect(),
        rollovers: read.rollovers,
        declined_rollovers: read.declined_rollovers,
        keep: keep
            .into_iter()
            .map(|(kind, f)| KeepRate {
                kind,
                checked: f.checked,
                present: f.present,
                appended: f.appended,
                parked: f.parked,
                invented: f.invented,
                kept_rate: (f.checked > 0).then(|| (f.present + f.appended) as f64 / f.checked as f64),
            })
            .collect(),
        preparation: preparation.into(),
        deletions: read
            .deletions
            .into_iter()
            .map(|d| DeletionCount {
                kind: d.kind,
                deletions: d.deletions,
                conversations: d.conversations,
                turns: d.turns,
            })
            .collect(),
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct SeriesQuery {
    /// `minute`, `hour` (default) or `day`; buckets start on whole
    /// minutes, hours or UTC days.
    #[param(value_type = Option<Bucket>)]
    pub bucket: Option<String>,
    /// From this time on (RFC 3339), moved back to its bucket's start;
    /// absent: 48 buckets before `until`; more than 2,000 buckets back: the
    /// 2,000th.
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<String>,
    /// Before this time (RFC 3339); absent: now.
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SeriesPoint {
    /// The bucket's start.
    pub start: DateTime<Utc>,
    pub trigger: String,
    pub count: u64,
    pub successes: u64,
    pub failures: u64,
    pub tokens_saved: u64,
    /// What the bucket's compactions cost upstream, in US dollars (null
    /// without `COMPACTD_PRICES`).
    pub cost_usd: Option<f64>,
    /// What they saved: the tokens later calls did not resend, priced.
    pub saved_usd: Option<f64>,
    /// Saved less cost.
    pub net_usd: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct StatsSeries {
    pub bucket: Bucket,
    /// The first bucket's start.
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// How many buckets `[since, until)` holds (at most 2,000; none when
    /// `until` is not after `since`).
    pub buckets: i64,
    /// The span asked for held more than 2,000 buckets: `since` was moved
    /// forward, and these are the latest.
    pub truncated: bool,
    /// One per bucket and trigger with any compaction, oldest first; a
    /// bucket with none has no point.
    pub points: Vec<SeriesPoint>,
}

/// Compactions over time
#[utoipa::path(
    get,
    path = "/stats/series",
    tag = "stats",
    operation_id = "get_stats_series",
    params(SeriesQuery),
    responses(
        (status = 200, description = "Compactions per bucket and trigger.", body = StatsSeries),
        (status = 422, description = "A parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn read_series(
    State(app): State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<SeriesQuery>,
) -> ApiResult<Json<StatsSeries>> {
    let bucket = query
        .bucket
        .as_deref()
        .map_or(Ok(Bucket::Hour), |raw| Bucket::parse("bucket", raw))?;
    let span = Series::new(
        bucket,
        At::parse_optional("since", query.since.as_deref())?,
        At::parse_optional("until", query.until.as_deref())?,
        At::now(),
    );
    let points = queries::fleet::series(&app.services, &caller.tenant, &span).await?;
    let priced = !app.services.prices.is_empty();
    Ok(Json(StatsSeries {
        bucket,
        since: span.since,
        until: span.until,
        buckets: span.buckets(),
        truncated: span.truncated,
        points: points
            .into_iter()
            .map(|p| SeriesPoint {
                start: p.start,
                trigger: p.trigger,
                count: p.count,
                successes: p.successes,
                failures: p.failures,
                tokens_saved: p.tokens_saved,
                cost_usd: priced.then_some(p.cost_usd),
                saved_usd: priced.then_some(p.saved_usd),
                net_usd: priced.then_some(p.saved_usd - p.cost_usd),
            })
            .collect(),
    }))
}
