//! A conversation's keep set as its readers ask for it (SPEC §3
//! `GET /conversations/{id}/keep`, MCP `get_keep_set`): brought up to date
//! with the stored turns, in the order a summary takes its items, filtered,
//! each with whether the current summary holds it word for word.

use crate::app::keep_set;
use crate::app::{AppResult, Services};
use crate::domain::{ConversationId, TenantId};
use crate::summary::keep::{KeepItem, KeepKind};
use crate::summary::write::Presence;

/// What the reader asks for, checked.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    pub kind: Option<KeepKind>,
    /// Characters an item's text holds, lower-cased, never empty.
    pub needle: Option<String>,
    pub limit: u32,
}

/// The items asked for, of all that match.
#[derive(Debug)]
pub(crate) struct KeepPage {
    /// Each item, and whether the current summary holds it.
    pub items: Vec<(KeepItem, bool)>,
    /// How many matched.
    pub total: u64,
    /// More matched than were asked for.
    pub truncated: bool,
}

pub(crate) async fn keep_set(
    services: &Services,
    tenant: &TenantId,
    id: &ConversationId,
    asked: Asked,
) -> AppResult<KeepPage> {
    let mut conn = services.warm.acquire().await?;
    let stored = super::stored(&mut conn, tenant, id).await?;
    let current = keep_set::current(&mut conn, tenant, id, &services.summaries.harness).await?;
    drop(conn);
    let summary = Presence::of(stored.summary.as_ref().map_or("", |(text, _)| text.as_str()));
    let ranked = current.set.ranked();
    let unranked = current.set.items().iter().filter(|item| item.tier().is_none());
    let ordered: Vec<&KeepItem> = ranked
        .iter()
        .map(|(_, item)| *item)
        .chain(unranked)
        .filter(|item| asked.kind.is_none_or(|kind| item.kind == kind))
        .filter(|item| {
            (asked.needle)
                .as_ref()
                .is_none_or(|q| item.text.to_lowercase().contains(q.as_str()))
        })
        .collect();
    let total = ordered.len() as u64;
    let page: Vec<&KeepItem> = ordered.into_iter().take(asked.limit as usize).collect();
    // The summary read once for the whole page, not once an item.
    let held = summary.holds_each(&page);
    Ok(KeepPage {
        total,
        truncated: total > u64::from(asked.limit),
        items: page.into_iter().cloned().zip(held).collect(),
    })
}
