//! The budget (SPEC §4): every summary, whoever wrote it, fits
//! `summary_max_tokens`, filled in tier order — the latest request, every
//! prohibition, what the user named, files changed, the narrative, what the
//! assistant named, what tool output showed that was mentioned again — and
//! what does not fit is parked: counted, said on the summary's last line,
//! findable. The keep guard appends each guarded item the narrative lacks,
//! once, under a pinned heading.

use std::collections::HashSet;

use super::figures::{KeepFigures, Outcome};
pub use super::narrative::Shape;
use super::narrative::{KEPT_HEADING, fit_narrative, parked_line};
use super::presence::{holds, squeezed};
use super::render::{Candidate, Line, assemble, render};
use super::set::{KeepSet, Tier};

/// No summary's budget is smaller than this.
pub(crate) const MIN_SUMMARY_TOKENS: u64 = 500;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    pub text: String,
    pub tokens: u64,
    pub figures: KeepFigures,
}

/// The summary of `narrative` and the keep set within `max_tokens`, with
/// what became of every item the summary was to carry. `beside` is other
/// text the reader gets too (a handoff's quoted requests and reply; empty
/// for a summary alone): an item that text holds is not appended again.
pub fn fit_beside(
    narrative: &str,
    beside: &str,
    shape: Shape,
    set: &KeepSet,
    max_tokens: u64,
    count: &dyn Fn(&str) -> u64,
) -> Fitted {
    let beside = squeezed(beside);
    let read = |narrative: &str| format!("{} {beside}", squeezed(narrative));
    let candidates: Vec<Candidate> = set
        .ranked()
        .into_iter()
        .map(|(tier, item)| Candidate {
            tier,
            line: Line::of(tier, item.kind),
            item,
        })
        .collect();
    // Room the heading, the blank lines and the parked line take.
    let overhead = count(&format!("\n\n{KEPT_HEADING}\n\n\n")) + count(&parked_line(candidates.len().max(10)));
    let room = max_tokens.saturating_sub(overhead);
    // What an item costs on its line, whether or not it opens the line.
    let cost = |candidate: &Candidate, opens_line: bool| {
        let prefix = if opens_line || candidate.line.one_per_line() {
            format!("\n{}", candidate.line.label())
        } else {
            candidate.line.separator().to_owned()
        };
        count(&format!("{prefix}{}", candidate.item.text))
    };
    // Tiers 1–4, in order, while they fit (1 always; 2 parked only when 1–2
    // alone are over the budget).
    let mut admitted: Vec<usize> = Vec::new();
    let mut used = 0_u64;
    let mut opened: HashSet<Line> = HashSet::new();
    for (at, candidate) in candidates.iter().enumerate().filter(|(_, c)| c.tier.is_guarded()) {
        let price = cost(candidate, !opened.contains(&candidate.line));
        if candidate.tier == Tier::Request || used + price <= room {
            used += price;
            opened.insert(candidate.line);
            admitted.push(at);
        }
    }
    // The narrative takes the room the admitted items it lacks leave.
    let price_of_missing = |narrative: &str, admitted: &[usize]| -> u64 {
        let haystack = read(narrative);
        let mut opened = HashSet::new();
        admitted
            .iter()
            .map(|at| &candidates[*at])
            .filter(|candidate| !holds(&haystack, candidate.item))
            .map(|candidate| cost(candidate, opened.insert(candidate.line)))
            .sum()
    };
    // The longest narrative whose own length and the items it still lacks
    // fit the room: the least it may have is what the admitted items leave;
    // a narrative that holds them word for word may take their room too.
    let fits = |narrative_room: u64| {
        let fitted = fit_narrative(narrative, shape, narrative_room, count);
        let fits = count(&fitted) + price_of_missing(&fitted, &admitted) <= room;
        (fits, fitted)
    };
    // Not monotone (a longer narrative can hold more items and so cost less
    // beside it): try from the whole room down, in twelfths, and settle for
    // the pessimistic room, which always fits.
    let least = room.saturating_sub(used);
    let step = ((room - least) / 12).max(1);
    let mut found = None;
    let mut narrative_room = room;
    while narrative_room > least {
        if let (true, fitted) = fits(narrative_room) {
            found = Some(fitted);
            break;
        }
        narrative_room = narrative_room.saturating_sub(step).max(least);
    }
    let mut fitted_narrative = found.unwrap_or_else(|| fit_narrative(narrative, shape, least, count));
    // Tiers 6–7 fill what is left.
    let mut used = count(&fitted_narrative) + price_of_missing(&fitted_narrative, &admitted);
    let haystack = read(&fitted_narrative);
    for (at, candidate) in candidates.iter().enumerate().filter(|(_, c)| !c.tier.is_guarded()) {
        if holds(&haystack, candidate.item) {
            admitted.push(at);
            continue;
        }
        let price = cost(candidate, !opened.contains(&candidate.line));
        if used + price <= room {
            used += price;
            opened.insert(candidate.line);
            admitted.push(at);
        }
    }
    // Assemble, and give way until the whole, counted exactly, fits:
    // the lowest tiers first, then the narrative, never the request.
    loop {
        let (text, figures) = settle(&candidates, &admitted, &fitted_narrative, &read(&fitted_narrative));
        let tokens = count(&text);
        if tokens <= max_tokens {
            return Fitted { text, tokens, figures };
        }
        let droppable = admitted.iter().rposition(|at| candidates[*at].tier > Tier::FileChanged);
        if let Some(position) = droppable {
            admitted.remove(position);
            continue;
        }
        if !fitted_narrative.is_empty() {
            let smaller = count(&fitted_narrative) * 9 / 10;
            fitted_narrative = fit_narrative(narrative, shape, smaller, count);
            if smaller == 0 {
                fitted_narrative.clear();
            }
            continue;
        }
        match admitted.iter().rposition(|at| candidates[*at].tier != Tier::Request) {
            Some(position) => {
                admitted.remove(position);
            }
            None => return Fitted { text, tokens, figures },
        }
    }
}

/// The summary text for the admitted candidates, and what became of each
/// candidate: present in the narrative (or in a line already appended),
/// appended, or parked.
fn settle(candidates: &[Candidate], admitted: &[usize], narrative: &str, haystack: &str) -> (String, KeepFigures) {
    let admitted: HashSet<usize> = admitted.iter().copied().collect();
    let mut figures = KeepFigures::default();
    let mut appended: Vec<&Candidate> = Vec::new();
    let mut appended_texts: HashSet<&str> = HashSet::new();
    let mut parked = 0;
    for (at, candidate) in candidates.iter().enumerate() {
        let outcome = if holds(haystack, candidate.item) || appended_texts.contains(candidate.item.text.as_str()) {
            Outcome::Present
        } else if admitted.contains(&at) {
            appended.push(candidate);
            appended_texts.insert(candidate.item.text.as_str());
            Outcome::Appended
        } else {
            parked += 1;
            Outcome::Parked
        };
        figures.count(candidate.item.kind, outcome);
    }
    (assemble(narrative, &render(&appended), parked), figures)
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};

    use super::*;
    use crate::policy::keep::set::Place;
    use crate::policy::keep::{KeepKind, Sighting, Source};

    fn words(text: &str) -> u64 {
        text.split_whitespace().count() as u64
    }

    fn place(turn: i64) -> Place {
        Place {
            conversation_id: "c".into(),
            turn_id: Some(turn),
            compaction_seq: None,
            message: None,
            at: DateTime::<Utc>::UNIX_EPOCH,
        }
    }

    fn set_of(items: &[(KeepKind, &str, Source)]) -> KeepSet {
        let mut set = KeepSet::default();
        for (turn, (kind, text, source)) in items.iter().enumerate() {
            let sighting = Sighting {
                kind: *kind,
                text: (*text).into(),
                source: *source,
            };
            set.observe(&[sighting], &place(turn as i64));
        }
        set
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
                "We edited src/lib.rs and deployed.\n\n{KEPT_HEADING}\n- Latest request: Deploy 4711 to staging\n- Rule: Never force-push to main.\n- Paths: /srv/app"
            )
        );
        let total = fitted.figures.total();
        assert_eq!(
            (total.checked, total.present, total.appended, total.parked),
            (5, 2, 3, 0)
        );
    }

    #[test]
    fn a_complete_narrative_is_left_alone() {
        let set = set_of(&[(KeepKind::Request, "Ship it", Source::User)]);
        let fitted = fit_beside("The user said: Ship it", "", Shape::Prose, &set, 100, &words);
        assert_eq!(fitted.text, "The user said: Ship it");
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
        assert!(
            fitted.text.ends_with(&parked_line(total.parked as usize)),
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
        let fitted = fit_beside(narrative, "", Shape::Lines, &set, 30, &words);
        assert_eq!(fitted.text, narrative, "nothing to append, nothing parked");
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
}
