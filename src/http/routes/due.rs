//! GET /due (SPEC §3): the conversations for which `/decide` at a moment would
//! not answer `keep` now — what a caller polls instead of asking about each.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::queries;
use crate::domain::{At, InvalidValue};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, QueryParams};
use crate::policy::{CacheLife, DecisionKind, Guard, Moment, Trigger};

/// The most conversations one answer lists.
pub(crate) const MAX_DUE: u32 = 1_000;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/due", get(list_due))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct DueQuery {
    /// `idle` (default) or `next_message`; `turn_end` is decided at each turn's end.
    #[param(inline)]
    pub moment: Option<DueMoment>,
    /// The moment to decide for (RFC 3339); the server's clock when absent.
    #[param(value_type = Option<String>, format = DateTime)]
    pub at: Option<String>,
    /// At most this many conversations (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
}

/// The moments a caller polls for.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DueMoment {
    Idle,
    NextMessage,
}

impl From<DueMoment> for Moment {
    fn from(moment: DueMoment) -> Self {
        match moment {
            DueMoment::Idle => Moment::Idle,
            DueMoment::NextMessage => Moment::NextMessage,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct DueConversation {
    pub conversation_id: String,
    pub decision: DecisionKind,
    pub trigger: Option<Trigger>,
    pub guard: Option<Guard>,
    pub reason: String,
    pub last_turn_at: Option<DateTime<Utc>>,
    pub used: u64,
    pub cache_life: CacheLife,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct DueResponse {
    pub moment: Moment,
    pub at: DateTime<Utc>,
    /// Oldest last turn first.
    pub conversations: Vec<DueConversation>,
}

/// Conversations due now
///
/// For `idle`: whose one-hour cache is about to expire and would be compacted.
/// For `next_message`: whose next user message should start a new conversation.
#[utoipa::path(
    get,
    path = "/due",
    tag = "decisions",
    params(DueQuery),
    responses(
        (status = 200, description = "The conversations due, with each decision.", body = DueResponse),
        (status = 422, description = "A parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn list_due(
    State(app): State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<DueQuery>,
) -> ApiResult<Json<DueResponse>> {
    let due_moment = query.moment.unwrap_or(DueMoment::Idle);
    let moment = Moment::from(due_moment);
    let limit = query.limit.unwrap_or(100);
    if !(1..=MAX_DUE).contains(&limit) {
        return Err(InvalidValue::new("limit", format!("must be 1 to {MAX_DUE}")).into());
    }
    let at = At::parse_or_now("at", query.at.as_deref())?.get();
    let due_now = queries::due::due(&app.services, &caller.tenant, moment, at, limit).await?;
    let policy = &app.services.policy;
    let conversations = due_now
        .into_iter()
        .map(|(stored, decision)| DueConversation {
            conversation_id: stored.conversation_id.to_string(),
            decision: decision.kind,
            trigger: decision.trigger,
            guard: decision.guard,
            reason: decision.reason,
            last_turn_at: stored.state.last_turn_at,
            used: stored.state.used,
            cache_life: stored.state.effective_cache_life(policy),
        })
        .collect();
    Ok(Json(DueResponse {
        moment,
        at,
        conversations,
    }))
}
