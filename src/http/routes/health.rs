//! GET /healthz (the process is up) and GET /readyz (the database answers,
//! and what was last measured of the standby).

use std::time::Duration;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use crate::http::AppState;
use crate::http::error::{ApiError, ApiResult, Problem};
use crate::records::{StandbyReport, StandbyState};

/// How long readiness waits for the database before saying no.
const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// What answers while start-up waits for the database: alive, not ready,
/// and every other request told to come back.
pub(crate) fn starting_router() -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .fallback(|| async { ApiError::Unavailable })
}

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Health {
    #[schema(example = "ok")]
    pub status: &'static str,
    /// The streaming standby the fleet's reads go to (`COMPACTD_READ_DATABASE_URL`);
    /// absent without one. A lagging or lost standby leaves the service ready:
    /// its reads go to the primary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standby: Option<StandbyHealth>,
}

/// The standby as last measured.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct StandbyHealth {
    /// `following` (within the lag allowed: the fleet's reads go to it),
    /// `lagging`, `lost` (it does not answer, or is no standby), or
    /// `starting` (not measured yet).
    #[schema(example = "following")]
    pub state: &'static str,
    /// Where the fleet's reads go now: `standby` or `primary`.
    #[schema(example = "standby")]
    pub reads_on: &'static str,
    /// How long ago the primary had written what the standby still lacks
    /// (0: it has everything), at the last measure.
    #[schema(example = 12)]
    pub lag_ms: Option<u64>,
    /// Why it is lost.
    pub trouble: Option<String>,
}

impl From<StandbyReport> for StandbyHealth {
    fn from(report: StandbyReport) -> Self {
        let following = report.state == StandbyState::Following;
        Self {
            state: report.state.as_str(),
            reads_on: if following { "standby" } else { "primary" },
            lag_ms: report.lag.map(whole_millis_up),
            trouble: report.trouble,
        }
    }
}

/// A lag in whole milliseconds, rounded up: a standby lagging past a
/// limit of 300 ms by less than a millisecond shows 301, never the 300 it
/// is said to be past.
fn whole_millis_up(lag: Duration) -> u64 {
    u64::try_from(lag.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX)
}

/// Liveness
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "The process is up.", body = Health)))]
pub(crate) async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok",
        standby: None,
    })
}

/// Readiness
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "The database answers; with a standby, what was last measured of it.", body = Health),
        (status = 503, description = "The database does not answer.", body = Problem, content_type = "application/problem+json"),
    ))]
pub(crate) async fn readyz(State(app): State<AppState>) -> ApiResult<Json<Health>> {
    match tokio::time::timeout(READY_TIMEOUT, app.services.database_answers()).await {
        Ok(Ok(())) => Ok(Json(Health {
            status: "ready",
            standby: app.services.standby().map(StandbyHealth::from),
        })),
        _ => Err(ApiError::Unavailable),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lag_past_its_limit_by_a_fraction_of_a_millisecond_shows_past_it() {
        assert_eq!(whole_millis_up(Duration::from_micros(300_400)), 301);
        assert_eq!(whole_millis_up(Duration::from_millis(300)), 300);
        assert_eq!(whole_millis_up(Duration::ZERO), 0);
        assert_eq!(whole_millis_up(Duration::from_nanos(1)), 1);
    }
}
