//! Compact a conversation (SPEC §3 /summarize, §4): claim it, gather the
//! transcript since its boundary, cut off what stays verbatim, have the
//! summary written, and record the attempt with the state change it makes.
//! Used by `POST /summarize` and by the idle sweep.

mod claim;
mod transcript;
mod write;
pub(crate) use claim::ClaimGuard;
mod compact;
pub(crate) use compact::{CLAIM_ABANDONED_AFTER, NO_UPSTREAM, Overflow, Prepared, Request, Summarized};
