//! The whole API: every resource's `router()`, merged with the layers every
//! request passes through.

use std::any::Any;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;

use crate::http::error::{ApiError, problem_response};
use crate::http::middleware::deadline::DeadlineLayer;

use crate::http::middleware::{headers, hosts, observe};
use crate::http::openapi;
use crate::http::routes::{
    compactions, context, conversations, dashboard, decide, docs, due, export, handoff, health, keep, keep_check,
    metrics, purges, stats, summarize, turn_ended, turns, usage,
};
use crate::http::state::AppState;

/// The whole API, ready to serve.
pub(crate) fn router(state: AppState) -> Router {
    let max_body_bytes = state.max_body_bytes;
    let quick = Router::new()
        .merge(usage::router())
        .merge(turn_ended::router())
        .merge(decide::router())
        .merge(due::router())
        .merge(conversations::router())
        .merge(export::router())
        .merge(handoff::router())
        .merge(compactions::router())
        .merge(turns::router())
        .merge(keep::router())
        .merge(keep_check::router())
        .merge(context::router())
        .merge(stats::router())
        .merge(purges::router())
        .merge(health::router())
        .merge(openapi::router())
        .merge(metrics::router())
        .merge(docs::router())
        .merge(dashboard::router())
        .merge(crate::http::mcp::router(state.clone()))
        .layer(DeadlineLayer(state.timeouts.request));
    // A summary waits for the upstream, within the upstream's own deadline.
    let slow = summarize::router().layer(DeadlineLayer(state.timeouts.summarize));
    quick
        .merge(slow)
        .fallback(|| async { ApiError::NotFound("no such resource".to_owned()) })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(axum::middleware::from_fn_with_state(state.clone(), hosts::check))
        .with_state(state)
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(axum::middleware::from_fn(headers::secure))
        .layer(axum::middleware::from_fn(observe::observe))
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
