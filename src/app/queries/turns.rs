//! A conversation's stored turns (SPEC §3 `GET /conversations/{id}/turns`,
//! MCP `search_history`): a page read back from a bookmark or found by
//! search, bounded in bytes; and one turn, whole.

use crate::app::history::{self, Page, Said};
use crate::app::{AppResult, Refusal, Services};
use crate::domain::{ConversationId, TenantId};
use crate::store::turns;

/// The most text one page answers, in bytes: past it the page ends, and the
/// next one reads on (issue 23). A page holds one turn at least.
pub(crate) const MAX_PAGE_BYTES: usize = 1024 * 1024;

/// What a page asks for, checked.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    /// The bookmark to read back from, it included (`None`: the newest).
    pub from: Option<i64>,
    /// Words to search for, trimmed, never empty.
    pub search: Option<String>,
    pub limit: u32,
}

/// A page of turns, newest (or best) first, within [`MAX_PAGE_BYTES`].
pub(crate) async fn page(services: &Services, tenant: &TenantId, id: &ConversationId, asked: Asked) -> AppResult<Page> {
    let mut conn = services.warm.acquire().await?;
    let stored = super::stored(&mut conn, tenant, id).await?;
    let limit = i64::from(asked.limit);
    let mut page = match &asked.search {
        Some(q) => history::search(&mut conn, tenant, id.clone(), stored, q, asked.from, limit).await?,
        None => history::back_from(&mut conn, tenant, id.clone(), stored, asked.from, limit).await?,
    };
    let mut size = 0;
    let fit = page
        .turns
        .iter()
        .position(|said| {
            size +=
                said.turn.user.as_ref().map_or(0, String::len) + said.turn.assistant.as_ref().map_or(0, String::len);
            size > MAX_PAGE_BYTES
        })
        .map(|at| at.max(1));
    if let Some(at) = fit.filter(|at| *at < page.turns.len()) {
        // Read back, the next page begins at the first turn left out; a
        // search's further matches are its weaker ones.
        if asked.search.is_none() {
            let first_left_out = &page.turns[at];
            page.next = Some((first_left_out.conversation.clone(), first_left_out.turn.seq));
        }
        page.turns.truncate(at);
    }
    Ok(page)
}

/// One stored turn, its texts whole.
pub(crate) async fn one(services: &Services, tenant: &TenantId, id: &ConversationId, seq: i64) -> AppResult<Said> {
    let mut conn = services.warm.acquire().await?;
    let stored = super::stored(&mut conn, tenant, id).await?;
    let Some(turn) = turns::one(&mut conn, tenant, id, seq).await? else {
        return Err(Refusal::NotFound(format!(
            "no turn {seq} in conversation {:?}",
            id.as_str()
        )));
    };
    let critical = stored.critical.iter().any(|c| c.turn_id == turn.seq);
    Ok(Said {
        conversation: id.to_string(),
        turn,
        critical,
    })
}
