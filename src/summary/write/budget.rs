//! The budget (SPEC §4): every summary, whoever wrote it, fits
//! `summary_max_tokens`, filled in tier order — the latest request, every
//! prohibition, where things stand (at most a share of its own), what the
//! user named, files changed, the narrative, what the assistant named, what
//! tool output showed that was mentioned again (each of the last two capped)
//! — and what does not fit is parked: counted, said on the summary's last
//! line with the reads that find it, findable. The keep guard appends each
//! guarded item the summary lacks, once, under a pinned heading.

use std::collections::HashSet;

pub use super::narrative::Shape;
use super::narrative::{KEPT_HEADING, Parked, fit_narrative, parked_line};
use super::presence::{Finder, squeezed};
use super::render::{Candidate, Line, assemble, common_root, files_label, from_root, render, state_section};
use crate::summary::keep::KeepItem;
use crate::summary::keep::figures::{KeepFigures, Outcome};
use crate::summary::keep::set::{KeepSet, Tier};
use crate::summary::kinds::KeepKind;
use crate::summary::read::files::is_inside;
use crate::summary::read::state::{STATE_HEADING, StateAtCut};

/// No summary's budget is smaller than this.
pub(crate) const MIN_SUMMARY_TOKENS: u64 = 500;
/// Where things stand takes at most this share of the budget (percent)…
pub(crate) const STATE_SHARE: u64 = 15;
/// …what only the assistant named at most this…
pub(crate) const NAMED_BY_ASSISTANT_SHARE: u64 = 15;
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
}

impl<'a> Parts<'a> {
    /// A narrative alone, as the summary of `conversation`.
    pub fn of(narrative: &'a str, shape: Shape, conversation: &'a str) -> Self {
        static NOTHING: StateAtCut = StateAtCut {
            then: Vec::new(),
            in_progress: None,
            task_list: None,
            last_actions: Vec::new(),
            checks: None,
            commits: None,
            waiting_on_user: None,
            unresolved_error: None,
        };
        Self {
            narrative,
            shape,
            state: &NOTHING,
            beside: "",
            conversation,
        }
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
fn folders_of_others(candidates: &[Candidate]) -> HashSet<usize> {
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

/// The summary of `parts` and the keep set within `max_tokens`, with what
/// became of every item the summary was to carry.
pub fn fit(parts: Parts<'_>, set: &KeepSet, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> Fitted {
    fit_unless(parts, set, max_tokens, count, &|| false).unwrap_or_default()
}

/// [`fit`], given up (`None`) as soon as `stopped` says so: its cost is
/// items × text, and nobody may be waiting for it any more (issue 23).
pub fn fit_unless(
    parts: Parts<'_>,
    set: &KeepSet,
    max_tokens: u64,
    count: &dyn Fn(&str) -> u64,
    stopped: &dyn Fn() -> bool,
) -> Option<Fitted> {
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
    // Which items a text holds, asked of every text the reader may get.
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
    // What the reader gets, with or without the request's own line.
    let reading = |narrative: &str, state: &[String], with_request: bool| {
        let request = if with_request { request.as_str() } else { "" };
        format!(
            "{} {beside} {request} {}",
            squeezed(narrative),
            squeezed(&state.join("\n"))
        )
    };
    let read = |narrative: &str, state: &[String]| reading(narrative, state, true);
    // Room the headings, the blank lines and the parked line take.
    let overhead = least_room(parts.conversation, candidates.len(), count);
    let room = max_tokens.saturating_sub(overhead + state_cost);
    // The folder the files changed line may name its files from.
    let files: Vec<&str> = candidates
        .iter()
        .enumerate()
        .filter(|(at, c)| c.line == Line::FilesChanged && !folders.contains(at))
        .map(|(_, c)| c.item.text.as_str())
        .collect();
    let root = common_root(&files);
    // What an item costs on its line, whether or not it opens the line.
    let cost = |candidate: &Candidate, opens_line: bool| {
        let files_line = candidate.line == Line::FilesChanged;
        let prefix = match (opens_line || candidate.line.one_per_line(), files_line) {
            (true, true) => format!("\n{}", files_label(root.as_deref())),
            (true, false) => format!("\n{}", candidate.line.label()),
            (false, _) => candidate.line.separator().to_owned(),
        };
        let text = if files_line {
            from_root(&candidate.item.text, root.as_deref())
        } else {
            &candidate.item.text
        };
        count(&format!("{prefix}{text}"))
    };
    // Tiers 1–4, in order, while they fit (1 always; 2 parked only when 1–2
    // alone are over the budget).
    let mut admitted: Vec<usize> = Vec::new();
    let mut used = 0_u64;
    let mut opened: HashSet<Line> = HashSet::new();
    for (at, candidate) in candidates
        .iter()
        .enumerate()
        .filter(|(at, c)| c.tier.is_guarded() && !folders.contains(at))
    {
        let price = cost(candidate, !opened.contains(&candidate.line));
        if candidate.tier == Tier::Request || used + price <= room {
            used += price;
            opened.insert(candidate.line);
            admitted.push(at);
        }
    }
    // The narrative takes the room the admitted items it lacks leave.
    let price_of_missing = |narrative: &str, admitted: &[usize]| -> Option<u64> {
        if stopped() {
            return None;
        }
        let held = finder.held(&read(narrative, &state_lines));
        let held_beside = finder.held(&beside);
        let mut opened = HashSet::new();
        let mut price = 0;
        for (at, candidate) in admitted.iter().map(|at| (*at, &candidates[*at])) {
            let missing = match candidate.tier {
                // The request is shown where things stand unless the reader has it beside.
                Tier::Request => !held_beside[at],
                _ => !held[at],
            };
            if missing {
                price += cost(candidate, opened.insert(candidate.line));
            }
        }
        Some(price)
    };
    // The longest narrative whose own length and the items it still lacks
    // fit the room: the least it may have is what the admitted items leave;
    // a narrative that holds them word for word may take their room too.
    let fits = |narrative_room: u64| -> Option<(bool, String)> {
        let fitted = fit_narrative(parts.narrative, parts.shape, narrative_room, count);
        let fits = count(&fitted) + price_of_missing(&fitted, &admitted)? <= room;
        Some((fits, fitted))
    };
    // Not monotone (a longer narrative can hold more items and so cost less
    // beside it): try from the whole room down, in twelfths, and settle for
    // the pessimistic room, which always fits.
    let least = room.saturating_sub(used);
    let step = ((room - least) / 12).max(1);
    let mut found = None;
    let mut narrative_room = room;
    while narrative_room > least {
        if let (true, fitted) = fits(narrative_room)? {
            found = Some(fitted);
            break;
        }
        narrative_room = narrative_room.saturating_sub(step).max(least);
    }
    let mut fitted_narrative = found.unwrap_or_else(|| fit_narrative(parts.narrative, parts.shape, least, count));
    // Tiers 6–7 fill what is left, each within its cap.
    let mut used = count(&fitted_narrative) + price_of_missing(&fitted_narrative, &admitted)?;
    let held = finder.held(&read(&fitted_narrative, &state_lines));
    let (mut by_assistant, mut in_tool_output) = (0_u64, 0_u64);
    for (at, candidate) in candidates.iter().enumerate().filter(|(_, c)| !c.tier.is_guarded()) {
        if stopped() {
            return None;
        }
        if held[at] {
            admitted.push(at);
            continue;
        }
        let price = cost(candidate, !opened.contains(&candidate.line));
        let (spent, share) = match candidate.tier {
            Tier::NamedByAssistant => (&mut by_assistant, NAMED_BY_ASSISTANT_SHARE),
            _ => (&mut in_tool_output, SEEN_IN_TOOL_OUTPUT_SHARE),
        };
        if used + price <= room && *spent + price <= max_tokens * share / 100 {
            used += price;
            *spent += price;
            opened.insert(candidate.line);
            admitted.push(at);
        }
    }
    // Assemble, and give way until the whole, counted exactly, fits: the
    // tiers past the narrative first, then the narrative, then tiers 4 and
    // 3, then where things stand, then rules; never the request.
    loop {
        let summary = Summary {
            candidates: &candidates,
            admitted: &admitted,
            narrative: &fitted_narrative,
            state_lines: &state_lines,
            beside: &beside,
            conversation: parts.conversation,
            folders: &folders,
            finder: &finder,
            stopped,
        };
        let (text, figures) = summary.settle(
            &read(&fitted_narrative, &state_lines),
            &reading(&fitted_narrative, &state_lines, false),
        )?;
        let tokens = count(&text);
        if tokens <= max_tokens {
            return Some(Fitted { text, tokens, figures });
        }
        if let Some(position) = admitted.iter().rposition(|at| candidates[*at].tier > Tier::FileChanged) {
            admitted.remove(position);
            continue;
        }
        if !fitted_narrative.is_empty() {
            let smaller = count(&fitted_narrative) * 9 / 10;
            fitted_narrative = fit_narrative(parts.narrative, parts.shape, smaller, count);
            if smaller == 0 {
                fitted_narrative.clear();
            }
            continue;
        }
        if let Some(position) = admitted.iter().rposition(|at| candidates[*at].tier > Tier::Prohibition) {
            admitted.remove(position);
            continue;
        }
        if state_lines.pop().is_some() {
            continue;
        }
        match admitted.iter().rposition(|at| candidates[*at].tier != Tier::Request) {
            Some(position) => {
                admitted.remove(position);
            }
            None => return Some(Fitted { text, tokens, figures }),
        }
    }
}

/// One arrangement of a summary's parts.
struct Summary<'a> {
    candidates: &'a [Candidate<'a>],
    admitted: &'a [usize],
    narrative: &'a str,
    state_lines: &'a [String],
    beside: &'a str,
    conversation: &'a str,
    /// Files changed that are folders of others: held where one inside is.
    folders: &'a HashSet<usize>,
    /// Which items a text holds.
    finder: &'a Finder,
    /// Nobody waits for the summary any more.
    stopped: &'a dyn Fn() -> bool,
}

impl Summary<'_> {
    /// The summary text, and what became of each candidate: present in the
    /// narrative, the state or beside (or in a line already appended),
    /// appended, or parked. The request is shown where things stand unless
    /// the reader has it beside the summary.
    /// `haystack` is all the reader gets; `without_request` the same but
    /// for the request's own line (the request is present only where
    /// another part holds it, else compactd added it).
    fn settle(&self, haystack: &str, without_request: &str) -> Option<(String, KeepFigures)> {
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
        let text = assemble(self.narrative, &state, &render(&appended), parked, self.conversation);
        Some((text, figures))
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::summary::keep::set::Place;
    use crate::summary::keep::{Sighting, Source};
    use crate::summary::write::Presence;

    fn fit_beside(
        narrative: &str,
        beside: &str,
        shape: Shape,
        set: &KeepSet,
        max_tokens: u64,
        count: &dyn Fn(&str) -> u64,
    ) -> Fitted {
        let state = StateAtCut::default();
        let parts = Parts {
            narrative,
            shape,
            state: &state,
            beside,
            conversation: "c",
        };
        fit(parts, set, max_tokens, count)
    }

    fn words(text: &str) -> u64 {
        text.split_whitespace().count() as u64
    }

    fn place(turn: i64) -> Place {
        Place::of_turn(turn)
    }

    fn set_of(items: &[(KeepKind, &str, Source)]) -> KeepSet {
        let mut set = KeepSet::default();
        for (turn, (kind, text, source)) in items.iter().enumerate() {
            let sighting = Sighting::new(*kind, *text, *source);
            set.observe(&[sighting], &place(turn as i64));
        }
        set
    }

    #[test]
    fn files_changed_are_named_from_their_folder_and_a_folder_made_for_them_is_held_by_them() {
        let set = set_of(&[
            (KeepKind::FileChanged, "/Users/a/torre/apps/web", Source::ToolCall),
            (
                KeepKind::FileChanged,
                "/Users/a/torre/apps/web/lib/api.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/torre/apps/web/lib/logger.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/torre/apps/api/route.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/.claude/plans/plan.md",
                Source::ToolCall,
            ),
        ]);
        let fitted = fit_beside("Built the apps.", "", Shape::Prose, &set, 4_000, &words);
        let files: Vec<&str> = fitted
            .text
            .lines()
            .filter(|l| l.starts_with("- Files changed"))
            .collect();
        assert_eq!(
            files,
            [
                "- Files changed (under /Users/a/torre/apps/): api/route.ts, web/lib/logger.ts, web/lib/api.ts",
                "- Files changed: /Users/a/.claude/plans/plan.md",
            ]
        );
        let figures = fitted.figures.by_kind[&KeepKind::FileChanged];
        assert_eq!(
            (figures.checked, figures.appended, figures.present, figures.parked),
            (5, 4, 1, 0)
        );
        let presence = Presence::of(&fitted.text);
        for item in set.items() {
            assert!(presence.holds(item), "a reader finds {} in {}", item.text, fitted.text);
        }
    }

    #[test]
    fn a_file_named_whole_and_from_the_project_reads_once_and_both_are_found() {
        let set = set_of(&[
            (
                KeepKind::FileChanged,
                "/Users/a/dash/src/lib/reader.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/dash/src/app/page.tsx",
                Source::ToolCall,
            ),
            (KeepKind::FileChanged, "/Users/a/dash/README.md", Source::ToolCall),
            (KeepKind::FileChanged, "src/lib/reader.ts", Source::ToolCall),
        ]);
        let fitted = fit_beside("Built the dashboard.", "", Shape::Prose, &set, 4_000, &words);
        assert!(
            fitted
                .text
                .lines()
                .any(|line| line
                    == "- Files changed (under /Users/a/dash/): README.md, src/app/page.tsx, src/lib/reader.ts"),
            "{}",
            fitted.text
        );
        let presence = Presence::of(&fitted.text);
        for item in set.items() {
            assert!(presence.holds(item), "a reader finds {} in {}", item.text, fitted.text);
        }
    }

    #[test]
    fn the_budget_is_a_twentieth_of_the_window_within_its_bounds() {
        assert_eq!(summary_max_tokens(4_000, 200_000), 4_000);
        assert_eq!(summary_max_tokens(4_000, 30_000), 1_500);
        assert_eq!(summary_max_tokens(4_000, 8_000), MIN_SUMMARY_TOKENS);
        assert_eq!(summary_max_tokens(4_000, 0), 4_000);
    }

    #[test]
    fn missing_items_are_appended_once_under_the_heading() {
        let set = set_of(&[
            (KeepKind::Request, "Deploy 4711 to staging", Source::User),
            (KeepKind::Prohibition, "Never force-push to main.", Source::User),
            (KeepKind::Path, "/srv/app", Source::User),
            (KeepKind::Path, "src/lib.rs", Source::User),
            (KeepKind::FileChanged, "src/lib.rs", Source::ToolCall),
        ]);
        let fitted = fit_beside(
            "We edited src/lib.rs and deployed.",
            "",
            Shape::Prose,
            &set,
            200,
            &words,
        );
        assert_eq!(
            fitted.text,
            format!(
                "We edited src/lib.rs and deployed.\n\n{STATE_HEADING}\n- Latest request: Deploy 4711 to staging\n\n{KEPT_HEADING}\n- Rule: Never force-push to main.\n- Paths: /srv/app"
            )
        );
        let total = fitted.figures.total();
        assert_eq!(
            (total.checked, total.present, total.appended, total.parked),
            (5, 2, 3, 0)
        );
    }

    #[test]
    fn a_complete_narrative_gets_nothing_appended_and_the_request_opens_where_things_stand() {
        let set = set_of(&[
            (KeepKind::Request, "Ship it", Source::User),
            (KeepKind::Path, "src/a.rs", Source::User),
        ]);
        let fitted = fit_beside(
            "The user said: Ship it, in src/a.rs.",
            "",
            Shape::Prose,
            &set,
            100,
            &words,
        );
        assert_eq!(
            fitted.text,
            format!("The user said: Ship it, in src/a.rs.\n\n{STATE_HEADING}\n- Latest request: Ship it")
        );
        assert_eq!(fitted.figures.total().present, 2);
    }

    #[test]
    fn every_summary_fits_its_budget_and_says_what_it_parked() {
        let mut items: Vec<(KeepKind, String, Source)> = (0..200)
            .map(|i| (KeepKind::Path, format!("src/module_{i}/file.rs"), Source::User))
            .collect();
        items.push((KeepKind::Request, "Finish the migration".into(), Source::User));
        let items: Vec<(KeepKind, &str, Source)> = items.iter().map(|(k, t, s)| (*k, t.as_str(), *s)).collect();
        let set = set_of(&items);
        let narrative = "A long story. ".repeat(200);
        let fitted = fit_beside(&narrative, "", Shape::Prose, &set, 120, &words);
        assert!(fitted.tokens <= 120, "{} tokens", fitted.tokens);
        assert_eq!(fitted.tokens, words(&fitted.text));
        assert!(fitted.text.contains("- Latest request: Finish the migration"));
        let total = fitted.figures.total();
        assert!(total.parked > 0);
        let parked = Parked {
            all: total.parked as usize,
            said: total.parked as usize,
        };
        assert!(fitted.text.ends_with(&parked_line(parked, "c")), "{}", fitted.text);
        assert!(
            fitted.text.contains("for conversation \"c\": get_keep_set"),
            "{}",
            fitted.text
        );
        assert!(fitted.text.contains("src/module_199/file.rs"), "the newest first");
    }

    #[test]
    fn rules_outrank_the_narrative_and_the_oldest_rule_is_parked_last_of_all() {
        let rules: Vec<String> = (0..40).map(|i| format!("Never do thing number {i} at all.")).collect();
        let mut items: Vec<(KeepKind, &str, Source)> = rules
            .iter()
            .map(|r| (KeepKind::Prohibition, r.as_str(), Source::User))
            .collect();
        items.push((KeepKind::Path, "user/named.rs", Source::User));
        let set = set_of(&items);
        let fitted = fit_beside(
            &"Narrative that does not fit. ".repeat(5),
            "",
            Shape::Prose,
            &set,
            100,
            &words,
        );
        assert!(fitted.tokens <= 100);
        assert!(!fitted.text.contains("Narrative"), "{}", fitted.text);
        assert!(fitted.text.contains("thing number 39"));
        assert!(!fitted.text.contains("thing number 0 "), "{}", fitted.text);
        assert!(fitted.figures.by_kind[&KeepKind::Prohibition].parked > 0);
    }

    #[test]
    fn names_are_present_only_where_they_stand_alone() {
        let set = set_of(&[(KeepKind::Path, "src/a.rs", Source::User)]);
        assert!(
            fit_beside("Backed up xsrc/a.rs.bak.", "", Shape::Prose, &set, 100, &words)
                .text
                .contains("- Paths: src/a.rs")
        );
        assert_eq!(
            fit_beside("Edited src/a.rs.", "", Shape::Prose, &set, 100, &words).text,
            "Edited src/a.rs."
        );
    }

    #[test]
    fn the_agents_names_fill_what_the_narrative_leaves() {
        let set = set_of(&[
            (KeepKind::Path, "agent/one.rs", Source::Assistant),
            (KeepKind::Path, "only/tool.rs", Source::ToolResult),
        ]);
        let fitted = fit_beside("Short.", "", Shape::Prose, &set, 100, &words);
        assert!(
            fitted.text.contains("- Also named by the agent: agent/one.rs"),
            "{}",
            fitted.text
        );
        assert!(!fitted.text.contains("only/tool.rs"));
    }

    #[test]
    fn a_narrative_that_holds_every_item_takes_the_room_they_would_have_taken() {
        let set = set_of(&[
            (
                KeepKind::Request,
                "Rotate key KEY-2231 in /etc/app/keys now",
                Source::User,
            ),
            (KeepKind::Path, "/etc/app/keys", Source::User),
            (KeepKind::Id, "KEY-2231", Source::User),
        ]);
        let narrative = "Header line.\n- Rotate key KEY-2231 in /etc/app/keys now → Rotated it.";
        let fitted = fit_beside(narrative, "", Shape::Lines, &set, 60, &words);
        assert_eq!(
            fitted.text,
            format!("{narrative}\n\n{STATE_HEADING}\n- Latest request: Rotate key KEY-2231 in /etc/app/keys now"),
            "nothing appended, nothing parked"
        );
        assert_eq!(fitted.figures.total().present, 3);
    }

    #[test]
    fn what_the_reader_has_beside_the_summary_is_not_appended_again() {
        let set = set_of(&[
            (KeepKind::Request, "Book the 9:10 train", Source::User),
            (KeepKind::Prohibition, "Never book first class.", Source::User),
        ]);
        let fitted = fit_beside(
            "Planned a trip.",
            "- (2026-10-18) Book the 9:10 train",
            Shape::Prose,
            &set,
            100,
            &words,
        );
        assert_eq!(
            fitted.text,
            format!("Planned a trip.\n\n{KEPT_HEADING}\n- Rule: Never book first class.")
        );
    }

    #[test]
    fn where_things_stand_comes_after_the_narrative_within_its_share() {
        let set = set_of(&[
            (KeepKind::Request, "Fix the retry test", Source::User),
            (KeepKind::Prohibition, "Never touch prod.", Source::User),
            (KeepKind::Path, "src/retry.rs", Source::User),
        ]);
        let state = StateAtCut {
            then: vec!["answered: Great!".into()],
            in_progress: Some("Raising the backoff in src/retry.rs to 774ms.".into()),
            task_list: None,
            last_actions: vec!["Bash `cargo test` → failed: backoff too short".into()],
            checks: None,
            commits: None,
            waiting_on_user: None,
            unresolved_error: Some(format!("Bash `make` failed: {}", "word ".repeat(40))),
        };
        let parts = Parts {
            narrative: "We looked at the retries.",
            shape: Shape::Prose,
            state: &state,
            beside: "",
            conversation: "c",
        };
        let fitted = fit(parts, &set, 200, &words);
        assert_eq!(
            fitted.text,
            format!(
                "We looked at the retries.\n\n{STATE_HEADING}\n- Latest request: Fix the retry test\n- Then: answered: Great!\n\
                 - In progress: Raising the backoff in src/retry.rs to 774ms.\n- Last actions: Bash `cargo test` → failed: backoff too short\n\n\
                 {KEPT_HEADING}\n- Rule: Never touch prod."
            ),
            "the path is held where things stand; the long error is over the section's 15%"
        );
        assert_eq!(fitted.figures.by_kind[&KeepKind::Path].present, 1);
    }

    #[test]
    fn the_agents_and_the_tools_names_are_capped() {
        let mut items: Vec<(KeepKind, String, Source)> = (0..300)
            .map(|i| (KeepKind::Command, format!("make target_{i}"), Source::ToolCall))
            .collect();
        items.extend((0..300).map(|i| (KeepKind::Path, format!("out/{i}.log"), Source::ToolResult)));
        let items: Vec<(KeepKind, &str, Source)> = items.iter().map(|(k, t, s)| (*k, t.as_str(), *s)).collect();
        let mut set = set_of(&items);
        for i in 0..300 {
            let again = Sighting::new(KeepKind::Path, format!("out/{i}.log"), Source::Assistant);
            set.observe(&[again], &place(1000 + i));
        }
        let fitted = fit_beside("Short.", "", Shape::Prose, &set, 1_000, &words);
        let line = |label: &str| fitted.text.lines().find(|l| l.starts_with(label)).map_or(0, words);
        let by_agent = line("- Also named by the agent:");
        let in_output = line("- Seen in tool output and mentioned again:");
        assert!(by_agent > 0 && by_agent <= 150, "tier 6: {by_agent} words");
        assert!(in_output > 0 && in_output <= 50, "tier 7: {in_output} words");
        assert!(fitted.figures.total().parked > 0);
    }

    #[test]
    fn the_same_inputs_give_the_same_summary() {
        let set = set_of(&[
            (KeepKind::Path, "b.rs", Source::User),
            (KeepKind::Path, "a.rs", Source::User),
            (KeepKind::Quantity, "774ms", Source::User),
        ]);
        let first = fit_beside("n", "", Shape::Prose, &set, 100, &words);
        let again = fit_beside(
            "n",
            "",
            Shape::Prose,
            &KeepSet::new(set.items().to_vec(), set.clock()),
            100,
            &words,
        );
        assert_eq!(first, again);
    }

    #[test]
    fn a_fit_told_to_stop_gives_up_and_one_never_told_fits_as_fit_does() {
        let mut set = KeepSet::default();
        let place = Place::of_turn(1);
        let sightings: Vec<Sighting> = (0..50)
            .map(|n| Sighting::new(KeepKind::Path, format!("src/m/f{n}.rs"), Source::User))
            .collect();
        set.observe(&sightings, &place);
        let state = StateAtCut::default();
        let parts = Parts {
            narrative: "We worked.",
            shape: Shape::Prose,
            state: &state,
            beside: "",
            conversation: "c",
        };
        let asked = std::cell::Cell::new(0);
        // Asked before each pass over a text (an item costs a lookup now).
        let after_two = || {
            asked.set(asked.get() + 1);
            asked.get() > 2
        };
        assert_eq!(fit_unless(parts, &set, 2_000, &words, &after_two), None);
        assert_eq!(asked.get(), 3, "it gave up at the first check told to");
        assert_eq!(
            fit_unless(parts, &set, 2_000, &words, &|| false),
            Some(fit(parts, &set, 2_000, &words))
        );
    }
}
