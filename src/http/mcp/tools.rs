//! The tools: each checks its arguments as the REST read checks its query,
//! calls the same read use case (`app::queries`), and answers the REST
//! read's JSON.

use axum::http::request::Parts;
use rmcp::handler::server::tool::Extension;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

use super::arguments::{Arguments, schema_of};
use crate::app::{AppResult, queries};
use crate::auth;
use crate::domain::{ConversationId, InvalidValue, TenantId};
use crate::http::AppState;
use crate::http::error::ApiError;
use crate::http::routes::{compactions, context, keep, turns};
use crate::summary::keep::KeepKind;

/// What the agent asks, or why not: a problem as the REST API writes it.
/// A tool's answer: the REST read's JSON as structured content (and as
/// text, for clients that read only that), or its problem as an error.
type Answer = Result<CallToolResult, CallToolResult>;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchHistory {
    /// The conversation (its id; for a rolled-over conversation, its predecessor's).
    pub conversation_id: String,
    /// A turn id (the handoff's bookmark, 42 or "42"): read back from it, it included.
    pub from: Option<Bookmark>,
    /// Words to search the turns for ("quoted phrases", -excluded); best matches first.
    pub q: Option<String>,
    /// At most this many turns (1–200, default 20).
    pub limit: Option<u32>,
}

/// A turn id as a number or as the text a handoff quotes it in.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum Bookmark {
    Number(u64),
    Text(String),
}

impl Bookmark {
    fn turn_id(self) -> Result<u64, InvalidValue> {
        match self {
            Self::Number(id) => Ok(id),
            Self::Text(text) => text
                .trim()
                .trim_matches('"')
                .parse()
                .map_err(|_| InvalidValue::new("from", "must be a turn id: a whole number, as 42 or \"42\"")),
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetContext {
    pub conversation_id: String,
    /// The newest live turns to carry (0–200, default 8).
    pub recent: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetKeepSet {
    pub conversation_id: String,
    /// Only items of this kind: request, prohibition, path, url, id, command, quantity or file_changed.
    pub kind: Option<String>,
    /// At most this many items (1–5,000, default 500), in the order a summary takes them.
    pub limit: Option<u32>,
    /// Only items whose text holds these characters, in any case (a file name, a folder, an id).
    pub q: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetCompactions {
    pub conversation_id: String,
    /// At most this many (1–500, default 50), newest first.
    pub limit: Option<u32>,
    /// Only compactions with a seq below this one (the previous page's last).
    pub before_seq: Option<u64>,
}

/// The tools, for one call: the service's state.
#[derive(Clone)]
pub(crate) struct Tools {
    app: AppState,
}

#[tool_router]
impl Tools {
    pub(crate) fn new(app: AppState) -> Self {
        Self { app }
    }

    #[tool(
        description = "Read a conversation's stored turns: from a bookmark (the turn id a handoff names) onward, or the turns best matching some words. Each turn has its user and assistant text, its time and its score.",
        input_schema = schema_of::<SearchHistory>()
    )]
    async fn search_history(
        &self,
        Extension(parts): Extension<Parts>,
        Arguments(args): Arguments<SearchHistory>,
    ) -> Answer {
        let args = args.map_err(|err| refusal(&err))?;
        let from = args
            .from
            .map(Bookmark::turn_id)
            .transpose()
            .map_err(|err| refusal(&ApiError::from(err)))?;
        let query = turns::TurnsQuery {
            from,
            q: args.q,
            limit: args.limit,
        };
        let asked = query.checked().map_err(|err| refusal(&err.into()))?;
        let (tenant, id) = who(&parts, args.conversation_id)?;
        let page = queries::turns::page(&self.app.services, &tenant, &id, asked).await;
        answer(page.map(|page| turns::TurnsPage::new(&id, page)))
    }

    #[tool(
        description = "A conversation's context, ready to send: its critical turns word for word, its rolling memory and its newest live turns.",
        input_schema = schema_of::<GetContext>()
    )]
    async fn get_context(&self, Extension(parts): Extension<Parts>, Arguments(args): Arguments<GetContext>) -> Answer {
        let args = args.map_err(|err| refusal(&err))?;
        let query = context::ContextQuery { recent: args.recent };
        let recent = query.checked().map_err(|err| refusal(&err.into()))?;
        let (tenant, id) = who(&parts, args.conversation_id)?;
        let read = queries::context::context(&self.app.services, &tenant, &id, recent).await;
        answer(read.map(context::Context::from))
    }

    #[tool(
        description = "A conversation's keep set: every must-keep item (the latest request, the user's rules, paths, URLs, ids, commands, quantities, files changed), who said it, where, and whether the current summary holds it word for word.",
        input_schema = schema_of::<GetKeepSet>()
    )]
    async fn get_keep_set(&self, Extension(parts): Extension<Parts>, Arguments(args): Arguments<GetKeepSet>) -> Answer {
        let args = args.map_err(|err| refusal(&err))?;
        let kind = match args.kind {
            Some(name) => Some(KeepKind::parse(&name).ok_or_else(|| {
                let kinds: Vec<_> = KeepKind::names().collect();
                refusal(&ApiError::from(InvalidValue::new(
                    "kind",
                    format!("unknown value `{name}`, expected one of: {}", kinds.join(", ")),
                )))
            })?),
            None => None,
        };
        let query = keep::KeepQuery {
            kind,
            limit: args.limit,
            q: args.q,
        };
        let asked = query.checked().map_err(|err| refusal(&err.into()))?;
        let (tenant, id) = who(&parts, args.conversation_id)?;
        let page = queries::keep::keep_set(&self.app.services, &tenant, &id, asked).await;
        answer(page.map(|page| keep::KeepSetView::new(&id, page)))
    }

    #[tool(
        description = "A conversation's compactions, newest first: when, why (the trigger), who wrote the summary, tokens before and after, the summary itself and what became of the keep set's items.",
        input_schema = schema_of::<GetCompactions>()
    )]
    async fn get_compactions(
        &self,
        Extension(parts): Extension<Parts>,
        Arguments(args): Arguments<GetCompactions>,
    ) -> Answer {
        let args = args.map_err(|err| refusal(&err))?;
        let query = compactions::ConversationCompactionsQuery {
            limit: args.limit,
            before_seq: args.before_seq,
        };
        let (before, limit) = query.checked().map_err(|err| refusal(&err.into()))?;
        let (tenant, id) = who(&parts, args.conversation_id)?;
        let page = queries::compactions::of_conversation(&self.app.services, &tenant, &id, before, limit).await;
        answer(page.map(|page| compactions::ConversationCompactions::new(&id, page)))
    }
}

#[tool_handler(
    name = "compactd",
    instructions = "compactd keeps this agent's conversations: their stored turns, keep sets and compactions. After a handoff, call search_history with the conversation and the bookmark it names to read the earlier conversation."
)]
impl ServerHandler for Tools {}

/// The tenant of the caller the middleware let in, and the conversation id
/// checked.
fn who(parts: &Parts, conversation_id: String) -> Result<(TenantId, ConversationId), CallToolResult> {
    let caller = parts
        .extensions
        .get::<auth::Caller>()
        .ok_or_else(|| refusal(&ApiError::Internal("an MCP call without its caller".to_owned())))?;
    let id = ConversationId::parse("conversation_id", conversation_id).map_err(|err| refusal(&ApiError::from(err)))?;
    Ok((caller.tenant.clone(), id))
}

/// The read's view as the REST read answers it, or its refusal.
fn answer<T: Serialize>(read: AppResult<T>) -> Answer {
    match read {
        Ok(view) => serde_json::to_value(&view)
            .map(CallToolResult::structured)
            .map_err(|err| refusal(&ApiError::Internal(err.to_string()))),
        Err(err) => Err(refusal(&err.into())),
    }
}

/// A refusal as the REST API would write it; what is internal is logged, not told.
fn refusal(err: &ApiError) -> CallToolResult {
    if let ApiError::Internal(text) = err {
        tracing::error!(error = %text, "an MCP tool failed");
    }
    match serde_json::to_value(err.problem()) {
        Ok(problem) => CallToolResult::structured_error(problem),
        Err(_) => CallToolResult::error(vec![ContentBlock::text(err.to_string())]),
    }
}
