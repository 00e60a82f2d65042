//! Writing a summary (SPEC §4): the budget every summary fits
//! ([`budget`]), the narrative carried from one compaction to the next
//! ([`narrative`]), the keep set's lines and sections ([`render`]), whether
//! an item is in a text ([`presence`]), what is appended to a harness's own
//! summary ([`for_harness`]) and the model's keep instructions
//! ([`instructions`]); and the two writers: [`extractive`], which needs no
//! model, and [`chunked`], which folds a delta too long for the model's
//! window in through it ([`chunks`], [`prompt`]).

pub(crate) mod budget;
pub(super) mod chunked;
mod chunks;
pub(super) mod extractive;
mod for_harness;
mod instructions;
pub mod narrative;
pub(super) mod presence;
pub mod prompt;
mod render;

pub use budget::{Parts, Shape, fit, fit_unless, least_room, summary_max_tokens};
pub use for_harness::by_value;
pub use instructions::KEEP_INSTRUCTIONS;
pub use presence::Presence;
