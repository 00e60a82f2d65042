//! GET /stats (SPEC §3): per trigger, count, successes, failures, mean
//! percent saved and p50/p95 duration; decisions by kind; rollovers; keep
//! rates; summaries prepared ahead ([`figures`] has their shapes). And
//! GET /stats/series ([`series`]): compactions per trigger over time, bucket
//! by bucket.

mod figures;
pub(crate) mod series;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use utoipa::IntoParams;

use self::figures::{DecisionCount, DeletionCount, KeepRate, MoneyFigures, Stats, TriggerStats};
use self::series::read_series;
use crate::app::queries;
use crate::domain::At;
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, QueryParams};
use crate::records::Money;

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
