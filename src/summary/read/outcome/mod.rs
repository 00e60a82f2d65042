//! What came of the agent's tool calls (SPEC §4, *Where things stand*):
//! each call paired with its result, whether it failed (and its first error
//! line), and what a successful one said that an agent carries on from (a
//! commit's hash, a test run's tally). What a result says is read in
//! [`results`]; what a call acted on, in [`target`].

mod results;
mod target;

use results::{is_interruption, outcome_of};
use target::target_of;

use super::commands::only_searches;
use super::tool_calls::tool_name;
use crate::domain::transcript::{Message, Role};

pub(crate) use results::{LINE_CHARS, Outcome, is_labelled_script};

/// One tool call and what came of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Action {
    pub tool: String,
    /// What it acted on, as shown: a command, a path, a URL.
    pub target: String,
    /// The command line the call ran, whole (a shell tool's), for what
    /// reads a command rather than shows it: which check, which commit.
    pub command: Option<String>,
    /// What a later call must act on to set a failure of this one right:
    /// the same command, or the same file.
    pub subject: String,
    pub outcome: Outcome,
    /// The index of the message that made the call, and of the call among
    /// its calls…
    pub message: usize,
    pub call: usize,
    /// …and of the one that answered it.
    pub result: Option<usize>,
}

impl Action {
    /// `Bash `cargo test` → failed: error[E0382]: …`.
    pub(crate) fn render(&self) -> String {
        let target = if self.target.is_empty() {
            String::new()
        } else {
            format!(" `{}`", self.target.replace('`', "'"))
        };
        let outcome = match &self.outcome {
            Outcome::Ok(None) => "ok".to_owned(),
            Outcome::Ok(Some(line)) => format!("ok: {line}"),
            Outcome::Failed(line) => format!("failed: {line}"),
            Outcome::Refused(_) | Outcome::Interrupted => self.outcome.refusal(),
            Outcome::Pending => "no result yet".to_owned(),
        };
        format!("{}{target} → {outcome}", self.tool)
    }
}

/// What a search that printed nothing found.
pub(crate) const FOUND_NOTHING: &str = "found nothing";

/// Whether a shell call printed nothing: no text, a harness's note that
/// there was none (Claude Code's "(Bash completed with no output)"), or
/// only the exit code a search gives when nothing matched.
fn printed_nothing(result: &str) -> bool {
    let result = result.trim();
    result.is_empty()
        || result.eq_ignore_ascii_case("exit code 1")
        || result
            .trim_matches(['(', ')'])
            .to_ascii_lowercase()
            .ends_with("completed with no output")
        || result.eq_ignore_ascii_case("(no output)")
}

/// Every tool call in `messages`, in order, with what came of it (a result
/// is found by its call's id, else it is the next tool message).
pub(crate) fn actions(messages: &[Message]) -> Vec<Action> {
    let mut found: Vec<Action> = Vec::new();
    let mut open: Vec<(String, usize)> = Vec::new();
    for (at, message) in messages.iter().enumerate() {
        match message.role {
            Role::Assistant => {
                for (index, call) in message.tool_calls.iter().enumerate() {
                    let (target, subject, command) = target_of(&call.arguments);
                    open.push((call.id.clone(), found.len()));
                    found.push(Action {
                        tool: tool_name(&call.name).to_owned(),
                        target,
                        command,
                        subject,
                        outcome: Outcome::Pending,
                        message: at,
                        call: index,
                        result: None,
                    });
                }
            }
            Role::Tool => {
                let answered = match &message.tool_call_id {
                    Some(id) => open.iter().position(|(call, _)| call == id),
                    None => (!open.is_empty()).then_some(0),
                };
                if let Some(answered) = answered {
                    let (_, action) = open.remove(answered);
                    let searched = found[action].command.as_deref().is_some_and(only_searches);
                    found[action].outcome = match outcome_of(&message.content) {
                        // A search that printed nothing found nothing, which
                        // "ok" or "exit code 1" hides.
                        _ if searched && printed_nothing(&message.content) => {
                            Outcome::Ok(Some(FOUND_NOTHING.to_owned()))
                        }
                        // A commit or a tally in what a file read, a search or a
                        // page gave back is quoted, not something the call did.
                        Outcome::Ok(Some(_)) if found[action].command.is_none() => Outcome::Ok(None),
                        outcome => outcome,
                    };
                    found[action].result = Some(at);
                }
            }
            // Claude Code's "[Request interrupted by user for tool use]"
            // with no result for the call: the user stopped it.
            Role::User if is_interruption(&message.content) => {
                for (_, action) in open.drain(..) {
                    found[action].outcome = Outcome::Interrupted;
                }
            }
            _ => {}
        }
    }
    found
}

impl Action {
    /// Whether the call certainly left its files as they were: the user
    /// refused it, or a tool that writes files (not a shell, whose command
    /// may have done part of its work) failed or was stopped.
    pub(crate) fn wrote_nothing(&self) -> bool {
        matches!(self.outcome, Outcome::Refused(_)) || (self.command.is_none() && self.outcome.fell_through())
    }
}

/// The latest failure not set right since by a success on the same subject.
pub(crate) fn unresolved(actions: &[Action]) -> Option<&Action> {
    actions.iter().enumerate().rev().find_map(|(at, action)| {
        let failed = matches!(action.outcome, Outcome::Failed(_));
        let set_right = actions[at + 1..]
            .iter()
            .any(|later| later.subject == action.subject && matches!(later.outcome, Outcome::Ok(_)));
        (failed && !set_right).then_some(action)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};

    #[test]
    fn calls_pair_with_their_results_and_a_later_success_sets_a_failure_right() {
        let messages = [
            call("1", "Bash", r#"{"command":"cd /repo && cargo test 2>&1 | tail -5"}"#),
            result("1", "Exit code 101\nerror[E0599]: no method named `retry`"),
            call(
                "2",
                "Edit",
                r#"{"file_path":"src/retry.rs","old_string":"a","new_string":"b"}"#,
            ),
            result("2", "The file src/retry.rs has been updated."),
            call("3", "Bash", r#"{"command":"cargo test"}"#),
            result("3", "test result: ok. 12 passed; 0 failed"),
            call("4", "Bash", r#"{"command":"git push"}"#),
        ];
        let mut stopped = messages.to_vec();
        stopped.push(Message::new(Role::User, "[Request interrupted by user for tool use]"));
        assert_eq!(
            actions(&stopped)[3].render(),
            "Bash `git push` → interrupted by the user",
            "a call the user stopped before its result came"
        );
        let found = actions(&messages);
        assert_eq!(
            found.iter().map(Action::render).collect::<Vec<_>>(),
            [
                "Bash `cargo test` → failed: error[E0599]: no method named `retry`",
                "Edit `src/retry.rs` → ok",
                "Bash `cargo test` → ok: test result: ok. 12 passed; 0 failed",
                "Bash `git push` → no result yet",
            ]
        );
        assert_eq!(unresolved(&found), None, "the same command passed later");
        let pushed = [
            call("1", "Bash", r#"{"command":"git push"}"#),
            result("1", "fatal: The current branch x has no upstream branch."),
            call("2", "Bash", r#"{"command":"git push --set-upstream origin x"}"#),
            result("2", " * [new branch]      x -> x"),
        ];
        assert_eq!(unresolved(&actions(&pushed)), None, "pushing another way sets it right");
        assert_eq!(unresolved(&found[..2]).map(|a| a.subject.as_str()), Some("cargo test"));
    }

    #[test]
    fn a_search_that_printed_nothing_found_nothing() {
        let messages = [
            call(
                "1",
                "Bash",
                r#"{"command":"rg -n \"decision\" src/cli/import_cmds.py 2>/dev/null | head -20"}"#,
            ),
            result("1", "(Bash completed with no output)"),
            call(
                "2",
                "Bash",
                r#"{"command":"grep -rn 'CREATE TABLE decisions' src/db/"}"#,
            ),
            result("2", "Exit code 1"),
            call("3", "Bash", r#"{"command":"cargo fmt"}"#),
            result("3", "(Bash completed with no output)"),
            call("4", "Bash", r#"{"command":"rg -n decision src/"}"#),
            result("4", "src/core.py:12: def decision():"),
        ];
        assert_eq!(
            actions(&messages).iter().map(Action::render).collect::<Vec<_>>(),
            [
                "Bash `rg -n \"decision\" src/cli/import_cmds.py` → ok: found nothing",
                "Bash `grep -rn 'CREATE TABLE decisions' src/db/` → ok: found nothing",
                "Bash `cargo fmt` → ok",
                "Bash `rg -n decision src/` → ok",
            ]
        );
    }

    #[test]
    fn a_tally_or_commit_in_a_file_read_is_quoted_not_done() {
        let messages = [
            call("1", "Read", r#"{"file_path":"docs/retro.md"}"#),
            result(
                "1",
                "37 - `uv run pytest -q` — 2297 passed, 1 skipped\n38 - [main 2d6f7eb] chore: tidy",
            ),
        ];
        assert_eq!(actions(&messages)[0].render(), "Read `docs/retro.md` → ok");
    }
}
