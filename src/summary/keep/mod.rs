//! What a summary keeps (SPEC §4): the keep set — the durable, deduplicated
//! must-keep items of a conversation, found deterministically in what was
//! said (never in a summary's own text) — and the budget every summary fits.
//!
//! One concept a file: who said it ([`harness`] text is not the user), what
//! forbids ([`prohibition`]), what names something ([`identifiers`],
//! [`tool_calls`] and [`commands`]), a message's items ([`extract`]), the
//! set they accumulate in ([`set`]), a summary's narrative ([`narrative`])
//! and the budget that fits them together ([`budget`]).

pub(crate) mod briefs;
pub(crate) mod budget;
mod check_commands;
mod checks;
mod commands;
mod commits;
pub(crate) mod edits;
pub(crate) mod extract;
mod figures;
mod for_harness;
mod git_lines;
pub(crate) mod give_back;
pub(crate) mod harness;
mod identifiers;
mod instructions;
pub mod invented;
pub mod narrative;
pub(crate) mod outcome;
pub(crate) mod pasted;
mod presence;
mod prohibition;
mod quantities;
mod render;
pub(crate) mod request;
pub(crate) mod sentences;
pub(crate) mod set;
mod shell;
pub(crate) mod state;
mod tasks;
pub(crate) mod tool_calls;
pub use budget::{Parts, Shape, fit, fit_unless, least_room, summary_max_tokens};
pub use extract::{Sighting, sightings};
pub(crate) use figures::{KeepFigures, KindFigures};
pub use for_harness::by_value;
pub use harness::HarnessPatterns;
pub(crate) use identifiers::identifiers;
pub use instructions::KEEP_INSTRUCTIONS;
pub use presence::Presence;
pub(crate) use prohibition::prohibitions;
pub use set::{KeepItem, KeepSet, Place, Tier};
pub use state::{STATE_HEADING, StateAtCut, state_at_cut};
mod kinds;
pub use kinds::{KeepKind, Source, Sources};
