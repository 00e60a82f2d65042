//! GET /metrics: the process's metrics in Prometheus's text format. Public,
//! like health: it carries counts and latencies, no tenant's data.

use axum::Router;
use axum::extract::State;
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
/// upstream calls (latency, errors, tokens, retries), the scoring queue, and
/// the summary model's context window with the evidence it rests on.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text exposition format.", content_type = "text/plain")))]
pub(crate) async fn metrics(State(app): State<AppState>) -> Response {
    let handle = telemetry::metrics();
    handle.run_upkeep();
    let mut text = handle.render();
    text.push_str(&app.services.summary_window_metrics());
    let mut response = text.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
