//! GET /conversations (the picker: newest first, by the start of the id),
//! GET /conversations/{id} and its event log (SPEC §3, reads).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::queries::conversations;
use crate::domain::{ConversationId, Count, InvalidValue};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath, QueryParams};
use crate::http::problems::NoSuchConversation;
use crate::http::views::conversation::ConversationState;

/// The most events one page holds.
pub(crate) const MAX_EVENTS_PAGE: u32 = 1_000;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/conversations", get(list))
        .route(
            "/conversations/{id}",
            get(show).delete(super::deletion::delete_conversation),
        )
        .route("/conversations/{id}/events", get(list_events))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListQuery {
    /// Only conversations whose id starts with this (case and all, as typed).
    #[param(min_length = 1, max_length = 200, pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$")]
    pub prefix: Option<String>,
    /// At most this many (1–100, default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
}

/// A conversation as the picker lists it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ListedConversation {
    pub conversation_id: String,
    pub created_at: DateTime<Utc>,
    pub last_turn_at: Option<DateTime<Utc>>,
    pub turn_count: i64,
    pub compactions: i64,
    pub used: i64,
    pub size: i64,
    pub predecessor_id: Option<String>,
    pub successor_id: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ConversationList {
    /// Newest first.
    pub conversations: Vec<ListedConversation>,
    /// More match than were listed: type more of the id.
    pub truncated: bool,
}

/// The tenant's conversations
///
/// Newest first, or only those whose id starts with `prefix`: how an
/// operator finds one without its whole id.
#[utoipa::path(
    get,
    path = "/conversations",
    tag = "conversations",
    operation_id = "list_conversations",
    params(ListQuery),
    responses(
        (status = 200, description = "The conversations, newest first.", body = ConversationList),
        (status = 422, description = "A parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn list(
    State(app): State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<ListQuery>,
) -> ApiResult<Json<ConversationList>> {
    let limit = query.limit.unwrap_or(20);
    if !(1..=conversations::MAX_LISTED).contains(&limit) {
        return Err(InvalidValue::new("limit", format!("must be 1 to {}", conversations::MAX_LISTED)).into());
    }
    let prefix = query
        .prefix
        .map(|prefix| ConversationId::parse("prefix", prefix))
        .transpose()?;
    let (listed, truncated) = conversations::newest(&app.services, &caller.tenant, prefix.as_ref(), limit).await?;
    Ok(Json(ConversationList {
        conversations: listed
            .into_iter()
            .map(|c| ListedConversation {
                conversation_id: c.conversation_id.into_string(),
                created_at: c.created_at,
                last_turn_at: c.last_turn_at,
                turn_count: c.last_turn_seq,
                compactions: c.compactions,
                used: c.used,
                size: c.size,
                predecessor_id: c.predecessor_id.map(ConversationId::into_string),
                successor_id: c.successor_id.map(ConversationId::into_string),
            })
            .collect(),
        truncated,
    }))
}

/// A conversation's state
///
/// Its state, summary, pending decision and lineage.
#[utoipa::path(
    get,
    path = "/conversations/{id}",
    tag = "conversations",
    operation_id = "get_conversation",
    params(ConversationIdParam),
    responses(
        (status = 200, description = "The conversation.", body = ConversationState),
        NoSuchConversation,
        (status = 422, description = "The id is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn show(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
) -> ApiResult<Json<ConversationState>> {
    let stored = conversations::one(&app.services, &caller.tenant, &id).await?;
    Ok(Json(ConversationState::new(stored, &app.services.policy)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct EventsQuery {
    /// At most this many events (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
    /// Only events after this seq (default 0: from the first).
    pub after: Option<u64>,
}

/// One entry of a conversation's append-only log.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct EventView {
    /// 1, 2, 3… within the conversation, without gaps.
    pub seq: i64,
    /// When it happened.
    pub at: DateTime<Utc>,
    /// `usage`, `turn_ended`, `decision`, `compaction`, `handoff`, `rollover_declined`, `scored`, `audited` or `skipped`.
    pub kind: String,
    pub payload: serde_json::Value,
    /// When the service wrote it.
    pub recorded_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct EventsPage {
    pub conversation_id: String,
    pub events: Vec<EventView>,
    /// Pass as `after` for the next page; null when this page is the last.
    pub next_after: Option<i64>,
}

/// A conversation's event log
///
/// Oldest first, from `after`.
#[utoipa::path(
    get,
    path = "/conversations/{id}/events",
    tag = "conversations",
    params(ConversationIdParam, EventsQuery),
    responses(
        (status = 200, description = "A page of events.", body = EventsPage),
        NoSuchConversation,
        (status = 422, description = "The id or a parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn list_events(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    QueryParams(query): QueryParams<EventsQuery>,
) -> ApiResult<Json<EventsPage>> {
    let limit = query.limit.unwrap_or(100);
    if !(1..=MAX_EVENTS_PAGE).contains(&limit) {
        return Err(InvalidValue::new("limit", format!("must be 1 to {MAX_EVENTS_PAGE}")).into());
    }
    let after = Count::parse("after", query.after.unwrap_or(0))?.to_i64();
    let (stored, page) = conversations::events(&app.services, &caller.tenant, &id, after, limit).await?;
    let next_after = (page.len() == limit as usize)
        .then(|| page.last().map(|e| e.seq))
        .flatten();
    Ok(Json(EventsPage {
        conversation_id: stored.conversation_id.to_string(),
        events: page
            .into_iter()
            .map(|e| EventView {
                seq: e.seq,
                at: e.at,
                kind: e.kind,
                payload: e.payload,
                recorded_at: e.recorded_at,
            })
            .collect(),
        next_after,
    }))
}
