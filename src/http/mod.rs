//! The HTTP API (SPEC §3): one module per resource, each with its own
//! `router()`, merged here with the layers every request passes through.

mod compactions;
mod context;
mod conversations;
mod dashboard;
mod deadline;
mod decide;
mod docs;
mod due;
pub mod error;
pub mod extract;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod handoff;
mod headers;
pub mod health;
pub mod idempotency;
mod keep;
mod ledger;
mod metrics;
mod observe;
pub mod openapi;
mod stats;
mod summarize;
mod turn_ended;
mod turns;
mod usage;
mod views;
mod whole;
mod wire;

use std::any::Any;
use std::sync::Arc;

use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;

use self::deadline::DeadlineLayer;
use self::error::{ApiError, problem_response};
use crate::app::Services;
use crate::auth::{KeyRegistry, RateLimits};

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// What the use cases share.
    pub services: Services,
    /// The largest body accepted, for the 413 to say.
    pub max_body_bytes: usize,
    pub keys: Arc<KeyRegistry>,
    pub rate_limits: Arc<RateLimits>,
    pub timeouts: Timeouts,
}

/// The whole API, ready to serve.
pub fn router(state: AppState) -> Router {
    let max_body_bytes = state.max_body_bytes;
    let quick = Router::new()
        .merge(usage::router())
        .merge(turn_ended::router())
        .merge(decide::router())
        .merge(due::router())
        .merge(conversations::router())
        .merge(handoff::router())
        .merge(compactions::router())
        .merge(turns::router())
        .merge(keep::router())
        .merge(context::router())
        .merge(stats::router())
        .merge(health::router())
        .merge(openapi::router())
        .merge(metrics::router())
        .merge(docs::router())
        .merge(dashboard::router())
        .layer(DeadlineLayer(state.timeouts.request));
    // A summary waits for the upstream, within the upstream's own deadline.
    let slow = summarize::router().layer(DeadlineLayer(state.timeouts.summarize));
    quick
        .merge(slow)
        .fallback(|| async { ApiError::NotFound("no such resource".to_owned()) })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .with_state(state)
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(axum::middleware::from_fn(headers::secure))
        .layer(axum::middleware::from_fn(observe::observe))
}

/// How long requests may take before they are answered 503.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub request: Duration,
    /// /summarize, which waits for the upstream LLM.
    pub summarize: Duration,
}

/// A panic is a bug: answer 500 in our shape and keep serving.
fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let text = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    tracing::error!(panic = text, "handler panicked");
    let error = ApiError::Internal(text);
    let response = problem_response(StatusCode::INTERNAL_SERVER_ERROR, &error.problem());
    drop(error);
    response.into_response()
}
