//! Compact a conversation (SPEC §3 /summarize, §4): claim it, gather the
//! transcript since its boundary, cut off what stays verbatim, have the
//! summary written, and record the attempt with the state change it makes.
//! Used by `POST /summarize` and by the idle sweep.

mod ahead;
mod claim;
mod transcript;
pub(crate) use transcript::messages_of;
mod write;
pub(crate) use claim::ClaimGuard;
mod compact;
pub(crate) use compact::{CLAIM_ABANDONED_AFTER, Drafted, NO_UPSTREAM, Overflow, Request, Summarized};
