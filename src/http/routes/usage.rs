//! POST /usage (SPEC §3): the agent reports its context use after a model call.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::app::usage::RecordUsage;
use crate::domain::{At, ConversationId, Count, InvalidValue, ModelName, TenantId};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, IdempotencyKey, IdempotencyKeyParam, JsonBody, PreferParam, ReturnMinimal};
use crate::http::idempotency::{self, Render, Reply};
use crate::http::problems::ReportProblems;
use crate::http::views::conversation::ConversationState;
use crate::policy::{CacheLife, UsageReport};
use crate::records::StoredConversation;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/usage", post(record_usage))
}

/// A usage report: what the last model call used.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UsageRequest {
    /// 1–200 printable characters, chosen by the caller.
    #[schema(
        example = "support-4711",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$"
    )]
    pub conversation_id: String,
    /// Context tokens in use now.
    #[schema(example = 120_000)]
    #[serde(deserialize_with = "crate::http::extract::whole::required")]
    pub used: u64,
    /// The context window's size; 0 or absent leaves the known size.
    #[schema(example = 200_000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub size: Option<u64>,
    /// Input tokens of the model call.
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub input: Option<u64>,
    /// Of those, read from the prompt cache.
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub cached_read: Option<u64>,
    /// Tokens written to the prompt cache.
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub cache_written: Option<u64>,
    /// Output tokens of the model call.
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub output: Option<u64>,
    /// Declares the cache life; a declaration is never overridden by an observation.
    pub cache_life: Option<CacheLife>,
    /// This conversation's context-pressure threshold; 0 clears it.
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub context_pressure_tokens: Option<u64>,
    /// When it happened (RFC 3339); the server's clock when absent.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub at: Option<String>,
    /// The model the call went to: the tokens a compaction spares each later
    /// call are priced at it (`COMPACTD_PRICES`; unnamed: its `*` entry).
    #[schema(example = "claude-sonnet-4-5", min_length = 1, max_length = 200)]
    pub model: Option<String>,
}

/// The report, its values checked.
pub(crate) fn parse(tenant: TenantId, request: UsageRequest) -> Result<RecordUsage, InvalidValue> {
    let count = |field: &str, value: Option<u64>| value.map(|v| Count::parse(field, v).map(Count::get)).transpose();
    Ok(RecordUsage {
        tenant,
        id: ConversationId::parse("conversation_id", request.conversation_id)?,
        report: UsageReport {
            used: Count::parse("used", request.used)?.get(),
            size: count("size", request.size)?,
            input: count("input", request.input)?,
            cached_read: count("cached_read", request.cached_read)?,
            cache_written: count("cache_written", request.cache_written)?,
            output: count("output", request.output)?,
            cache_life: request.cache_life,
            context_pressure_tokens: count("context_pressure_tokens", request.context_pressure_tokens)?,
        },
        at: At::parse_or_now("at", request.at.as_deref())?.get(),
        model: request.model.map(|name| ModelName::parse("model", name)).transpose()?,
    })
}

impl Render for StoredConversation {
    fn render(self, app: &AppState) -> ApiResult<Reply> {
        Reply::ok(&ConversationState::new(self, &app.services.policy))
    }
}

/// Report context use
///
/// Creates the conversation on first sight, records the model call's token
/// counts, observes the cache life, and answers the state.
#[utoipa::path(
    post,
    path = "/usage",
    tag = "reports",
    request_body = UsageRequest,
    params(IdempotencyKeyParam, PreferParam),
    responses(
        (status = 200, description = "The conversation's state after the report.", body = ConversationState),
        (status = 204, description = "Recorded; no body, as `Prefer: return=minimal` asked (`Preference-Applied: return=minimal`)."),
        ReportProblems,
        (status = 409, description = "A request with this Idempotency-Key is in flight.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn record_usage(
    State(app): State<AppState>,
    caller: Caller,
    key: IdempotencyKey,
    minimal: ReturnMinimal,
    body: JsonBody<UsageRequest>,
) -> ApiResult<Response> {
    let command = parse(caller.tenant.clone(), body.value)?;
    idempotency::run_preferring(&app, &caller, key, "POST /usage", &body.raw, command, minimal).await
}
