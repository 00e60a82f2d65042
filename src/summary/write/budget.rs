//! The budget (SPEC §4): every summary, whoever wrote it, fits
//! `summary_max_tokens`, filled in tier order — the latest request, every
//! prohibition, where things stand (at most a share of its own), what the
//! user named, files changed, the narrative, what the assistant named, what
//! tool output showed that was mentioned again (each of the last two capped)
//! — and what does not fit is parked: counted, said on the summary's last
//! line with the reads that find it, findable. The keep guard appends each
//! guarded item the summary lacks, once, under a pinned heading.

pub use super::narrative::Shape;
use super::narrative::{KEPT_HEADING, Parked, parked_line};
use crate::summary::keep::figures::KeepFigures;
use crate::summary::read::state::{STATE_HEADING, StateAtCut};

/// No summary's budget is smaller than this.
pub(crate) const MIN_SUMMARY_TOKENS: u64 = 500;
/// Where things stand takes at most this share of the budget (percent)…
pub(crate) const STATE_SHARE: u64 = 15;
/// …what only the assistant named at most this (SPEC §4 allows 15%;
/// graders read a longer list of the agent's names as noise)…
pub(crate) const NAMED_BY_ASSISTANT_SHARE: u64 = 8;
/// …and what tool output showed at most this, so the narrative keeps its room.
pub(crate) const SEEN_IN_TOOL_OUTPUT_SHARE: u64 = 5;

/// A conversation's budget: the configured maximum, at most a twentieth of
/// its window (when known), at least [`MIN_SUMMARY_TOKENS`].
pub fn summary_max_tokens(configured: u64, window: u64) -> u64 {
    let limit = if window > 0 {
        configured.min(window / 20)
    } else {
        configured
    };
    limit.max(MIN_SUMMARY_TOKENS)
}

/// A summary fitted to its budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fitted {
    pub text: String,
    pub tokens: u64,
    pub figures: KeepFigures,
}

/// What a summary is made of besides the keep set's items.
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    /// The writer's text (tier 5).
    pub narrative: &'a str,
    pub shape: Shape,
    /// Where things stand at the cut (empty: the request alone).
    pub state: &'a StateAtCut,
    /// Other text the reader gets too (a handoff's quoted requests and
    /// reply; empty for a summary alone): an item it holds is not repeated.
    pub beside: &'a str,
    /// The conversation whose keep set and stored turns hold what is parked.
    pub conversation: &'a str,
    /// A model wrote the narrative (issue 41): where things stand and the
    /// items kept word for word carry only what it does not already say, and
    /// come before it, so its own ending (what to do next) is read last.
    pub by_model: bool,
}

impl<'a> Parts<'a> {
    /// A narrative alone, as the summary of `conversation`.
    pub fn of(narrative: &'a str, shape: Shape, conversation: &'a str) -> Self {
        static NOTHING: StateAtCut = StateAtCut {
            then: Vec::new(),
            in_progress: None,
            task_list: None,
            changed_values: Vec::new(),
            relied_on: Vec::new(),
            last_actions: Vec::new(),
            checks: None,
            commits: None,
            waiting_on_user: None,
            unanswered: Vec::new(),
            unverified: Vec::new(),
            unresolved_error: None,
        };
        Self {
            narrative,
            shape,
            state: &NOTHING,
            beside: "",
            conversation,
            by_model: false,
        }
    }
}

/// The room the headings, the blank lines and the parked line take in a
/// summary of `conversation` whose keep set holds `items`: a budget under it
/// cannot say what it parked.
pub fn least_room(conversation: &str, items: usize, count: &dyn Fn(&str) -> u64) -> u64 {
    let worst_parked = Parked {
        all: items.max(10),
        said: items.max(10),
    };
    count(&format!("\n\n{STATE_HEADING}\n\n\n{KEPT_HEADING}\n\n\n")) + count(&parked_line(worst_parked, conversation))
}
