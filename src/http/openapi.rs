//! The OpenAPI 3.1 document, generated from the handlers and served at
//! /openapi.json; the committed copy in `openapi/openapi.json` must match it.

use axum::routing::get;
use axum::{Json, Router};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use crate::http::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "compactd",
        description = "Tells LLM agents when to compact their conversation or roll it over into a new one, and keeps every conversation's state and history.",
        license(name = "MIT OR Apache-2.0"),
    ),
    paths(
        crate::http::routes::usage::record_usage,
        crate::http::routes::turn_ended::end_turn,
        crate::http::routes::decide::decide,
        crate::http::routes::summarize::summarize,
        crate::http::routes::handoff::handoff,
        crate::http::routes::compactions::of_conversation,
        crate::http::routes::compactions::of_fleet,
        crate::http::routes::turns::list_turns,
        crate::http::routes::turns::show_turn,
        crate::http::routes::keep::list_keep,
        crate::http::routes::keep_check::check,
        crate::http::routes::context::context,
        crate::http::routes::stats::read,
        crate::http::routes::stats::series::read_series,
        crate::http::routes::due::list_due,
        crate::http::routes::conversations::list,
        crate::http::routes::conversations::show,
        crate::http::routes::conversations::list_events,
        crate::http::routes::deletion::delete_conversation,
        crate::http::routes::export::export_conversation,
        crate::http::routes::purges::ask,
        crate::http::routes::purges::show,
        crate::http::routes::health::healthz,
        crate::http::routes::health::readyz,
        openapi_json,
        crate::http::routes::metrics::metrics,
    ),
    modifiers(&Guarded),
    tags(
        (name = "reports", description = "What the agent reports after each model call and turn."),
        (name = "decisions", description = "What to do with a conversation now."),
        (name = "compactions", description = "Summaries, handoffs and the compaction ledger."),
        (name = "conversations", description = "What the service knows about a conversation."),
        (name = "stats", description = "Fleet figures for dashboards."),
        (name = "tenant", description = "The caller's tenant as a whole: erasing its data."),
        (name = "operations", description = "Health, metrics and this document."),
    )
)]
pub(crate) struct ApiDoc;

/// The answers every guarded operation may give, said once here rather than
/// on every handler: the key scheme, and 401/403/429/503 (and 413/415 for a
/// body), all problems.
struct Guarded;

/// Paths anyone may call: health, metrics and this document.
const PUBLIC: [&str; 4] = ["/healthz", "/readyz", "/openapi.json", "/metrics"];

fn problem(description: &str) -> RefOr<Response> {
    let content = ContentBuilder::new()
        .schema(Some(Ref::from_schema_name("Problem")))
        .build();
    ResponseBuilder::new()
        .description(description)
        .content("application/problem+json", content)
        .build()
        .into()
}

impl Modify for Guarded {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("cpk_<id>_<secret>")
                    .description(Some(
                        "An API key from `compactd keys create`. A service with no keys runs open and ignores it.",
                    ))
                    .build(),
            ),
        );
        for (path, item) in openapi.paths.paths.iter_mut() {
            if PUBLIC.contains(&path.as_str()) {
                continue;
            }
            // A DELETE has no body; its 403 is its own.
            for (operation, writes) in [
                (&mut item.get, false),
                (&mut item.post, true),
                (&mut item.delete, false),
            ] {
                let Some(operation) = operation else { continue };
                operation.security = Some(vec![SecurityRequirement::new("api_key", Vec::<String>::new())]);
                let responses = &mut operation.responses.responses;
                responses.insert("401".into(), problem("No API key, or not a valid one."));
                responses.insert("429".into(), problem("This key sends too fast; see Retry-After."));
                responses.insert(
                    "503".into(),
                    problem("The database is unreachable or the request ran out of time; see Retry-After."),
                );
                if writes {
                    // An operation that says its own 403 keeps it.
                    if !responses.contains_key("403") {
                        responses.insert(
                            "403".into(),
                            problem("A reader key may not write (or a non-admin key asked for manual_recovery)."),
                        );
                    }
                    responses.insert("413".into(), problem("The body is larger than the server accepts."));
                    responses.insert("415".into(), problem("The body is not sent as JSON."));
                }
            }
        }
    }
}

/// The document as committed: pretty JSON with a final newline.
pub fn document() -> String {
    let mut text = ApiDoc::openapi().to_pretty_json().unwrap_or_default();
    text.push('\n');
    text
}

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/openapi.json", get(openapi_json))
}

/// This API's OpenAPI document
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI 3.1 document.", content_type = "application/json")))]
pub(crate) async fn openapi_json() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
