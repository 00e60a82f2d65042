//! Where things stand at the cut (SPEC §4): built from the transcript, never
//! from a model's text, so every summary carries it the same way — what the
//! user last asked (and what they did after: ran a command, answered
//! "Great!"), what the agent was doing and its own task list, its last
//! actions and what came of them, the question it is waiting on, and the
//! error nobody has set right.

use super::checks::checks_line;
use super::commits::commits_line;
use super::open_ends::{unanswered, unverified};
use super::outcome::{Action, Outcome, unresolved};
use super::relied::relied_on;
use super::request::UserMessage;
use super::sentences::{leading, one_line, sentences};
use super::tasks::{is_task_tool, task_list};
use super::values::changed_values;
use crate::domain::transcript::{Message, Role};

/// The pinned heading of the section.
pub const STATE_HEADING: &str = "Where things stand:";

/// How much of the agent's last message says what it was doing.
pub(crate) const IN_PROGRESS_CHARS: usize = 600;
/// How many of the last tool calls are shown.
pub(crate) const LAST_ACTIONS: usize = 3;
/// How many of what the user did after the request are shown.
const AFTER_REQUEST: usize = 3;
/// How much of the agent's open question is shown.
const QUESTION_CHARS: usize = 400;
/// An answer quoted after the request is at most this long.
const ANSWER_CHARS: usize = 80;

/// The state at the cut, line by line (the request itself is the keep
/// set's tier-1 item; this says what came after it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateAtCut {
    /// After the latest request: "ran /handoff", "answered: Great!".
    pub then: Vec<String>,
    pub in_progress: Option<String>,
    /// The agent's own task list (Claude Code's `TodoWrite`, Codex's `update_plan`).
    pub task_list: Option<String>,
    /// Values the conversation changed: `budget $60 (earlier $75)`.
    pub changed_values: Vec<String>,
    pub last_actions: Vec<String>,
    /// The last test, build and lint runs, and what changed after them.
    pub checks: Option<String>,
    /// The commits made, how far they were pushed, and what changed since.
    pub commits: Option<String>,
    pub waiting_on_user: Option<String>,
    /// Questions the agent ended a turn on that the user went past.
    pub unanswered: Vec<String>,
    /// Requests whose changes no passing check has run over since.
    pub unverified: Vec<String>,
    pub unresolved_error: Option<String>,
    /// Lines of tool output a later message of the agent's used a value of,
    /// with the call that showed each.
    pub relied_on: Vec<String>,
}

/// The label of a line that keeps a value the agent used from tool output:
/// the extractive summary's, since a model read that output itself.
pub(crate) const FROM_TOOL_OUTPUT: &str = "- From tool output: ";

impl StateAtCut {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The section's lines after the request's, in the order they give way
    /// when the section is over its share (last first).
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.then.is_empty() {
            lines.push(format!("- Then: {}", self.then.join("; ")));
        }
        if let Some(doing) = &self.in_progress {
            lines.push(format!("- In progress: {doing}"));
        }
        if !self.changed_values.is_empty() {
            lines.push(format!("- Values now: {}", self.changed_values.join("; ")));
        }
        if let Some(tasks) = &self.task_list {
            lines.push(format!("- Task list: {tasks}"));
        }
        if let Some(question) = &self.waiting_on_user {
            lines.push(format!("- Waiting on the user: {question}"));
        }
        if !self.unanswered.is_empty() {
            lines.push(format!("- Asked, not answered: {}", self.unanswered.join("; ")));
        }
        if !self.last_actions.is_empty() {
            lines.push(format!("- Last actions: {}", self.last_actions.join("; ")));
        }
        if let Some(checks) = &self.checks {
            lines.push(format!("- Checks: {checks}"));
        }
        if !self.unverified.is_empty() {
            lines.push(format!("- Not yet verified: {}", self.unverified.join("; ")));
        }
        if let Some(commits) = &self.commits {
            lines.push(format!("- Commits: {commits}"));
        }
        if let Some(error) = &self.unresolved_error {
            lines.push(format!("- Unresolved error: {error}"));
        }
        for line in &self.relied_on {
            lines.push(format!("{FROM_TOOL_OUTPUT}{line}"));
        }
        lines
    }
}

/// What the agent was doing: its last words' first sentences, and, when
/// calls came with or after them, that the user has heard nothing since.
fn in_progress(messages: &[Message], last_said: Option<usize>, last_words: Option<&str>) -> Option<String> {
    // Calls made with or after its last words: those words are not the
    // latest news, and the user has not heard what came of them.
    // Keeping the task list is not work the user waits to hear of.
    let calls_since: usize = last_said.map_or(0, |at| {
        messages[at..]
            .iter()
            .flat_map(|m| &m.tool_calls)
            .filter(|call| !is_task_tool(&call.name))
            .count()
    });
    last_words
        .and_then(|text| leading(text, IN_PROGRESS_CHARS))
        .map(|doing| match calls_since {
            0 => doing,
            1 => format!("{doing} (then 1 tool call; nothing said to the user since)"),
            n => format!("{doing} (then {n} tool calls; nothing said to the user since)"),
        })
}

/// The question a message ends on: its last sentences that ask.
fn open_question(text: &str) -> Option<String> {
    let all = sentences(text);
    let asking: Vec<&String> = all.iter().rev().take_while(|s| s.trim_end().ends_with('?')).collect();
    if asking.is_empty() {
        return None;
    }
    let question: Vec<&str> = asking.iter().rev().map(|s| s.as_str()).collect();
    Some(one_line(&question.join(" "), QUESTION_CHARS))
}

/// Where things stand at the end of `messages` (the delta a compaction
/// summarizes), from what each of them is as the user's (`read`), the files
/// each changed (`changed`) and what came of every tool call
/// (`all_actions`): see [`super::reading::Reading`].
pub(super) fn state_at_cut(
    messages: &[Message],
    read: &[Option<UserMessage>],
    changed: &[Vec<String>],
    all_actions: &[Action],
) -> StateAtCut {
    let last_user_words = read.iter().rposition(|user| {
        matches!(
            user,
            Some(UserMessage::Request(_) | UserMessage::Repeat(_) | UserMessage::Answer(_) | UserMessage::Command(_))
        )
    });
    let then = after_the_request(read);
    let last_said = messages
        .iter()
        .rposition(|message| message.role == Role::Assistant && !message.content.trim().is_empty());
    // The agent's last words count only if they came after the user's.
    let agent_spoke_last = match (last_said, last_user_words) {
        (Some(said), Some(user)) => said > user,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let last_words = last_said
        .filter(|_| agent_spoke_last)
        .map(|at| messages[at].content.as_str());
    let in_progress = in_progress(messages, last_said, last_words);
    let waiting_on_user = waiting_on_user(messages, read, last_said, agent_spoke_last);
    // Keeping the task list is not an action on the work: it has its own line.
    let shown: Vec<&Action> = all_actions
        .iter()
        .rev()
        .filter(|action| !is_task_tool(&action.tool))
        .take(LAST_ACTIONS)
        .collect();
    let last_actions: Vec<String> = shown.iter().rev().map(|action| action.render()).collect();
    let unresolved_error = unresolved_error(all_actions, &shown, last_user_words);
    // What the user and the agent said, for the values they changed.
    let said = messages
        .iter()
        .zip(read)
        .filter_map(|(message, user)| match (message.role, user) {
            (Role::Assistant, _) => Some(message.content.as_str()),
            (_, Some(UserMessage::Request(words) | UserMessage::Answer(words))) => Some(words.as_str()),
            _ => None,
        });
    let checks = checks_line(messages, changed, all_actions, &shown);
    let commits = commits_line(messages, changed, all_actions);
    let elsewhere: Vec<&str> = last_actions
        .iter()
        .map(String::as_str)
        .chain(checks.as_deref())
        .chain(commits.as_deref())
        .collect();
    let relied_on = relied_on(messages, all_actions, &elsewhere);
    StateAtCut {
        then,
        in_progress,
        task_list: task_list(messages),
        changed_values: changed_values(said),
        last_actions,
        checks,
        commits,
        waiting_on_user,
        unanswered: unanswered(messages, read),
        unverified: unverified(messages, read, changed, all_actions),
        unresolved_error,
        relied_on,
    }
}

/// What the user did after their latest request (ran a command, answered),
/// the last [`AFTER_REQUEST`] of it.
fn after_the_request(read: &[Option<UserMessage>]) -> Vec<String> {
    let last_request = read
        .iter()
        .rposition(|user| matches!(user, Some(UserMessage::Request(_) | UserMessage::Repeat(_))));
    let after = last_request.map_or(0, |at| at + 1);
    let then: Vec<String> = read[after..]
        .iter()
        .filter_map(|user| match user {
            Some(UserMessage::Command(command)) => Some(format!("ran {command}")),
            Some(UserMessage::Answer(words)) => Some(format!("answered: {}", one_line(words, ANSWER_CHARS))),
            _ => None,
        })
        .collect();
    then[then.len().saturating_sub(AFTER_REQUEST)..].to_vec()
}

/// The question the agent's last words (`last_said`) end on, if it is
/// open: the agent stopped on it, with no call of its own, no answer,
/// nothing but harness text after it.
fn waiting_on_user(
    messages: &[Message],
    read: &[Option<UserMessage>],
    last_said: Option<usize>,
    agent_spoke_last: bool,
) -> Option<String> {
    last_said
        .filter(|said| {
            agent_spoke_last
                && messages[*said].tool_calls.is_empty()
                && messages[said + 1..].iter().zip(&read[said + 1..]).all(|(m, user)| {
                    m.role != Role::Tool && m.tool_calls.is_empty() && matches!(user, None | Some(UserMessage::Harness))
                })
        })
        .and_then(|said| open_question(&messages[said].content))
}

/// The failure that stands, unless it is among the last actions `shown`.
fn unresolved_error(all_actions: &[Action], shown: &[&Action], last_user_words: Option<usize>) -> Option<String> {
    // What failed before the user last spoke was theirs to see; the error
    // that stands is one from the run since.
    let since_user = all_actions
        .iter()
        .position(|action| last_user_words.is_none_or(|at| action.message > at))
        .unwrap_or(all_actions.len());
    unresolved(&all_actions[since_user..])
        .filter(|failure| !shown.iter().any(|action| std::ptr::eq(*action, *failure)))
        .map(|failure| match &failure.outcome {
            Outcome::Failed(line) => format!("{} `{}` failed: {line}", failure.tool, failure.target.replace('`', "'")),
            _ => failure.render(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};
    use crate::summary::read::harness::HarnessPatterns;
    use crate::summary::read::reading::Reading;

    fn state_at_cut(messages: &[Message], harness: &HarnessPatterns) -> StateAtCut {
        Reading::of(messages, harness, messages.len()).state
    }

    #[test]
    fn an_acknowledgement_and_a_command_come_after_the_request() {
        let messages = [
            Message::new(Role::User, "Release v0.1.1 and refresh the plan template."),
            Message::new(Role::Assistant, "Released. Shall I write the handoff?"),
            Message::new(Role::User, "Great!"),
            Message::new(Role::User, "<command-name>/handoff</command-name>"),
            Message::new(Role::User, "# Session Handoff\nWrite the handoff note."),
        ];
        let state = state_at_cut(&messages, &HarnessPatterns::default());
        assert_eq!(state.then, ["answered: Great!", "ran /handoff"]);
        assert_eq!(state.in_progress, None, "the user spoke last");
        assert_eq!(state.waiting_on_user, None, "the question was answered");
    }

    #[test]
    fn the_agents_last_message_its_actions_and_its_question() {
        let messages = [
            Message::new(Role::User, "Fix the retry test."),
            Message {
                content: "Perfect! Running the retry test first.".into(),
                ..call("1", "Bash", r#"{"command":"cargo test retry"}"#)
            },
            result(
                "1",
                "Exit code 101\nthread 'retry' panicked at src/retry.rs:40: backoff too short",
            ),
            call("2", "Read", r#"{"file_path":"src/retry.rs"}"#),
            result("2", "fn backoff() {}"),
            Message::new(
                Role::Assistant,
                "The backoff is 10ms where the test expects 774ms. Should I raise the default to 774ms or change the test?",
            ),
        ];
        let state = state_at_cut(&messages, &HarnessPatterns::default());
        assert_eq!(
            state.in_progress.as_deref(),
            Some(
                "The backoff is 10ms where the test expects 774ms. Should I raise the default to 774ms or change the test?"
            )
        );
        assert_eq!(
            state.waiting_on_user.as_deref(),
            Some("Should I raise the default to 774ms or change the test?")
        );
        assert_eq!(
            state.last_actions,
            [
                "Bash `cargo test retry` → failed: thread 'retry' panicked at src/retry.rs:40: backoff too short",
                "Read `src/retry.rs` → ok"
            ]
        );
        assert_eq!(state.unresolved_error, None, "already among the last actions");
    }

    #[test]
    fn a_failure_from_before_the_users_latest_words_is_not_left_unresolved() {
        let messages = vec![
            Message::new(Role::User, "List the docs."),
            call("1", "Bash", r#"{"command":"ls docs/ui"}"#),
            result("1", "ls: docs/ui: No such file or directory"),
            Message::new(Role::User, "Write the README instead."),
            call("2", "Read", r#"{"file_path":"a.md"}"#),
            result("2", "a"),
            call("3", "Read", r#"{"file_path":"b.md"}"#),
            result("3", "b"),
            call("4", "Read", r#"{"file_path":"c.md"}"#),
            result("4", "c"),
        ];
        assert_eq!(
            state_at_cut(&messages, &HarnessPatterns::default()).unresolved_error,
            None
        );
    }

    #[test]
    fn words_followed_by_more_calls_say_so() {
        let messages = vec![
            Message::new(Role::User, "Add the field."),
            Message::new(Role::Assistant, "Now add the field to CommittedMetadata."),
            call("1", "Edit", r#"{"file_path":"a.go","old_string":"a","new_string":"b"}"#),
            result("1", "ok"),
            call("2", "Write", r#"{"file_path":"a_test.go","content":"x"}"#),
            result("2", "ok"),
        ];
        assert_eq!(
            state_at_cut(&messages, &HarnessPatterns::default())
                .in_progress
                .as_deref(),
            Some("Now add the field to CommittedMetadata. (then 2 tool calls; nothing said to the user since)")
        );
        let announced_with_its_call = vec![
            Message::new(Role::User, "Write the prompt."),
            Message {
                tool_calls: vec![crate::domain::transcript::ToolCall {
                    id: "1".into(),
                    name: "Write".into(),
                    arguments: r#"{"file_path":"PROMPT.md","content":"x"}"#.into(),
                }],
                ..Message::new(Role::Assistant, "Let me write the prompt.")
            },
            result("1", "File created successfully"),
        ];
        assert_eq!(
            state_at_cut(&announced_with_its_call, &HarnessPatterns::default())
                .in_progress
                .as_deref(),
            Some("Let me write the prompt. (then 1 tool call; nothing said to the user since)")
        );
        let reported_with_its_task_list = vec![
            Message::new(Role::User, "Fix it."),
            Message {
                tool_calls: vec![crate::domain::transcript::ToolCall {
                    id: "1".into(),
                    name: "TodoWrite".into(),
                    arguments: r#"{"todos":[]}"#.into(),
                }],
                ..Message::new(Role::Assistant, "All 41 tests pass.")
            },
            result("1", "Todos have been modified successfully"),
        ];
        assert_eq!(
            state_at_cut(&reported_with_its_task_list, &HarnessPatterns::default())
                .in_progress
                .as_deref(),
            Some("All 41 tests pass.")
        );
    }

    #[test]
    fn an_older_failure_nobody_set_right_is_the_unresolved_error() {
        let mut messages = vec![
            Message::new(Role::User, "Deploy it."),
            call("1", "Bash", r#"{"command":"npm run build"}"#),
            result("1", "npm ERR! missing script: build"),
        ];
        for n in 2..6 {
            messages.push(call(
                &n.to_string(),
                "Read",
                &format!(r#"{{"file_path":"docs/{n}.md"}}"#),
            ));
            messages.push(result(&n.to_string(), "text"));
        }
        let state = state_at_cut(&messages, &HarnessPatterns::default());
        assert_eq!(
            state.unresolved_error.as_deref(),
            Some("Bash `npm run build` failed: npm ERR! missing script: build")
        );
        assert_eq!(state.last_actions.len(), LAST_ACTIONS);
        assert_eq!(state.waiting_on_user, None);
    }
}
