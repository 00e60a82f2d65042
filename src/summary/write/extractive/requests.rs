//! A delta's messages read into exchanges: each request the user makes opens
//! one, and the agent's words and calls after it fill it.

use std::sync::LazyLock;

use regex::Regex;

use super::choices::{chosen, option_named};
use super::exchange::{Exchange, REQUEST_CHARS, STEP_CHARS};
use super::remarks::REASON;
use crate::domain::transcript::{Message, Role, ToolCall};
use crate::summary::read::Reading;
use crate::summary::read::briefs::{briefs, shows_issue};
use crate::summary::read::commands::only_looks;
use crate::summary::read::commit_message::commit_body;
use crate::summary::read::edits::names_defined;
use crate::summary::read::git_lines::is_commit_line;
use crate::summary::read::outcome::{Action, FOUND_NOTHING, Outcome, is_labelled_script};
use crate::summary::read::pasted::own_words;
use crate::summary::read::request::{UserMessage, is_acknowledgement};
use crate::summary::read::sentences::{Stretch, clipped, conclusion, is_announcement, sentences, statements};
use crate::summary::read::tool_calls::tool_name;

/// What one of the agent's messages adds to the work: the first sentence
/// that says something, with the sentence right after it when that gives a
/// reason (a decision and its why), unless it only announces what it will
/// look at next.
fn step_of(text: &str) -> Option<String> {
    let said = conclusion(text, STEP_CHARS)?;
    if is_announcement(&said) && !REASON.is_match(&said) {
        return None;
    }
    let all = sentences(text);
    // Only the sentence right after it says why it: a later one is about
    // something else.
    let reason = all
        .iter()
        .skip_while(|sentence| **sentence != said)
        .nth(1)
        .filter(|next| REASON.is_match(next) && next.chars().count() <= STEP_CHARS)
        // "…might be because:" leads into a list the step cannot hold.
        .filter(|next| !next.trim_end().trim_end_matches('*').ends_with(':'))
        .filter(|_| !REASON.is_match(&said));
    Some(match reason {
        Some(reason) => format!("{said} {reason}"),
        None => said,
    })
}

/// A failure the work does not turn on: a command that only looked found
/// nothing (`ls` of an empty folder, `grep` without a match), or a call
/// Claude Code never ran because another in its batch failed. A look that
/// failed otherwise (`jq` on broken JSON) is a finding.
fn failed_to_no_end(command: Option<&str>, line: &str) -> bool {
    line.contains("Sibling tool call errored") || command.is_some_and(only_looks) && SAYS_NOTHING_FOUND.is_match(line)
}

/// What a look says when it found nothing.
static SAYS_NOTHING_FOUND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)no matches found|\Aexit code 1\z|no such file or directory|cannot access|no files? found|not found\z",
    )
    .expect("a valid pattern")
});

/// Whether call `at` of `calls` asked to run in the background (Claude
/// Code's `run_in_background`).
fn runs_in_background(calls: &[ToolCall], at: usize) -> bool {
    calls.get(at).is_some_and(|call| {
        serde_json::from_str::<serde_json::Value>(&call.arguments)
            .is_ok_and(|arguments| arguments["run_in_background"] == serde_json::Value::Bool(true))
    })
}

/// The plan a call puts to the user for approval (Claude Code's `ExitPlanMode`).
fn plan_put(tool: &str, arguments: &str) -> Option<String> {
    let name = tool_name(tool).to_ascii_lowercase();
    if name != "exitplanmode" && name != "exit_plan_mode" {
        return None;
    }
    let parsed: serde_json::Value = serde_json::from_str(arguments).ok()?;
    parsed.get("plan")?.as_str().map(str::to_owned)
}

/// A sentence that is a link and nothing else (a pasted table of contents).
static LINK_ALONE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A\[[^\]]*\]\([^)]*\)[.,;:]?\z").expect("a valid pattern"));

/// A list item that only names a file or a span of code (`src/a.ts`,
/// "**File:** `src/layouts/Layout.astro`"): a pasted plan's list, whose
/// files the keep set holds, says nothing asked of its own.
static CODE_ALONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\A(?:\*\*(?:files?|paths?|ファイル|파일|файлы?|archivos?|dateien?|fichiers?)\s*[:：]?\*\*\s*[:：]?\s*)?",
        r"(?:`[^`\s]*[/.][^`\s]*`[\s,;:.]*)+\z",
    ))
    .expect("a valid pattern")
});

/// How much more of a request than its line is quoted under it.
const REQUEST_REST_CHARS: usize = 600;

/// What the user asked past the request's line (`line`): their own
/// sentences (not what they pasted, not headings), whole, while they fit.
fn rest_of_request(words: &str, line: &str) -> Vec<String> {
    let mut rest = Vec::new();
    let mut room = REQUEST_REST_CHARS;
    let line = line.trim_end_matches('…');
    for sentence in statements(&own_words(words)) {
        let sentence = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
        // The user's words are theirs even in one word ("- Postgres"); only a
        // bare acknowledgement says nothing more.
        if line.contains(&sentence)
            || is_acknowledgement(&sentence)
            || LINK_ALONE.is_match(&sentence)
            || CODE_ALONE.is_match(&sentence)
        {
            continue;
        }
        let length = sentence.chars().count();
        if length > room {
            break;
        }
        room -= length;
        rest.push(sentence);
    }
    rest
}

/// What the user said, taken into the exchange: a request opens the next
/// one (the one before it written to `lines`), a repeat, an answer or a
/// command adds to it. Whether the message was the user's to hear.
fn heard(user: Option<&UserMessage>, offered: &str, exchange: &mut Exchange, lines: &mut Vec<String>) -> bool {
    match user {
        Some(UserMessage::Request(words)) => {
            lines.extend(exchange.lines());
            let line = clipped(words, REQUEST_CHARS, Stretch::None);
            *exchange = Exchange {
                asked: rest_of_request(words, &line),
                request: Some(line),
                ..Exchange::default()
            };
        }
        Some(UserMessage::Repeat(words)) => {
            if exchange.request.as_deref() == Some(clipped(words, REQUEST_CHARS, Stretch::None).as_str()) {
                exchange.again += 1;
            } else {
                exchange
                    .then
                    .push(format!("asked again: {}", clipped(words, 80, Stretch::None)));
            }
        }
        Some(UserMessage::Answer(words)) => {
            let answer = match option_named(words, offered) {
                Some(option) => format!("answered: {} ({option})", words.trim()),
                None => format!("answered: {}", clipped(words, 80, Stretch::None)),
            };
            exchange.then.push(answer);
        }
        Some(UserMessage::Command(command)) => exchange.then.push(format!("ran {command}")),
        _ => return false,
    }
    true
}

/// How many lines of a commit's message past its title are kept when the
/// commit holds changes: the steps and the files said what they are, so its
/// message is mostly a repeat; an empty commit's (`--allow-empty`, progress
/// saved before a compaction) is all it holds, and is kept as written.
const BODY_OF_CHANGES: usize = 2;

/// What the agent wrote in a commit's message past its title: of a
/// commit of changes, its first lines and any that say what is left.
fn told_in_commit(command: &str) -> Vec<String> {
    let body = commit_body(command);
    if command.split_whitespace().any(|word| word == "--allow-empty") {
        return body;
    }
    body.into_iter()
        .enumerate()
        .filter(|(at, line)| *at < BODY_OF_CHANGES || STILL_TO_DO.is_match(line))
        .map(|(_, line)| line)
        .collect()
}

/// A line of a commit's message that says what is left.
static STILL_TO_DO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:todo|pending|blocked|in[ _-]progress|remaining|not yet|follow[ -]?up|still to)\b")
        .expect("a valid pattern")
});

/// One line per user request in `messages`, with its conclusion and the
/// files it changed, each followed by its work (a delta that opens mid-run
/// starts with a `(continuing)` line); `read` is their [`Reading`].
pub(crate) fn request_lines(messages: &[Message], read: &Reading) -> Vec<String> {
    let mut lines = Vec::new();
    let mut exchange = Exchange::default();
    let mut done = read.actions.iter();
    // The agent's last words: where an answer's option number points.
    let mut offered = "";
    for ((message, user), changed) in messages.iter().zip(&read.users).zip(&read.changed) {
        if heard(user.as_ref(), offered, &mut exchange, &mut lines) {
            continue;
        }
        if message.role != Role::Assistant {
            continue;
        }
        if !message.content.trim().is_empty() {
            offered = &message.content;
        }
        if let Some(said) = step_of(&message.content) {
            exchange.outcome = Some(said.clone());
            exchange.step(said);
            exchange.report = Some(message.content.clone());
            exchange.report_is_last = message.tool_calls.is_empty();
        } else if !message.tool_calls.is_empty() || !message.content.trim().is_empty() {
            exchange.report_is_last = false;
        }
        for call in &message.tool_calls {
            for (file, names) in names_defined(&call.name, &call.arguments) {
                exchange.defined(file, names);
            }
            if let Some(plan) = plan_put(&call.name, &call.arguments) {
                exchange.plan = Some(plan);
            }
        }
        for action in done.by_ref().take(message.tool_calls.len()) {
            // A lookup that failed (`no issue found`) shows no issue.
            if let (Some(at), Outcome::Ok(_)) = (action.result, &action.outcome)
                && shows_issue(&action.tool, action.command.as_deref())
            {
                for brief in briefs(&messages[at].content) {
                    exchange.brief(brief);
                }
            }
            if let Some(at) = action.result {
                for choice in chosen(&action.tool, &messages[at].content) {
                    exchange.step(choice);
                }
            }
            exchange.outcome_of(action, &message.tool_calls);
        }
        for file in changed {
            if !exchange.files.contains(file) {
                exchange.files.push(file.clone());
            }
        }
    }
    lines.extend(exchange.lines());
    lines
}

impl Exchange {
    /// What a call came to, as a step: what it printed that says something
    /// (a commit and what its message said, a tally, what labelled checks
    /// found), that it started in the background, failed or was refused.
    fn outcome_of(&mut self, action: &Action, calls: &[ToolCall]) {
        let target = action.target.replace('`', "'");
        match &action.outcome {
            // A look that found nothing is where things stand's to say, as a failed one is.
            Outcome::Ok(Some(line)) if line == FOUND_NOTHING => {}
            Outcome::Ok(Some(line))
                if action.command.as_deref().is_some_and(is_labelled_script) && !is_commit_line(line) =>
            {
                self.step(format!("checks found: {line}"));
            }
            Outcome::Ok(Some(line)) => {
                self.step(format!("`{target}` → {line}"));
                // What the agent wrote of the change (or of the work left).
                for said in action.command.as_deref().map(told_in_commit).unwrap_or_default() {
                    self.step(format!("commit message: {said}"));
                }
            }
            // A server or a watcher started to keep running is part of where the work stands.
            Outcome::Ok(None) if action.command.is_some() && runs_in_background(calls, action.call) => {
                self.step(format!("`{target}` → started in the background"));
            }
            Outcome::Failed(line) if !failed_to_no_end(action.command.as_deref(), line) => {
                self.failed(&target, line, action.command.is_some());
            }
            Outcome::Refused(_) | Outcome::Interrupted => {
                self.step(format!("`{target}` {}", action.outcome.refusal()));
            }
            _ => {}
        }
    }
}
