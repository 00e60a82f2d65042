//! A summary's narrative (SPEC §4, tier 5): the prose its writer composed,
//! apart from the items compactd appends. A stored summary's narrative is
//! what the next compaction and a handoff build on; a narrative too long
//! for its share of the budget is cut at a sentence boundary, or, for the
//! extractive summarizer's one-line-per-request narrative, has its oldest
//! lines merged.

mod oldest_lines;
mod sections;
mod sentence_cut;

use oldest_lines::merge_oldest_lines;
pub use sections::{ASKED_MARK, BRIEF_MARK, KEPT_HEADING, SINCE_HEADING, WORK_MARK, merged, narrative_of};
pub(crate) use sections::{Parked, parked_line, split_merged};
use sentence_cut::cut_at_sentence;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> u64 {
        text.split_whitespace().count() as u64
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
