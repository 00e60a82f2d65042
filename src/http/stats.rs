//! GET /stats (SPEC §3): per trigger, count, successes, failures, mean
//! percent saved and p50/p95 duration; decisions by kind; rollovers.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::AppState;
use super::error::{ApiResult, Problem};
use super::extract::{Caller, QueryParams};
use crate::domain::At;
use crate::store::stats;

pub fn router() -> Router<AppState> {
    Router::new().route("/stats", get(read))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// From this time on (RFC 3339); absent: from the start.
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<String>,
    /// Before this time (RFC 3339); absent: until now.
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TriggerStats {
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
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DecisionCount {
    pub decision: String,
    pub count: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Stats {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub triggers: Vec<TriggerStats>,
    /// Logged decisions by kind (`keep` is not logged).
    pub decisions: Vec<DecisionCount>,
    /// Conversations rolled over into a successor.
    pub rollovers: u64,
    /// Rollovers the user declined.
    pub declined_rollovers: u64,
}

/// The tenant's numbers
#[utoipa::path(
    get,
    path = "/stats",
    tag = "compactions",
    params(StatsQuery),
    responses(
        (status = 200, description = "Per trigger, decisions by kind, rollovers.", body = Stats),
        (status = 422, description = "A parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn read(
    State(app): State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<StatsQuery>,
) -> ApiResult<Json<Stats>> {
    let time = |field: &str, raw: Option<String>| raw.map(|raw| At::parse(field, &raw).map(At::get)).transpose();
    let (since, until) = (time("since", query.since)?, time("until", query.until)?);
    let mut conn = app.pool.acquire().await?;
    let read = stats::read(&mut conn, &caller.tenant, since, until).await?;
    Ok(Json(Stats {
        since,
        until,
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
            })
            .collect(),
        decisions: read
            .decisions
            .into_iter()
            .map(|(decision, count)| DecisionCount { decision, count })
            .collect(),
        rollovers: read.rollovers,
        declined_rollovers: read.declined_rollovers,
    }))
}
