//! Rank, the first step of fitting: the keep set's items in tier order, and
//! what every arrangement of them shares (where things stand within its
//! share, what the reader has beside, the room left), with what each costs.

use std::collections::HashSet;

use crate::summary::keep::set::{KeepSet, Tier};
use crate::summary::read::state::FROM_TOOL_OUTPUT;
use crate::summary::write::arrangement::folders_of_others;
use crate::summary::write::budget::{Parts, STATE_SHARE, least_room};
use crate::summary::write::presence::{Finder, squeezed};
use crate::summary::write::render::{Candidate, Line, common_root, files_label, from_root};
use crate::summary::write::said::unsaid;

/// The keep set's items in tier order, and what every arrangement of them
/// shares: where things stand (within its share), what the reader has
/// beside, the request's own line, and the room left for the rest.
pub(super) struct Ranked<'a> {
    pub(super) parts: Parts<'a>,
    pub(super) max_tokens: u64,
    pub(super) count: &'a dyn Fn(&str) -> u64,
    pub(super) candidates: Vec<Candidate<'a>>,
    /// Files changed that are folders of others: held where one inside is.
    pub(super) folders: HashSet<usize>,
    /// Which items a text holds, asked of every text the reader may get.
    pub(super) finder: Finder,
    pub(super) state_lines: Vec<String>,
    pub(super) beside: String,
    /// Shown where things stand unless the reader has it beside.
    pub(super) request: String,
    /// What the items and the narrative may take: the budget less the
    /// headings, the parked line and where things stand.
    pub(super) room: u64,
    /// The folder the files changed line may name its files from.
    pub(super) root: Option<String>,
}

impl<'a> Ranked<'a> {
    pub(super) fn new(parts: Parts<'a>, set: &'a KeepSet, max_tokens: u64, count: &'a dyn Fn(&str) -> u64) -> Self {
        let candidates: Vec<Candidate> = set
            .ranked()
            .into_iter()
            .map(|(tier, item)| Candidate {
                tier,
                line: Line::of(tier, item.kind),
                item,
            })
            .collect();
        let folders = folders_of_others(&candidates);
        let finder = Finder::new(candidates.iter().map(|c| c.item));
        // Where things stand, line by line while its share lasts.
        let share = max_tokens * STATE_SHARE / 100;
        let mut state_lines: Vec<String> = Vec::new();
        let mut state_cost = 0;
        for line in parts.state.lines() {
            let price = count(&format!("\n{line}"));
            if state_cost + price <= share {
                state_cost += price;
                state_lines.push(line);
            }
        }
        let beside = squeezed(parts.beside);
        // The request is shown where things stand (unless the reader has it
        // beside): what it names is there too.
        let request = {
            let held_beside = finder.held(&beside);
            candidates
                .iter()
                .enumerate()
                .find(|(at, c)| c.tier == Tier::Request && !held_beside[*at])
                .map_or(String::new(), |(_, c)| squeezed(&c.item.text))
        };
        // Room the headings, the blank lines and the parked line take.
        let overhead = least_room(parts.conversation, candidates.len(), count);
        let room = max_tokens.saturating_sub(overhead + state_cost);
        let files: Vec<&str> = candidates
            .iter()
            .enumerate()
            .filter(|(at, c)| c.line == Line::FilesChanged && !folders.contains(at))
            .map(|(_, c)| c.item.text.as_str())
            .collect();
        let root = common_root(&files);
        Self {
            parts,
            max_tokens,
            count,
            candidates,
            folders,
            finder,
            state_lines,
            beside,
            request,
            room,
            root,
        }
    }

    /// What the reader gets, with or without the request's own line.
    pub(super) fn reading(&self, narrative: &str, state: &[String], with_request: bool) -> String {
        let request = if with_request { self.request.as_str() } else { "" };
        format!(
            "{} {} {request} {}",
            squeezed(narrative),
            self.beside,
            squeezed(&state.join("\n"))
        )
    }

    pub(super) fn read(&self, narrative: &str, state: &[String]) -> String {
        self.reading(narrative, state, true)
    }

    /// The lines of where things stand shown beside `narrative`: a model's
    /// leaves out those it already says (issue 41), asked of the narrative
    /// as fitted, since a cut one may no longer say them, and the values
    /// taken from tool output.
    pub(super) fn shown_state(&self, narrative: &str, lines: &[String]) -> Vec<String> {
        if self.parts.by_model {
            // The model read the tool output itself: the values it used are
            // its narrative's to say.
            let lines: Vec<String> = lines
                .iter()
                .filter(|line| !line.starts_with(FROM_TOOL_OUTPUT))
                .cloned()
                .collect();
            unsaid(narrative, &lines)
        } else {
            lines.to_vec()
        }
    }

    /// What an item costs on its line, whether or not it opens the line.
    pub(super) fn cost(&self, candidate: &Candidate, opens_line: bool) -> u64 {
        let root = self.root.as_deref();
        let files_line = candidate.line == Line::FilesChanged;
        let prefix = match (opens_line || candidate.line.one_per_line(), files_line) {
            (true, true) => format!("\n{}", files_label(root)),
            (true, false) => format!("\n{}", candidate.line.label()),
            (false, _) => candidate.line.separator().to_owned(),
        };
        let text = if files_line {
            from_root(&candidate.item.text, root)
        } else {
            &candidate.item.text
        };
        (self.count)(&format!("{prefix}{text}"))
    }
}
