//! Place, the second step of fitting: tiers 1–4 while they fit, the
//! narrative in the room they leave, then tiers 6–7 within their caps
//! (never a command that only looks).

use std::collections::HashSet;

use super::rank::Ranked;
use crate::summary::keep::set::Tier;
use crate::summary::kinds::KeepKind;
use crate::summary::read::commands::{only_looks, steps};
use crate::summary::write::budget::{NAMED_BY_ASSISTANT_SHARE, SEEN_IN_TOOL_OUTPUT_SHARE};
use crate::summary::write::narrative::fit_narrative;
use crate::summary::write::render::Line;

/// Where the items went and the narrative they went beside.
pub(super) struct Placed {
    pub(super) admitted: Vec<usize>,
    pub(super) narrative: String,
}

impl<'a> Ranked<'a> {
    /// Place: tiers 1–4 in order while they fit, the narrative in the room
    /// they leave, then tiers 6–7 within their caps.
    pub(super) fn place(&self, stopped: &dyn Fn() -> bool) -> Option<Placed> {
        let (mut admitted, used, mut opened) = self.admit_guarded();
        let narrative = self.narrative_beside(&admitted, used, stopped)?;
        self.fill_unguarded(&narrative, &mut admitted, &mut opened, stopped)?;
        Some(Placed { admitted, narrative })
    }

    /// Tiers 1–4, in order, while they fit (1 always; 2 parked only when
    /// 1–2 alone are over the budget): the admitted, the room they take and
    /// the lines they open.
    fn admit_guarded(&self) -> (Vec<usize>, u64, HashSet<Line>) {
        let mut admitted: Vec<usize> = Vec::new();
        let mut used = 0_u64;
        let mut opened: HashSet<Line> = HashSet::new();
        for (at, candidate) in self
            .candidates
            .iter()
            .enumerate()
            .filter(|(at, c)| c.tier.is_guarded() && !self.folders.contains(at))
        {
            let price = self.cost(candidate, !opened.contains(&candidate.line));
            if candidate.tier == Tier::Request || used + price <= self.room {
                used += price;
                opened.insert(candidate.line);
                admitted.push(at);
            }
        }
        (admitted, used, opened)
    }

    /// What the admitted items `narrative` lacks cost beside it.
    fn price_of_missing(&self, narrative: &str, admitted: &[usize], stopped: &dyn Fn() -> bool) -> Option<u64> {
        if stopped() {
            return None;
        }
        let held = self
            .finder
            .held(&self.read(narrative, &self.shown_state(narrative, &self.state_lines)));
        let held_beside = self.finder.held(&self.beside);
        let mut opened = HashSet::new();
        let mut price = 0;
        for (at, candidate) in admitted.iter().map(|at| (*at, &self.candidates[*at])) {
            let missing = match candidate.tier {
                // The request is shown where things stand unless the reader has it beside.
                Tier::Request => !held_beside[at],
                _ => !held[at],
            };
            if missing {
                price += self.cost(candidate, opened.insert(candidate.line));
            }
        }
        Some(price)
    }

    /// The longest narrative whose own length and the items it still lacks
    /// fit the room: the least it may have is what the admitted items leave;
    /// a narrative that holds them word for word may take their room too.
    fn narrative_beside(&self, admitted: &[usize], used: u64, stopped: &dyn Fn() -> bool) -> Option<String> {
        let (parts, count, room) = (self.parts, self.count, self.room);
        let fits = |narrative_room: u64| -> Option<(bool, String)> {
            let fitted = fit_narrative(parts.narrative, parts.shape, narrative_room, count);
            let fits = count(&fitted) + self.price_of_missing(&fitted, admitted, stopped)? <= room;
            Some((fits, fitted))
        };
        // Not monotone (a longer narrative can hold more items and so cost less
        // beside it): try from the whole room down, in twelfths, and settle for
        // the pessimistic room, which always fits.
        let least = room.saturating_sub(used);
        let step = ((room - least) / 12).max(1);
        let mut narrative_room = room;
        while narrative_room > least {
            if let (true, fitted) = fits(narrative_room)? {
                return Some(fitted);
            }
            narrative_room = narrative_room.saturating_sub(step).max(least);
        }
        Some(fit_narrative(parts.narrative, parts.shape, least, count))
    }

    /// Tiers 6–7 fill what is left beside `narrative`, each within its cap;
    /// an item the narrative holds is admitted free; beside a model's
    /// narrative nothing else, and a command that only looks never.
    fn fill_unguarded(
        &self,
        narrative: &str,
        admitted: &mut Vec<usize>,
        opened: &mut HashSet<Line>,
        stopped: &dyn Fn() -> bool,
    ) -> Option<()> {
        let mut used = (self.count)(narrative) + self.price_of_missing(narrative, admitted, stopped)?;
        let held = self
            .finder
            .held(&self.read(narrative, &self.shown_state(narrative, &self.state_lines)));
        let (mut by_assistant, mut in_tool_output) = (0_u64, 0_u64);
        let series = self.long_series();
        let tabled = self.table_numbering();
        for (at, candidate) in self.candidates.iter().enumerate().filter(|(_, c)| !c.tier.is_guarded()) {
            if stopped() {
                return None;
            }
            if held[at] {
                admitted.push(at);
                continue;
            }
            // A model's narrative says what of the agent's names matters;
            // a list of the rest beside it is noise (the guard is tiers 1–4's).
            if self.parts.by_model {
                continue;
            }
            // A search or a read the agent ran told it something then;
            // named again it tells a reader nothing (it stays parked).
            if candidate.item.kind == KeepKind::Command && only_looks(&candidate.item.text) {
                continue;
            }
            // One of many numbered alike (`BF-1`…`BF-6`, `FF-1`…`FF-7`), or
            // of a table numbering its rows by many prefixes (`BH-1`, `CL-2`,
            // `IC-4`…): the agent's own table's rows; a list of them says
            // nothing.
            if series_of(&candidate.item.text).is_some_and(|prefix| series.contains(prefix) || tabled.contains(prefix))
            {
                continue;
            }
            if says_nothing_alone(candidate.item.kind, &candidate.item.text) {
                continue;
            }
            let price = self.cost(candidate, !opened.contains(&candidate.line));
            let (spent, share) = match candidate.tier {
                Tier::NamedByAssistant => (&mut by_assistant, NAMED_BY_ASSISTANT_SHARE),
                _ => (&mut in_tool_output, SEEN_IN_TOOL_OUTPUT_SHARE),
            };
            if used + price <= self.room && *spent + price <= self.max_tokens * share / 100 {
                used += price;
                *spent += price;
                opened.insert(candidate.line);
                admitted.push(at);
            }
        }
        Some(())
    }

    /// The prefixes of a table that numbers its rows by many of them (`BH-1`,
    /// `BH-2`, `CL-1`, `CL-3`, `IC-4`, `IC-5`…): each prefix that numbers
    /// two or more of tiers 6–7's ids, when [`TABLE_PREFIXES`] or more do.
    /// `UTF-8`, `SHA-256` and one ticket make no table.
    fn table_numbering(&self) -> HashSet<&str> {
        let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for candidate in self.candidates.iter().filter(|c| !c.tier.is_guarded()) {
            if let Some(prefix) = series_of(&candidate.item.text) {
                *counts.entry(prefix).or_default() += 1;
            }
        }
        let numbered: HashSet<&str> = counts
            .into_iter()
            .filter(|(_, count)| *count >= 2)
            .map(|(prefix, _)| prefix)
            .collect();
        if numbered.len() >= TABLE_PREFIXES {
            numbered
        } else {
            HashSet::new()
        }
    }

    /// The prefixes that number more than [`LONG_SERIES`] of tiers 6–7's ids.
    fn long_series(&self) -> HashSet<&str> {
        let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for candidate in self.candidates.iter().filter(|c| !c.tier.is_guarded()) {
            if let Some(prefix) = series_of(&candidate.item.text) {
                *counts.entry(prefix).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .filter(|(_, count)| *count >= LONG_SERIES)
            .map(|(prefix, _)| prefix)
            .collect()
    }
}

/// How many ids numbered alike make a series…
const LONG_SERIES: usize = 4;
/// …and how many prefixes numbering two or more make a table's numbering.
const TABLE_PREFIXES: usize = 3;

/// An item of the agent's or a tool's that a list word for word cannot
/// make useful: a bare percentage (`74%`: of what?), a process id, or a
/// one-off shell line (three commands or more, `sleep 3 && tail -5 … |
/// grep x`, or longer than [`ONE_OFF_CHARS`]), which the narrative shows
/// with its outcome where it mattered.
fn says_nothing_alone(kind: KeepKind, text: &str) -> bool {
    match kind {
        KeepKind::Quantity => {
            let bare = text.trim();
            bare.strip_suffix('%').is_some_and(|number| {
                number
                    .trim()
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
            }) || bare
                .strip_prefix("PID ")
                .is_some_and(|number| number.chars().all(|c| c.is_ascii_digit()))
        }
        KeepKind::Command => steps(text).len() >= ONE_OFF_STEPS || text.chars().count() > ONE_OFF_CHARS,
        _ => false,
    }
}

/// A command of this many steps or more, or longer than this, is a
/// one-off, not one to run again by name.
const ONE_OFF_STEPS: usize = 3;
const ONE_OFF_CHARS: usize = 100;

/// The prefix an id numbers in a series (`BF2` of `BF2-5`, `TMA` of `TMA-10`).
fn series_of(text: &str) -> Option<&str> {
    let (prefix, number) = text.rsplit_once('-')?;
    let numbered = !number.is_empty() && number.len() <= 3 && number.bytes().all(|b| b.is_ascii_digit());
    let named = !prefix.is_empty()
        && prefix.len() <= 8
        && prefix.chars().all(|c| c.is_ascii_alphanumeric())
        && prefix.chars().any(|c| c.is_ascii_alphabetic());
    (numbered && named).then_some(prefix)
}
