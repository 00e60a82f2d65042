//! A summary prepared ahead (issue 12), offered to the compaction at hand:
//! whether it stands for the beginning of what is to be summarized, and the
//! token counts of the transcript, taken from the preparation for the part
//! it covers so that only the turns since are counted now.

use std::sync::Arc;

use crate::domain::transcript::Message;
use crate::llm::tokens;
use crate::policy::prepare::{self, Compacting, Reason};
use crate::policy::{Conversation, PolicyConfig};
use crate::store::prepared::Ready;

/// The transcript's token counts.
pub(super) struct Counted {
    pub per_message: Vec<u64>,
    pub prior: u64,
    /// Whether the preparation offered covers the transcript's beginning
    /// (`None`: none was offered).
    pub covers: Option<Result<(), Reason>>,
    /// The tokenizer failed: the counts are zeros, not the transcript's.
    pub unknown: bool,
}

/// What the compaction is summarizing, as the preparation is checked against it.
pub(super) struct Transcript {
    pub messages: Arc<Vec<Message>>,
    pub prior: Option<String>,
    pub boundary_turn: i64,
    pub anchor_seq: Option<i64>,
}

/// Counts the transcript off the async threads (a long one takes a while),
/// checking first whether `offered` covers its beginning: then the counts
/// it kept stand for the messages it covers.
pub(super) async fn count(transcript: Transcript, offered: Option<Ready>) -> (Counted, Option<Ready>) {
    let len = transcript.messages.len();
    let counting = move || {
        let covers = offered.as_ref().map(|ready| {
            let compacting = Compacting {
                boundary_turn: transcript.boundary_turn,
                anchor: transcript.prior.as_deref().zip(transcript.anchor_seq),
                messages: &transcript.messages,
                cut_at: len,
            };
            prepare::covers(&ready.covered, compacting)
        });
        let known = match (&covers, &offered) {
            (Some(Ok(())), Some(ready)) if ready.message_tokens.len() == ready.covered.messages => {
                Some((&ready.message_tokens[..], ready.anchor_tokens))
            }
            _ => None,
        };
        let (per_message, prior) = match known {
            Some((known, anchor)) => {
                let rest = tokens::of_messages(&transcript.messages[known.len()..]);
                (known.iter().copied().chain(rest).collect(), anchor)
            }
            None => (
                tokens::of_messages(&transcript.messages),
                transcript.prior.as_deref().map_or(0, tokens::count),
            ),
        };
        (
            Counted {
                per_message,
                prior,
                covers,
                unknown: false,
            },
            offered,
        )
    };
    // Should the tokenizer ever fail, the counts are unknown, not the
    // request, and no preparation is used on unknown counts.
    tokio::task::spawn_blocking(counting).await.unwrap_or_else(|_| {
        (
            Counted {
                per_message: vec![0; len],
                prior: 0,
                covers: Some(Err(Reason::MessagesDiffer)),
                unknown: true,
            },
            None,
        )
    })
}

/// The preparation a compaction merges, or why the one offered is not used
/// (`None`: none was offered). A summary the harness gave is recorded as it
/// is: nothing is merged into it.
pub(super) fn choose(
    offered: Option<Ready>,
    counted: &Counted,
    cut_at: usize,
    harness_summary: bool,
    state: &Conversation,
    policy: &PolicyConfig,
) -> Result<Ready, Option<Reason>> {
    let ready = offered.ok_or(None)?;
    if harness_summary {
        return Err(Some(Reason::HarnessSummary));
    }
    counted.covers.unwrap_or(Err(Reason::MessagesDiffer)).map_err(Some)?;
    if cut_at < ready.covered.messages {
        return Err(Some(Reason::CutInside));
    }
    let delta: u64 = counted.per_message[ready.covered.messages..cut_at].iter().sum();
    prepare::delta_fits(delta, state, policy).map_err(Some)?;
    Ok(ready)
}
