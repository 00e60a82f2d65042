//! The summarizer that needs no model (SPEC §4): used when no upstream is
//! configured or the tenant's upstream budget is spent. Its narrative is one
//! line per user request — the request, its conclusion (the first sentence
//! that says something of the turn's last answer) and the files it changed
//! — each followed by the work that led there: what the agent found and
//! decided along the way, the commits and test runs it made, what failed.
//! On top of the anchor's lines; the budget drops the oldest work first,
//! then merges the oldest request lines, and the keep set's items are
//! appended by the same guard as any summary's.

use std::sync::LazyLock;

use regex::Regex;

use crate::domain::transcript::{Message, Role};
use crate::summary::read::HarnessPatterns;
use crate::summary::read::briefs::{briefs, shows_issue};
use crate::summary::read::edits::{NAMES_PER_FILE, names_defined};
use crate::summary::read::files::{file_name, files_changed, is_inside};
use crate::summary::read::outcome::{Outcome, actions};
use crate::summary::read::pasted::own_words;
use crate::summary::read::request::{UserMessage, is_acknowledgement, read_users};
use crate::summary::read::sentences::{
    Stretch, clipped, conclusion, is_announcement, is_filler, sentences, statements,
};
use crate::summary::read::tool_calls::tool_name;
use crate::summary::write::narrative::{ASKED_MARK, BRIEF_MARK, WORK_MARK, split_merged};

/// How much of a request a line quotes (SPEC §4)…
pub(crate) const REQUEST_CHARS: usize = 200;
/// …of its conclusion, or one step of the work…
pub(crate) const STEP_CHARS: usize = 220;
/// …and how many of the files it changed it names.
pub(crate) const FILES_PER_LINE: usize = 12;
/// How much of a prior narrative in prose (an earlier model's) is carried.
pub(crate) const PRIOR_PROSE_CHARS: usize = 600;

/// On a transcript of this many tokens or more, the extractive summary is
/// at most a tenth of it.
pub(crate) const COMPRESSES_FROM_TOKENS: u64 = 20_000;

/// The most an extractive summary of `transcript_tokens` (the anchor and
/// the delta it replaces) may take: a tenth of a long transcript; a short
/// one's summary may take the whole budget, since what it holds word for
/// word fits beside a shorter narrative (the narrative gives way first).
pub(crate) fn max_tokens(transcript_tokens: u64, budget: u64) -> u64 {
    if transcript_tokens >= COMPRESSES_FROM_TOKENS {
        budget.min(transcript_tokens / 10)
    } else {
        budget
    }
}

/// The first line of every extractive summary.
pub(crate) fn header(why: &str) -> String {
    format!("Written by compactd without a model ({why}).")
}

/// One request, what the user said after it, what came of it, and the work between.
#[derive(Default)]
struct Exchange {
    request: Option<String>,
    /// The rest of the request, past its line: what else the user asked.
    asked: Vec<String>,
    /// "answered: yes", "ran /review".
    then: Vec<String>,
    outcome: Option<String>,
    files: Vec<String>,
    steps: Vec<String>,
    /// What each changed file's edits defined, in the order first changed.
    defined: Vec<(String, Vec<String>)>,
    /// The agent's last words in the exchange: its report of what it did.
    report: Option<String>,
    /// The plan the agent put to the user (Claude Code's `ExitPlanMode`).
    plan: Option<String>,
    /// The issues, tickets and pull requests the agent read, each as its
    /// title and the sections that bound the work.
    briefs: Vec<Vec<String>>,
}

impl Exchange {
    fn lines(&self) -> Vec<String> {
        if self.request.is_none() && self.outcome.is_none() && self.files.is_empty() && self.steps.is_empty() {
            return Vec::new();
        }
        let mut line = format!("- {}", self.request.as_deref().unwrap_or("(continuing)"));
        if !self.then.is_empty() {
            line.push_str(&format!(" [then {}]", self.then.join("; ")));
        }
        if let Some(outcome) = &self.outcome {
            line.push_str(&format!(" → {outcome}"));
        }
        if !self.files.is_empty() {
            let mut names: Vec<&str> = Vec::new();
            let folder_of_another = |folder: &String| self.files.iter().any(|file| is_inside(file, folder));
            for file in self.files.iter().filter(|file| !folder_of_another(file)) {
                let name = file_name(file);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let more = names.len().saturating_sub(FILES_PER_LINE);
            names.truncate(FILES_PER_LINE);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            line.push_str(&format!(" (files: {}{more})", names.join(", ")));
        }
        let mut lines = vec![line];
        lines.extend(self.asked.iter().map(|more| format!("{ASKED_MARK}{more}")));
        lines.extend(
            self.briefs
                .iter()
                .map(|brief| format!("{BRIEF_MARK}{}", brief.join(" — "))),
        );
        // The last step is the conclusion already on the line.
        let steps = self.steps.iter().filter(|step| Some(*step) != self.outcome.as_ref());
        lines.extend(steps.map(|step| format!("{WORK_MARK}{step}")));
        // The plan put to the user: the goal, the approach, what to change.
        if let Some(plan) = &self.plan {
            lines.extend(
                report_lines(plan, None)
                    .into_iter()
                    .take(PLAN_SENTENCES)
                    .map(|line| format!("{WORK_MARK}plan: {line}")),
            );
        }
        // The rest of the agent's report: what it did, what is left.
        if let Some(report) = &self.report {
            let told = report_lines(report, self.outcome.as_deref());
            lines.extend(
                told.iter()
                    .filter(|line| !self.steps.contains(line))
                    .map(|line| format!("{WORK_MARK}{line}")),
            );
        }
        lines.extend(self.defined.iter().map(|(file, names)| {
            let shown: Vec<&str> = names.iter().take(NAMES_PER_FILE).map(String::as_str).collect();
            format!("{WORK_MARK}changed {}: {}", file_name(file), shown.join(", "))
        }));
        lines
    }

    fn defined(&mut self, file: String, names: Vec<String>) {
        match self.defined.iter_mut().find(|(known, _)| *known == file) {
            Some((_, known)) => {
                for name in names {
                    if !known.contains(&name) {
                        known.push(name);
                    }
                }
            }
            None => self.defined.push((file, names)),
        }
    }

    /// A brief read again (the same title) is kept once, as last read; an
    /// exchange keeps the latest few.
    fn brief(&mut self, brief: Vec<String>) {
        self.briefs.retain(|known| known.first() != brief.first());
        self.briefs.push(brief);
        if self.briefs.len() > BRIEFS_PER_EXCHANGE {
            self.briefs.remove(0);
        }
    }

    fn step(&mut self, step: String) {
        if !step.is_empty() && !self.steps.contains(&step) {
            self.steps.push(step);
        }
    }
}

/// The narrative of `messages` on top of the anchor's narrative: a header
/// saying why no model wrote it, the anchor's lines, then one line per
/// request with its work.
pub(crate) fn narrative(prior: Option<&str>, messages: &[Message], harness: &HarnessPatterns, why: &str) -> String {
    let mut lines = vec![header(why)];
    let carried = |line: &&str| line.starts_with("- ") || line.starts_with(WORK_MARK);
    if let Some(prior) = prior.map(str::trim).filter(|p| !p.is_empty()) {
        // A prepared summary merged with later lines: its prose, then its lines.
        let (prose, since) = split_merged(prior).unwrap_or((prior, ""));
        let prior_lines: Vec<&str> = prose.lines().chain(since.lines()).filter(carried).collect();
        if !since.is_empty() && !prose.trim().is_empty() {
            lines.push(format!(
                "- Before: {}",
                clipped(prose, PRIOR_PROSE_CHARS, Stretch::None)
            ));
            lines.extend(since.lines().filter(carried).map(str::to_owned));
        } else if prior_lines.is_empty() {
            lines.push(format!(
                "- Before: {}",
                clipped(prior, PRIOR_PROSE_CHARS, Stretch::None)
            ));
        } else {
            lines.extend(prior_lines.iter().map(|l| (*l).to_owned()));
        }
    }
    lines.extend(request_lines(messages, harness));
    lines.join("\n")
}

/// A sentence that gives a reason: with it, a step says why.
static REASON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:because|since|so that|instead|rather than|in order to|which means|otherwise|as a result)\b")
        .expect("a valid pattern")
});

/// What one of the agent's messages adds to the work: the first sentence
/// that says something, with the first after it that gives a reason (a
/// decision and its why), unless it only announces what it will look at
/// next.
fn step_of(text: &str) -> Option<String> {
    let said = conclusion(text, STEP_CHARS)?;
    if is_announcement(&said) && !REASON.is_match(&said) {
        return None;
    }
    let all = sentences(text);
    let reason = all
        .iter()
        .skip_while(|sentence| **sentence != said)
        .skip(1)
        .find(|next| REASON.is_match(next) && next.chars().count() <= STEP_CHARS)
        .filter(|_| !REASON.is_match(&said));
    Some(match reason {
        Some(reason) => format!("{said} {reason}"),
        None => said,
    })
}

/// How many of the issues an exchange read are said under it.
const BRIEFS_PER_EXCHANGE: usize = 8;

/// How many more sentences of the agent's last words in an exchange are kept…
const REPORT_SENTENCES: usize = 8;
/// …and of a plan it put to the user.
const PLAN_SENTENCES: usize = 12;

/// The plan a call puts to the user for approval (Claude Code's `ExitPlanMode`).
fn plan_put(tool: &str, arguments: &str) -> Option<String> {
    let name = tool_name(tool).to_ascii_lowercase();
    if name != "exitplanmode" && name != "exit_plan_mode" {
        return None;
    }
    let parsed: serde_json::Value = serde_json::from_str(arguments).ok()?;
    parsed.get("plan")?.as_str().map(str::to_owned)
}

/// The agent's last words past their conclusion: the sentences that say
/// something (not filler, a heading, a lead-in or "let me…"), whole.
fn report_lines(report: &str, concluded: Option<&str>) -> Vec<String> {
    statements(report)
        .into_iter()
        .filter(|sentence| {
            // A heading or a label ("The Problem", "**What we have:**") says nothing alone.
            let says = sentence.split_whitespace().count() >= 4 || sentence.trim_end().ends_with(['.', '!', '?']);
            says && !is_filler(sentence)
                && !sentence.trim_end().trim_end_matches('*').ends_with(':')
                && !is_announcement(sentence)
                && concluded.is_none_or(|c| !c.starts_with(sentence.as_str()))
        })
        .filter_map(|sentence| conclusion(&sentence, STEP_CHARS))
        .take(REPORT_SENTENCES)
        .collect()
}

/// A sentence that is a link and nothing else (a pasted table of contents).
static LINK_ALONE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A\[[^\]]*\]\([^)]*\)[.,;:]?\z").expect("a valid pattern"));

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
        if line.contains(&sentence) || is_acknowledgement(&sentence) || LINK_ALONE.is_match(&sentence) {
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

/// One line per user request in `messages`, with its conclusion and the
/// files it changed, each followed by its work (a delta that opens mid-run
/// starts with a `(continuing)` line).
pub(crate) fn request_lines(messages: &[Message], harness: &HarnessPatterns) -> Vec<String> {
    let mut lines = Vec::new();
    let mut exchange = Exchange::default();
    let read = read_users(messages, harness);
    let mut done = actions(messages).into_iter();
    for (message, user) in messages.iter().zip(&read) {
        match user {
            Some(UserMessage::Request(words)) => {
                lines.extend(exchange.lines());
                let line = clipped(words, REQUEST_CHARS, Stretch::None);
                exchange = Exchange {
                    asked: rest_of_request(words, &line),
                    request: Some(line),
                    ..Exchange::default()
                };
                continue;
            }
            Some(UserMessage::Answer(words)) => {
                exchange
                    .then
                    .push(format!("answered: {}", clipped(words, 80, Stretch::None)));
                continue;
            }
            Some(UserMessage::Command(command)) => {
                exchange.then.push(format!("ran {command}"));
                continue;
            }
            _ => {}
        }
        if message.role != Role::Assistant {
            continue;
        }
        if let Some(said) = step_of(&message.content) {
            exchange.outcome = Some(said.clone());
            exchange.step(said);
            exchange.report = Some(message.content.clone());
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
            let target = action.target.replace('`', "'");
            match action.outcome {
                Outcome::Ok(Some(line)) => exchange.step(format!("`{target}` → {line}")),
                Outcome::Failed(line) => exchange.step(format!("`{target}` failed: {line}")),
                _ => {}
            }
        }
        for file in files_changed(message) {
            if !exchange.files.contains(&file) {
                exchange.files.push(file);
            }
        }
    }
    lines.extend(exchange.lines());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::ToolCall;

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
             - Add a health check. → Added /healthz and a test. (files: health.rs)\n\
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
        let anchor = crate::summary::write::narrative::merged(
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
    fn long_requests_and_conclusions_are_cut_at_sentence_boundaries() {
        let request = format!(
            "Bump the client to v0.1.1 and refresh the plan template. {}",
            "Also more. ".repeat(40)
        );
        let answer = "Perfect! The retry backoff in src/billing/retry.rs is now 774ms. It was 10ms.";
        let text = narrative(None, &turn(&request, answer, None), &HarnessPatterns::default(), "x");
        let line = text.lines().nth(1).unwrap();
        assert!(
            line.starts_with("- Bump the client to v0.1.1 and refresh the plan template."),
            "{line}"
        );
        assert!(
            line.ends_with(" → The retry backoff in src/billing/retry.rs is now 774ms."),
            "the conclusion is the first sentence that says something, whole: {line}"
        );
        assert!(line.chars().count() <= REQUEST_CHARS + STEP_CHARS + 10, "{line}");
    }

    #[test]
    fn acknowledgements_and_commands_follow_the_request_they_answer() {
        let mut messages = turn("Refactor the retry loop.", "Shall I also rename it?", None);
        messages.push(Message::new(Role::User, "yes"));
        messages.push(Message::new(Role::User, "<command-name>/review</command-name>"));
        messages.push(Message::new(
            Role::User,
            "# Review\nReview the diff. Never approve your own work.",
        ));
        messages.push(Message::new(
            Role::Assistant,
            "Renamed it to backoff_loop and reviewed the diff.",
        ));
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Refactor the retry loop. [then answered: yes; ran /review] → Renamed it to backoff_loop and reviewed the diff.",
                "  · Shall I also rename it?"
            ]
        );
    }

    #[test]
    fn the_work_between_a_request_and_its_conclusion_is_kept_step_by_step() {
        let call = |id: &str, command: &str| Message {
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "Bash".into(),
                arguments: serde_json::json!({ "command": command }).to_string(),
            }],
            ..Message::new(Role::Assistant, "")
        };
        let result = |id: &str, text: &str| Message {
            tool_call_id: Some(id.into()),
            ..Message::new(Role::Tool, text)
        };
        let messages = vec![
            Message::new(Role::User, "Implement spotter-gqc."),
            Message::new(Role::Assistant, "Let me look."),
            Message::new(
                Role::Assistant,
                "The generated migration uses ALTER TABLE, which SQLite does not support. I'll rewrite it as a table copy, since SQLite cannot alter a column. Then the rest.",
            ),
            call("1", "mix test"),
            result("1", "Exit code 2\n** (CompileError) lib/a.ex:3: undefined function x/0"),
            call("2", "git commit -m 'gqc.1'"),
            result("2", "[spotter-gqc 99b497c] gqc.1\n 3 files changed"),
            Message::new(Role::Assistant, "All green. Closed gqc.1 and moved on to gqc.2."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Implement spotter-gqc. → Closed gqc.1 and moved on to gqc.2.",
                "  · The generated migration uses ALTER TABLE, which SQLite does not support. I'll rewrite it as a table copy, since SQLite cannot alter a column.",
                "  · `mix test` failed: ** (CompileError) lib/a.ex:3: undefined function x/0",
                "  · `git commit -m 'gqc.1'` → [spotter-gqc 99b497c] gqc.1",
            ]
        );
    }

    #[test]
    fn what_an_edit_defined_is_said_under_its_request() {
        let messages = vec![
            Message::new(Role::User, "Add a close action to annotations."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "e".into(),
                    name: "Edit".into(),
                    arguments: serde_json::json!({"file_path": "lib/annotation.ex", "old_string": "a", "new_string": "  update :close do\n  attribute :state, :atom\n  def close(a), do: a"}).to_string(),
                }],
                ..Message::new(Role::Assistant, "Adding the state attribute.")
            },
            Message::new(Role::Assistant, "Added the close action."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(
            text.ends_with("  · changed annotation.ex: attribute :state, def close(a)"),
            "{text}"
        );
    }

    #[test]
    fn the_plan_put_to_the_user_is_kept_under_its_request() {
        let plan = "# Plan: initial attribution\n\n## Goal\n\nCalculate line-level attribution at commit time by diffing the checkpoint tree against HEAD.\n\n```json\n{\"agent_lines\": 142}\n```\n\n## Files\n- `checkpoint.go`: add the InitialAttribution struct to CommittedMetadata.";
        let messages = vec![
            Message::new(Role::User, "Plan the attribution."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "p".into(),
                    name: "ExitPlanMode".into(),
                    arguments: serde_json::json!({ "plan": plan }).to_string(),
                }],
                ..Message::new(Role::Assistant, "Here is the plan.")
            },
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(2).collect::<Vec<_>>(),
            [
                "  · plan: Calculate line-level attribution at commit time by diffing the checkpoint tree against HEAD.",
                "  · plan: `checkpoint.go`: add the InitialAttribution struct to CommittedMetadata.",
            ],
            "headings and code say nothing alone: {text}"
        );
    }

    #[test]
    fn the_rest_of_a_request_is_quoted_under_it_without_what_was_pasted() {
        let request = "let's add a few things to the implementation:\n\n - make sure to add an AGENTS.md file with all the engineering decisions we have made and the constraints we have defined\n - make sure to add debugging logs that can be turned off and on with an env var\n - Postgres\n\n```\nnever paste this\n```\n[Tech Stack](#8-tech-stack)";
        let text = narrative(
            None,
            &turn(request, "Added both to the plan.", None),
            &HarnessPatterns::default(),
            "x",
        );
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- let's add a few things to the implementation: make sure to add an AGENTS.md file with all the engineering decisions we have made and the constraints we have defined → Added both to the plan.",
                "  · asked: make sure to add debugging logs that can be turned off and on with an env var",
                "  · asked: Postgres",
            ]
        );
    }

    #[test]
    fn an_issue_the_agent_read_is_said_under_its_request() {
        let messages = vec![
            Message::new(Role::User, "Work on bead spotter-fum."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "b".into(),
                    name: "Bash".into(),
                    arguments: serde_json::json!({"command": "bd show spotter-fum"}).to_string(),
                }],
                ..Message::new(Role::Assistant, "")
            },
            Message {
                tool_call_id: Some("b".into()),
                ..Message::new(
                    Role::Tool,
                    "○ spotter-fum [EPIC] · Improve transcript readability\n\n## No-gos\n- No database schema migration.\n- No scope expansion to `PaneViewLive`.\n",
                )
            },
            Message::new(Role::Assistant, "Started on spotter-fum.1."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Work on bead spotter-fum. → Started on spotter-fum.1.",
                "  · read spotter-fum [EPIC] · Improve transcript readability — No-gos: No database schema migration; No scope expansion to `PaneViewLive`",
            ]
        );
    }

    #[test]
    fn a_long_transcripts_summary_is_a_tenth_and_a_short_ones_takes_the_budget() {
        assert_eq!(max_tokens(20_000, 4_000), 2_000);
        assert_eq!(max_tokens(250_000, 4_000), 4_000);
        assert_eq!(max_tokens(3_000, 4_000), 4_000, "items fit beside a shorter narrative");
        assert_eq!(max_tokens(100, 1_500), 1_500);
    }
}
