//! Taking what was said into a conversation's keep set (SPEC §4): its stored
//! turns not read yet, and a `/summarize` delta's messages, in order, each
//! place once. Extraction is deterministic, so whenever it runs the set comes
//! out the same.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::transcript::messages_of;
use crate::domain::transcript::Message;
use crate::domain::{ConversationId, TenantId};
use crate::store::keep::{self, Marks, StoredKeep};
use crate::store::turns::{self, Turn};
use crate::store::{StoreError, StoreResult};
use crate::summary::keep::extract::sightings_of;
use crate::summary::keep::{KeepSet, Place, Sighting};
use crate::summary::read::{HarnessPatterns, Reading};

/// What one place said.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    pub place: Place,
    pub sightings: Vec<Sighting>,
    /// The stored turn it came from, if any.
    pub turn: Option<i64>,
}

/// The observations of stored turns, oldest first, read off the async
/// threads: a turn of megabytes takes a while, and those threads answer
/// everyone else meanwhile. `None` when the reading failed (a bug, or the
/// runtime shutting down).
pub(crate) async fn of_turns_off_thread(
    conversation: ConversationId,
    turns: Vec<Turn>,
    harness: Arc<HarnessPatterns>,
) -> Option<Vec<Observation>> {
    tokio::task::spawn_blocking(move || of_turns(&conversation, &turns, &harness))
        .await
        .inspect_err(|err| tracing::warn!(%err, "the stored turns could not be read into the keep set"))
        .ok()
}

/// The observations of stored turns, oldest first. The turns are read as
/// one transcript, as a delta is: a command's expanded template stored as
/// the next turn's user text is known by the command before it, not taken
/// for the user's request and rules.
pub(crate) fn of_turns(conversation: &ConversationId, turns: &[Turn], harness: &HarnessPatterns) -> Vec<Observation> {
    let (messages, turn_of) = messages_of(turns);
    let read = Reading::of(&messages, harness, messages.len());
    let mut per_message = sightings_of(&messages, &read).into_iter().zip(turn_of).peekable();
    turns
        .iter()
        .map(|turn| {
            let mut found = Vec::new();
            while let Some((sightings, _)) = per_message.next_if(|(_, seq)| *seq == turn.seq) {
                found.extend(sightings);
            }
            Observation {
                place: Place {
                    conversation_id: conversation.to_string(),
                    turn_id: Some(turn.seq),
                    compaction_seq: None,
                    message: None,
                    at: turn.at,
                },
                sightings: found,
                turn: Some(turn.seq),
            }
        })
        .collect()
}

/// The observations of a delta's messages (read into `read`), as the
/// compaction `seq` saw them.
pub(crate) fn of_messages(
    conversation: &ConversationId,
    seq: i64,
    at: DateTime<Utc>,
    messages: &[Message],
    read: &Reading,
) -> Vec<Observation> {
    sightings_of(messages, read)
        .into_iter()
        .enumerate()
        .map(|(index, sightings)| Observation {
            place: Place {
                conversation_id: conversation.to_string(),
                turn_id: None,
                compaction_seq: Some(seq),
                message: i64::try_from(index).ok(),
                at,
            },
            sightings,
            turn: None,
        })
        .collect()
}

/// Takes `observations` into `set`, skipping stored turns it has read; the
/// last stored turn read afterwards.
pub(crate) fn take_in(set: &mut KeepSet, turns_read: i64, observations: &[Observation]) -> i64 {
    let mut read = turns_read;
    for observation in observations {
        match observation.turn {
            Some(turn) if turn <= turns_read => continue,
            Some(turn) => read = read.max(turn),
            None => {}
        }
        set.observe(&observation.sightings, &observation.place);
    }
    read
}

/// A keep set read at `marks`, with what a compaction or a preparation read
/// taken in.
#[derive(Debug)]
pub(crate) struct TakenIn {
    pub set: KeepSet,
    pub turns_read: i64,
    pub marks: Marks,
}

impl TakenIn {
    /// `stored` with `observations` taken in.
    pub(crate) fn of(stored: StoredKeep, observations: &[Observation]) -> Self {
        let mut set = stored.set;
        let turns_read = take_in(&mut set, stored.turns_read, observations);
        Self {
            set,
            turns_read,
            marks: stored.marks,
        }
    }

    /// Saves it inside the caller's transaction, which holds the
    /// conversation's row: as it is, unless the stored set moved since it was
    /// read (a handoff, a compaction or a preparation in between); then the
    /// set is read again and takes in `observations`, so nothing counts twice.
    pub(crate) async fn save(
        &self,
        tx: &mut PgConnection,
        tenant: &TenantId,
        id: &ConversationId,
        observations: &[Observation],
    ) -> StoreResult<()> {
        if keep::marks(tx, tenant, id).await? == self.marks {
            return keep::save(tx, tenant, id, &self.set, self.turns_read).await;
        }
        let again = Self::of(keep::load(tx, tenant, id).await?, observations);
        keep::save(tx, tenant, id, &again.set, again.turns_read).await
    }
}

/// The keep set with every stored turn taken in: what it would be after the
/// next compaction read them (nothing is saved).
pub(crate) async fn current(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    harness: &Arc<HarnessPatterns>,
) -> StoreResult<StoredKeep> {
    let mut stored = keep::load(conn, tenant, id).await?;
    let unread = turns::since(conn, tenant, id, stored.turns_read).await?;
    let observations = of_turns_off_thread(id.clone(), unread, harness.clone())
        .await
        .ok_or_else(|| StoreError::Corrupt("the stored turns could not be read into the keep set".to_owned()))?;
    stored.turns_read = take_in(&mut stored.set, stored.turns_read, &observations);
    Ok(stored)
}
