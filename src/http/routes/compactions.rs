//! The ledger's reads (SPEC §3): one conversation's compactions, and the
//! fleet's history with filters and a cursor.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::queries;
use crate::domain::{At, ConversationId, Count, FleetCursor, HarnessName, InvalidValue};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath, QueryParams};
use crate::http::problems::NoSuchConversation;
use crate::http::views::ledger::Compaction;
use crate::policy::Trigger;
use crate::records::{FleetFilter, Recorded};

/// The most compactions one page holds.
pub(crate) const MAX_PAGE: u32 = 500;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/conversations/{id}/compactions", get(of_conversation))
        .route("/compactions", get(of_fleet))
}

fn page_size(limit: Option<u32>) -> Result<u32, InvalidValue> {
    let limit = limit.unwrap_or(50);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(InvalidValue::new("limit", format!("must be 1 to {MAX_PAGE}")));
    }
    Ok(limit)
}

fn views(rows: Vec<Recorded>) -> Vec<Compaction> {
    rows.into_iter().map(Compaction::from).collect()
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct ConversationCompactionsQuery {
    /// At most this many (1–500, default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// Only compactions with a seq below this one (the previous page's last).
    pub before_seq: Option<u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ConversationCompactions {
    pub conversation_id: String,
    /// Newest first.
    pub compactions: Vec<Compaction>,
    /// Pass as `before_seq` for the next page; null on the last.
    pub next_before_seq: Option<i64>,
}

/// A conversation's compactions
#[utoipa::path(
    get,
    path = "/conversations/{id}/compactions",
    tag = "compactions",
    operation_id = "list_conversation_compactions",
    params(ConversationIdParam, ConversationCompactionsQuery),
    responses(
        (status = 200, description = "Its compaction attempts, newest first.", body = ConversationCompactions),
        NoSuchConversation,
        (status = 422, description = "The id or a parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn of_conversation(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    QueryParams(query): QueryParams<ConversationCompactionsQuery>,
) -> ApiResult<Json<ConversationCompactions>> {
    let (before, limit) = query.checked()?;
    let page = queries::compactions::of_conversation(&app.services, &caller.tenant, &id, before, limit).await?;
    Ok(Json(ConversationCompactions::new(&id, page)))
}

impl ConversationCompactionsQuery {
    /// The page asked for (before which seq, how many), checked as REST and
    /// MCP check it.
    pub(crate) fn checked(self) -> Result<(Option<i64>, u32), InvalidValue> {
        let limit = page_size(self.limit)?;
        let before = self
            .before_seq
            .map(|seq| Count::parse("before_seq", seq).map(Count::to_i64))
            .transpose()?;
        Ok((before, limit))
    }
}

impl ConversationCompactions {
    pub(crate) fn new(id: &ConversationId, page: queries::compactions::CompactionsPage) -> Self {
        Self {
            conversation_id: id.to_string(),
            compactions: views(page.rows),
            next_before_seq: page.next_before_seq,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct FleetQuery {
    /// Only this trigger.
    #[param(inline)]
    pub trigger: Option<Trigger>,
    /// Only successful (true) or failed (false) attempts.
    pub success: Option<bool>,
    /// Only attempts at or after this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<String>,
    /// Only attempts before this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<String>,
    /// Only summaries this harness reported (`claude-code`, `codex`, …).
    #[param(pattern = r"^[a-z0-9][a-z0-9._-]{0,39}$")]
    pub harness: Option<String>,
    /// At most this many (1–500, default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// The previous page's `next_cursor`.
    #[param(pattern = "^-?[0-9]{1,18}_[1-9][0-9]{0,17}$")]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct FleetCompactions {
    /// Newest first by `at` (ties in the order they were recorded, newest first).
    pub compactions: Vec<Compaction>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// The fleet's compaction history
#[utoipa::path(
    get,
    path = "/compactions",
    tag = "compactions",
    operation_id = "list_compactions",
    params(FleetQuery),
    responses(
        (status = 200, description = "Compaction attempts across the tenant's conversations, newest first.", body = FleetCompactions),
        (status = 422, description = "A parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn of_fleet(
    State(app): State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<FleetQuery>,
) -> ApiResult<Json<FleetCompactions>> {
    let limit = page_size(query.limit)?;
    let before = query.cursor.map(|raw| FleetCursor::parse("cursor", &raw)).transpose()?;
    let filter = FleetFilter {
        trigger: query.trigger,
        success: query.success,
        since: At::parse_optional("since", query.since.as_deref())?.map(At::get),
        until: At::parse_optional("until", query.until.as_deref())?.map(At::get),
        harness: query
            .harness
            .map(|name| HarnessName::parse("harness", name))
            .transpose()?,
        before,
    };
    let rows = queries::fleet::compactions(&app.services, &caller.tenant, &filter, limit).await?;
    let next_cursor = (rows.len() == limit as usize)
        .then(|| rows.last())
        .flatten()
        .map(|last| {
            FleetCursor {
                at: last.at,
                id: last.id,
            }
            .to_string()
        });
    Ok(Json(FleetCompactions {
        compactions: views(rows),
        next_cursor,
    }))
}
