//! Whether an upstream's answer is a summary at all (SPEC §3 *Fail-soft*:
//! unusable output). A small local model may answer with the prompt's own
//! last line, a few words where the anchor held pages, or one sentence over
//! and over; stored as the narrative, any of them loses the anchor. Such an
//! answer is never taken: the summary is written without the model, and
//! says why.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

pub(crate) const ECHOED: &str = "the summary model answered with its own instructions, not a summary";
pub(crate) const TOO_SHORT: &str =
    "the summary model's answer was far shorter than the summary it would replace and kept nothing of it";
pub(crate) const LOOPING: &str = "the summary model's answer repeated itself in a loop";
pub(crate) const FRAMED: &str =
    "the summary model's answer copied the prompt's frame (its fences or headings), not a summary";

/// An anchor shorter than this (in words) may well be replaced by a few.
const ANCHOR_WORDS_WORTH_KEEPING: usize = 80;
/// An answer this many times shorter than its anchor must show it kept some.
const SHORTER_BY: usize = 8;
/// The anchor's own words an answer must carry to count as keeping it.
const KEPT_WORDS: usize = 2;
/// The fewest words an answer must have to be told an echo.
const ECHO_MIN_WORDS: usize = 3;
/// What an answer must have said before it looped to be a summary still.
const SAID_BEFORE_LOOP_WORDS: usize = 25;
/// Word sequences compared for a loop, and how many an answer needs first.
const LOOP_SPAN: usize = 6;
const LOOP_MIN_SPANS: usize = 30;

/// What the upstream was shown: its instructions, and the data among them.
pub(super) struct Shown<'a> {
    pub system: &'a str,
    pub user: &'a str,
    pub anchor: Option<&'a str>,
}

/// What of `answer` may be a summary of what was `shown`: the answer, cut
/// where it falls into a loop (a small model often says something first);
/// `Err`: why none of it is one.
pub(super) fn usable<'a>(answer: &'a str, shown: &Shown<'_>) -> Result<&'a str, &'static str> {
    let answer = said_before(answer, loop_start(answer), LOOPING)?;
    if echoes(answer, shown) {
        return Err(ECHOED);
    }
    // A model that summarized first and then went on writing the prompt
    // keeps its summary; one that wrote the prompt back from the start has none.
    let answer = said_before(answer, frame_start(answer, shown.user), FRAMED)?;
    if shown.anchor.is_some_and(|anchor| drops(answer, anchor, shown.system)) {
        return Err(TOO_SHORT);
    }
    Ok(answer)
}

/// `answer` up to where it went wrong (`at`), if enough came before it;
/// else `why` none of it is a summary.
fn said_before<'a>(answer: &'a str, at: Option<usize>, why: &'static str) -> Result<&'a str, &'static str> {
    let Some(at) = at else {
        return Ok(answer);
    };
    let before = answer[..at].trim_end();
    if words(before).count() < SAID_BEFORE_LOOP_WORDS {
        return Err(why);
    }
    Ok(before)
}

fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Every line of the answer is found in the instructions: the system prompt
/// or the user message outside the anchor and the transcript it fences. A
/// word or two (`Summary.`) is too common to tell an echo by.
fn echoes(answer: &str, shown: &Shown<'_>) -> bool {
    if words(answer).count() < ECHO_MIN_WORDS {
        return false;
    }
    let instructions = format!(
        "{}\n{}",
        normalized(shown.system),
        normalized(&instruction_lines(shown.user))
    );
    let mut lines = answer
        .lines()
        .map(|line| normalized(line.trim_matches(|c: char| !c.is_alphanumeric())))
        .filter(|line| !line.is_empty())
        .peekable();
    lines.peek().is_some() && lines.all(|line| instructions.contains(&line))
}

/// The frame the prompt puts around its data, which a small model may go on
/// writing instead of answering: a fence's name, which is the prompt's own,
/// or one of the user message's heading lines (`PRIOR SUMMARY`,
/// `TRANSCRIPT (2 messages)`) as a line of its own.
/// Where the answer starts copying that frame: the start of the first line
/// that holds a fence's name, is a heading line of the user message, or is
/// a transcript message's header.
fn frame_start(answer: &str, user: &str) -> Option<usize> {
    let (fence_names, own_lines) = walk_fences(user);
    let headings: HashSet<&str> = own_lines
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let mut at = 0;
    for line in answer.split_inclusive('\n') {
        let framed = fence_names.iter().any(|name| line.contains(name))
            || headings.contains(line.trim())
            || MESSAGE_HEADER.is_match(line.trim_end_matches('\n'));
        if framed {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// The header the prompt gives each message of the transcript
/// (`[5] user:`, `[7] tool result for call c1:`): a summary tells what
/// happened, it does not lay the transcript out again.
static MESSAGE_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A\s*\[\d+\] (?:user|assistant|system|tool|developer)\b[^\n]{0,80}:\s*\z").expect("a valid pattern")
});

/// The user message walked fence by fence: the names of the fences it
/// opens, and its own lines (the fenced anchor and transcript left out;
/// a fence-like line inside what a fence holds is data).
fn walk_fences(user: &str) -> (Vec<&str>, String) {
    let mut fenced_by: Option<String> = None;
    let (mut names, mut kept) = (Vec::new(), Vec::new());
    for line in user.lines() {
        match &fenced_by {
            Some(close) if line == close => fenced_by = None,
            Some(_) => {}
            None => match fence_close(line) {
                Some(close) => {
                    names.push(&line[1..line.len() - 1]);
                    fenced_by = Some(close);
                }
                None => kept.push(line),
            },
        }
    }
    (names, kept.join("\n"))
}

/// The user message's own lines, the fenced anchor and transcript left out.
fn instruction_lines(user: &str) -> String {
    walk_fences(user).1
}

/// The closing line of a fence `line` opens (`<anchor-…>`, `<transcript-…>`).
fn fence_close(line: &str) -> Option<String> {
    let name = line.strip_prefix('<')?.strip_suffix('>')?;
    let well_formed = !name.starts_with('/') && name.contains('-') && !name.contains(char::is_whitespace);
    well_formed.then(|| format!("</{name}>"))
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// Each word of `text`, lowercased, with where it starts.
fn words_at(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut start: Option<usize> = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric() || c == '_', start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                found.push((from, text[from..at].to_lowercase()));
                start = None;
            }
            _ => {}
        }
    }
    found
}

/// Where the answer falls into a loop: the first span of words from which
/// nearly every span to the end repeats one said before (what loops is
/// kept once). A line or sentence that starts with it goes whole.
fn loop_start(answer: &str) -> Option<usize> {
    let (starts, texts): (Vec<usize>, Vec<String>) = words_at(answer).into_iter().unzip();
    if texts.len() < LOOP_SPAN + LOOP_MIN_SPANS {
        return None;
    }
    let spans = texts.len() - LOOP_SPAN + 1;
    let mut seen: HashSet<&[String]> = HashSet::new();
    let repeated: Vec<bool> = (0..spans).map(|at| !seen.insert(&texts[at..at + LOOP_SPAN])).collect();
    let mut repeats_after = vec![0usize; spans + 1];
    for at in (0..spans).rev() {
        repeats_after[at] = repeats_after[at + 1] + usize::from(repeated[at]);
    }
    let first = (0..spans).find(|&at| {
        let rest = spans - at;
        repeated[at] && rest >= LOOP_MIN_SPANS && repeats_after[at] * 5 >= rest * 4
    })?;
    let at = starts[first];
    let line_start = answer[..at].rfind(['\n', '.', '!', '?']).map_or(0, |end| end + 1);
    let begun = answer[line_start..at].chars().any(char::is_alphanumeric);
    Some(if begun { at } else { line_start })
}

/// A long anchor replaced by a few words that keep none of its own: those
/// it shares with the instructions (`summary`, `user`) do not count.
fn drops(answer: &str, anchor: &str, system: &str) -> bool {
    let anchor_words: Vec<String> = words(anchor).collect();
    let answer_words: HashSet<String> = words(answer).collect();
    if anchor_words.len() < ANCHOR_WORDS_WORTH_KEEPING || words(answer).count() * SHORTER_BY > anchor_words.len() {
        return false;
    }
    let generic: HashSet<String> = words(system).collect();
    let kept: HashSet<&String> = anchor_words
        .iter()
        .filter(|word| word.chars().count() >= 4 && !generic.contains(*word) && answer_words.contains(*word))
        .collect();
    kept.len() < KEPT_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::{Message, Role};
    use crate::summary::write::prompt::{system_prompt, user_message};

    const ANCHOR: &str = "The user is migrating the billing service from Flask to FastAPI. \
        Done: the invoice routes in billing/api/invoices.py moved and their tests pass; \
        the refund routes are next. The user asked to keep the old /v1 paths working until \
        the mobile app ships 4.2 and never to touch the production database directly. \
        Ticket BILL-2291 tracks the work; the staging deploy failed once on a missing \
        STRIPE_WEBHOOK_SECRET, which was added to the vault. The next step is porting \
        refunds.py, then the webhook handler, then removing Flask from requirements.txt. \
        An open question to the user: whether the admin routes move in this change or later.";

    fn shown<'a>(system: &'a str, user: &'a str) -> Shown<'a> {
        Shown {
            system,
            user,
            anchor: Some(ANCHOR),
        }
    }

    fn prompt() -> (String, String) {
        let messages = [
            Message::new(Role::User, "Port refunds.py next, keep /v1 working."),
            Message::new(Role::Assistant, "Ported refunds.py; tests pass."),
        ];
        (system_prompt(800), user_message(Some(ANCHOR), &messages))
    }

    #[test]
    fn the_prompts_own_last_line_or_instructions_are_an_echo() {
        let (system, user) = prompt();
        for echo in [
            "Write the new summary now.",
            "  Write the new summary now.  ",
            "NEW SUMMARY:\nWrite the new summary now.",
            "Describe tool calls and their results in plain prose.",
        ] {
            assert_eq!(usable(echo, &shown(&system, &user)), Err(ECHOED), "{echo}");
        }
    }

    #[test]
    fn an_answer_that_goes_on_writing_the_prompts_frame_is_no_summary() {
        let (system, user) = prompt();
        let fence = user.lines().find(|line| line.starts_with("<transcript-")).unwrap();
        for framed in [
            format!("Refunds are next.\n\nTRANSCRIPT (2 messages)\n{fence}\n[1] user:\n    proceed"),
            format!("The refund routes of BILL-2291 are ported.\n{fence}"),
            "The new summary is:\n\n[5] user:\n    Port refunds.py next.".to_owned(),
            "The refund routes of BILL-2291 are ported.\nPRIOR SUMMARY\nThe user is migrating billing.".to_owned(),
            "The new summary is:\n\n[5] user:\n    Port refunds.py next.\n[7] assistant:\n    Ported.".to_owned(),
        ] {
            assert_eq!(usable(&framed, &shown(&system, &user)), Err(FRAMED), "{framed}");
        }
        let quoting = "The transcript shows the refund routes of BILL-2291 ported; the prior summary still holds.\n[1] user: the ask came first.";
        assert_eq!(usable(quoting, &shown(&system, &user)), Ok(quoting));
        let said = "The refund routes of BILL-2291 are ported to FastAPI and their tests pass. \
            The legacy v1 paths stay behind the shim until the mobile release. Next: the webhook handler, \
            then Flask leaves requirements.txt.";
        let went_on = format!("{said}\n\nTRANSCRIPT (2 messages)\n[1] user:\n    Port refunds.py next.");
        assert_eq!(
            usable(&went_on, &shown(&system, &user)),
            Ok(said),
            "what it summarized before it went on writing the prompt is its summary"
        );
    }

    #[test]
    fn a_summary_that_quotes_the_transcript_or_anchor_is_no_echo() {
        let (system, user) = prompt();
        let first = Shown {
            anchor: None,
            ..shown(&system, &user)
        };
        assert_eq!(
            usable("Summary.", &first),
            Ok("Summary."),
            "a word is too common to tell an echo by"
        );
        for summary in [
            "Ported refunds.py; tests pass.",
            "The user is migrating the billing service from Flask to FastAPI.",
            "Summary\nThe refund routes of BILL-2291 are ported and their tests pass; the webhook handler is next.",
        ] {
            assert_eq!(usable(summary, &shown(&system, &user)), Ok(summary), "{summary}");
        }
    }

    #[test]
    fn a_few_words_in_place_of_a_long_anchor_keep_nothing_of_it() {
        let (system, user) = prompt();
        assert_eq!(
            usable("All done, nothing else happened.", &shown(&system, &user)),
            Err(TOO_SHORT)
        );
        let short = "Refunds ported for BILL-2291; webhook next.";
        assert_eq!(
            usable(short, &shown(&system, &user)),
            Ok(short),
            "short but it keeps the anchor's own words"
        );
        let first = Shown {
            anchor: None,
            ..shown(&system, &user)
        };
        let done = "All done, nothing else happened.";
        assert_eq!(usable(done, &first), Ok(done), "no anchor to lose");
    }

    #[test]
    fn one_sentence_over_and_over_is_a_loop() {
        let (system, user) = prompt();
        let looped = "The user asked to port the refund routes.\n".repeat(12);
        assert_eq!(usable(&looped, &shown(&system, &user)), Err(LOOPING));
        let unbroken = "and then the agent ported the routes ".repeat(20);
        assert_eq!(usable(&unbroken, &shown(&system, &user)), Err(LOOPING));
        let list: String = (1..=20)
            .map(|n| format!("- Ported route {n} of billing/api/refunds.py and its test.\n"))
            .collect();
        assert_eq!(usable(&list, &shown(&system, &user)), Ok(list.as_str()));
        assert_eq!(usable(ANCHOR, &shown(&system, &user)), Ok(ANCHOR));
    }

    #[test]
    fn what_was_said_before_a_loop_is_kept_and_the_loop_cut() {
        let (system, user) = prompt();
        let said = "The refund routes of BILL-2291 are ported to FastAPI and their tests pass. \
            The legacy v1 paths stay behind the shim until the mobile release. Next: the webhook handler, \
            then Flask leaves requirements.txt.";
        let answer = format!("{said}\n{}", "- The user asked to port the refund routes.\n".repeat(15));
        let once = format!("{said}\n- The user asked to port the refund routes.");
        assert_eq!(
            usable(&answer, &shown(&system, &user)),
            Ok(once.as_str()),
            "what loops is kept once"
        );
        let mid_line = format!("{said} {}", "and so on and so forth again ".repeat(12));
        let once = format!("{said} and so on and so forth again");
        assert_eq!(usable(&mid_line, &shown(&system, &user)), Ok(once.as_str()));
    }
}
