//! GET /stats/series: compactions per trigger over time, bucket by bucket,
//! with what they cost and saved.

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::queries;
use crate::domain::At;
use crate::domain::series::{Bucket, Series};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, QueryParams};

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
