//! One read of what a preparation covers, shaped as a compaction's
//! (`app::summarize::gather`): the stored turns from the boundary through
//! the last it covers, the keep set and the turns it has not read; nothing
//! offered ahead of it, and no report of the agent's.

use super::still_stands;
use crate::app::Services;
use crate::app::summarize::gather::Gathered;
use crate::app::transcript::Gathered as Transcript;
use crate::records::StoredConversation;
use crate::store::preparations::Claimed;
use crate::store::{StoreResult, conversations, keep, turns};

/// Reads what the preparation covers; `None` when there is nothing (left)
/// to prepare: a compaction moved the conversation on, or no turn is covered.
pub(super) async fn gather(
    services: &Services,
    claimed: &Claimed,
) -> StoreResult<Option<(StoredConversation, Gathered)>> {
    let mut conn = services.warm.acquire().await?;
    let stored = conversations::find(&mut conn, &claimed.tenant, &claimed.conversation_id).await?;
    let Some(stored) = stored.filter(|stored| still_stands(stored, claimed)) else {
        return Ok(None);
    };
    let since = turns::since(
        &mut conn,
        &claimed.tenant,
        &claimed.conversation_id,
        claimed.boundary_turn_seq,
    )
    .await?;
    let covered: Vec<_> = since
        .into_iter()
        .filter(|turn| turn.seq <= claimed.through_turn_seq)
        .collect();
    let keep = keep::load(&mut conn, &claimed.tenant, &claimed.conversation_id).await?;
    let transcript = Transcript::stored(&covered, claimed.through_turn_seq);
    if transcript.messages.is_empty() {
        return Ok(None);
    }
    let unread = covered.into_iter().filter(|turn| turn.seq > keep.turns_read).collect();
    let gathered = Gathered {
        transcript,
        // The stored turns, not a caller's messages.
        sent: false,
        keep,
        unread,
        offered: None,
        reported: None,
    };
    Ok(Some((stored, gathered)))
}
