//! DELETE /conversations/{id} (SPEC §3, issue 25): a conversation's content,
//! or its lineage's, deleted for good; the ledger keeps content-free rows.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::delete::{self, DeleteConversation};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath, QueryParams};
use crate::http::problems::NoSuchConversation;
use crate::records::Erased;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct DeleteQuery {
    /// Also delete every conversation linked to it by handoffs, its
    /// predecessors and successors however far (default false).
    pub lineage: Option<bool>,
}

/// A deletion's answer.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Deletion {
    /// The conversations deleted (with `lineage`, the whole lineage), in id
    /// order; empty when an earlier request deleted it.
    pub deleted_ids: Vec<String>,
    pub deleted: Erased,
    /// An earlier request deleted it: nothing was left to delete.
    pub already_deleted: bool,
}

/// Delete a conversation
///
/// Its turns, keep set, preparations, events, the answers kept for its
/// Idempotency-Keys and the text of its ledger rows go, in one transaction,
/// with an audit line that records who deleted how much and none of the
/// content. The ledger keeps its rows' counts, trigger and tokens, naming no
/// conversation, so the fleet's figures stay right; /stats's decisions and
/// rollovers the same. Conversations it handed off to or from stay, no
/// longer linked to it, unless `lineage=true` deletes them too. Asked again,
/// it answers `already_deleted`. Agent and admin keys only.
#[utoipa::path(
    delete,
    path = "/conversations/{id}",
    tag = "conversations",
    operation_id = "delete_conversation",
    params(ConversationIdParam, DeleteQuery),
    responses(
        (status = 200, description = "Deleted, now or before.", body = Deletion),
        (status = 403, description = "A reader key may not delete.", body = Problem, content_type = "application/problem+json"),
        NoSuchConversation,
        (status = 422, description = "The id or a parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn delete_conversation(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    QueryParams(query): QueryParams<DeleteQuery>,
) -> ApiResult<Json<Deletion>> {
    let command = DeleteConversation {
        tenant: caller.tenant.clone(),
        conversation_id: id,
        lineage: query.lineage.unwrap_or(false),
        key_id: caller.key_id.clone(),
    };
    let done = delete::delete_conversation(&app.services, &command).await?;
    Ok(Json(Deletion {
        deleted_ids: done.conversations,
        deleted: done.erased,
        already_deleted: done.already,
    }))
}
