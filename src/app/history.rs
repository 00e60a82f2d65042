//! Reading a conversation's past (SPEC §3, `GET /conversations/{id}/turns`;
//! issue 22): its stored turns read back from a bookmark or found by search,
//! and past its first turn its predecessors' — a rolled-over agent reads what
//! came before with its own conversation's id and the bookmark its handoff
//! quoted. Each turn names the conversation it was said in.

use sqlx::PgConnection;

use crate::domain::{ConversationId, TenantId};
use crate::records::StoredConversation;
use crate::store::turns::{self, Turn};
use crate::store::{StoreResult, conversations, handoffs};

/// How far back a lineage is read: rollovers upon rollovers end somewhere.
const MAX_LINEAGE: usize = 32;

/// A turn and where it was said.
#[derive(Debug)]
pub(crate) struct Said {
    pub conversation: String,
    pub turn: Turn,
    /// An audit scored it 5: `/context` serves it word for word.
    pub critical: bool,
}

/// One page of the past, and where the next begins.
#[derive(Debug, Default)]
pub(crate) struct Page {
    pub turns: Vec<Said>,
    /// The conversation and the bookmark to read on from; `None`: no more.
    pub next: Option<(String, i64)>,
}

impl Page {
    /// How many more turns a page of `limit` takes.
    fn room(&self, limit: i64) -> i64 {
        limit - i64::try_from(self.turns.len()).unwrap_or(limit)
    }
}

/// One conversation of the lineage as the reader walks it.
struct Step {
    stored: StoredConversation,
    id: ConversationId,
}

impl Step {
    fn said(&self, turn: Turn) -> Said {
        let critical = self.stored.critical.iter().any(|c| c.turn_id == turn.seq);
        Said {
            conversation: self.id.to_string(),
            turn,
            critical,
        }
    }

    /// Its predecessor, and the turn of it the handoff named (its newest
    /// when the handoff named none, or a bookmark that is not a turn).
    async fn predecessor(&self, conn: &mut PgConnection, tenant: &TenantId) -> StoreResult<Option<(Self, i64)>> {
        let Some(id) = self.stored.predecessor_id.clone() else {
            return Ok(None);
        };
        let Some(stored) = conversations::find(conn, tenant, &id).await? else {
            return Ok(None);
        };
        let bookmark = handoffs::recorded(conn, tenant, &id, self.id.as_str())
            .await?
            .and_then(|recorded| recorded.bookmark?.trim().parse::<i64>().ok())
            .filter(|seq| (1..=stored.last_turn_seq).contains(seq))
            .unwrap_or(stored.last_turn_seq);
        Ok(Some((Self { stored, id }, bookmark)))
    }
}

/// Up to `limit` turns read back from `from` (the newest when `None`): a
/// bookmark past the conversation's newest turn is its predecessor's (the
/// one a handoff quotes); a conversation read to its first turn goes on in
/// its predecessor from the turn the handoff named.
pub(crate) async fn back_from(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: ConversationId,
    stored: StoredConversation,
    from: Option<i64>,
    limit: i64,
) -> StoreResult<Page> {
    let mut step = Step { stored, id };
    let mut from = from;
    let mut page = Page::default();
    for _ in 0..MAX_LINEAGE {
        if let Some(bookmark) = from
            && bookmark > step.stored.last_turn_seq
            && let Some((predecessor, _)) = step.predecessor(conn, tenant).await?
        {
            step = predecessor;
            continue;
        }
        let read = turns::back_from(conn, tenant, &step.id, from, page.room(limit)).await?;
        let oldest = read.last().map(|turn| turn.seq);
        page.turns.extend(read.into_iter().map(|turn| step.said(turn)));
        let full = page.room(limit) <= 0;
        match oldest.filter(|seq| *seq > 1) {
            Some(seq) if full => {
                page.next = Some((step.id.to_string(), seq - 1));
                return Ok(page);
            }
            _ => {}
        }
        let Some((predecessor, bookmark)) = step.predecessor(conn, tenant).await? else {
            return Ok(page);
        };
        if full {
            page.next = Some((predecessor.id.to_string(), bookmark));
            return Ok(page);
        }
        step = predecessor;
        from = Some(bookmark);
    }
    Ok(page)
}

/// Up to `limit` turns matching `query`: the conversation's best first (at
/// or before `from`), then each predecessor's, newest conversation first.
pub(crate) async fn search(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: ConversationId,
    stored: StoredConversation,
    query: &str,
    from: Option<i64>,
    limit: i64,
) -> StoreResult<Page> {
    let mut step = Step { stored, id };
    let mut from = from;
    let mut page = Page::default();
    for _ in 0..MAX_LINEAGE {
        if page.room(limit) <= 0 {
            break;
        }
        let found = turns::search(conn, tenant, &step.id, query, from, page.room(limit)).await?;
        page.turns.extend(found.into_iter().map(|turn| step.said(turn)));
        let Some((predecessor, _)) = step.predecessor(conn, tenant).await? else {
            break;
        };
        step = predecessor;
        from = None;
    }
    Ok(page)
}
