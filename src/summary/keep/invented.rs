//! The keep guard's other way (SPEC §4, *Guard*): an identifier in a
//! model's text — a path, file name, URL, id or quantity — that appears
//! nowhere in what it was given (the anchor, the delta, the keep set) is
//! invented. It is marked `[unverified]` where it stands, so an agent never
//! edits a file or trusts a figure nobody named, and counted.

use std::collections::BTreeMap;

use crate::summary::kinds::KeepKind;
use crate::summary::read::identifiers::{COMMON_FOLDERS, identifiers};

/// Follows each invented identifier in the text.
pub const UNVERIFIED: &str = "[unverified]";

/// What a model was given, to check its identifiers against.
#[derive(Debug, Clone, Copy)]
pub struct Given<'a> {
    pub texts: &'a [&'a str],
}

impl Given<'_> {
    fn holds(&self, needle: &str) -> bool {
        self.texts.iter().any(|text| text.contains(needle))
    }

    /// Whether `word` stands as a word of its own in what was given
    /// (`Ash`, not the `Ash` in `Hash`).
    fn holds_word(&self, word: &str) -> bool {
        self.texts.iter().any(|text| {
            text.match_indices(word)
                .any(|(start, _)| stands_alone(text, start, start + word.len()))
        })
    }

    /// Whether `identifier` of `kind` appears in what was given: a quantity
    /// by its figure (`1,836 ms` is given by `1836ms`), the rest as written.
    pub(crate) fn names(&self, kind: KeepKind, identifier: &str) -> bool {
        if kind == KeepKind::Path && is_word_list(identifier) {
            // `Elixir/Phoenix/Ash` is prose naming things one by one: given
            // where each of them is.
            return identifier.split('/').all(|word| self.holds_word(word));
        }
        if kind != KeepKind::Quantity {
            return self.holds(identifier);
        }
        let figure: String = identifier
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
            .collect();
        let figure = figure.trim_end_matches(['.', ',']);
        if figure.is_empty() {
            return self.holds(identifier);
        }
        let bare: String = figure.chars().filter(|c| *c != ',').collect();
        self.holds(figure) || self.holds(&bare)
    }
}

/// The identifiers in `text` that appear nowhere in what was given, in
/// order, once each, with their kind.
pub fn invented_in(text: &str, given: Given<'_>) -> Vec<(KeepKind, String)> {
    identifiers(text)
        .into_iter()
        .filter(|(kind, identifier)| !given.names(*kind, identifier))
        .collect()
}

/// Words joined by slashes rather than a path: no folder mark at either
/// end, no file extension, each part a word, not under a folder projects
/// keep code in (`app/Models/Invoice` is a path).
fn is_word_list(identifier: &str) -> bool {
    let first = identifier.split('/').next().unwrap_or_default();
    !identifier.starts_with(['/', '~', '.'])
        && !COMMON_FOLDERS.contains(&first.to_ascii_lowercase().as_str())
        && !identifier.ends_with('/')
        && identifier
            .split('/')
            .all(|word| !word.is_empty() && word.chars().all(char::is_alphanumeric))
        && identifier
            .split('/')
            .any(|word| word.chars().next().is_some_and(char::is_uppercase))
}

/// Whether `text[start..end]` is not part of a longer word.
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    !text[..start].chars().next_back().is_some_and(char::is_alphanumeric)
        && !text[end..].chars().next().is_some_and(char::is_alphanumeric)
}

/// `narrative` with every occurrence of an invented identifier marked where
/// it stands, and the identifiers (once each, with their kind).
pub fn mark_invented(narrative: &str, given: Given<'_>) -> (String, Vec<(KeepKind, String)>) {
    let found = invented_in(narrative, given);
    if found.is_empty() {
        return (narrative.to_owned(), found);
    }
    // Longest first, so `src/a/retry.rs` is marked whole, not at `retry.rs`.
    let mut invented: Vec<&str> = found.iter().map(|(_, identifier)| identifier.as_str()).collect();
    invented.sort_by_key(|identifier| std::cmp::Reverse(identifier.len()));
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for identifier in invented {
        for (start, _) in narrative.match_indices(identifier) {
            let end = start + identifier.len();
            let overlaps = spans.iter().any(|(s, e)| start < *e && *s < end);
            if stands_alone(narrative, start, end) && !overlaps {
                spans.push((start, end));
            }
        }
    }
    spans.sort_unstable();
    let mut marked = String::with_capacity(narrative.len() + spans.len() * (UNVERIFIED.len() + 1));
    let mut at = 0;
    for (_, end) in spans {
        marked.push_str(&narrative[at..end]);
        if !narrative[end..].starts_with(&format!(" {UNVERIFIED}")) {
            marked.push(' ');
            marked.push_str(UNVERIFIED);
        }
        at = end;
    }
    marked.push_str(&narrative[at..]);
    (marked, found)
}

/// How many of `invented` `text` still marks, by kind: what a summary says
/// it invented is what the summary holds, not what a budget cut away. A
/// mark is the longest identifier's that ends at it (`src/a/retry.rs
/// [unverified]` does not also count an invented `retry.rs`).
pub fn still_marked(text: &str, invented: &[(KeepKind, String)]) -> BTreeMap<KeepKind, u64> {
    let mut longest_first: Vec<&(KeepKind, String)> = invented.iter().collect();
    longest_first.sort_by_key(|(_, identifier)| std::cmp::Reverse(identifier.len()));
    let mut marks_taken: Vec<usize> = Vec::new();
    let mut counts = BTreeMap::new();
    for (kind, identifier) in longest_first {
        let marked = format!("{identifier} {UNVERIFIED}");
        let mut counted = false;
        for (start, _) in text.match_indices(&marked) {
            let mark = start + identifier.len();
            if marks_taken.contains(&mark) || !stands_alone(text, start, mark) {
                continue;
            }
            marks_taken.push(mark);
            counted = true;
        }
        if counted {
            *counts.entry(*kind).or_insert(0) += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(narrative: &str, given: &[&str]) -> (String, BTreeMap<KeepKind, u64>) {
        let (text, invented) = mark_invented(narrative, Given { texts: given });
        let counts = still_marked(&text, &invented);
        (text, counts)
    }

    #[test]
    fn what_a_budget_cut_away_is_not_counted() {
        let given = ["ticket OPS-1234"];
        let (text, invented) = mark_invented(
            "OPS-9999 blocks OPS-9999 again. Later: read src/new/thing.rs.",
            Given { texts: &given },
        );
        assert_eq!(
            still_marked(&text, &invented),
            BTreeMap::from([(KeepKind::Id, 1), (KeepKind::Path, 1)]),
            "each identifier once, however often it is marked"
        );
        let cut = &text[..text.find("Later").unwrap()];
        assert_eq!(still_marked(cut, &invented), BTreeMap::from([(KeepKind::Id, 1)]));
    }

    #[test]
    fn a_mark_counts_for_the_longest_identifier_it_follows() {
        let given = ["nothing of it"];
        let (text, invented) = mark_invented("Edit src/a/retry.rs now; retry.rs is new.", Given { texts: &given });
        assert_eq!(invented.len(), 2, "{invented:?}");
        assert_eq!(still_marked(&text, &invented).values().sum::<u64>(), 2, "{text}");
        let cut = &text[..text.find("now").unwrap()];
        assert_eq!(
            still_marked(cut, &invented).values().sum::<u64>(),
            1,
            "the path's mark is not the file name's: {cut}"
        );
    }

    #[test]
    fn words_joined_by_slashes_are_given_where_each_word_is() {
        let given = ["The app runs on Elixir with Phoenix, Ash and Bandit."];
        assert!(invented_in("An Elixir/Phoenix/Ash/Bandit app.", Given { texts: &given }).is_empty());
        assert_eq!(
            invented_in("An Elixir/Phoenix/Ash/Ecto app.", Given { texts: &given }),
            [(KeepKind::Path, "Elixir/Phoenix/Ash/Ecto".to_owned())]
        );
        let hashed = ["We use Phoenix with AshPostgres and Bandit in Elixir."];
        assert_eq!(
            invented_in("An Elixir/Phoenix/Ash/Bandit app.", Given { texts: &hashed }).len(),
            1,
            "Ash is not named by AshPostgres"
        );
        let named = ["The Invoice model sits beside the Models of app."];
        assert_eq!(
            invented_in("Edited app/Models/Invoice.", Given { texts: &named }),
            [(KeepKind::Path, "app/Models/Invoice".to_owned())],
            "a folder under app/ is a path, not a list of words"
        );
    }

    #[test]
    fn a_path_nobody_named_is_marked_where_it_stands() {
        let given = ["I edited /home/ada/.config/hypr/hyprlock.conf and reloaded."];
        let (text, counts) = mark(
            "Edited ~/.config/omarchy/screensaver.txt and hyprlock.conf; next, reload.",
            &given,
        );
        assert_eq!(
            text,
            "Edited ~/.config/omarchy/screensaver.txt [unverified] and hyprlock.conf; next, reload."
        );
        assert_eq!(counts, BTreeMap::from([(KeepKind::Path, 1)]));
    }

    #[test]
    fn a_figure_not_in_the_input_is_invented_one_written_differently_is_not() {
        let given = ["the retry waits 1836ms", "cap it at 774 ms"];
        let (text, counts) = mark(
            "A delay of 1,836 ms; the cap is 774 ms; the timeout 90 seconds.",
            &given,
        );
        assert_eq!(
            text,
            "A delay of 1,836 ms; the cap is 774 ms; the timeout 90 seconds [unverified]."
        );
        assert_eq!(counts, BTreeMap::from([(KeepKind::Quantity, 1)]));
    }

    #[test]
    fn urls_and_ids_are_checked_too_and_every_occurrence_is_marked() {
        let given = ["see https://docs.example.com/retry and ticket OPS-1234"];
        let (text, counts) = mark(
            "Per https://docs.example.com/retry, OPS-1234 is done; OPS-9999 is next. OPS-9999 blocks.",
            &given,
        );
        assert_eq!(
            text,
            "Per https://docs.example.com/retry, OPS-1234 is done; OPS-9999 [unverified] is next. OPS-9999 [unverified] blocks."
        );
        assert_eq!(counts, BTreeMap::from([(KeepKind::Id, 1)]));
    }

    #[test]
    fn a_faithful_text_is_unchanged_and_marking_twice_changes_nothing() {
        let given = ["Fixed src/billing/retry.rs; tests pass (42 passed)."];
        let faithful = "Fixed src/billing/retry.rs; 42 passed.";
        assert_eq!(mark(faithful, &given), (faithful.to_owned(), BTreeMap::new()));

        let (once, _) = mark("Then edit src/billing/queue.rs.", &given);
        let given_again = ["Fixed src/billing/retry.rs."];
        let (twice, _) = mark(&once, &given_again);
        assert_eq!(twice, once, "an identifier already marked is not marked again");
    }

    #[test]
    fn an_identifier_inside_a_longer_word_is_not_marked_there() {
        let given = ["nothing of it"];
        let (text, _) = mark("Build 4711 failed; see build_47110.", &given);
        assert!(text.contains("4711 [unverified]"), "{text}");
        assert!(!text.contains("build_4711 [unverified]0"), "{text}");
    }
}
