//! Reading a transcript once, for either target of the use case (a
//! compaction, or a preparation ahead of one): counted, cut where the
//! recent messages stay verbatim, the delta read once into a [`Reading`]
//! (where things stand at the cut, what the extractive writer writes from),
//! what it says taken into the keep set; and the rules a summary of it is
//! written under.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::ahead::{self, Transcript};
use super::gather::Gathered;
use crate::app::Services;
use crate::app::keep_set::{self, Observation, TakenIn};
use crate::app::transcript::Gathered as Messages;
use crate::domain::ConversationId;
use crate::domain::transcript::Message;
use crate::policy::cut;
use crate::records::StoredConversation;
use crate::store::prepared::Ready;
use crate::summary::read::{HarnessPatterns, Reading};
use crate::summary::summarizer::Rules;
use crate::summary::write::summary_max_tokens;

/// Whose transcript is read, when, and how much of its end stays verbatim.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadFor<'a> {
    pub id: &'a ConversationId,
    /// The recent messages kept verbatim, by their tokens (`None`: none).
    pub keep_recent_tokens: Option<u64>,
    /// When the caller's messages were sent (read only when they were).
    pub at: DateTime<Utc>,
}

/// The transcript read: counted, cut where the recent messages stay
/// verbatim, what it says taken into the keep set, where things stand.
pub(super) struct Read {
    pub transcript: Messages,
    pub counted: ahead::Counted,
    /// Where the verbatim messages begin (`None`: nothing kept verbatim).
    pub kept_from: Option<usize>,
    /// The delta's end: `kept_from`, else every message.
    pub cut_at: usize,
    /// The preparation offered, once checked against the transcript.
    pub offered: Option<Ready>,
    pub observations: Vec<Observation>,
    /// The delta (the first `cut_at` messages) read once.
    pub reading: Arc<Reading>,
    pub taken: TakenIn,
    /// Every part was read. A part that failed (a panic, the runtime
    /// shutting down) left its default (a delta not read gives the keep set
    /// none of its items): a compaction goes on with it, a preparation,
    /// whose counts are kept for later, does not.
    pub whole: bool,
}

/// Reads the transcript off the async threads: its stored turns while it
/// is counted, then its delta once, then what the delta says from that.
pub(super) async fn read(
    services: &Services,
    whose: ReadFor<'_>,
    stored: &StoredConversation,
    gathered: Gathered,
    prior: Option<String>,
) -> Read {
    let Gathered {
        transcript,
        sent,
        keep,
        unread,
        offered,
        ..
    } = gathered;
    let counting = Transcript {
        messages: Arc::clone(&transcript.messages),
        prior,
        boundary_turn: stored.boundary_turn_seq,
        anchor_seq: stored.summary.as_ref().map(|(_, seq)| *seq),
    };
    let harness = services.summaries.harness.clone();
    // The stored turns are read while the transcript is counted.
    let (observed, (counted, offered)) = tokio::join!(
        keep_set::of_turns_off_thread(whose.id.clone(), unread, harness.clone()),
        ahead::count(counting, offered)
    );
    let mut whole = observed.is_some() && !counted.unknown;
    let mut observations = observed.unwrap_or_default();
    let kept_from = whose
        .keep_recent_tokens
        .map(|keep| cut::kept_from(&transcript.messages, &counted.per_message, keep));
    let cut_at = kept_from.unwrap_or(transcript.messages.len());
    let seq = stored.last_compaction_seq + 1;
    // The delta is read once, and the keep set takes its items from that
    // reading (the kept messages come again in the next delta: read them then).
    let reading = read_delta(Arc::clone(&transcript.messages), cut_at, harness).await;
    whole &= reading.is_some();
    let reading = reading.unwrap_or_default();
    if sent {
        let delta = (Arc::clone(&transcript.messages), Arc::clone(&reading));
        observations.extend(observe_sent(whose.id.clone(), seq, whose.at, delta).await);
    }
    let taken = TakenIn::of(keep, &observations);
    Read {
        transcript,
        counted,
        kept_from,
        cut_at,
        offered,
        observations,
        reading,
        taken,
        whole,
    }
}

impl Read {
    /// Its tokens: the anchor's and every message's.
    pub(super) fn transcript_tokens(&self) -> u64 {
        self.counted.prior + self.counted.per_message.iter().sum::<u64>()
    }

    /// The rules a summary of it is written under, in a window of `size`.
    pub(super) fn rules<'a>(&'a self, services: &'a Services, size: u64, conversation: &'a str) -> Rules<'a> {
        Rules {
            keep: &self.taken.set,
            max_tokens: summary_max_tokens(services.summaries.max_tokens, size),
            transcript_tokens: self.transcript_tokens(),
            harness: &services.summaries.harness,
            reading: &self.reading,
            conversation,
        }
    }
}

/// What the sent delta says (after the stored turns), from its reading,
/// off the async threads: a delta full of tool output takes a while.
async fn observe_sent(
    id: ConversationId,
    seq: i64,
    at: DateTime<Utc>,
    (messages, read): (Arc<Vec<Message>>, Arc<Reading>),
) -> Vec<Observation> {
    off_thread(move || keep_set::of_messages(&id, seq, at, &messages[..read.users.len()], &read)).await
}

/// The delta (the first `cut_at` messages) read once, off the async
/// threads; `None`: it could not be read.
async fn read_delta(messages: Arc<Vec<Message>>, cut_at: usize, harness: Arc<HarnessPatterns>) -> Option<Arc<Reading>> {
    let read = move || Arc::new(Reading::of(&messages, &harness, cut_at));
    tokio::task::spawn_blocking(read)
        .await
        .inspect_err(|err| tracing::warn!(%err, "the transcript could not be read"))
        .ok()
}

async fn off_thread(read: impl FnOnce() -> Vec<Observation> + Send + 'static) -> Vec<Observation> {
    tokio::task::spawn_blocking(read).await.unwrap_or_else(|err| {
        tracing::warn!(%err, "the transcript could not be read into the keep set");
        Vec::new()
    })
}
