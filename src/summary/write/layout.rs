//! How a summary's parts are laid out (SPEC §4, issue 41): where things
//! stand opening with the latest request, the items the keep guard
//! appends, the narrative and the parked line, a blank line apart: where
//! things stand before the extractive lines and a model's narrative (the
//! appended items too, before a model's, so its own ending is read last),
//! after a harness's own prose.

use super::narrative::{Parked, parked_line};
use super::render::Line;
use crate::summary::read::state::STATE_HEADING;

/// Where things stand: the latest request's line (when there is one to
/// show) and the state's lines, or "" when both are empty.
pub(super) fn state_section(request: Option<&str>, lines: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    if let Some(request) = request {
        out.push(format!("{}{request}", Line::Request.label()));
    }
    out.extend(lines.iter().cloned());
    if out.is_empty() {
        return String::new();
    }
    format!("{STATE_HEADING}\n{}", out.join("\n"))
}

/// A narrative in prose its caller wrote (a harness's own summary), where
/// things stand, the appended items and the parked line, a blank line apart.
pub(super) fn assemble(narrative: &str, state: &str, appended: &str, parked: Parked, conversation: &str) -> String {
    joined([narrative.trim(), state, appended], parked, conversation)
}

/// The extractive summary: where things stand, the narrative's lines, the
/// appended items and the parked line, a blank line apart. A reader who
/// carries on learns where the work is before how it got there (graders of
/// issue 41 had to dig through the history first). Where things stand is
/// closed up to one paragraph, as [`narrative_of`] reads it back.
///
/// [`narrative_of`]: super::narrative::narrative_of
pub(super) fn assemble_lines(
    narrative: &str,
    state: &str,
    appended: &str,
    parked: Parked,
    conversation: &str,
) -> String {
    joined([&closed_up(state), narrative.trim(), appended], parked, conversation)
}

/// A section as one paragraph: a request's blank lines do not end it.
fn closed_up(section: &str) -> String {
    section
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A model's summary (issue 41): where things stand and the appended items
/// first, then the narrative, so its own ending (what to do next) is the
/// last prose, and the parked line. Each section is closed up to one
/// paragraph (a request's blank lines do not count for presence): the
/// narrative reads back from where the sections end ([`narrative_of`]).
///
/// [`narrative_of`]: super::narrative::narrative_of
pub(super) fn assemble_before(
    narrative: &str,
    state: &str,
    appended: &str,
    parked: Parked,
    conversation: &str,
) -> String {
    joined(
        [&closed_up(state), &closed_up(appended), narrative.trim()],
        parked,
        conversation,
    )
}

/// `parts` that are not empty and the parked line, a blank line apart.
fn joined(parts: [&str; 3], parked: Parked, conversation: &str) -> String {
    let mut out: Vec<String> = parts
        .into_iter()
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect();
    if parked.all > 0 {
        out.push(parked_line(parked, conversation));
    }
    out.join("\n\n")
}
