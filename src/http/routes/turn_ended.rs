//! POST /turn-ended (SPEC §3): a turn ended; its text, when sent, is stored.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::app::turn_end::{EndTurn, TurnEnded};
use crate::domain::text::storable;
use crate::domain::{At, ConversationId, InvalidValue, TenantId};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, IdempotencyKey, IdempotencyKeyParam, JsonBody, PreferParam, ReturnMinimal};
use crate::http::idempotency::{self, Render, Reply};
use crate::http::problems::ReportProblems;
use crate::http::views::conversation::ConversationState;
use crate::policy::TurnEnd;
use crate::records::TurnText;

/// The most user messages one turn may report.
pub(crate) const MAX_USER_MESSAGES: u64 = 1_000_000;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/turn-ended", post(end_turn))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurnEndedRequest {
    #[schema(
        example = "support-4711",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$"
    )]
    pub conversation_id: String,
    /// User messages in this turn (default 1, at most 1,000,000).
    #[schema(example = 1, maximum = 1_000_000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub user_messages: Option<u64>,
    /// The agent's run finished cleanly (default true).
    pub run_completed: Option<bool>,
    /// What the user said; stored as the conversation's next turn.
    pub user: Option<String>,
    /// What the agent answered; stored with it.
    pub assistant: Option<String>,
    /// When the turn ended (RFC 3339); the server's clock when absent.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TurnEndedResponse {
    /// The stored turn's id (its bookmark), when `user` or `assistant` was sent.
    pub turn_id: Option<i64>,
    pub state: ConversationState,
}

/// The turn end, its values checked.
pub(crate) fn parse(tenant: TenantId, request: TurnEndedRequest) -> Result<EndTurn, InvalidValue> {
    let user_messages = request.user_messages.unwrap_or(1);
    if user_messages > MAX_USER_MESSAGES {
        return Err(InvalidValue::new(
            "user_messages",
            format!("must be at most {MAX_USER_MESSAGES}"),
        ));
    }
    Ok(EndTurn {
        tenant,
        id: ConversationId::parse("conversation_id", request.conversation_id)?,
        turn: TurnEnd {
            user_messages,
            run_completed: request.run_completed.unwrap_or(true),
        },
        text: TurnText {
            user: request.user.map(storable),
            assistant: request.assistant.map(storable),
        },
        at: At::parse_or_now("at", request.at.as_deref())?.get(),
    })
}

impl Render for TurnEnded {
    fn render(self, app: &AppState) -> ApiResult<Reply> {
        Reply::ok(&TurnEndedResponse {
            turn_id: self.turn_id,
            state: ConversationState::new(self.stored, &app.services.policy),
        })
    }
}

/// End a turn
///
/// Counts the turn and its user messages, clears the quiet-spell flags, and
/// stores `user`/`assistant` as the conversation's next turn when given.
#[utoipa::path(
    post,
    path = "/turn-ended",
    tag = "reports",
    request_body = TurnEndedRequest,
    params(IdempotencyKeyParam, PreferParam),
    responses(
        (status = 200, description = "The stored turn's id and the state after it.", body = TurnEndedResponse),
        (status = 204, description = "Recorded; no body, as `Prefer: return=minimal` asked (`Preference-Applied: return=minimal`)."),
        ReportProblems,
        (status = 409, description = "A request with this Idempotency-Key is in flight.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn end_turn(
    State(app): State<AppState>,
    caller: Caller,
    key: IdempotencyKey,
    minimal: ReturnMinimal,
    body: JsonBody<TurnEndedRequest>,
) -> ApiResult<Response> {
    let command = parse(caller.tenant.clone(), body.value)?;
    idempotency::run_preferring(&app, &caller, key, "POST /turn-ended", &body.raw, command, minimal).await
}
