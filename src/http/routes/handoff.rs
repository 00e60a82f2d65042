//! POST /handoff (SPEC §3): start a new conversation from an old one, or
//! record that the user carried on.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::app::handoff::{HandedOff, HandoffCommand};
use crate::domain::text::storable;
use crate::domain::{At, ConversationId, InvalidValue, TenantId};
use crate::http::AppState;
use crate::http::error::{ApiError, ApiResult, Problem};
use crate::http::extract::{Caller, IdempotencyKey, IdempotencyKeyParam, JsonBody};
use crate::http::idempotency::{self, Render, Reply};
use crate::http::problems::ReportProblems;
use crate::summary::handoff::{Handoff, Request};

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/handoff", post(handoff))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HandoffRequest {
    #[schema(
        example = "support-4711",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$"
    )]
    pub conversation_id: String,
    /// The user's latest messages, oldest first; absent: the last 3 stored.
    pub requests: Option<Vec<QuotedRequest>>,
    /// The agent's last reply; absent: the last one stored.
    pub reply: Option<String>,
    /// The plan the agent was working through.
    pub plan: Option<String>,
    /// Where `search_history` reads back from; absent: the last stored turn's id.
    pub bookmark: Option<String>,
    /// The new conversation's id; absent: a new UUID, or the successor a
    /// handoff already made (a second call answers the first's text).
    #[schema(min_length = 1, max_length = 200, pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$")]
    pub successor_id: Option<String>,
    /// The user chose to carry on: record it and render nothing.
    pub declined: Option<bool>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub at: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct QuotedRequest {
    /// `YYYY-MM-DD`.
    #[schema(example = "2026-10-18", format = Date, pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
    pub date: String,
    pub text: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct HandoffResponse {
    /// The text that starts the new conversation (null when declined).
    pub text: Option<String>,
    /// The new conversation (null when declined).
    pub successor_id: Option<String>,
    pub declined: bool,
}

/// The request as a handoff to make or a decline to record.
pub(crate) fn parse(tenant: TenantId, request: HandoffRequest) -> Result<HandoffCommand, ApiError> {
    let id = ConversationId::parse("conversation_id", request.conversation_id)?;
    let at = At::parse_or_now("at", request.at.as_deref())?;
    if request.declined.unwrap_or(false) {
        return Ok(HandoffCommand::Decline {
            tenant,
            id,
            at: at.get(),
        });
    }
    let successor = request
        .successor_id
        .map(|raw| ConversationId::parse("successor_id", raw))
        .transpose()?;
    if successor.as_ref() == Some(&id) {
        return Err(ApiError::Conflict(
            "a conversation cannot continue itself: pick another successor_id".to_owned(),
        ));
    }
    let requests = request
        .requests
        .map(|requests| {
            requests
                .into_iter()
                .enumerate()
                .map(|(i, quoted)| {
                    NaiveDate::parse_from_str(&quoted.date, "%Y-%m-%d").map_err(|_| {
                        InvalidValue::new(format!("requests[{i}].date"), "must be a date as YYYY-MM-DD")
                    })?;
                    Ok(Request {
                        date: quoted.date,
                        text: storable(quoted.text),
                    })
                })
                .collect::<Result<Vec<_>, InvalidValue>>()
        })
        .transpose()?;
    let given = Handoff {
        summary: None,
        requests: requests.unwrap_or_default(),
        reply: request.reply.map(storable),
        plan: request.plan.map(storable),
        bookmark: request.bookmark.map(storable),
        predecessor_id: id.as_str().to_owned(),
    };
    Ok(HandoffCommand::RollOver {
        tenant,
        id,
        successor,
        at: at.get(),
        given,
    })
}

impl Render for HandedOff {
    fn render(self, _: &AppState) -> ApiResult<Reply> {
        Reply::ok(&match self {
            HandedOff::Declined => HandoffResponse {
                text: None,
                successor_id: None,
                declined: true,
            },
            HandedOff::RolledOver { text, successor } => HandoffResponse {
                text: Some(text),
                successor_id: Some(successor.to_string()),
                declined: false,
            },
        })
    }
}

/// Hand off to a new conversation
///
/// Renders the text that starts the new conversation (SPEC §3, byte for byte)
/// and records the rollover: the successor is created with its lineage. With
/// `declined: true`, records that the user carried on instead.
#[utoipa::path(
    post,
    path = "/handoff",
    tag = "compactions",
    request_body = HandoffRequest,
    params(IdempotencyKeyParam),
    responses(
        (status = 200, description = "The handoff text and the successor, or the recorded decline.", body = HandoffResponse),
        ReportProblems,
        (status = 404, description = "No such conversation.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The successor id is taken, or a request with this Idempotency-Key is running.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn handoff(
    State(app): State<AppState>,
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<HandoffRequest>,
) -> ApiResult<Response> {
    let command = parse(caller.tenant.clone(), body.value)?;
    idempotency::run(&app, &caller, key, "POST /handoff", &body.raw, command).await
}
