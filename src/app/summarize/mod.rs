//! Compact a conversation (SPEC §3 /summarize, §4), as the use case reads:
//! claim it (`compact`), `gather` in one read what the compaction needs,
//! `plan` who writes the summary (pure: the harness's, a clean slate, a
//! merge into a prepared narrative, the upstream, the extractive summarizer),
//! `write` it under §4's rules, and `record` the attempt with the state
//! change it makes. Used by `POST /summarize` and by the idle sweep. The
//! types the steps hand each other are here.
//!
//! Its second target is a summary prepared ahead of a compaction
//! (`prepare`): its own gather of the turns a preparation covers, the same
//! `read` of them, the upstream under the same rules, and a record that
//! keeps a preparation instead of a compaction.

mod ahead;
mod compact;
mod gather;
mod plan;
pub(crate) mod prepare;
mod read;
mod record;
mod write;

use chrono::{DateTime, Utc};

use crate::app::budget::Reservation;
use crate::app::keep_set::{Observation, TakenIn};
use crate::domain::transcript::Message;
use crate::domain::{ConversationId, HarnessName, TenantId};
use crate::policy::CompactionTrigger;
use crate::policy::prepare::Reason;
use crate::records::{Recorded, StoredConversation};
use crate::store::compactions::Attempt;
use crate::store::lease;

/// Why no model wrote a summary.
pub(crate) const NO_UPSTREAM: &str = "no upstream LLM is configured";

/// What the caller asks for.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub tenant: TenantId,
    pub id: ConversationId,
    /// The transcript since the boundary; `None`: the stored turns.
    pub messages: Option<Vec<Message>>,
    /// A summary the harness wrote itself: recorded, no model called.
    pub summary: Option<String>,
    /// `None`: the pending decision's trigger, else `manual`.
    pub trigger: Option<CompactionTrigger>,
    pub by_host: bool,
    pub idle: bool,
    pub tokens_before: Option<u64>,
    pub keep_recent_tokens: Option<u64>,
    pub at: DateTime<Utc>,
    /// Which harness wrote `summary`, when it said.
    pub harness: Option<HarnessName>,
    /// What the caller found `summary` made up (each in it).
    pub invented: Vec<String>,
}

/// A written (or failed) summary, ready to be recorded.
#[derive(Debug)]
pub(crate) struct Drafted {
    tenant: TenantId,
    id: ConversationId,
    attempt: Attempt,
    /// The anchor before this attempt (what a failure leaves in place).
    prior: Option<String>,
    /// The window's size when known, for the overflow check.
    size: u64,
    /// Given back unless the attempt is recorded.
    claim: Option<lease::Held>,
    /// When the conversation was claimed for it: recorded only while the
    /// claim is still this one (taken over while its process was silent,
    /// it is another request's to record).
    claimed_since: Option<chrono::DateTime<chrono::Utc>>,
    /// What the transcript said, for the keep set when the attempt succeeds.
    observations: Vec<Observation>,
    /// What became of a summary prepared ahead, once the attempt succeeds.
    ahead: Ahead,
    /// The keep set as the summary was written with it, observations taken in.
    keep: TakenIn,
    /// The tenant's budget held for the upstream call, trued up when recorded.
    reserved: Reservation,
}

/// A compaction and the summaries prepared ahead of it (issue 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ahead {
    /// It merged this preparation (by seq).
    Used(i64),
    /// It used none; any open preparation ends for this reason.
    Unused(Reason),
}

/// The recorded attempt and what the caller is left with.
#[derive(Debug)]
pub(crate) struct Summarized {
    pub recorded: Recorded,
    pub stored: StoredConversation,
    /// The new summary; on failure, the prior one, unchanged.
    pub summary: Option<String>,
    /// Present when even the compacted result does not fit the window.
    pub overflow: Option<Overflow>,
}

/// What an upstream would need to fit the compacted result (seed 002's
/// terminal condition): the caller should roll over.
// `message_count`: the summary and the messages kept after it. The trigger
// is documented under the names a decision may give, as it always was.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub(crate) struct Overflow {
    pub tokens_used: u64,
    pub context_window: u64,
    pub overflow: u64,
    /// `tokens_used / context_window`.
    pub utilization: f64,
    pub message_count: u64,
    #[schema(value_type = crate::policy::Trigger)]
    pub trigger: CompactionTrigger,
}
