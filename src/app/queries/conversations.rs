//! A tenant's conversations as an operator looks for one (issue 22): newest
//! first, or those whose id starts with what was typed — the dashboard's
//! picker, and `GET /conversations` for curl; one conversation's state
//! (`GET /conversations/{id}`) and its events (`…/events`).

use crate::app::{AppResult, Services};
use crate::domain::{ConversationId, TenantId};
use crate::records::StoredConversation;
use crate::store::conversations::{self, Listed};
use crate::store::events::{self, Event};
use crate::store::fleet_read;

/// The most conversations one answer lists.
pub(crate) const MAX_LISTED: u32 = 100;

/// At most `limit` of the tenant's conversations whose id starts with
/// `prefix` (every one without), newest first; and whether more exist.
pub(crate) async fn newest(
    services: &Services,
    tenant: &TenantId,
    prefix: Option<&ConversationId>,
    limit: u32,
) -> AppResult<(Vec<Listed>, bool)> {
    // A fleet read (the dashboard's list): on the standby while it keeps up.
    let prefix = prefix.map_or("", ConversationId::as_str);
    // One more than asked says whether there are more.
    let mut listed = fleet_read!(services.reads, |tx| conversations::newest(
        tx,
        tenant,
        prefix,
        i64::from(limit) + 1
    )
    .await)
    .await?;
    let more = listed.len() > limit as usize;
    listed.truncate(limit as usize);
    Ok((listed, more))
}

/// One conversation as stored.
pub(crate) async fn one(services: &Services, tenant: &TenantId, id: &ConversationId) -> AppResult<StoredConversation> {
    let mut conn = services.warm.acquire().await?;
    super::stored(&mut conn, tenant, id).await
}

/// Up to `limit` of a conversation's events after `after`, oldest first.
pub(crate) async fn events(
    services: &Services,
    tenant: &TenantId,
    id: &ConversationId,
    after: i64,
    limit: u32,
) -> AppResult<(StoredConversation, Vec<Event>)> {
    let mut conn = services.warm.acquire().await?;
    let stored = super::stored(&mut conn, tenant, id).await?;
    let page = events::list(&mut conn, tenant, id, after, i64::from(limit)).await?;
    Ok((stored, page))
}
