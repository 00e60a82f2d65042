//! A summary's narrative (SPEC §4, tier 5): the prose its writer composed,
//! apart from the items compactd appends. A stored summary's narrative is
//! what the next compaction and a handoff build on; a narrative too long
//! for its share of the budget is cut at a sentence boundary, or, for the
//! extractive summarizer's one-line-per-request narrative, has its oldest
//! lines merged.

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
static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?]+[)\]\x22']?(?:\s|\z)|[。！？]|\n").expect("a valid pattern"));

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

/// How a narrative gives way when it does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Prose: its end is cut at a sentence boundary.
    Prose,
    /// One line per request (the extractive summarizer): the oldest lines merge.
    Lines,
}

/// `text` within `max_tokens`, given way as its shape says.
pub(crate) fn fit_narrative(text: &str, shape: Shape, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let text = text.trim();
    if text.is_empty() || count(text) <= max_tokens {
        return text.to_owned();
    }
    if let Some((prose, since)) = split_merged(text) {
        return fit_merged(prose, since, max_tokens, count);
    }
    match shape {
        Shape::Prose => cut_at_sentence(text, max_tokens, count),
        Shape::Lines => merge_oldest_lines(text, max_tokens, count),
    }
}

/// A prepared summary merged with the lines after it gives way from its
/// oldest part: the prose is cut first, and only when the lines alone are
/// too long do their oldest merge (the newest requests matter most).
fn fit_merged(prose: &str, since: &str, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let since_tokens = count(since);
    if since_tokens >= max_tokens || prose.is_empty() {
        return merge_oldest_lines(since, max_tokens, count);
    }
    let room = max_tokens - since_tokens;
    let mut prose_room = room.saturating_sub(count("\n\n"));
    loop {
        let cut = if count(prose) <= prose_room {
            prose.to_owned()
        } else {
            cut_at_sentence(prose, prose_room, count)
        };
        if cut.is_empty() {
            return since.to_owned();
        }
        let whole = format!("{cut}\n\n{since}");
        // Counted together, the parts may come out a little over.
        if count(&whole) <= max_tokens || prose_room == 0 {
            return whole;
        }
        prose_room = prose_room * 9 / 10;
    }
}

/// Below this much room a sentence is not cut between words: a fragment
/// that short says nothing.
const MIN_FRAGMENT_TOKENS: u64 = 32;

/// The longest beginning of `text` that ends at a sentence boundary and
/// fits; a first sentence too long for the room is cut between words, when
/// the room is worth it. Each sentence is counted once (a long narrative is
/// cut many times while a summary is fitted); the cut is then counted whole.
fn cut_at_sentence(text: &str, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let ends: Vec<usize> = SENTENCE_END.find_iter(text).map(|m| m.end()).collect();
    let mut running = 0_u64;
    let mut start = 0;
    let mut kept = 0;
    for (at, end) in ends.iter().enumerate() {
        running += count(&text[start..*end]);
        start = *end;
        if running > max_tokens {
            break;
        }
        kept = at + 1;
    }
    // Pieces counted apart can count a little less than counted together.
    while kept > 0 && count(text[..ends[kept - 1]].trim_end()) > max_tokens {
        kept -= 1;
    }
    if kept > 0 {
        return text[..ends[kept - 1]].trim_end().to_owned();
    }
    if max_tokens < MIN_FRAGMENT_TOKENS {
        return String::new();
    }
    let mut words_end = 0;
    let mut running = count("…");
    let mut previous = 0;
    for (at, _) in text.match_indices(char::is_whitespace) {
        running += count(&text[previous..at]);
        previous = at;
        if running > max_tokens {
            break;
        }
        words_end = at;
    }
    while words_end > 0 && count(&format!("{}…", text[..words_end].trim_end())) > max_tokens {
        words_end = text[..words_end].trim_end().rfind(char::is_whitespace).unwrap_or(0);
    }
    if words_end == 0 {
        String::new()
    } else {
        format!("{}…", text[..words_end].trim_end())
    }
}

const EARLIER: &str = "- Earlier: ";
const EARLIER_ENTRY_CHARS: usize = 60;

/// An old line as one short entry of the merged line: its request,
/// clipped (an earlier merged line keeps a little more).
fn entry(line: &str) -> String {
    let (text, limit) = match line.strip_prefix(EARLIER) {
        Some(earlier) => (earlier, EARLIER_ENTRY_CHARS * 3),
        None => {
            let line = line.strip_prefix("- ").unwrap_or(line);
            (line.split(" → ").next().unwrap_or(line), EARLIER_ENTRY_CHARS)
        }
    };
    let text = text.trim();
    let clipped: String = text.chars().take(limit).collect();
    if clipped.len() < text.len() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

fn assemble(header: &[&str], earlier: &[String], left_out: usize, rest: &[&str]) -> String {
    let mut lines: Vec<String> = header.iter().map(|l| (*l).to_owned()).collect();
    if !earlier.is_empty() || left_out > 0 {
        let note = if left_out > 0 {
            format!("({left_out} older left out) ")
        } else {
            String::new()
        };
        lines.push(format!("{EARLIER}{note}{}", earlier.join("; ")));
    }
    lines.extend(rest.iter().map(|l| (*l).to_owned()));
    lines.join("\n")
}

/// `text` with its oldest steps of work left out, as few as will make it
/// fit (the agent's before the user's own words); all of them when even
/// that does not.
fn drop_oldest_steps(text: &str, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps: Vec<(usize, u64)> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.starts_with(WORK_MARK))
        .map(|(at, line)| (at, count(line)))
        .collect();
    steps.sort_by_key(|(at, _)| {
        let line = lines[*at];
        (line.starts_with(ASKED_MARK) || line.starts_with(BRIEF_MARK), *at)
    });
    let mut dropped = 0;
    let mut whole = count(text);
    while whole > max_tokens && dropped < steps.len() {
        // Counted apart the lines err low: drop what the excess says, then count again.
        let mut excess = whole - max_tokens;
        while excess > 0 && dropped < steps.len() {
            excess = excess.saturating_sub(steps[dropped].1.max(1));
            dropped += 1;
        }
        let gone: std::collections::HashSet<usize> = steps[..dropped].iter().map(|(at, _)| *at).collect();
        let kept: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(at, _)| !gone.contains(at))
            .map(|(_, line)| *line)
            .collect();
        let text = kept.join("\n");
        whole = count(&text);
        if whole <= max_tokens || dropped == steps.len() {
            return text;
        }
    }
    text.to_owned()
}

/// Gives way in two steps: first the oldest steps of work are left out;
/// then the oldest `- ` lines merge into one `- Earlier:` line, as few as
/// will make it fit; when even all of them merged are too long, the oldest
/// entries are left out (the stored turns still hold them). Lines and
/// entries are counted once each, the choice then counted whole.
fn merge_oldest_lines(text: &str, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let text = drop_oldest_steps(text, max_tokens, count);
    if count(&text) <= max_tokens {
        return text;
    }
    let text = text.as_str();
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let split = all.iter().position(|l| l.starts_with("- ")).unwrap_or(all.len());
    let (header, body) = all.split_at(split);
    if body.is_empty() {
        return cut_at_sentence(&header.join("\n"), max_tokens, count);
    }
    let entries: Vec<String> = body.iter().map(|line| entry(line)).collect();
    // Estimates from pieces counted apart (line breaks and separators left
    // out, so they err low); what they choose is counted whole.
    let head = count(&header.join("\n")) + count(EARLIER);
    let mut whole_from = vec![0_u64; body.len() + 1];
    for k in (0..body.len()).rev() {
        whole_from[k] = whole_from[k + 1] + count(body[k]);
    }
    let entry_tokens: Vec<u64> = entries.iter().map(|e| count(e)).collect();
    let merged = |k: usize| assemble(header, &entries[..k], 0, &body[k..]);
    let mut merged_tokens = 0;
    for k in 1..=body.len() {
        merged_tokens += entry_tokens[k - 1];
        if head + merged_tokens + whole_from[k] <= max_tokens {
            // Counted whole it may come out a little over: merge one more.
            if let Some(fitting) = (k..=body.len()).map(merged).find(|text| count(text) <= max_tokens) {
                return fitting;
            }
            break;
        }
    }
    // Even everything merged is too long: leave out the oldest entries.
    let note = count("(0000 older left out) ");
    let mut kept_tokens: u64 = entry_tokens.iter().sum();
    for left_out in 1..=entries.len() {
        kept_tokens -= entry_tokens[left_out - 1];
        if head + note + kept_tokens <= max_tokens {
            let fitting = (left_out..=entries.len())
                .map(|left_out| assemble(header, &entries[left_out..], left_out, &[]))
                .find(|text| count(text) <= max_tokens);
            if let Some(fitting) = fitting {
                return fitting;
            }
            break;
        }
    }
    cut_at_sentence(&header.join("\n"), max_tokens, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> u64 {
        text.split_whitespace().count() as u64
    }

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
    fn the_agents_oldest_steps_give_way_before_what_the_user_asked_and_the_issues_read() {
        let text = [
            "- Plan the app.",
            "  · asked: make sure to add an AGENTS.md file",
            "  · read spotter-fum · Readability — No-gos: no schema migration",
            "  · Looked at the layout first.",
            "- Build it. → Built.",
            "  · Committed the scaffold.",
        ]
        .join("\n");
        let fitted = fit_narrative(&text, Shape::Lines, words(&text) - 7, &words);
        assert_eq!(
            fitted,
            [
                "- Plan the app.",
                "  · asked: make sure to add an AGENTS.md file",
                "  · read spotter-fum · Readability — No-gos: no schema migration",
                "- Build it. → Built.",
            ]
            .join("\n")
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
    fn prose_is_cut_at_a_sentence_boundary() {
        let text = "One two three. Four five six! Seven eight nine? Ten.";
        assert_eq!(
            fit_narrative(text, Shape::Prose, 7, &words),
            "One two three. Four five six!"
        );
        assert_eq!(fit_narrative(text, Shape::Prose, 100, &words), text);
        assert_eq!(
            fit_narrative("一句。二句。三句。", Shape::Prose, 1, &|t: &str| t.chars().count()
                as u64
                / 3),
            "一句。"
        );
    }

    #[test]
    fn a_sentence_too_long_for_the_room_is_cut_between_words() {
        let sentence: String = (0..100).map(|i| format!("w{i} ")).collect();
        let cut = fit_narrative(&sentence, Shape::Prose, 40, &words);
        assert!(cut.starts_with("w0 w1 ") && cut.ends_with('…'), "{cut}");
        assert!((38..=40).contains(&words(&cut)), "{cut}");
        assert_eq!(
            fit_narrative(&sentence, Shape::Prose, 20, &words),
            "",
            "too little room for a fragment"
        );
    }

    #[test]
    fn a_merged_narrative_gives_way_from_its_prose_first() {
        let since = vec![
            "- Add a test. → Added.".to_owned(),
            "- Ship it. → Shipped v2.".to_owned(),
        ];
        let text = merged("One two three. Four five six. Seven eight nine.", &since);
        assert_eq!(
            text,
            format!(
                "One two three. Four five six. Seven eight nine.\n\n{SINCE_HEADING}\n- Add a test. → Added.\n- Ship it. → Shipped v2."
            )
        );
        assert_eq!(fit_narrative(&text, Shape::Prose, 100, &words), text);
        let block_words = words(&format!("{SINCE_HEADING}\n{}", since.join("\n")));
        let fitted = fit_narrative(&text, Shape::Prose, block_words + 3, &words);
        assert_eq!(
            fitted,
            format!("One two three.\n\n{SINCE_HEADING}\n- Add a test. → Added.\n- Ship it. → Shipped v2."),
            "the prose is cut, the lines stay"
        );
        let tight = fit_narrative(&text, Shape::Lines, block_words, &words);
        assert!(
            tight.starts_with(SINCE_HEADING) && tight.ends_with("Shipped v2."),
            "{tight}"
        );
        assert!(words(&tight) <= block_words, "{tight}");
        let tighter = fit_narrative(&text, Shape::Prose, block_words - 1, &words);
        assert!(
            tighter.starts_with(&format!("{SINCE_HEADING}\n- Earlier: ")),
            "{tighter}"
        );
        assert!(
            tighter.ends_with("- Ship it. → Shipped v2."),
            "the newest line stays: {tighter}"
        );
    }

    #[test]
    fn a_merge_with_nothing_since_is_the_prose_alone() {
        assert_eq!(merged(" The prose. ", &[]), "The prose.");
        assert_eq!(split_merged("The prose."), None);
        let only = merged("", &["- a → b".to_owned()]);
        assert_eq!(split_merged(&only), Some(("", only.as_str())));
    }

    #[test]
    fn the_oldest_lines_merge_first() {
        let text =
            "Header line.\n- first request → done\n- second request → done too\n- third request → ok\n- fourth → ok";
        let fitted = fit_narrative(text, Shape::Lines, 16, &words);
        assert!(fitted.starts_with("Header line.\n- Earlier: "), "{fitted}");
        assert!(fitted.ends_with("- fourth → ok"), "{fitted}");
        assert!(words(&fitted) <= 16, "{fitted}");
        assert!(fitted.contains("first request"), "{fitted}");
    }

    #[test]
    fn the_oldest_work_gives_way_before_any_request_merges() {
        let text = format!(
            "Header.\n- first request → done\n{WORK_MARK}found the old bug\n{WORK_MARK}fixed it in a.rs\n- second request → ok\n{WORK_MARK}tests pass now"
        );
        let fitted = fit_narrative(&text, Shape::Lines, words(&text) - 5, &words);
        assert_eq!(
            fitted,
            format!(
                "Header.\n- first request → done\n{WORK_MARK}fixed it in a.rs\n- second request → ok\n{WORK_MARK}tests pass now"
            )
        );
        let tighter = fit_narrative(&text, Shape::Lines, 11, &words);
        assert_eq!(tighter, "Header.\n- first request → done\n- second request → ok");
    }

    #[test]
    fn when_even_the_merged_line_is_too_long_the_oldest_are_left_out() {
        let text: String = (0..50).map(|i| format!("- request {i} → done\n")).collect();
        let fitted = fit_narrative(&text, Shape::Lines, 20, &words);
        assert!(words(&fitted) <= 20, "{fitted}");
        assert!(fitted.contains("older left out"), "{fitted}");
        assert!(fitted.contains("request 49"), "the newest stays: {fitted}");
    }
}
