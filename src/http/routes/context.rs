//! GET /conversations/{id}/context (SPEC §5): what an agent sends the model
//! next — the critical turns word for word, the rolling memory, the newest
//! live turns (bounded in bytes as a page of turns is) — and the same as a
//! ready-to-send message list.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::history::Said;
use crate::domain::InvalidValue;
use crate::http::AppState;
use crate::http::error::{ApiError, ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath, QueryParams};
use crate::http::routes::turns::{MAX_PAGE_BYTES, TurnView};
use crate::store::{conversations, turns};

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
        (status = 404, description = "No such conversation for this tenant.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The id or a parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn context(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    QueryParams(query): QueryParams<ContextQuery>,
) -> ApiResult<Json<Context>> {
    let recent = query.recent.unwrap_or(8);
    if recent > MAX_RECENT {
        return Err(InvalidValue::new("recent", format!("must be 0 to {MAX_RECENT}")).into());
    }
    let mut conn = app.services.pool.acquire().await?;
    let stored = conversations::find(&mut conn, &caller.tenant, &id)
        .await?
        .ok_or_else(|| ApiError::no_conversation(&id))?;
    let mut newest = turns::recent_live(&mut conn, &caller.tenant, &id, recent.into()).await?;
    // The newest turns whose texts fit a page's bytes (issue 23): each text
    // is cut as a list cuts it, and older turns give way to newer ones.
    let mut size = 0;
    let kept_from = newest
        .iter()
        .rposition(|turn| {
            size += turn.user.as_ref().map_or(0, String::len) + turn.assistant.as_ref().map_or(0, String::len);
            size > MAX_PAGE_BYTES
        })
        .map_or(0, |over| (over + 1).min(newest.len() - 1));
    newest.drain(..kept_from);
    let mut messages = Vec::new();
    if !stored.critical.is_empty() {
        let mut content = "Critical turns from earlier in this conversation, word for word:".to_owned();
        for critical in &stored.critical {
            for (who, text) in [("User", &critical.user), ("Assistant", &critical.assistant)] {
                if let Some(text) = text {
                    content.push_str(&format!("\n\n{who} (turn {}):\n{text}", critical.turn_id));
                }
            }
        }
        messages.push(ChatMessage {
            role: "system",
            content,
        });
    }
    if let Some(memory) = stored.memory.as_deref().filter(|memory| !memory.trim().is_empty()) {
        messages.push(ChatMessage {
            role: "system",
            content: format!("What you remember of this conversation:\n{memory}"),
        });
    }
    for turn in &newest {
        if let Some(user) = &turn.user {
            messages.push(ChatMessage {
                role: "user",
                content: user.clone(),
            });
        }
        if let Some(assistant) = &turn.assistant {
            messages.push(ChatMessage {
                role: "assistant",
                content: assistant.clone(),
            });
        }
    }
    let critical: Vec<i64> = stored.critical.iter().map(|c| c.turn_id).collect();
    let conversation = stored.conversation_id.to_string();
    Ok(Json(Context {
        conversation_id: stored.conversation_id.to_string(),
        critical: stored
            .critical
            .into_iter()
            .map(|c| CriticalTurn {
                turn_id: c.turn_id,
                user: c.user,
                assistant: c.assistant,
            })
            .collect(),
        memory: stored.memory,
        recent: newest
            .into_iter()
            .map(|turn| {
                TurnView::new(Said {
                    conversation: conversation.clone(),
                    critical: critical.contains(&turn.seq),
                    turn,
                })
            })
            .collect(),
        messages,
    }))
}
