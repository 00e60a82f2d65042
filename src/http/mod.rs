//! The HTTP API (SPEC §3): one module per resource, each with its own
//! `router()`, merged here with the layers every request passes through.

mod compactions;
mod conversations;
mod decide;
mod due;
pub mod error;
pub mod extract;
mod handoff;
mod health;
pub mod idempotency;
mod ledger;
pub mod openapi;
mod summarize;
mod turn_ended;
mod turns;
mod usage;
mod views;
mod wire;

use std::any::Any;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Router};
use sqlx::PgPool;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

use self::error::{ApiError, InternalErrorText, problem_response};
use self::extract::BodyLimit;
use crate::llm::SummaryModel;
use crate::policy::PolicyConfig;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub policy: Arc<PolicyConfig>,
    /// Who writes summaries; `None`: the extractive summarizer.
    pub summary_model: Option<SummaryModel>,
}

/// The whole API, ready to serve.
pub fn router(state: AppState, max_body_bytes: usize) -> Router {
    Router::new()
        .merge(usage::router())
        .merge(turn_ended::router())
        .merge(decide::router())
        .merge(due::router())
        .merge(conversations::router())
        .merge(summarize::router())
        .merge(handoff::router())
        .merge(compactions::router())
        .merge(turns::router())
        .merge(health::router())
        .merge(openapi::router())
        .fallback(|| async { ApiError::NotFound("no such resource".to_owned()) })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .with_state(state)
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(Extension(BodyLimit(max_body_bytes)))
        .layer(middleware::from_fn(log_server_errors))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(TraceLayer::new_for_http())
}

/// Logs what a 5xx hid from the caller; responses themselves have no side effects.
async fn log_server_errors(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    if response.status().is_server_error() {
        let text = response
            .extensions()
            .get::<InternalErrorText>()
            .map(|t| t.0.as_str())
            .unwrap_or("");
        tracing::error!(%method, %path, status = response.status().as_u16(), error = text, "request failed");
    }
    response
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
