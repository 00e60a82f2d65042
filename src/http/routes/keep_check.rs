//! POST /conversations/{id}/keep/check (issue 13): a summary a harness
//! wrote itself, checked against the keep set — what it left out, fitted to
//! a budget and written as the keep guard would append it, for the harness
//! to give back to its agent. Nothing is saved.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::app::keep_check::{Check, Checked};
use crate::domain::text::storable;
use crate::domain::{ConversationId, Count, InvalidValue, TenantId};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{
    Caller, ConversationIdParam, ConversationPath, IdempotencyKey, IdempotencyKeyParam, JsonBody,
};
use crate::http::idempotency::{self, Render, Reply};
use crate::http::problems::{NoSuchConversation, ReportProblems};
use crate::http::views::ledger::KeepCounts;

/// The most room a check may ask for.
const MAX_TOKENS: u64 = 100_000;
/// The longest summary a check reads, in characters: its cost is the keep
/// set's items times this (issue 23), and a harness's summary is a few
/// thousand tokens.
pub(crate) const MAX_TEXT_CHARS: usize = 262_144;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/conversations/{id}/keep/check", post(check))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct KeepCheckRequest {
    /// The summary to check (the one the harness wrote), at most 262,144 characters.
    #[schema(max_length = 262_144)]
    pub text: String,
    /// Room for what it left out, in tokens (1–100,000); absent: the
    /// conversation's summary budget. Under the room this conversation's
    /// headings and parked line take (a few dozen tokens, more as the keep
    /// set grows), a 409 names it.
    #[schema(minimum = 1, maximum = 100_000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct KeepCheckResponse {
    pub conversation_id: String,
    /// What the summary left out, in the budget's tier order: the latest
    /// request under the pinned heading `Where things stand:`, the rest under
    /// `Kept word for word:`, and a last line counting what did not fit and
    /// naming the reads that find it; empty when the summary holds every item.
    pub missing: String,
    /// Its length, counted with the service's tokenizer.
    pub missing_tokens: u64,
    /// The room it was fitted to.
    pub max_tokens: u64,
    /// Per kind: items checked, present in the summary, given back in
    /// `missing` (`appended`), left out for want of room (`parked`), and the
    /// identifiers the summary names that the conversation never did
    /// (`invented`).
    pub keep: KeepCounts,
    /// The paths, ids, URLs and figures the summary names that appear in
    /// none of the conversation's stored turns (the newest 16 MiB of them),
    /// its keep set, summary or memory, in order: of the first 200 it names
    /// that the keep set, summary and memory do not hold. What the keep
    /// guard marks `[unverified]` in a model's summary. `null` when no turn
    /// of the conversation is stored to tell by.
    pub invented: Option<Vec<InventedName>>,
}

/// A name a summary holds that the conversation never did.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct InventedName {
    /// path, url, id or quantity.
    pub kind: String,
    pub text: String,
}

fn parse(tenant: TenantId, id: ConversationId, request: KeepCheckRequest) -> Result<Check, InvalidValue> {
    let max_tokens = request
        .max_tokens
        .map(|n| Count::parse("max_tokens", n).map(Count::get))
        .transpose()?;
    if let Some(n) = max_tokens
        && !(1..=MAX_TOKENS).contains(&n)
    {
        return Err(InvalidValue::new("max_tokens", format!("must be 1 to {MAX_TOKENS}")));
    }
    let chars = request.text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(InvalidValue::new(
            "text",
            format!("must be at most {MAX_TEXT_CHARS} characters, not {chars}"),
        ));
    }
    Ok(Check {
        tenant,
        id,
        text: storable(request.text),
        max_tokens,
    })
}

impl Render for Checked {
    fn render(self, _: &AppState) -> ApiResult<Reply> {
        Reply::ok(&KeepCheckResponse {
            conversation_id: self.id.to_string(),
            missing: self.missing,
            missing_tokens: self.tokens,
            max_tokens: self.max_tokens,
            keep: KeepCounts::from(&self.figures),
            invented: self.invented.map(|names| {
                names
                    .into_iter()
                    .map(|(kind, text)| InventedName {
                        kind: kind.as_str().to_owned(),
                        text,
                    })
                    .collect()
            }),
        })
    }
}

/// Check a summary against the keep set
///
/// For a harness that compacts by itself (Claude Code, Codex): which of the
/// conversation's must-keep items its summary does not hold word for word,
/// written as the keep guard appends them and fitted to `max_tokens`, so the
/// harness can give them back to its agent; and the paths, ids, URLs and
/// figures it names that the conversation never did (`invented`), for the
/// harness to mark unverified. Reads only; nothing is saved.
/// A check reads the summary once however many items the keep set holds; a
/// few run at once in a process and a tenant's take their turn one at a
/// time, so one waiting past the request's deadline is answered 503.
#[utoipa::path(
    post,
    path = "/conversations/{id}/keep/check",
    tag = "conversations",
    operation_id = "check_keep_set",
    request_body = KeepCheckRequest,
    params(ConversationIdParam, IdempotencyKeyParam),
    responses(
        (status = 200, description = "What the summary left out, and the figures by kind.", body = KeepCheckResponse),
        ReportProblems,
        NoSuchConversation,
        (status = 409, description = "`max_tokens` is under the room this conversation's headings and parked line take (the detail names the least), or a request with this Idempotency-Key is in flight.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The check waited its turn past the request's deadline, or the database is unavailable; retry after the time given.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn check(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    key: IdempotencyKey,
    body: JsonBody<KeepCheckRequest>,
) -> ApiResult<Response> {
    let route = format!("POST /conversations/{id}/keep/check");
    let about = id.as_str().to_owned();
    let command = parse(caller.tenant.clone(), id, body.value)?;
    idempotency::run_about(&app, &caller, key, (&route, &about), &body.raw, command).await
}
