//! A conversation's compactions, newest first (SPEC §3
//! `GET /conversations/{id}/compactions`, MCP `get_compactions`).

use crate::app::{AppResult, Services};
use crate::domain::{ConversationId, TenantId};
use crate::records::Recorded;
use crate::store::ledger::{self};

/// One page of the ledger's rows, and the seq the next page reads before.
#[derive(Debug)]
pub(crate) struct CompactionsPage {
    pub rows: Vec<Recorded>,
    /// `None` on the last page.
    pub next_before_seq: Option<i64>,
}

/// Up to `limit` compactions with a seq below `before` (all when `None`).
pub(crate) async fn of_conversation(
    services: &Services,
    tenant: &TenantId,
    id: &ConversationId,
    before: Option<i64>,
    limit: u32,
) -> AppResult<CompactionsPage> {
    let mut conn = services.warm.acquire().await?;
    super::stored(&mut conn, tenant, id).await?;
    let rows = ledger::of_conversation(&mut conn, tenant, id, before, limit.into()).await?;
    let next_before_seq = (rows.len() == limit as usize)
        .then(|| rows.last().map(|r| r.seq))
        .flatten();
    Ok(CompactionsPage { rows, next_before_seq })
}
