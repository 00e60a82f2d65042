//! Writing a summary (SPEC §4): the budget every summary fits
//! ([`budget`]) and the fitting to it ([`fit`]: rank, place, park), the narrative carried from one compaction to the next
//! ([`narrative`]), the keep set's lines and sections ([`render`]), whether
//! an item is in a text ([`presence`]), what is appended to a harness's own
//! summary ([`for_harness`]) and the model's keep instructions
//! ([`instructions`]); and the two writers: [`extractive`], which needs no
//! model, and [`chunked`], which folds a delta too long for the model's
//! window in through it ([`chunks`], [`prompt`]).

mod arrangement;
pub(crate) mod budget;
pub(super) mod chunked;
mod chunks;
pub(super) mod extractive;
pub(crate) mod fit;
mod for_harness;
mod instructions;
mod layout;
pub mod narrative;
pub(super) mod presence;
pub mod prompt;
mod render;
mod said;

pub use budget::{Parts, Shape, least_room, summary_max_tokens};
pub use fit::{fit, fit_unless};
pub use for_harness::by_value;
pub use instructions::KEEP_INSTRUCTIONS;
pub use presence::Presence;
