//! GET /metrics: the process's metrics in Prometheus's text format. Public,
//! like health: it carries counts and latencies, no tenant's data.

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::http::AppState;
use crate::telemetry;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

/// Metrics
///
/// Request latency by route and status, decisions, compactions, tokens saved,
/// upstream calls (latency, errors, tokens, retries), the scoring queue.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text exposition format.", content_type = "text/plain")))]
pub(crate) async fn metrics() -> Response {
    let handle = telemetry::metrics();
    handle.run_upkeep();
    let mut response = handle.render().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
