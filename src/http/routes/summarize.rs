//! POST /summarize (SPEC §3, §4): compact a conversation — write its new
//! summary on top of the anchor, record the attempt, and apply it.

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};

use crate::app::summarize::{self, Overflow, Summarized};
use crate::auth;
use crate::domain::text::storable;
use crate::domain::transcript::{Message, Role, ToolCall};
use crate::domain::{self, At, ConversationId, Count, HarnessName, InvalidValue};
use crate::http::AppState;
use crate::http::error::{ApiError, ApiResult, Problem};
use crate::http::extract::{Caller, IdempotencyKey, IdempotencyKeyParam, JsonBody};
use crate::http::idempotency::{self, Render, Reply};
use crate::http::problems::ReportProblems;
use crate::http::views::conversation::ConversationState;
use crate::http::views::ledger::Compaction;
use crate::policy::CompactionTrigger;
use crate::summary::write::KEEP_INSTRUCTIONS;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/summarize", post(summarize))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SummarizeRequest {
    #[schema(
        example = "support-4711",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$"
    )]
    pub conversation_id: String,
    /// The transcript since the last boundary; absent: the turns stored since it.
    pub messages: Option<Vec<TranscriptMessage>>,
    /// A summary the harness wrote itself: recorded as is, no LLM is called.
    pub summary: Option<String>,
    /// What to record it as; absent: the pending decision's trigger, else `manual`.
    pub trigger: Option<CompactionTrigger>,
    /// The caller asked for it (default true); counts toward `too_many_today`.
    pub by_host: Option<bool>,
    /// Compacted while idle (default false).
    pub idle: Option<bool>,
    /// The context's size before; absent: counted with a real tokenizer.
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub tokens_before: Option<u64>,
    /// Keep about this many tokens of the newest messages verbatim.
    #[serde(default, deserialize_with = "crate::http::extract::whole::optional")]
    pub keep_recent_tokens: Option<u64>,
    /// When it happened (RFC 3339); the server's clock when absent.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub at: Option<String>,
    /// Which harness the compaction is for, usually the one that wrote
    /// `summary` (`claude-code`, `codex`, …): the ledger keeps it, and
    /// `/compactions?harness=` lists that harness's compactions.
    #[schema(
        example = "claude-code",
        min_length = 1,
        max_length = 40,
        pattern = r"^[a-z0-9][a-z0-9._-]{0,39}$"
    )]
    pub harness: Option<String>,
    /// With `summary`: identifiers the caller found in it that the
    /// conversation never named (a path, an id, a figure the harness made
    /// up), each as it stands in `summary`, at most 200. The ledger counts
    /// them by kind (`keep.invented`), as it counts a model's.
    #[schema(max_items = 200, example = json!(["src/billing/retry_v2.rs"]))]
    pub invented: Option<Vec<String>>,
}

/// The most invented identifiers a request may name.
const MAX_INVENTED: usize = 200;

/// The caller's invented identifiers, each one it found in its `summary`.
fn invented(summary: Option<&str>, invented: Option<Vec<String>>) -> Result<Vec<String>, InvalidValue> {
    let Some(invented) = invented.filter(|names| !names.is_empty()) else {
        return Ok(Vec::new());
    };
    let Some(summary) = summary else {
        return Err(InvalidValue::new(
            "invented",
            "names what a summary the caller wrote made up: give it with `summary`",
        ));
    };
    if invented.len() > MAX_INVENTED {
        return Err(InvalidValue::new(
            "invented",
            format!("names at most {MAX_INVENTED} identifiers"),
        ));
    }
    if let Some(absent) = invented
        .iter()
        .find(|name| name.trim().is_empty() || !summary.contains(name.as_str()))
    {
        return Err(InvalidValue::new(
            "invented",
            format!("{absent:?} is not in `summary`: name each identifier as it stands there"),
        ));
    }
    Ok(invented)
}

/// One message in the common chat shape.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TranscriptMessage {
    pub role: Role,
    /// The text (null for an assistant message that only calls tools).
    pub content: Option<String>,
    /// Who spoke, in group chats.
    pub name: Option<String>,
    pub tool_calls: Option<Vec<TranscriptToolCall>>,
    /// The call a `tool` message answers.
    pub tool_call_id: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TranscriptToolCall {
    pub id: String,
    pub name: String,
    /// The arguments: the JSON string the model wrote, or the object itself.
    #[schema(schema_with = arguments_schema)]
    pub arguments: Option<serde_json::Value>,
}

fn arguments_schema() -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::String))
        .item(ObjectBuilder::new().schema_type(Type::Object))
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .into()
}

impl TranscriptMessage {
    /// The message, its texts storable; `at` names it in errors.
    fn into_message(self, at: usize) -> Result<Message, InvalidValue> {
        let tool_calls = self
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, call)| {
                let arguments = match call.arguments {
                    Some(serde_json::Value::String(text)) => storable(text),
                    Some(object @ serde_json::Value::Object(_)) => object.to_string(),
                    None | Some(serde_json::Value::Null) => "{}".to_owned(),
                    Some(_) => {
                        let field = format!("messages[{at}].tool_calls[{i}].arguments");
                        return Err(InvalidValue::new(field, "must be a JSON string or an object"));
                    }
                };
                Ok(ToolCall {
                    id: storable(call.id),
                    name: storable(call.name),
                    arguments,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Message {
            role: self.role,
            name: self.name.map(storable),
            content: storable(self.content.unwrap_or_default()),
            tool_calls,
            tool_call_id: self.tool_call_id.map(storable),
        })
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SummarizeResponse {
    pub success: bool,
    /// The new summary; on failure, the prior one, unchanged.
    pub summary: Option<String>,
    pub error: Option<String>,
    pub keep_instructions: String,
    pub compaction: Compaction,
    /// Present when even the compacted result does not fit the window.
    pub overflow: Option<Overflow>,
    pub state: ConversationState,
}

/// The request, its values checked; a `manual_recovery` boundary takes an admin.
pub(crate) fn parse(caller: &auth::Caller, request: SummarizeRequest) -> Result<summarize::Request, ApiError> {
    let count = |field: &str, value: Option<u64>| value.map(|v| Count::parse(field, v).map(Count::get)).transpose();
    let trigger = request.trigger;
    let harness = request
        .harness
        .map(|name| HarnessName::parse("harness", name))
        .transpose()?;
    if trigger == Some(CompactionTrigger::ManualRecovery) && caller.role != domain::KeyRole::Admin {
        return Err(ApiError::Forbidden(
            "manual_recovery boundaries take an admin key".to_owned(),
        ));
    }
    let invented = invented(request.summary.as_deref(), request.invented)?;
    Ok(summarize::Request {
        invented,
        tenant: caller.tenant.clone(),
        id: ConversationId::parse("conversation_id", request.conversation_id)?,
        messages: request
            .messages
            .map(|messages| {
                messages
                    .into_iter()
                    .enumerate()
                    .map(|(at, message)| message.into_message(at))
                    .collect()
            })
            .transpose()?,
        summary: request.summary.map(storable),
        trigger,
        by_host: request.by_host.unwrap_or(true),
        idle: request.idle.unwrap_or(false),
        tokens_before: count("tokens_before", request.tokens_before)?,
        keep_recent_tokens: count("keep_recent_tokens", request.keep_recent_tokens)?,
        at: At::parse_or_now("at", request.at.as_deref())?.get(),
        harness,
    })
}

impl Render for Summarized {
    fn render(self, app: &AppState) -> ApiResult<Reply> {
        Reply::ok(&SummarizeResponse {
            success: self.recorded.success,
            summary: self.summary,
            error: self.recorded.error.clone(),
            keep_instructions: KEEP_INSTRUCTIONS.to_owned(),
            compaction: Compaction::from(self.recorded),
            overflow: self.overflow,
            state: ConversationState::new(self.stored, &app.services.policy),
        })
    }
}

/// Compact a conversation
///
/// Writes the new summary by anchored iterative summarization (the prior
/// summary is the anchor, the transcript since the boundary the delta), checks
/// that it kept every must-keep item, records the attempt in the ledger and,
/// on success, applies the compaction. An upstream failure still answers 200,
/// with `success: false` and the prior summary unchanged.
#[utoipa::path(
    post,
    path = "/summarize",
    tag = "compactions",
    request_body = SummarizeRequest,
    params(IdempotencyKeyParam),
    responses(
        (status = 200, description = "The attempt, successful or not, and the state after it.", body = SummarizeResponse),
        ReportProblems,
        (status = 404, description = "No such conversation.", body = Problem, content_type = "application/problem+json"),
                (status = 409, description = "A compaction of it, or a request with this Idempotency-Key, is running; or there is nothing to summarize.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn summarize(
    State(app): State<AppState>,
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<SummarizeRequest>,
) -> ApiResult<Response> {
    let command = parse(&caller, body.value)?;
    idempotency::run(&app, &caller, key, "POST /summarize", &body.raw, command).await
}
