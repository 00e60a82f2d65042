//! GET /conversations/{id}/context (SPEC §5): what an agent sends the model
//! next — the critical turns word for word, the rolling memory, the newest
//! live turns (bounded in bytes as a page of turns is) — and the same as a
//! ready-to-send message list.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::queries;
use crate::domain::InvalidValue;
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath, QueryParams};
use crate::http::problems::NoSuchConversation;
use crate::http::routes::turns::TurnView;

/// The most recent turns one context carries.
pub(crate) const MAX_RECENT: u32 = 200;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/conversations/{id}/context", get(context))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct ContextQuery {
    /// The newest live turns to carry (0–200, default 8).
    #[param(minimum = 0, maximum = 200)]
    pub recent: Option<u32>,
}

/// A turn scored 5, word for word.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct CriticalTurn {
    pub turn_id: i64,
    pub user: Option<String>,
    pub assistant: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: &'static str,
    pub content: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Context {
    pub conversation_id: String,
    /// Turns an audit scored 5, oldest first.
    pub critical: Vec<CriticalTurn>,
    /// The rolling memory, built from turns scored 3–4.
    pub memory: Option<String>,
    /// The newest live turns, oldest first (evicted turns are left out; they
    /// stay readable via /turns). Each text is its first 16,384 characters
    /// (`clipped` says when it was cut; `/turns/{turn}` reads it whole), and
    /// the turns hold at most 1 MiB of text: older ones give way first.
    pub recent: Vec<TurnView>,
    /// The same, ready to send: [critical, memory, recent turns].
    pub messages: Vec<ChatMessage>,
}

/// The context to send next
#[utoipa::path(
    get,
    path = "/conversations/{id}/context",
    tag = "conversations",
    operation_id = "get_context",
    params(ConversationIdParam, ContextQuery),
    responses(
        (status = 200, description = "Critical turns, memory and the newest live turns.", body = Context),
        NoSuchConversation,
        (status = 422, description = "The id or a parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn context(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    QueryParams(query): QueryParams<ContextQuery>,
) -> ApiResult<Json<Context>> {
    let recent = query.checked()?;
    let read = queries::context::context(&app.services, &caller.tenant, &id, recent).await?;
    Ok(Json(Context::from(read)))
}

impl ContextQuery {
    /// How many recent turns are asked for, checked as REST and MCP check it.
    pub(crate) fn checked(self) -> Result<u32, InvalidValue> {
        let recent = self.recent.unwrap_or(8);
        if recent > MAX_RECENT {
            return Err(InvalidValue::new("recent", format!("must be 0 to {MAX_RECENT}")));
        }
        Ok(recent)
    }
}

impl From<queries::context::Context> for Context {
    fn from(read: queries::context::Context) -> Self {
        Self {
            conversation_id: read.conversation_id,
            critical: read
                .critical
                .into_iter()
                .map(|c| CriticalTurn {
                    turn_id: c.turn_id,
                    user: c.user,
                    assistant: c.assistant,
                })
                .collect(),
            memory: read.memory,
            recent: read.recent.into_iter().map(TurnView::new).collect(),
            messages: read
                .messages
                .into_iter()
                .map(|message| ChatMessage {
                    role: message.role,
                    content: message.content,
                })
                .collect(),
        }
    }
}
