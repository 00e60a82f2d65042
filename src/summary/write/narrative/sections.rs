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

/// How the lines of where things stand open (the request's, then
/// [`StateAtCut::lines`]'s): a heading is compactd's only where one follows it.
///
/// [`StateAtCut::lines`]: crate::summary::read::state::StateAtCut
pub(crate) const STATE_LABELS: &[&str] = &[
    "- Latest request: ",
    "- Then: ",
    "- In progress: ",
    "- Values now: ",
    "- Task list: ",
    "- Waiting on the user: ",
    "- Asked, not answered: ",
    "- Last actions: ",
    "- Checks: ",
    "- Not yet verified: ",
    "- Commits: ",
    "- Unresolved error: ",
    "- From tool output: ",
];

/// Whether `text` opens with one of compactd's sections: its heading, and
/// under it a line as compactd labels them (a model's own "Where things
/// stand:" over lines of its own is its narrative).
fn opens_section(text: &str) -> bool {
    let under = |heading: &str| {
        text.strip_prefix(heading)
            .and_then(|rest| rest.strip_prefix('\n'))
            .and_then(|rest| rest.lines().next())
    };
    if let Some(line) = under(STATE_HEADING) {
        return STATE_LABELS.iter().any(|label| line.starts_with(label));
    }
    // The kept heading is compactd's own words: a labelled line under it will do.
    under(KEPT_HEADING).is_some_and(|line| line.starts_with("- ") && line.contains(": "))
}

/// `text` before its last section under `heading`, if it has one.
fn before_section<'a>(text: &'a str, heading: &str) -> &'a str {
    let marker = format!("\n\n{heading}\n");
    match text.rfind(&marker) {
        Some(at) if opens_section(&text[at + 2..]) => &text[..at],
        None if opens_section(text) && text.starts_with(&marker[2..]) => "",
        _ => text,
    }
}

/// A model's summary laid out sections first (issue 41): the text after
/// the paragraphs that open it and are compactd's sections (each closed up
/// to one paragraph), or `None` when it opens with none.
fn after_sections(text: &str) -> Option<&str> {
    if !opens_section(text) {
        return None;
    }
    let mut rest = text;
    while opens_section(rest) {
        match rest.find("\n\n") {
            Some(at) => rest = rest[at..].trim_start_matches('\n'),
            None => return Some(""),
        }
    }
    Some(rest)
}

/// The narrative of a stored summary: without where things stood, the
/// items compactd appended and the parked line (each is built again from
/// the transcript and the keep set), whether they come after it (a
/// harness's own prose), before it (a model's) or around it (where things
/// stand before the extractive lines, the appended items after them).
pub fn narrative_of(summary: &str) -> &str {
    let without_parked = match PARKED_LINE.find(summary) {
        Some(found) => &summary[..found.start()],
        None => summary,
    };
    if let Some(narrative) = after_sections(without_parked) {
        // An extractive narrative has its appended items after it.
        return before_section(narrative, KEPT_HEADING).trim();
    }
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
    fn a_models_summary_gives_back_its_narrative_after_the_sections_that_open_it() {
        let narrative = "We fixed the parser.\n\nWhere things stand:\n- The tests pass; next, release.";
        let summary = format!(
            "{STATE_HEADING}\n- Latest request: Fix it.\nThe lexer too.\n- Last actions: Bash `make` → ok\n\n\
             {KEPT_HEADING}\n- Paths: src/a.rs\n\n{narrative}\n\n{}",
            parked_line(Parked { all: 3, said: 1 }, "c-1")
        );
        assert_eq!(
            narrative_of(&summary),
            narrative,
            "the model's own heading is its narrative"
        );
        assert_eq!(
            narrative_of(narrative),
            narrative,
            "with no section added, a model's \"Where things stand:\" over lines of its own stays"
        );
        assert_eq!(
            narrative_of(&format!("{KEPT_HEADING}\n- Paths: a\n\n{narrative}")),
            narrative
        );
    }

    #[test]
    fn an_extractive_summary_gives_back_its_lines_between_where_things_stand_and_the_kept_items() {
        let narrative = "Written by compactd without a model (x).\n- Fix the parser. → Fixed.\n  · `make` → ok";
        let summary = format!(
            "{STATE_HEADING}\n- Latest request: Fix the parser.\n- Last actions: Bash `make` → ok\n\n\
             {narrative}\n\n{KEPT_HEADING}\n- Paths: src/a.rs\n\n{}",
            parked_line(Parked { all: 3, said: 1 }, "c-1")
        );
        assert_eq!(narrative_of(&summary), narrative);
    }

    #[test]
    fn every_line_of_where_things_stand_opens_with_a_label_a_stored_summary_is_read_back_by() {
        let one = || Some("x".to_owned());
        let all = || vec!["x".to_owned()];
        let state = crate::summary::read::state::StateAtCut {
            then: all(),
            in_progress: one(),
            task_list: one(),
            changed_values: all(),
            relied_on: all(),
            last_actions: all(),
            checks: one(),
            commits: one(),
            waiting_on_user: one(),
            unanswered: all(),
            unverified: all(),
            unresolved_error: one(),
        };
        let lines = state.lines();
        assert_eq!(lines.len(), STATE_LABELS.len() - 1, "each but the request's");
        for line in lines {
            assert!(STATE_LABELS.iter().any(|label| line.starts_with(label)), "{line}");
        }
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
