//! POST /handoff (SPEC §3): start a new conversation from an old one, or
//! record that the user carried on.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use sqlx::{Connection, PgConnection};
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, ApiResult, Problem};
use super::extract::{Caller, IdempotencyKey, IdempotencyKeyParam, JsonBody};
use super::idempotency::{self, Effect, Ready, Reply};
use crate::compaction::keep;
use crate::domain::text::storable;
use crate::domain::{At, ConversationId, InvalidValue, TenantId};
use crate::llm::Writer;
use crate::llm::summarizer::finish_beside;
use crate::policy::handoff::{Handoff, Request};
use crate::policy::keep::narrative::narrative_of;
use crate::policy::keep::summary_max_tokens;
use crate::store::handoffs::{self, NotRolled};
use crate::store::turns::{self, Said};
use crate::store::{compactions, conversations};

/// How many of the user's latest messages a handoff quotes by default…
pub const DEFAULT_REQUESTS: usize = 3;
/// …found among this many of the newest turns with user text (harness text
/// in the user role is not the user's).
const REQUEST_LOOKBACK: i64 = 50;

pub fn router() -> Router<AppState> {
    Router::new().route("/handoff", post(handoff))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffRequest {
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
    /// The new conversation's id; absent: a new UUID.
    #[schema(min_length = 1, max_length = 200, pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$")]
    pub successor_id: Option<String>,
    /// The user chose to carry on: record it and render nothing.
    pub declined: Option<bool>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub at: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuotedRequest {
    /// `YYYY-MM-DD`.
    #[schema(example = "2026-10-18", format = Date, pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
    pub date: String,
    pub text: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HandoffResponse {
    /// The text that starts the new conversation (null when declined).
    pub text: Option<String>,
    /// The new conversation (null when declined).
    pub successor_id: Option<String>,
    pub declined: bool,
}

pub enum HandoffCommand {
    Decline {
        tenant: TenantId,
        id: ConversationId,
        at: At,
    },
    RollOver {
        tenant: TenantId,
        id: ConversationId,
        successor: ConversationId,
        at: At,
        given: Handoff,
    },
}

impl HandoffCommand {
    pub(crate) fn parse(tenant: TenantId, request: HandoffRequest) -> Result<Self, ApiError> {
        let id = ConversationId::parse("conversation_id", request.conversation_id)?;
        let at = At::parse_or_now("at", request.at.as_deref())?;
        if request.declined.unwrap_or(false) {
            return Ok(Self::Decline { tenant, id, at });
        }
        let successor = match request.successor_id {
            Some(raw) => ConversationId::parse("successor_id", raw)?,
            None => ConversationId::parse("successor_id", uuid::Uuid::new_v4().to_string())?,
        };
        if successor == id {
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
        };
        Ok(Self::RollOver {
            tenant,
            id,
            successor,
            at,
            given,
        })
    }
}

/// A handoff with its defaults filled in from what is stored; its summary
/// is rendered when the rollover is recorded.
pub struct Rendered {
    tenant: TenantId,
    id: ConversationId,
    successor: ConversationId,
    at: At,
    handoff: Handoff,
}

pub enum HandoffReady {
    Decline {
        tenant: TenantId,
        id: ConversationId,
        at: At,
    },
    RollOver(Box<Rendered>),
}

impl Effect for HandoffCommand {
    type Ready = HandoffReady;

    async fn prepare(self, app: &AppState) -> ApiResult<HandoffReady> {
        let (tenant, id, successor, at, mut handoff) = match self {
            Self::Decline { tenant, id, at } => return Ok(HandoffReady::Decline { tenant, id, at }),
            Self::RollOver {
                tenant,
                id,
                successor,
                at,
                given,
            } => (tenant, id, successor, at, given),
        };
        let mut conn = app.pool.acquire().await?;
        let stored = conversations::find(&mut conn, &tenant, &id)
            .await?
            .ok_or_else(|| ApiError::no_conversation(&id))?;
        if handoff.requests.is_empty() {
            let latest = turns::latest_with(&mut conn, &tenant, &id, Said::User, REQUEST_LOOKBACK).await?;
            let mut requests: Vec<Request> = latest
                .into_iter()
                .filter_map(|turn| {
                    let words = app.summaries.harness.split(turn.user.as_deref()?).words;
                    (!words.is_empty()).then(|| Request {
                        date: turn.at.format("%Y-%m-%d").to_string(),
                        text: words,
                    })
                })
                .take(DEFAULT_REQUESTS)
                .collect();
            requests.reverse();
            handoff.requests = requests;
        }
        if handoff.reply.is_none() {
            let last = turns::latest_with(&mut conn, &tenant, &id, Said::Assistant, 1).await?;
            handoff.reply = last.into_iter().next().and_then(|turn| turn.assistant);
        }
        if handoff.bookmark.is_none() && stored.last_turn_seq > 0 {
            handoff.bookmark = Some(stored.last_turn_seq.to_string());
        }
        Ok(HandoffReady::RollOver(Box::new(Rendered {
            tenant,
            id,
            successor,
            at,
            handoff,
        })))
    }
}

impl Ready for HandoffReady {
    async fn apply(self, app: &AppState, conn: &mut PgConnection) -> ApiResult<Reply> {
        match self {
            Self::Decline { tenant, id, at } => {
                handoffs::decline(conn, &tenant, &id, at.get())
                    .await?
                    .ok_or_else(|| ApiError::no_conversation(&id))?;
                Reply::ok(&HandoffResponse {
                    text: None,
                    successor_id: None,
                    declined: true,
                })
            }
            Self::RollOver(rendered) => {
                let Rendered {
                    tenant,
                    id,
                    successor,
                    at,
                    mut handoff,
                } = *rendered;
                let mut tx = conn.begin().await?;
                let Some(stored) = conversations::lock(&mut tx, &tenant, &id).await? else {
                    return Err(ApiError::no_conversation(&id));
                };
                // The keep set, with every turn stored since the last boundary
                // read, is what the summary section carries and the successor inherits.
                let current = keep::current(&mut tx, &tenant, &id, &app.summaries.harness).await?;
                crate::store::keep::save(&mut tx, &tenant, &id, &current.set, current.turns_read).await?;
                let shape = match &stored.summary {
                    Some((_, seq)) => compactions::writer_of(&mut tx, &tenant, &id, *seq)
                        .await?
                        .and_then(|name| Writer::parse(&name))
                        .unwrap_or(Writer::Llm)
                        .shape(),
                    None => Writer::Llm.shape(),
                };
                let anchor = stored
                    .summary
                    .as_ref()
                    .map(|(text, _)| narrative_of(text))
                    .unwrap_or("");
                let budget = summary_max_tokens(app.summaries.max_tokens, stored.state.size);
                // What the handoff quotes in its other sections is not repeated.
                let beside = Handoff {
                    summary: None,
                    ..handoff.clone()
                }
                .render();
                let (summary, _) = finish_beside(anchor, &beside, shape, &current.set, budget);
                handoff.summary = Some(summary);
                let text = handoff.render();
                let rolled = handoffs::roll_over(
                    &mut tx,
                    &tenant,
                    &id,
                    &successor,
                    at.get(),
                    &text,
                    handoff.bookmark.as_deref(),
                )
                .await?;
                match rolled {
                    Ok(_) => {
                        crate::store::keep::inherit(&mut tx, &tenant, &id, &successor).await?;
                        tx.commit().await?;
                        Reply::ok(&HandoffResponse {
                            text: Some(text),
                            successor_id: Some(successor.to_string()),
                            declined: false,
                        })
                    }
                    Err(NotRolled::Missing) => Err(ApiError::no_conversation(&id)),
                    Err(NotRolled::SuccessorTaken) => Err(ApiError::Conflict(format!(
                        "conversation {:?} already exists and does not continue this one",
                        successor.as_str()
                    ))),
                }
            }
        }
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
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such conversation.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The successor id is taken, or a request with this Idempotency-Key is running.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A value is invalid, or the Idempotency-Key was used for another body.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn handoff(
    State(app): State<AppState>,
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<HandoffRequest>,
) -> ApiResult<Response> {
    let command = HandoffCommand::parse(caller.tenant.clone(), body.value)?;
    idempotency::run(&app, &caller, key, "POST /handoff", &body.raw, command).await
}
