//! Reading a transcript (SPEC §4): what the user asked and what the agent
//! did — the requests, briefs, edits, commits, checks and their commands,
//! tasks and outcomes, the state at the cut — found in the words themselves,
//! never in a summary's own text. Pure: the same messages always read the
//! same.
//!
//! One concept a file: who said it ([`harness`], [`pasted`], [`template`]), what names
//! something ([`identifiers`], [`quantities`], [`tool_calls`], [`commands`],
//! [`shell`]), a message's sentences ([`sentences`], [`wrapped`]), the files changed
//! ([`files`]), and what those add up to ([`request`], [`briefs`],
//! [`outcome`], [`checks`], [`commits`], [`tasks`], [`state`]); the
//! one pass a compaction makes over its delta, read once and shared by
//! every reader of it ([`Reading`]).

mod announcement;
pub(super) mod briefs;
pub(super) mod check_commands;
mod checks;
pub(super) mod commands;
pub(super) mod commit_message;
mod commits;
pub(super) mod edits;
pub(super) mod files;
pub(crate) mod git_lines;
pub(super) mod harness;
pub(super) mod identifiers;
mod one_line;
mod open_ends;
pub(super) mod outcome;
pub(super) mod pasted;
pub(super) mod quantities;
mod reading;
mod relied;
pub(super) mod request;
pub(super) mod sentences;
pub(super) mod shell;
mod slash;
pub(crate) mod state;
mod tasks;
pub(super) mod template;
pub(super) mod tool_calls;
mod uncommitted;
mod values;
pub(super) mod wrapped;

pub use harness::HarnessPatterns;
pub(crate) use harness::users_words;
pub(crate) use identifiers::identifiers;
pub(crate) use reading::Reading;
pub use state::{STATE_HEADING, StateAtCut};
