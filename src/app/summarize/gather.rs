//! One read of what a compaction needs, from one snapshot: the transcript
//! (the caller's messages, or the turns stored since the boundary), the keep
//! set and the stored turns it has not read, the summary prepared ahead, and
//! the agent's own report of its context.

use sqlx::Connection;

use super::Request;
use crate::app::Services;
use crate::app::transcript::Gathered as Transcript;
use crate::records::StoredConversation;
use crate::store::keep::{self, StoredKeep};
use crate::store::prepared::{self, Ready};
use crate::store::statements;
use crate::store::turns::{self, Turn};
use crate::store::{StoreResult, events};

/// What a compaction starts from.
pub(super) struct Gathered {
    pub transcript: Transcript,
    /// Whether the transcript is the caller's messages.
    pub sent: bool,
    pub keep: StoredKeep,
    /// Stored turns the keep set has not read yet. They are read even when
    /// the caller sends `messages`: they may hold what the messages do not
    /// (a turn begun before a rollover, a caller that sends only part of its
    /// transcript). Read twice, an item counts twice; read never, it is lost.
    pub unread: Vec<Turn>,
    /// The summary prepared ahead, when one is ready.
    pub offered: Option<Ready>,
    /// The context the agent last reported since the last compaction, when
    /// it sent neither messages nor `tokens_before`: what this compaction
    /// shrinks (the stored turns are only what compactd was told of it).
    pub reported: Option<u64>,
}

/// Reads it all in one read-only transaction; the stored turns once, from
/// the earlier of the boundary and what the keep set has read.
pub(super) async fn gather(
    services: &Services,
    request: &mut Request,
    stored: &StoredConversation,
) -> StoreResult<Gathered> {
    let mut conn = services.warm.acquire().await?;
    let mut tx = conn.begin().await?;
    statements::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let (tenant, id) = (&request.tenant, &request.id);
    let sent = request.messages.is_some();
    let keep = keep::load(&mut tx, tenant, id).await?;
    let (transcript, unread) = match request.messages.take() {
        Some(messages) => (
            Transcript::sent(messages, stored.last_turn_seq),
            turns::since(&mut tx, tenant, id, keep.turns_read).await?,
        ),
        None => {
            let boundary = stored.boundary_turn_seq;
            let turns = turns::since(&mut tx, tenant, id, boundary.min(keep.turns_read)).await?;
            let past_boundary = turns.partition_point(|turn| turn.seq <= boundary);
            let transcript = Transcript::stored(&turns[past_boundary..], stored.last_turn_seq);
            let unread = turns.into_iter().filter(|turn| turn.seq > keep.turns_read).collect();
            (transcript, unread)
        }
    };
    let offered = prepared::ready(&mut tx, tenant, id).await?;
    let reported = match (sent, request.tokens_before) {
        (false, None) => events::used_reported_since_compaction(&mut tx, tenant, id).await?,
        _ => None,
    };
    tx.commit().await?;
    Ok(Gathered {
        transcript,
        sent,
        keep,
        unread,
        offered,
        reported,
    })
}
