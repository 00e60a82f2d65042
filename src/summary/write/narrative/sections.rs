//! A narrative's place in a summary's text: the headings and marks it is
//! written with, the parked line after it, a prepared summary's prose merged
//! with the lines after it, and the narrative read back out of a stored summary.

use std::sync::LazyLock;

use regex::Regex;

use crate::summary::read::state::STATE_HEADING;

/// The pinned heading the keep guard appends items under.
pub const KEPT_HEADING: &str = "Kept word for word:";

/// How a step of the work under a request's line begins (the extractive
/// summarizer's narrative): the oldest give way first.
pub const WORK_MARK: &str = "  · ";

/// How a step that quotes more of the user's request begins: the user's own
/// words give way after the agent's work.
pub const ASKED_MARK: &str = "  · asked: ";
/// …and one that says what an issue the agent read asks for: the work's
/// own requirements give way after the agent's steps too.
pub const BRIEF_MARK: &str = "  · read ";

/// The pinned heading of the lines a compaction adds to a prepared summary:
/// one per request of the turns after it (issue 12).
pub const SINCE_HEADING: &str = "Since then, one line per request:";

/// The parked line, in this version's words and in earlier ones'.
static PARKED_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\n*\(\d+ more items? (?:is|are) parked(?: for conversation \x22[^\x22\n]*\x22)?: [^\n]*\)\s*\z")
        .expect("a valid pattern")
});

/// What is parked, by the read that finds it again (SPEC §4, *The way
/// back*): what a stored turn said, `search_history` finds; everything,
/// including what only tool calls and their output named, is in the keep
/// set, which `get_keep_set` lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Parked {
    pub all: usize,
    /// Of them, said in the stored turns.
    pub said: usize,
}

/// The summary's last line when items are parked: how many, for which
/// conversation, and which read finds them.
pub(crate) fn parked_line(parked: Parked, conversation: &str) -> String {
    let Parked { all, said } = parked;
    let (items, are) = if all == 1 { ("item", "is") } else { ("items", "are") };
    let whose = if conversation.is_empty() {
        String::new()
    } else {
        format!(" for conversation \"{}\"", conversation.replace(['"', '\n'], ""))
    };
    let lists = if all == 1 { "lists it" } else { "lists them all" };
    let search = match said {
        0 => String::new(),
        n if n == all && n == 1 => "; search_history finds it in the stored turns".to_owned(),
        n if n == all => "; search_history finds them in the stored turns".to_owned(),
        n => format!("; search_history finds the {n} said in the stored turns"),
    };
    format!("({all} more {items} {are} parked{whose}: get_keep_set {lists}{search}.)")
}

/// `text` before its last section under `heading`, if it has one.
fn before_section<'a>(text: &'a str, heading: &str) -> &'a str {
    let marker = format!("\n\n{heading}\n");
    match text.rfind(&marker) {
        Some(at) => &text[..at],
        None if text.starts_with(&marker[2..]) => "",
        None => text,
    }
}

/// The narrative of a stored summary: without where things stood, the
/// items compactd appended and the parked line (each is built again from
/// the transcript and the keep set).
pub fn narrative_of(summary: &str) -> &str {
    let without_parked = match PARKED_LINE.find(summary) {
        Some(found) => &summary[..found.start()],
        None => summary,
    };
    let without_kept = before_section(without_parked, KEPT_HEADING);
    before_section(without_kept, STATE_HEADING).trim()
}

/// A prepared summary's prose with the lines of what was said after it.
pub fn merged(prose: &str, since: &[String]) -> String {
    let prose = prose.trim();
    if since.is_empty() {
        return prose.to_owned();
    }
    let block = format!("{SINCE_HEADING}\n{}", since.join("\n"));
    if prose.is_empty() {
        block
    } else {
        format!("{prose}\n\n{block}")
    }
}

/// A merged narrative's two parts: the prose, and the heading with its lines.
pub(crate) fn split_merged(text: &str) -> Option<(&str, &str)> {
    if text.starts_with(SINCE_HEADING) {
        return Some(("", text));
    }
    let at = text.rfind(&format!("\n\n{SINCE_HEADING}\n"))?;
    Some((text[..at].trim_end(), &text[at + 2..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_summary_gives_back_its_narrative() {
        let summary = format!(
            "We fixed the parser.\n\n{STATE_HEADING}\n- Latest request: Fix it.\n\n{KEPT_HEADING}\n- Paths: src/a.rs\n\n{}",
            parked_line(Parked { all: 3, said: 1 }, "c-1")
        );
        assert_eq!(narrative_of(&summary), "We fixed the parser.");
        assert_eq!(narrative_of(&format!("{KEPT_HEADING}\n- Paths: a")), "");
        assert_eq!(narrative_of(&format!("{STATE_HEADING}\n- Latest request: a")), "");
        assert_eq!(
            narrative_of("Just prose.\n(1 more item is parked: search_history finds it.)"),
            "Just prose.",
            "an earlier version's parked line"
        );
        assert_eq!(
            narrative_of("Prose that quotes Kept word for word: here."),
            "Prose that quotes Kept word for word: here."
        );
    }

    #[test]
    fn the_parked_line_names_the_conversation_and_the_read_for_each_kind() {
        assert_eq!(
            parked_line(Parked { all: 64, said: 12 }, "c-1"),
            "(64 more items are parked for conversation \"c-1\": get_keep_set lists them all; search_history finds the 12 said in the stored turns.)"
        );
        assert_eq!(
            parked_line(Parked { all: 5, said: 0 }, "c-1"),
            "(5 more items are parked for conversation \"c-1\": get_keep_set lists them all.)"
        );
        assert_eq!(
            parked_line(Parked { all: 1, said: 1 }, "c-1"),
            "(1 more item is parked for conversation \"c-1\": get_keep_set lists it; search_history finds it in the stored turns.)"
        );
        let line = parked_line(Parked { all: 2, said: 2 }, "c-1");
        assert_eq!(narrative_of(&format!("Prose.\n\n{line}")), "Prose.");
    }

    #[test]
    fn a_merge_with_nothing_since_is_the_prose_alone() {
        assert_eq!(merged(" The prose. ", &[]), "The prose.");
        assert_eq!(split_merged("The prose."), None);
        let only = merged("", &["- a → b".to_owned()]);
        assert_eq!(split_merged(&only), Some(("", only.as_str())));
    }
}
