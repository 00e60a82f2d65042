//! Which lines of where things stand a model's narrative already says
//! (issue 41): a line the narrative holds in full would only repeat it, so
//! a model-written summary leaves it out. A line is held when every
//! distinctive part of it is in the narrative — each name (path, URL, id,
//! quantity, each command in backticks) standing as the keep guard finds
//! it, and each distinctive word — and kept when any one is missing: a
//! line with a value the narrative lacks is the one the reader needs.

use std::collections::HashSet;

use super::presence::{Finder, squeezed};
use crate::summary::kinds::KeepKind;
use crate::summary::read::identifiers::identifiers;

/// Words too common to tell one line from another, and the words the
/// section's own labels and outcomes are written in.
const COMMON: &[&str] = &[
    "about", "after", "again", "also", "before", "being", "could", "every", "failed", "first", "from", "have", "into",
    "just", "more", "other", "should", "since", "still", "that", "their", "them", "then", "there", "these", "they",
    "this", "those", "tool", "calls", "call", "actions", "earlier", "answered", "under", "when", "where", "which",
    "while", "with", "would", "your",
];

/// Short words that change what a line means: never left out of its parts.
const NEGATIONS: &[&str] = &[
    "no", "not", "never", "don't", "dont", "can't", "won't", "isn't", "didn't", "doesn't",
];

/// `lines` without those `narrative` already says in full, in their order.
pub(super) fn unsaid(narrative: &str, lines: &[String]) -> Vec<String> {
    if narrative.trim().is_empty() {
        return lines.to_vec();
    }
    let held_text = squeezed(narrative);
    let held_words: HashSet<String> = words(narrative).map(|word| stem(&word)).collect();
    lines
        .iter()
        .filter(|line| !says(&held_text, &held_words, line))
        .cloned()
        .collect()
}

/// Whether the narrative (`held_text` squeezed, its words stemmed) holds
/// every distinctive part of `line`; a line with none is kept.
fn says(held_text: &str, held_words: &HashSet<String>, line: &str) -> bool {
    // The label ("- In progress: ") is compactd's, not what the line says.
    let body = line
        .strip_prefix("- ")
        .and_then(|rest| rest.split_once(": "))
        .map_or(line, |(_, body)| body);
    let mut names = identifiers(body);
    names.extend(quoted(body).map(|command| (KeepKind::Command, command.to_owned())));
    let distinctive: Vec<String> = words(body).filter(|word| is_distinctive(word)).collect();
    if names.is_empty() && distinctive.is_empty() {
        return false;
    }
    let finder = Finder::of_names(names.iter().map(|(kind, text)| (*kind, text.as_str())));
    finder.held(held_text).iter().all(|held| *held) && distinctive.iter().all(|word| held_words.contains(&stem(word)))
}

/// The spans in backticks (a command or a target the line quotes).
fn quoted(text: &str) -> impl Iterator<Item = &str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| !span.trim().is_empty())
}

/// The words of `text`, lowercased (an apostrophe inside a word stays).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .map(|word| word.trim_matches(['\'', '’']).replace('’', "'").to_lowercase())
        .filter(|word| !word.is_empty())
}

/// A word that tells what a line says: a negation, or one of five letters
/// or more (or with a digit) that is not a common one.
fn is_distinctive(word: &str) -> bool {
    NEGATIONS.contains(&word)
        || ((word.chars().count() >= 5 || word.chars().any(|c| c.is_ascii_digit())) && !COMMON.contains(&word))
}

/// `word` without the endings that make it a plural or a tense, so the
/// narrative's "raised the backoffs" says the line's "raising the backoff".
fn stem(word: &str) -> String {
    let word = word.strip_suffix("'s").unwrap_or(word);
    for ending in ["ing", "ed", "es", "s", "e"] {
        if let Some(root) = word.strip_suffix(ending)
            && root.chars().count() >= 4
        {
            return root.to_owned();
        }
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(list: &[&str]) -> Vec<String> {
        list.iter().map(|line| (*line).to_owned()).collect()
    }

    #[test]
    fn a_line_whose_file_value_and_words_the_narrative_says_is_left_out() {
        let state = lines(&["- In progress: Raising the backoff in src/retry.rs to 774ms."]);
        assert_eq!(
            unsaid(
                "We were raising the backoffs in src/retry.rs to 774ms when it stopped.",
                &state
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_line_with_one_part_the_narrative_lacks_is_kept() {
        let state = lines(&["- In progress: Raising the backoff in src/retry.rs to 774ms."]);
        for narrative in [
            "We were raising the backoff in src/retry.rs.",
            "We were raising the backoff to 774ms in xsrc/retry.rs.bak.",
            "We were lowering the timeout in src/retry.rs to 774ms.",
        ] {
            assert_eq!(unsaid(narrative, &state), state, "{narrative}");
        }
    }

    #[test]
    fn a_negation_is_part_of_what_a_line_says() {
        let state = lines(&["- Waiting on the user: Should the deploy not wait for staging?"]);
        assert_eq!(unsaid("The deploy should wait for staging.", &state), state);
    }

    #[test]
    fn a_command_in_backticks_is_held_only_where_the_narrative_runs_it_as_written() {
        let state = lines(&["- Last actions: Bash `cargo test retry` → ok"]);
        assert_eq!(unsaid("Ran cargo test, all green.", &state), state);
        assert!(unsaid("Then ran `cargo test retry`: ok.", &state).is_empty());
    }

    #[test]
    fn a_line_with_nothing_distinctive_and_an_empty_narrative_keep_every_line() {
        let state = lines(&["- Then: ran /x"]);
        assert_eq!(unsaid("Nothing here.", &lines(&["- Then: ok"])), lines(&["- Then: ok"]));
        assert_eq!(unsaid("", &state), state);
    }
}
