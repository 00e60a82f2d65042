//! The summarizer that needs no model (SPEC §4): used when no upstream is
//! configured or the tenant's upstream budget is spent. Its narrative is one
//! line per user request — the request, its outcome (the assistant's last
//! sentence in that turn) and the files it changed — on top of the anchor's
//! lines; the budget merges the oldest lines first, and the keep set's items
//! are appended by the same guard as any summary's.

use std::sync::LazyLock;

use regex::Regex;

use crate::policy::keep::HarnessPatterns;
use crate::policy::keep::extract::{files_changed, users_words};
use crate::policy::keep::narrative::split_merged;
use crate::policy::transcript::{Message, Role};

/// How much of a request a line quotes…
pub(crate) const REQUEST_CHARS: usize = 200;
/// …of its outcome…
pub(crate) const OUTCOME_CHARS: usize = 160;
/// …and how many of the files it changed it names.
pub(crate) const FILES_PER_LINE: usize = 8;
/// How much of a prior narrative in prose (an earlier model's) is carried.
pub(crate) const PRIOR_PROSE_CHARS: usize = 600;

/// On a transcript of this many tokens or more, the extractive summary is
/// at most a tenth of it.
pub(crate) const COMPRESSES_FROM_TOKENS: u64 = 20_000;

/// The most an extractive summary of `transcript_tokens` (the anchor and
/// the delta it replaces) may take: a tenth of a long transcript, and less
/// than a short one — but never less than `least`, the room to say why no
/// model wrote it and what was asked (a transcript of a few words gets a
/// summary of a few more).
pub(crate) fn max_tokens(transcript_tokens: u64, least: u64) -> u64 {
    let share = if transcript_tokens >= COMPRESSES_FROM_TOKENS {
        transcript_tokens / 10
    } else {
        transcript_tokens * 9 / 10
    };
    share.max(least)
}

/// The first line of every extractive summary.
pub(crate) fn header(why: &str) -> String {
    format!("Written by compactd without a model ({why}).")
}

static SENTENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[^.!?。！？\n]+[.!?。！？]*").expect("a valid pattern"));

fn one_line(text: &str, max_chars: usize) -> String {
    let squeezed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let clipped: String = squeezed.chars().take(max_chars).collect();
    if clipped.len() < squeezed.len() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

/// The last sentence of an answer: usually what came of the request.
fn last_sentence(answer: &str) -> Option<String> {
    SENTENCE
        .find_iter(answer)
        .map(|m| m.as_str().trim())
        .filter(|sentence| sentence.chars().any(char::is_alphanumeric))
        .last()
        .map(|sentence| one_line(sentence, OUTCOME_CHARS))
}

/// One request and what came of it.
#[derive(Default)]
struct Exchange {
    request: Option<String>,
    outcome: Option<String>,
    files: Vec<String>,
}

impl Exchange {
    fn line(&self) -> Option<String> {
        if self.request.is_none() && self.outcome.is_none() && self.files.is_empty() {
            return None;
        }
        let mut line = format!("- {}", self.request.as_deref().unwrap_or("(continuing)"));
        if let Some(outcome) = &self.outcome {
            line.push_str(&format!(" → {outcome}"));
        }
        if !self.files.is_empty() {
            let shown: Vec<&str> = self.files.iter().take(FILES_PER_LINE).map(String::as_str).collect();
            let more = self.files.len().saturating_sub(FILES_PER_LINE);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            line.push_str(&format!(" (files: {}{more})", shown.join(", ")));
        }
        Some(line)
    }
}

/// The narrative of `messages` on top of the anchor's narrative: a header
/// saying why no model wrote it, the anchor's lines, then one line per request.
pub(crate) fn narrative(prior: Option<&str>, messages: &[Message], harness: &HarnessPatterns, why: &str) -> String {
    let mut lines = vec![header(why)];
    if let Some(prior) = prior.map(str::trim).filter(|p| !p.is_empty()) {
        // A prepared summary merged with later lines: its prose, then its lines.
        let (prose, since) = split_merged(prior).unwrap_or((prior, ""));
        let prior_lines: Vec<&str> = prose
            .lines()
            .chain(since.lines())
            .filter(|l| l.starts_with("- "))
            .collect();
        if !since.is_empty() && !prose.trim().is_empty() {
            lines.push(format!("- Before: {}", one_line(prose, PRIOR_PROSE_CHARS)));
            lines.extend(since.lines().filter(|l| l.starts_with("- ")).map(str::to_owned));
        } else if prior_lines.is_empty() {
            lines.push(format!("- Before: {}", one_line(prior, PRIOR_PROSE_CHARS)));
        } else {
            lines.extend(prior_lines.iter().map(|l| (*l).to_owned()));
        }
    }
    lines.extend(request_lines(messages, harness));
    lines.join("\n")
}

/// One line per user request in `messages`, with its outcome and the files
/// it changed (a delta that opens mid-run starts with a `(continuing)` line).
pub(crate) fn request_lines(messages: &[Message], harness: &HarnessPatterns) -> Vec<String> {
    let mut lines = Vec::new();
    let mut exchange = Exchange::default();
    for message in messages {
        if let Some(words) = users_words(message, harness) {
            lines.extend(exchange.line());
            exchange = Exchange {
                request: Some(one_line(&words, REQUEST_CHARS)),
                ..Exchange::default()
            };
            continue;
        }
        if message.role != Role::Assistant {
            continue;
        }
        if let Some(outcome) = last_sentence(&message.content) {
            exchange.outcome = Some(outcome);
        }
        for file in files_changed(message) {
            if !exchange.files.contains(&file) {
                exchange.files.push(file);
            }
        }
    }
    lines.extend(exchange.line());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::transcript::ToolCall;

    fn turn(request: &str, answer: &str, file: Option<&str>) -> Vec<Message> {
        let mut messages = vec![Message::new(Role::User, request)];
        if let Some(file) = file {
            messages.push(Message {
                tool_calls: vec![ToolCall {
                    id: "c".into(),
                    name: "Write".into(),
                    arguments: format!(r#"{{"file_path":"{file}","content":"x"}}"#),
                }],
                ..Message::new(Role::Assistant, "")
            });
            messages.push(Message {
                tool_call_id: Some("c".into()),
                ..Message::new(Role::Tool, "ok")
            });
        }
        messages.push(Message::new(Role::Assistant, answer));
        messages
    }

    #[test]
    fn one_line_per_request_with_its_outcome_and_files() {
        let mut messages = turn(
            "Add a health check.",
            "Looking. Added /healthz and a test.",
            Some("src/health.rs"),
        );
        messages.extend(turn("Now document it.", "Documented in the README.", None));
        let text = narrative(None, &messages, &HarnessPatterns::default(), "no upstream");
        assert_eq!(
            text,
            "Written by compactd without a model (no upstream).\n\
             - Add a health check. → Added /healthz and a test. (files: src/health.rs)\n\
             - Now document it. → Documented in the README."
        );
    }

    #[test]
    fn harness_text_starts_no_line_and_a_mid_run_delta_continues() {
        let messages = vec![
            Message::new(Role::User, "<system-reminder>todo list empty</system-reminder>"),
            Message::new(Role::Assistant, "Tests pass now."),
        ];
        let text = narrative(
            Some("Written by compactd without a model (x).\n- Old request → done"),
            &messages,
            &HarnessPatterns::default(),
            "x",
        );
        assert_eq!(
            text,
            "Written by compactd without a model (x).\n- Old request → done\n- (continuing) → Tests pass now."
        );
    }

    #[test]
    fn a_prose_anchor_is_carried_as_one_line() {
        let text = narrative(
            Some("The model wrote this. It decided X."),
            &[],
            &HarnessPatterns::default(),
            "budget",
        );
        assert!(
            text.ends_with("- Before: The model wrote this. It decided X."),
            "{text}"
        );
    }

    #[test]
    fn a_merged_anchor_keeps_its_prose_as_one_line_and_its_lines() {
        let anchor = crate::policy::keep::narrative::merged(
            "The model wrote this. It decided X.",
            &["- Add a test. → Added.".to_owned()],
        );
        let text = narrative(Some(&anchor), &[], &HarnessPatterns::default(), "budget");
        assert_eq!(
            text,
            "Written by compactd without a model (budget).\n- Before: The model wrote this. It decided X.\n- Add a test. → Added."
        );
    }

    #[test]
    fn long_requests_and_outcomes_are_clipped() {
        let messages = turn(&"r".repeat(500), &format!("{}.", "o".repeat(500)), None);
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        let line = text.lines().nth(1).unwrap();
        assert!(line.chars().count() < REQUEST_CHARS + OUTCOME_CHARS + 20, "{line}");
    }

    #[test]
    fn a_long_transcripts_summary_is_a_tenth_and_a_short_ones_shorter_than_it() {
        assert_eq!(max_tokens(20_000, 60), 2_000);
        assert_eq!(max_tokens(250_000, 60), 25_000);
        assert_eq!(max_tokens(3_000, 60), 2_700);
        assert_eq!(max_tokens(100, 60), 90);
        assert_eq!(max_tokens(20, 60), 60, "room to say why and what was asked");
    }
}
