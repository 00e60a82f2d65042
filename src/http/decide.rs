//! POST /decide (SPEC §2, §3): what to do with a conversation now.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, ApiResult, Problem};
use super::extract::{Caller, IdempotencyKey, IdempotencyKeyParam, JsonBody};
use super::idempotency::{self, Effect, Ready, Reply};
use super::views::{ConversationState, PendingDecision};
use crate::domain::{At, ConversationId, InvalidValue, TenantId};
use crate::policy::{self, Decision, DecisionKind, Guard, KEEP_INSTRUCTIONS, Moment, Trigger};
use crate::store::conversations;

pub fn router() -> Router<AppState> {
    Router::new().route("/decide", post(decide))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DecideRequest {
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
pub struct DecideResponse {
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

pub struct Decide {
    tenant: TenantId,
    id: ConversationId,
    moment: Moment,
    at: At,
}

impl Decide {
    pub(crate) fn parse(tenant: TenantId, request: DecideRequest) -> Result<Self, InvalidValue> {
        Ok(Self {
            tenant,
            id: ConversationId::parse("conversation_id", request.conversation_id)?,
            moment: request.moment.unwrap_or_default(),
            at: At::parse_or_now("at", request.at.as_deref())?,
        })
    }

    fn answer(&self, decision: Decision, state: Option<ConversationState>) -> DecideResponse {
        metrics::counter!(
            "compactd_decisions_total",
            "decision" => decision.kind.as_str(),
            "trigger" => decision.trigger.map_or("none", Trigger::as_str),
            "moment" => self.moment.as_str(),
        )
        .increment(1);
        DecideResponse {
            keep_instructions: (decision.kind == DecisionKind::Compact).then(|| KEEP_INSTRUCTIONS.to_owned()),
            decision: decision.kind,
            trigger: decision.trigger,
            guard: decision.guard,
            reason: decision.reason,
            moment: self.moment,
            at: self.at.get(),
            state,
        }
    }
}

impl Effect for Decide {
    type Ready = Self;

    async fn prepare(self, _: &AppState) -> ApiResult<Self> {
        Ok(self)
    }
}

impl Ready for Decide {
    async fn apply(self, app: &AppState, conn: &mut PgConnection) -> ApiResult<Reply> {
        let Some(stored) = conversations::find(conn, &self.tenant, &self.id).await? else {
            return Reply::ok(&self.answer(Decision::no_usage_yet(), None));
        };
        let decision = policy::decide(&stored.state, self.moment, self.at.get(), &app.policy);
        let mut state = ConversationState::new(stored, &app.policy)?;
        if decision.kind != DecisionKind::Keep {
            let mut pending = PendingDecision {
                decision: decision.kind,
                trigger: decision.trigger,
                guard: decision.guard,
                reason: decision.reason.clone(),
                moment: self.moment,
                at: self.at.get(),
                event_seq: None,
            };
            let logged = serde_json::to_value(&pending).map_err(|err| ApiError::Internal(err.to_string()))?;
            let seq = conversations::record_decision(conn, &self.tenant, &self.id, self.at.get(), &logged).await?;
            pending.event_seq = seq;
            state.event_count = seq.unwrap_or(state.event_count);
            state.pending_decision = Some(pending);
        }
        Reply::ok(&self.answer(decision, Some(state)))
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
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A request with this Idempotency-Key is in flight.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A value is invalid, or the Idempotency-Key was used for another body.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn decide(
    State(app): State<AppState>,
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<DecideRequest>,
) -> ApiResult<Response> {
    let command = Decide::parse(caller.tenant.clone(), body.value)?;
    idempotency::run(&app, &caller, key, "POST /decide", &body.raw, command).await
}
