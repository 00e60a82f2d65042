//! GET /conversations/{id}/keep (SPEC §3, §4): the conversation's keep set —
//! every must-keep item, with who said it, where it was first and last seen,
//! its tier, and whether the current summary holds it word for word.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::queries;
use crate::domain::{ConversationId, InvalidValue};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath, QueryParams};
use crate::http::problems::NoSuchConversation;
use crate::summary::keep::{KeepItem, KeepKind, Place, Source};

/// The most items one answer lists.
pub(crate) const MAX_ITEMS: u32 = 5_000;
const DEFAULT_ITEMS: u32 = 500;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/conversations/{id}/keep", get(list_keep))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct KeepQuery {
    /// Only items of this kind.
    #[param(inline)]
    pub kind: Option<KeepKind>,
    /// At most this many (1–5,000, default 500), in the order a summary takes them.
    #[param(minimum = 1, maximum = 5000)]
    pub limit: Option<u32>,
    /// Only items whose text holds this, in any case (`retry.rs`, `billing`,
    /// `PROJ-410`): how a parked item is found again.
    #[param(max_length = 500, pattern = r"^[^\x00]*$")]
    pub q: Option<String>,
}

/// Where an item was seen: a stored turn, or a message of a /summarize delta.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlaceView {
    pub conversation_id: String,
    /// The stored turn (its bookmark for `search_history`).
    pub turn_id: Option<i64>,
    /// The compaction whose `messages` held it…
    pub compaction_seq: Option<i64>,
    /// …and the message's index there.
    pub message: Option<i64>,
    pub at: DateTime<Utc>,
}

impl From<&Place> for PlaceView {
    fn from(place: &Place) -> Self {
        Self {
            conversation_id: place.conversation_id.clone(),
            turn_id: place.turn_id,
            compaction_seq: place.compaction_seq,
            message: place.message,
            at: place.at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct KeepItemView {
    pub kind: KeepKind,
    /// Word for word (at most 300 characters; a request at most 2,000).
    pub text: String,
    /// Where it was seen first.
    pub source: Source,
    /// Every source it was seen in.
    pub sources: Vec<Source>,
    /// Its budget tier (1 request, 2 prohibitions, 3 named by the user, 4 files
    /// changed, 6 named by the agent, 7 tool output mentioned again); null: no
    /// summary carries it (it was only ever seen in tool output).
    pub tier: Option<u8>,
    pub first_seen: PlaceView,
    pub last_seen: PlaceView,
    pub times_seen: u64,
    /// The current summary holds it word for word.
    pub in_summary: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct KeepSetView {
    pub conversation_id: String,
    /// In the order a summary takes them: by tier, newest and most often seen first.
    pub items: Vec<KeepItemView>,
    /// Items of the set (of the kind asked for), listed or not.
    pub total: u64,
    /// More items exist than `limit` listed.
    pub truncated: bool,
}

fn view(item: &KeepItem, in_summary: bool) -> KeepItemView {
    KeepItemView {
        kind: item.kind,
        text: item.text.clone(),
        source: item.source,
        sources: item.sources.iter().collect(),
        tier: item.tier().map(|tier| tier.number()),
        first_seen: PlaceView::from(&item.first_seen),
        last_seen: PlaceView::from(&item.last_seen),
        times_seen: item.times_seen,
        in_summary,
    }
}

/// A conversation's keep set
///
/// Every must-keep item extracted from its stored turns and `/summarize`
/// deltas (and inherited from its predecessor), whether or not a summary
/// carries it, with whether the current summary holds it word for word.
#[utoipa::path(
    get,
    path = "/conversations/{id}/keep",
    tag = "conversations",
    operation_id = "get_keep_set",
    params(ConversationIdParam, KeepQuery),
    responses(
        (status = 200, description = "The keep set.", body = KeepSetView),
        NoSuchConversation,
        (status = 422, description = "The id or a parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn list_keep(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    QueryParams(query): QueryParams<KeepQuery>,
) -> ApiResult<Json<KeepSetView>> {
    let page = queries::keep::keep_set(&app.services, &caller.tenant, &id, query.checked()?).await?;
    Ok(Json(KeepSetView::new(&id, page)))
}

impl KeepQuery {
    /// What the reader asks for, checked as REST and MCP check it.
    pub(crate) fn checked(self) -> Result<queries::keep::Asked, InvalidValue> {
        let limit = self.limit.unwrap_or(DEFAULT_ITEMS);
        if !(1..=MAX_ITEMS).contains(&limit) {
            return Err(InvalidValue::new("limit", format!("must be 1 to {MAX_ITEMS}")));
        }
        let needle = self.q.map(|q| q.trim().to_lowercase()).filter(|q| !q.is_empty());
        if let Some(q) = &needle
            && (q.chars().count() > super::turns::MAX_QUERY_CHARS || q.contains('\0'))
        {
            return Err(InvalidValue::new(
                "q",
                format!(
                    "must be at most {} characters, without NUL",
                    super::turns::MAX_QUERY_CHARS
                ),
            ));
        }
        Ok(queries::keep::Asked {
            kind: self.kind,
            needle,
            limit,
        })
    }
}

impl KeepSetView {
    pub(crate) fn new(id: &ConversationId, page: queries::keep::KeepPage) -> Self {
        Self {
            conversation_id: id.to_string(),
            items: page.items.iter().map(|(item, held)| view(item, *held)).collect(),
            total: page.total,
            truncated: page.truncated,
        }
    }
}
