//! Sentences (SPEC §4, *Readable lines*): where a text may be cut so that
//! file names, versions, URLs, decimals and abbreviations stay whole
//! (`src/retry.rs`, `v0.1.1`, `3.5 s`, `e.g. Postgres`), and which of an
//! answer's sentences says something (not "Perfect!", not "Let me check.").
//!
//! Boundaries are Unicode's (UAX #29, by `unicode-segmentation`): a full stop
//! ends a sentence only before a space and a capital, so `cli.go` and
//! `0.1.1` never split. On top of it: a few abbreviations that a capital
//! follows (`e.g. Postgres`), list numbers, and markup that is no sentence
//! (code blocks, tables, headings) left out.

use std::sync::LazyLock;

use regex::Regex;
use unicode_segmentation::UnicodeSegmentation;

pub(crate) use super::one_line::{head_of, one_line};

pub(crate) use super::announcement::{announces_work, is_announcement, is_next_step};
use super::wrapped::unwrapped;

/// Abbreviations after which a capital does not start a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g.", "i.e.", "vs.", "cf.", "approx.", "incl.", "mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "no.", "nr.",
    "fig.", "vol.", "ca.", "resp.", "z.b.", "d.h.", "bzw.", "u.a.", "т.е.", "т.к.", "см.",
];

static CODE_BLOCK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?s)```.*?(?:```|\z)").expect("a valid pattern"));
static LIST_MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A(?:[-*•>]+|\d{1,3}[.)]|#{1,6})\s+").expect("a valid pattern"));
/// Words that alone make an exclamation, not a statement.
static FILLER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\A(?:(?:perfect|great|excellent|good|done|ok|okay|alright|all right|got it|now|sure|understood|",
        r"interesting|hmm+|right|yes|no|nice|cool|awesome|amazing|wonderful|fantastic|thanks|thank you|oops|ah|oh|",
        r"i see|makes sense|good news|good catch|found it|there we go|here we go|let's go|all set|that's it|",
        r"looks good|that works|it works|success|all green|all good|all done|all passing|clean compile|clean|",
        r"了解(?:しました|です)?|承知(?:しました|いたしました)|(?:わ|分)かりました|完璧(?:です)?|いいですね|好的|明白了?|完美|太好了|没问题)",
        r"[\s,.!:;—。、！-]*)+\z",
    ))
    .expect("a valid pattern")
});
/// Sentences that only say the agent is ready, waiting or pleased: "I have
/// a clear picture.", "Now I understand the flow.", "Still compiling deps.",
/// "Good additions.", "That's a crucial distinction!".
static SAYS_NOTHING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\A(?:(?:good|great|perfect|excellent|alright|ok(?:ay)?)[,!.]?\s+)?(?:",
        r"(?:now,?\s+|ok(?:ay)?,?\s+)?i\s+(?:now\s+)?(?:have|see|understand|know|got)\s+(?:a\s+|the\s+)?(?:very\s+)?",
        r"(?:clear|full|good|complete|better|solid|much better)?\s*(?:picture|context|understanding|overview|idea|view|sense)\b[^.!?:]{0,40}",
        r"|(?:now,?\s+)?i\s+(?:now\s+)?(?:have|understand|see|know)\s+(?:all|everything|enough)\b[^.!?:]{0,40}",
        r"|(?:now,?\s+)?i\s+(?:now\s+)?understand\s+(?:the|how|what|why)\b[^.!?:]{0,24}",
        r"|still\s+(?:compiling|building|running|waiting|installing|loading|downloading)\b[^.!?:,;\d]{0,60}",
        r"|(?:good|great|excellent|nice|perfect|interesting|clever)(?:\s+[\w-]+){0,2}",
        r"|clean\s+and\s+(?:simple|sufficient|minimal|focused)",
        // what Claude Code answers to /exit
        r"|no response requested",
        r"|(?:that's|that is|this is)\s+(?:a|an)\s+(?:crucial|key|important|great|good|fair|valid|clever|nice|interesting|excellent)\b[\w\s-]{0,28}",
        r"|(?:good|great|fair|excellent)\s+(?:question|point|catch|call|idea)\b[^.!?:]{0,20}",
        r")[.!]*\z",
    ))
    .expect("a valid pattern")
});

/// Markup lines that are no sentence: a table row, a rule, a lone fence.
fn is_markup(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('|') || line.starts_with("```") || line.chars().all(|c| matches!(c, '-' | '=' | '*' | '_' | ' '))
}

fn ends_with_abbreviation(piece: &str) -> bool {
    let lower = piece.trim_end().to_lowercase();
    ABBREVIATIONS.iter().any(|abbreviation| {
        lower.ends_with(abbreviation)
            && lower[..lower.len() - abbreviation.len()]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
    })
}

/// A piece that is only a list number or marker (`1.`, `2)`, `-`).
fn is_bare_marker(piece: &str) -> bool {
    let piece = piece.trim();
    piece.is_empty()
        || LIST_MARKER.is_match(&format!("{piece} ")) && LIST_MARKER.replace(&format!("{piece} "), "").trim().is_empty()
}

/// A line that heads what follows rather than saying something: a
/// Markdown heading, or a line that is bold from end to end, unless it
/// gives a label its figure or verdict ("**Phase 1: 28/28 done (100%)**",
/// "**Verdict: ✅ all buttons colored**").
fn is_heading_line(line: &str) -> bool {
    let line = line.trim();
    let bold = line.trim_end_matches(':');
    let verdict = |inner: &str| {
        inner.split_once(": ").is_some_and(|(_, value)| {
            value
                .trim_start_matches(['~', '≈', ' '])
                .starts_with(|c: char| c.is_ascii_digit() || matches!(c, '✅' | '❌' | '⚠' | '✓' | '✗'))
        })
    };
    line.starts_with('#')
        || bold.len() > 4
            && bold.starts_with("**")
            && bold.ends_with("**")
            && !bold[2..bold.len() - 2].contains("**")
            && !verdict(&bold[2..bold.len() - 2])
}

/// The sentences of `text`, in order, each with whether it is a heading:
/// trimmed of list markers and heading marks, without code blocks, tables
/// and rules.
fn marked_sentences(text: &str) -> Vec<(String, bool)> {
    // A wrapped line is no sentence of its own: it may start inside a word.
    let prose = unwrapped(&CODE_BLOCK.replace_all(text, "\n"));
    let mut found: Vec<(String, bool)> = Vec::new();
    let mut pending = String::new();
    for line in prose.lines().filter(|line| !is_markup(line)) {
        let heading = is_heading_line(line);
        for piece in line.split_sentence_bounds() {
            pending.push_str(piece);
            if ends_with_abbreviation(&pending) || is_bare_marker(&pending) {
                continue;
            }
            let sentence = LIST_MARKER.replace(pending.trim(), "");
            let sentence = sentence.trim();
            if !sentence.is_empty() {
                found.push((sentence.to_owned(), heading));
            }
            pending.clear();
        }
        // A line break ends whatever was pending (a heading, a list item).
        let sentence = LIST_MARKER.replace(pending.trim(), "");
        if !sentence.trim().is_empty() {
            found.push((sentence.trim().to_owned(), heading));
        }
        pending.clear();
    }
    found
}

/// The sentences of `text`, in order: trimmed of list markers and heading
/// marks, without code blocks, tables and rules.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    marked_sentences(text)
        .into_iter()
        .map(|(sentence, _)| sentence)
        .collect()
}

/// The sentences of `text` that say something of their own: as
/// [`sentences`], without headings (`## Comparison: A vs B`, `**Summary**`).
pub(crate) fn statements(text: &str) -> Vec<String> {
    marked_sentences(text)
        .into_iter()
        .filter(|(_, heading)| !heading)
        .map(|(sentence, _)| sentence)
        .collect()
}

/// An exclamation or acknowledgement that says nothing on its own.
pub(crate) fn is_filler(sentence: &str) -> bool {
    let words = sentence.trim().trim_matches(|c: char| !c.is_alphanumeric());
    let bare = sentence.trim().trim_matches(['*', '_']);
    // One word alone ("Looking.", "Done!") concludes nothing; nor, in
    // Chinese and Japanese, written without spaces, does a short progress
    // note ("ビルド成功。", "コミット完了です。").
    words.is_empty()
        || !words.contains(char::is_whitespace) && words.chars().count() < WORD_CHARS
        || FILLER.is_match(bare)
        || SAYS_NOTHING.is_match(bare)
}

/// Whether `sentence` asks (`?`, `？`, in bold or not).
pub(crate) fn is_question(sentence: &str) -> bool {
    sentence
        .trim_end()
        .trim_end_matches('*')
        .trim_end()
        .ends_with(['?', '？'])
}

/// How many characters one word alone has at most.
const WORD_CHARS: usize = 20;

/// A lead-in to a list or a block ("Here's what changed:"), or a heading.
fn is_lead_in(sentence: &str) -> bool {
    sentence.trim_end().ends_with(':')
}

/// Whether a first sentence longer than the room may run over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stretch {
    /// Up to twice the room: a line says one thing whole rather than half of it.
    Double,
    /// Not at all (a request's line is clipped at its limit, SPEC §4).
    None,
}

/// Whole sentences from the start of `sentences` while they fit
/// `max_chars`; a first sentence that does not is kept whole where
/// `stretch` allows, else cut at its last clause boundary (`; `, `, `,
/// ` — `) that fits, or between words, with "…".
fn within(sentences: &[&str], max_chars: usize, stretch: Stretch) -> Option<String> {
    if stretch == Stretch::Double
        && let Some(first) = sentences.first()
        && first.chars().count() > max_chars
        && first.chars().count() <= max_chars * 2
    {
        return Some((*first).to_owned());
    }
    let mut kept = String::new();
    for sentence in sentences {
        let joined = if kept.is_empty() {
            (*sentence).to_owned()
        } else {
            format!("{kept} {sentence}")
        };
        if joined.chars().count() > max_chars {
            break;
        }
        kept = joined;
    }
    if !kept.is_empty() {
        return Some(kept);
    }
    let first = sentences.first()?;
    let head: String = first.chars().take(max_chars.saturating_sub(1)).collect();
    let cut = ["; ", ", ", " — ", " – ", " - "]
        .iter()
        .filter_map(|mark| head.rfind(mark))
        .max()
        .filter(|at| *at >= head.len() / 2)
        .or_else(|| head.rfind(' '))
        .unwrap_or(head.len());
    Some(format!("{}…", head[..cut].trim_end_matches([',', ';', ' '])))
}

/// What `text` concludes: its first sentence that is neither filler, nor a
/// lead-in, nor an announcement (or, when all are, its first that is not
/// filler nor a lead-in), within `max_chars`.
pub(crate) fn conclusion(text: &str, max_chars: usize) -> Option<String> {
    let all = statements(text);
    let saying: Vec<&str> = all
        .iter()
        .map(String::as_str)
        .filter(|s| !is_filler(s) && !is_lead_in(s))
        .collect();
    let chosen = saying.iter().find(|s| !is_announcement(s)).or(saying.first())?;
    // A verdict in bold from end to end reads the same without the marks.
    let chosen = match chosen.strip_prefix("**").and_then(|bold| bold.strip_suffix("**")) {
        Some(inner) if !inner.contains("**") => inner,
        _ => chosen,
    };
    within(&[chosen], max_chars, Stretch::Double)
}

/// The first substantive sentences of `text` (filler and lead-ins left
/// out), as many whole ones as fit `max_chars`.
pub(crate) fn leading(text: &str, max_chars: usize) -> Option<String> {
    let all = statements(text);
    let saying: Vec<&str> = all.iter().map(String::as_str).filter(|s| !is_filler(s)).collect();
    within(&saying, max_chars, Stretch::Double)
}

/// `text` on one line, whole sentences while they fit `max_chars` (a first
/// sentence too long is kept whole or cut at a clause boundary, with "…",
/// as `stretch` says).
pub(crate) fn clipped(text: &str, max_chars: usize, stretch: Stretch) -> String {
    let squeezed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if squeezed.chars().count() <= max_chars {
        return squeezed;
    }
    // Lines end sentences too (a heading, a list item): segmented before
    // the text is put on one line.
    let all: Vec<String> = sentences(text)
        .iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let pieces: Vec<&str> = all.iter().map(String::as_str).collect();
    within(&pieces, max_chars, stretch).unwrap_or_default()
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn file_names_versions_urls_and_decimals_stay_whole() {
        assert_eq!(
            sentences(
                "Fixed the retry in src/billing/retry.rs; the backoff is now 774ms. Released v0.1.1 and refreshed the plan template."
            ),
            [
                "Fixed the retry in src/billing/retry.rs; the backoff is now 774ms.",
                "Released v0.1.1 and refreshed the plan template."
            ]
        );
        assert_eq!(
            sentences(
                "The signature in `cli.go` changed (see README.md)? It takes 3.5 s, see https://ci.example.com/runs/88.html for details."
            ),
            [
                "The signature in `cli.go` changed (see README.md)?",
                "It takes 3.5 s, see https://ci.example.com/runs/88.html for details."
            ]
        );
    }

    #[test]
    fn abbreviations_and_list_numbers_do_not_end_a_sentence() {
        assert_eq!(
            sentences("Use a managed store, e.g. Postgres or MySQL. Then migrate."),
            ["Use a managed store, e.g. Postgres or MySQL.", "Then migrate."]
        );
        assert_eq!(
            sentences("Steps:\n1. Build it.\n2. Ship it."),
            ["Steps:", "Build it.", "Ship it."]
        );
    }

    #[test]
    fn code_tables_and_headings_are_no_sentences() {
        assert_eq!(
            sentences("## Summary\n\n| a | b |\n|---|---|\n```rust\nfn x() { y.z(); }\n```\nAll 373 tests pass."),
            ["Summary", "All 373 tests pass."]
        );
    }

    #[test]
    fn a_bold_label_heads_what_follows_unless_its_value_is_a_figure_or_a_verdict() {
        assert_eq!(
            conclusion(
                "**Step 2: Add the TOTP column (migration 0042)**\nI added the column.",
                160
            )
            .as_deref(),
            Some("I added the column.")
        );
        assert_eq!(
            statements("**Verdict: ✅ all buttons colored**\n**Phase 8: ~17/23 confirmed**\n**Summary**"),
            ["Verdict: ✅ all buttons colored", "Phase 8: ~17/23 confirmed"].map(|s| format!("**{s}**"))
        );
    }

    #[test]
    fn a_bold_verdict_concludes_without_its_marks() {
        assert_eq!(
            conclusion("**Phase 1: 28/28 tasks done (100%)**\n\nMore.", 160).as_deref(),
            Some("Phase 1: 28/28 tasks done (100%)")
        );
    }

    #[test]
    fn a_conclusion_skips_filler_lead_ins_and_announcements() {
        assert_eq!(
            conclusion("Perfect! All 373 tests pass and credo is clean. Want me to push?", 160).as_deref(),
            Some("All 373 tests pass and credo is clean.")
        );
        assert_eq!(
            conclusion("Done. Here's what changed:\n- `src/a.rs`: new retry.", 160).as_deref(),
            Some("`src/a.rs`: new retry.")
        );
        assert_eq!(
            conclusion(
                "Let me check the logs. The root cause is a missing index on `turns`.",
                160
            )
            .as_deref(),
            Some("The root cause is a missing index on `turns`.")
        );
        assert_eq!(
            conclusion("Great! Let me run the tests.", 160).as_deref(),
            Some("Let me run the tests."),
            "with nothing else, the announcement is what there is"
        );
        assert_eq!(conclusion("Perfect!", 160), None);
    }

    #[test]
    fn a_conclusion_is_no_heading_and_no_remark_on_the_agents_own_readiness() {
        assert_eq!(
            conclusion(
                "## Comparison: git-ai vs Entire CLI Attribution Approaches\n\nBoth systems track agent contributions, but git-ai attaches notes to SHAs.",
                220
            )
            .as_deref(),
            Some("Both systems track agent contributions, but git-ai attaches notes to SHAs.")
        );
        assert_eq!(
            conclusion("**Summary**\nThe trailer survives squash merges.", 220).as_deref(),
            Some("The trailer survives squash merges.")
        );
        for remark in [
            "I have a clear picture.",
            "Now I have a clear picture of everything.",
            "Good, now I have the complete picture.",
            "I have full context now.",
            "Now I have all the patterns.",
            "Now I understand the flow.",
            "Still compiling test dependencies (first time compilation).",
            "Good exploration results.",
            "Good additions.",
            "Good call.",
            "Clean and sufficient.",
            "That's a crucial distinction!",
            "That's a clever middle ground.",
            "**Good question.**",
            "No response requested.",
        ] {
            assert!(is_filler(remark), "{remark}");
        }
        for said in [
            "Clean build with no warnings.",
            "Valid JSON is returned for every route.",
            "Now I see the issue: the sandbox is not shared.",
            "Good news: 73 tests pass.",
            "Still running the migration on prod, 2 of 5 tables done.",
            "I have an idea: store it in metadata.",
        ] {
            assert!(!is_filler(said), "{said}");
        }
    }

    #[test]
    fn text_is_clipped_only_at_sentence_or_clause_boundaries() {
        let text = "The deploy failed on staging. The migration 0042 locked the turns table for 90 s. We rolled back.";
        assert_eq!(clipped(text, 80, Stretch::Double), "The deploy failed on staging.");
        assert_eq!(clipped(text, 500, Stretch::Double), text);
        assert_eq!(
            clipped(
                "understand this spec and plan it:\n---\n# Swipe — Product Spec\n> Hand this document to an LLM.",
                40,
                Stretch::None
            ),
            "understand this spec and plan it:",
            "a line ends a sentence"
        );
        let long = "Keep the retries at three, never more than five, and always with jitter so that the fleet does not stampede, \
                    whatever the load, the hour or the region, and log every retry with its reason.";
        assert_eq!(
            clipped(long, 100, Stretch::Double),
            long,
            "a first sentence up to twice the room is kept whole"
        );
        let cut = clipped(long, 60, Stretch::Double);
        assert!(cut.ends_with('…') && cut.chars().count() <= 60, "{cut}");
        assert!(
            cut.starts_with("Keep the retries at three, never more than five"),
            "{cut}"
        );
    }

    #[test]
    fn a_long_sentence_without_spaces_is_a_sentence_and_an_acknowledgement_is_filler() {
        let said = "認証ミドルウェアのトークン検証を修正しました。";
        assert!(!is_filler(said), "{said}");
        for filler in ["了解しました。", "好的！", "完了。", "Done!"] {
            assert!(is_filler(filler), "{filler}");
        }
    }

    #[test]
    fn leading_sentences_leave_filler_out() {
        assert_eq!(
            leading("Perfect! Now I'm adding the close action. Then the tests.", 600).as_deref(),
            Some("Now I'm adding the close action. Then the tests.")
        );
    }

    #[test]
    fn no_sentence_starts_inside_a_word_a_terminal_wrapped() {
        for (text, tail) in [
            (
                "Lägg till en kontroll i pipelinen, för den här grenen som vi jobbar med få\nr inte merges innan alla tester är gröna. Tack!",
                "r inte merges",
            ),
            (
                "Пожалуйста, добавь проверку в конвейер, чтобы эту ветку нель\nзя было сливать до зелёного CI. Спасибо!",
                "зя было",
            ),
            (
                "このブランチはすべてのテストが通るまでマージしないでください。そしてCIの設定ファイルを確認してからマー\nジの手順を書いてください。",
                "ジの手順",
            ),
        ] {
            let found = statements(text);
            assert!(
                found.iter().all(|sentence| !sentence.starts_with(tail)),
                "{tail} starts a sentence: {found:?}"
            );
        }
    }

    #[test]
    fn a_line_cut_short_ends_between_words_in_any_script() {
        assert_eq!(
            one_line("Den här grenen får inte merges innan CI är grön", 18),
            "Den här grenen…"
        );
        assert_eq!(one_line("Эту ветку нельзя сливать до зелёного CI", 14), "Эту ветку…");
        assert_eq!(
            one_line("マージしないでください", 6),
            "マージしな…",
            "no spaces: cut between characters"
        );
    }
}
