//! GET /conversations/{id}/turns (SPEC §3): stored turns read back from a
//! bookmark, or found by full-text search — what an agent's `search_history`
//! tool calls. Turns evicted from the live context are still here.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::history::{Page, Said};
use crate::app::queries::turns;
use crate::domain::{ConversationId, Count, InvalidValue};
use crate::http::AppState;
use crate::http::error::{ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath, QueryParams};
use crate::http::problems::NoSuchConversation;

/// The most turns one page holds.
pub(crate) const MAX_TURNS: u32 = 200;
/// The longest search accepted.
pub(crate) const MAX_QUERY_CHARS: usize = 500;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/conversations/{id}/turns", get(list_turns))
        .route("/conversations/{id}/turns/{turn}", get(show_turn))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct TurnsQuery {
    /// A turn id (a bookmark): read back from it, it included. Absent: from
    /// the newest. One past this conversation's newest turn is its
    /// predecessor's (the bookmark a handoff quotes).
    pub from: Option<u64>,
    /// Search the turns' text (words, "quoted phrases", -excluded); best matches first.
    #[param(max_length = 500, pattern = r"^[^\x00]*$")]
    pub q: Option<String>,
    /// At most this many (1–200, default 20).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TurnView {
    /// Its id: the bookmark to read back from.
    pub id: i64,
    /// The conversation it was said in: this one, or a predecessor's.
    pub conversation_id: String,
    pub at: DateTime<Utc>,
    pub user_messages: u64,
    /// In a page, each text's first 16,384 characters: `clipped` says when
    /// either was cut, `GET …/turns/{turn}` reads it whole.
    pub user: Option<String>,
    pub assistant: Option<String>,
    /// The texts' whole lengths, in characters.
    pub user_chars: Option<u64>,
    pub assistant_chars: Option<u64>,
    pub clipped: bool,
    /// How much it matters, 1–5 (SPEC §5); null until scored.
    pub score: Option<u8>,
    /// Who scored it: `llm`, `heuristic` or `audit`.
    pub scored_by: Option<String>,
    /// An audit scored it 5: it is served word for word by /context.
    pub critical: bool,
    /// Out of the live context since an audit; still stored and readable.
    pub evicted: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct TurnsPage {
    pub conversation_id: String,
    /// Newest first when reading back; best first when searching. Past
    /// its first turn, a rolled-over conversation's predecessors follow,
    /// newest first, from the turn each handoff named.
    pub turns: Vec<TurnView>,
    /// Pass as `from`, with `next_conversation_id` as the conversation, to
    /// read further back; null when there is no more.
    pub next_from: Option<i64>,
    /// The conversation the next page reads (this one or a predecessor).
    pub next_conversation_id: Option<String>,
}

impl TurnView {
    pub(super) fn new(said: Said) -> Self {
        let Said {
            conversation,
            turn,
            critical,
        } = said;
        Self {
            id: turn.seq,
            conversation_id: conversation,
            at: turn.at,
            user_messages: turn.user_messages,
            critical,
            clipped: turn.is_clipped(),
            user_chars: turn.user_chars,
            assistant_chars: turn.assistant_chars,
            user: turn.user,
            assistant: turn.assistant,
            score: turn.score,
            scored_by: turn.score_source,
            evicted: turn.evicted,
        }
    }
}

/// A conversation's stored turns
#[utoipa::path(
    get,
    path = "/conversations/{id}/turns",
    tag = "conversations",
    params(ConversationIdParam, TurnsQuery),
    responses(
        (status = 200, description = "Turns read back from the bookmark, or the search's best matches.", body = TurnsPage),
        NoSuchConversation,
        (status = 422, description = "The id or a parameter is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn list_turns(
    State(app): State<AppState>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
    QueryParams(query): QueryParams<TurnsQuery>,
) -> ApiResult<Json<TurnsPage>> {
    let page = turns::page(&app.services, &caller.tenant, &id, query.checked()?).await?;
    Ok(Json(TurnsPage::new(&id, page)))
}

impl TurnsQuery {
    /// What the page asks for, checked as REST and MCP check it.
    pub(crate) fn checked(self) -> Result<turns::Asked, InvalidValue> {
        let limit = self.limit.unwrap_or(20);
        if !(1..=MAX_TURNS).contains(&limit) {
            return Err(InvalidValue::new("limit", format!("must be 1 to {MAX_TURNS}")));
        }
        let from = self
            .from
            .map(|from| Count::parse("from", from).map(Count::to_i64))
            .transpose()?;
        let search = self.q.map(|q| q.trim().to_owned()).filter(|q| !q.is_empty());
        if let Some(q) = &search
            && (q.chars().count() > MAX_QUERY_CHARS || q.contains('\0'))
        {
            return Err(InvalidValue::new(
                "q",
                format!("must be at most {MAX_QUERY_CHARS} characters, without NUL"),
            ));
        }
        Ok(turns::Asked { from, search, limit })
    }
}

impl TurnsPage {
    pub(crate) fn new(id: &ConversationId, page: Page) -> Self {
        let (next_conversation_id, next_from) = page.next.unzip();
        Self {
            conversation_id: id.to_string(),
            turns: page.turns.into_iter().map(TurnView::new).collect(),
            next_from,
            next_conversation_id,
        }
    }
}

/// One stored turn, whole
///
/// What a page of turns clipped (`clipped: true`), read in full.
#[utoipa::path(
    get,
    path = "/conversations/{id}/turns/{turn}",
    tag = "conversations",
    operation_id = "get_turn",
    params(ConversationIdParam, ("turn" = u64, Path, description = "The turn's id (its bookmark).", minimum = 1, maximum = 9_223_372_036_854_775_807_u64)),
    responses(
        (status = 200, description = "The turn, its texts whole.", body = TurnView),
        (status = 404, description = "No such conversation or turn for this tenant.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The id or the turn is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn show_turn(
    State(app): State<AppState>,
    caller: Caller,
    axum::extract::Path((raw_id, raw_turn)): axum::extract::Path<(String, String)>,
) -> ApiResult<Json<TurnView>> {
    let id = ConversationId::parse("conversation_id", raw_id)?;
    let seq = raw_turn
        .parse::<u64>()
        .map_err(|_| InvalidValue::new("turn", "must be a turn id, a whole number"))
        .and_then(|seq| Count::parse("turn", seq).map(Count::to_i64))?;
    Ok(Json(TurnView::new(
        turns::one(&app.services, &caller.tenant, &id, seq).await?,
    )))
}
