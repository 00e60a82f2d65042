//! POST /decide (SPEC §2, §3): what to do with a conversation now.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::app::decide::{Decide, Decided};
use crate::domain::{At, ConversationId, InvalidValue, TenantId};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, IdempotencyKey, IdempotencyKeyParam, JsonBody};
use crate::http::idempotency::{self, Render, Reply};
use crate::http::problems::ReportProblems;
use crate::http::views::conversation::ConversationState;
use crate::policy::{DecisionKind, Guard, Moment, Trigger};
use crate::summary::write::KEEP_INSTRUCTIONS;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/decide", post(decide))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DecideRequest {
    #[schema(
        example = "support-4711",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$"
    )]
    pub conversation_id: String,
    /// When the caller asks (default `turn_end`).
    pub moment: Option<Moment>,
    /// The moment to decide for (RFC 3339); the server's clock when absent.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct DecideResponse {
    pub decision: DecisionKind,
    /// The trigger that holds, also when a guard turned it into `keep`.
    pub trigger: Option<Trigger>,
    /// The loop guard that changed the decision, if one did.
    pub guard: Option<Guard>,
    /// One plain sentence for a person.
    pub reason: String,
    /// With `compact`: what the summary must keep, for a harness that writes it.
    pub keep_instructions: Option<String>,
    pub moment: Moment,
    pub at: DateTime<Utc>,
    /// The conversation's state; null for a conversation never reported on.
    pub state: Option<ConversationState>,
}

/// The question, its values checked.
pub(crate) fn parse(tenant: TenantId, request: DecideRequest) -> Result<Decide, InvalidValue> {
    Ok(Decide {
        tenant,
        id: ConversationId::parse("conversation_id", request.conversation_id)?,
        moment: request.moment.unwrap_or_default(),
        at: At::parse_or_now("at", request.at.as_deref())?.get(),
    })
}

impl Render for Decided {
    fn render(self, app: &AppState) -> ApiResult<Reply> {
        let Decided {
            decision,
            moment,
            at,
            stored,
        } = self;
        Reply::ok(&DecideResponse {
            keep_instructions: (decision.kind == DecisionKind::Compact).then(|| KEEP_INSTRUCTIONS.to_owned()),
            decision: decision.kind,
            trigger: decision.trigger,
            guard: decision.guard,
            reason: decision.reason,
            moment,
            at,
            state: stored.map(|stored| ConversationState::new(stored, &app.services.policy)),
        })
    }
}

/// Decide: keep, compact or roll over
///
/// Applies the policy at the moment asked. Non-keep decisions are logged as
/// events and become the conversation's pending decision. A conversation never
/// reported on answers `keep` and is not created.
#[utoipa::path(
    post,
    path = "/decide",
    tag = "decisions",
    request_body = DecideRequest,
    params(IdempotencyKeyParam),
    responses(
        (status = 200, description = "The decision, why, and the state it was made on.", body = DecideResponse),
        ReportProblems,
        (status = 409, description = "A request with this Idempotency-Key is in flight.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn decide(
    State(app): State<AppState>,
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<DecideRequest>,
) -> ApiResult<Response> {
    let command = parse(caller.tenant.clone(), body.value)?;
    idempotency::run(&app, &caller, key, "POST /decide", &body.raw, command).await
}
