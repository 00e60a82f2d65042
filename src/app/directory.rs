//! A tenant's conversations as an operator looks for one (issue 22): newest
//! first, or those whose id starts with what was typed — the dashboard's
//! picker, and `GET /conversations` for curl.

use crate::app::{Outcome, Services};
use crate::domain::{ConversationId, TenantId};
use crate::store::conversations::{self, Listed};

/// The most conversations one answer lists.
pub(crate) const MAX_LISTED: u32 = 100;

/// At most `limit` of the tenant's conversations whose id starts with
/// `prefix` (every one without), newest first; and whether more exist.
pub(crate) async fn newest(
    services: &Services,
    tenant: &TenantId,
    prefix: Option<&ConversationId>,
    limit: u32,
) -> Outcome<(Vec<Listed>, bool)> {
    let mut conn = services.pool.acquire().await.map_err(crate::store::StoreError::from)?;
    let prefix = prefix.map_or("", ConversationId::as_str);
    // One more than asked says whether there are more.
    let mut listed = conversations::newest(&mut conn, tenant, prefix, i64::from(limit) + 1).await?;
    let more = listed.len() > limit as usize;
    listed.truncate(limit as usize);
    Ok((listed, more))
}
