//! One arrangement of a summary's parts, settled: what became of each item
//! (present in what the reader gets, appended, or parked) and the text.

use std::collections::HashSet;

use super::layout::{assemble, assemble_before, assemble_lines, state_section};
use super::narrative::Parked;
use super::presence::Finder;
use super::render::{Candidate, render};
use crate::summary::keep::KeepItem;
use crate::summary::keep::figures::{KeepFigures, Outcome};
use crate::summary::keep::set::Tier;
use crate::summary::kinds::KeepKind;
use crate::summary::read::files::is_inside;

/// One arrangement of a summary's parts.
pub(super) struct Arrangement<'a> {
    pub(super) candidates: &'a [Candidate<'a>],
    pub(super) admitted: &'a [usize],
    pub(super) narrative: &'a str,
    pub(super) state_lines: &'a [String],
    /// A model wrote the narrative: compactd's sections go before it.
    pub(super) by_model: bool,
    /// The narrative is the extractive summarizer's lines: where things
    /// stand goes before them.
    pub(super) lines: bool,
    pub(super) beside: &'a str,
    pub(super) conversation: &'a str,
    /// Files changed that are folders of others: held where one inside is.
    pub(super) folders: &'a HashSet<usize>,
    /// Which items a text holds.
    pub(super) finder: &'a Finder,
    /// Nobody waits for the summary any more.
    pub(super) stopped: &'a dyn Fn() -> bool,
}

impl Arrangement<'_> {
    /// The summary text, and what became of each candidate: present in the
    /// narrative, the state or beside (or in a line already appended),
    /// appended, or parked. The request is shown where things stand unless
    /// the reader has it beside the summary.
    /// `haystack` is all the reader gets; `without_request` the same but
    /// for the request's own line (the request is present only where
    /// another part holds it, else compactd added it).
    pub(super) fn settle(&self, haystack: &str, without_request: &str) -> Option<(String, KeepFigures)> {
        let admitted: HashSet<usize> = self.admitted.iter().copied().collect();
        let mut figures = KeepFigures::default();
        let mut appended: Vec<&Candidate> = Vec::new();
        let mut appended_texts: HashSet<&str> = HashSet::new();
        let mut parked = Parked::default();
        let mut request: Option<&str> = None;
        let mut carried: Vec<&str> = Vec::new();
        if (self.stopped)() {
            return None;
        }
        let (held_by_all, held_without_request, held_beside) = (
            self.finder.held(haystack),
            self.finder.held(without_request),
            self.finder.held(self.beside),
        );
        for (at, candidate) in self.candidates.iter().enumerate() {
            if self.folders.contains(&at) {
                continue;
            }
            let held = match candidate.tier {
                Tier::Request => held_without_request[at],
                _ => held_by_all[at] || appended_texts.contains(candidate.item.text.as_str()),
            };
            // Shown even where a model's narrative quotes it: every summary
            // carries where things stand, opened by the request (SPEC §4).
            if candidate.tier == Tier::Request && admitted.contains(&at) && !held_beside[at] {
                request = Some(candidate.item.text.as_str());
            }
            let outcome = if held {
                Outcome::Present
            } else if admitted.contains(&at) {
                appended.push(candidate);
                appended_texts.insert(candidate.item.text.as_str());
                Outcome::Appended
            } else {
                parked.all += 1;
                parked.said += usize::from(in_stored_turns(candidate.item));
                Outcome::Parked
            };
            if outcome != Outcome::Parked && candidate.item.kind == KeepKind::FileChanged {
                carried.push(candidate.item.text.as_str());
            }
            figures.count(candidate.item.kind, outcome);
        }
        let carried = Files::of(carried.into_iter());
        for at in self.folders {
            let candidate = &self.candidates[*at];
            let outcome = if carried.any_inside(&candidate.item.text) {
                Outcome::Present
            } else {
                parked.all += 1;
                parked.said += usize::from(in_stored_turns(candidate.item));
                Outcome::Parked
            };
            figures.count(candidate.item.kind, outcome);
        }
        let state = state_section(request, self.state_lines);
        let appended = render(&appended);
        let text = if self.by_model {
            assemble_before(self.narrative, &state, &appended, parked, self.conversation)
        } else if self.lines {
            assemble_lines(self.narrative, &state, &appended, parked, self.conversation)
        } else {
            assemble(self.narrative, &state, &appended, parked, self.conversation)
        };
        Some((text, figures))
    }
}

/// Whether an item was seen in a stored turn, where `search_history`
/// finds it; the rest (a caller's transcript, tool calls and their output)
/// only the keep set holds.
fn in_stored_turns(item: &KeepItem) -> bool {
    item.first_seen.turn_id.is_some() || item.last_seen.turn_id.is_some()
}

/// The files changed that are folders another file changed lies in
/// (`mkdir -p src/a` before `src/a/b.rs` was written): that file names them.
pub(super) fn folders_of_others(candidates: &[Candidate]) -> HashSet<usize> {
    let files = Files::of(
        candidates
            .iter()
            .filter(|c| c.item.kind == KeepKind::FileChanged)
            .map(|c| c.item.text.as_str()),
    );
    candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.item.kind == KeepKind::FileChanged)
        .filter(|(_, c)| files.any_inside(&c.item.text))
        .map(|(at, _)| at)
        .collect()
}

/// Paths, sorted, so what lies inside a folder is found by a search, not by
/// reading them all for each folder (a keep set may hold thousands).
struct Files<'a>(Vec<&'a str>);

impl<'a> Files<'a> {
    fn of(paths: impl Iterator<Item = &'a str>) -> Self {
        let mut paths: Vec<&str> = paths.collect();
        paths.sort_unstable();
        paths.dedup();
        Self(paths)
    }

    /// Whether a path lies inside `folder` (as [`is_inside`] says).
    fn any_inside(&self, folder: &str) -> bool {
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        let from = self.0.partition_point(|path| *path < prefix.as_str());
        self.0[from..]
            .iter()
            .take_while(|path| path.starts_with(&prefix))
            .any(|path| is_inside(path, folder))
    }
}
