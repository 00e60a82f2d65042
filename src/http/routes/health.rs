//! GET /healthz (the process is up) and GET /readyz (the database answers).

use std::time::Duration;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use crate::http::AppState;
use crate::http::error::{ApiError, ApiResult, Problem};

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
}

/// Liveness
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "The process is up.", body = Health)))]
pub(crate) async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// Readiness
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "The database answers.", body = Health),
        (status = 503, description = "The database does not answer.", body = Problem, content_type = "application/problem+json"),
    ))]
pub(crate) async fn readyz(State(app): State<AppState>) -> ApiResult<Json<Health>> {
    match tokio::time::timeout(READY_TIMEOUT, app.services.database_answers()).await {
        Ok(Ok(())) => Ok(Json(Health { status: "ready" })),
        _ => Err(ApiError::Unavailable),
    }
}
