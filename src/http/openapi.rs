//! The OpenAPI 3.1 document, generated from the handlers and served at
//! /openapi.json; the committed copy in `openapi/openapi.json` must match it.

use axum::routing::get;
use axum::{Json, Router};
use utoipa::OpenApi;

use super::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "compactd",
        description = "Tells LLM agents when to compact their conversation or roll it over into a new one, and keeps every conversation's state and history.",
        license(name = "MIT OR Apache-2.0"),
    ),
    paths(
        super::usage::record_usage,
        super::turn_ended::end_turn,
        super::decide::decide,
        super::summarize::summarize,
        super::handoff::handoff,
        super::compactions::of_conversation,
        super::compactions::of_fleet,
        super::turns::list_turns,
        super::due::list_due,
        super::conversations::show,
        super::conversations::list_events,
        super::health::healthz,
        super::health::readyz,
        openapi_json,
    ),
    tags(
        (name = "reports", description = "What the agent reports after each model call and turn."),
        (name = "decisions", description = "What to do with a conversation now."),
        (name = "compactions", description = "Summaries, handoffs and the compaction ledger."),
        (name = "conversations", description = "What the service knows about a conversation."),
        (name = "operations", description = "Health and this document."),
    )
)]
pub struct ApiDoc;

/// The document as committed: pretty JSON with a final newline.
pub fn document() -> String {
    let mut text = ApiDoc::openapi().to_pretty_json().unwrap_or_default();
    text.push('\n');
    text
}

pub fn router() -> Router<AppState> {
    Router::new().route("/openapi.json", get(openapi_json))
}

/// This API's OpenAPI document
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI 3.1 document.", content_type = "application/json")))]
pub async fn openapi_json() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
