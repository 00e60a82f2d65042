//! One pass over a transcript (issue 40): what each message is to the
//! agent, the files it changed, what came of every tool call, and where
//! things stand at the cut.
//! A compaction reads its delta once into a [`Reading`], and the state at
//! the cut, the extractive writer and the keep set all take what they need
//! from it instead of reading the same messages again.

use super::files::{calls_named, changed_by_calls};
use super::harness::{HarnessPatterns, UserText, rejection_words};
use super::outcome::{Action, actions};
use super::request::{UserMessage, UserReader};
use super::state::{StateAtCut, state_at_cut};
use super::tool_calls::Named;
use crate::domain::transcript::{Message, Role};
use crate::summary::kinds::KeepKind;

/// What a transcript's messages up to the cut say, message by message and
/// as a whole. Each per-message list holds one entry for every message read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Reading {
    /// A user-role message's words taken apart from the harness's (`None`:
    /// the message is not user-role).
    pub(crate) split: Vec<Option<UserText>>,
    /// What each message is as the user's: a request, an answer, a command
    /// (`None`: neither the user's nor a refused call's reason).
    pub(crate) users: Vec<Option<UserMessage>>,
    /// What each of each message's tool calls names (an assistant message's:
    /// none for another role's).
    pub(crate) calls: Vec<Vec<Named>>,
    /// The files each message's tool calls changed.
    pub(crate) changed: Vec<Vec<String>>,
    /// Every tool call, in order, with what came of it.
    pub(crate) actions: Vec<Action>,
    /// Where things stand at the cut.
    pub(crate) state: StateAtCut,
}

impl Reading {
    /// The reading of `messages[..cut]` (the delta a compaction summarizes:
    /// the messages after the cut stay verbatim and are read next time).
    pub(crate) fn of(messages: &[Message], harness: &HarnessPatterns, cut: usize) -> Self {
        let messages = &messages[..cut.min(messages.len())];
        let mut reading = Self::of_messages(messages, harness);
        reading.state = state_at_cut(messages, &reading.users, &reading.changed, &reading.actions);
        reading
    }

    /// The reading of every message, message by message, with no state at
    /// the cut (left at its default): for a merge's tail after a prepared
    /// summary, whose lines need what each message is and nothing of where
    /// things stand.
    pub(crate) fn of_messages(messages: &[Message], harness: &HarnessPatterns) -> Self {
        let split: Vec<Option<UserText>> = messages
            .iter()
            .map(|message| (message.role == Role::User).then(|| harness.split(&message.content)))
            .collect();
        let users = users_of(messages, &split);
        let actions = actions(messages);
        let mut calls: Vec<Vec<Named>> = messages.iter().map(calls_named).collect();
        // A refused edit, or one that failed, changed no file (issue 41):
        // the paths it named stay, as paths.
        for action in actions.iter().filter(|action| action.wrote_nothing()) {
            if let Some(named) = calls
                .get_mut(action.message)
                .and_then(|named| named.get_mut(action.call))
            {
                for (kind, _) in named
                    .items
                    .iter_mut()
                    .filter(|(kind, _)| *kind == KeepKind::FileChanged)
                {
                    *kind = KeepKind::Path;
                }
                named.moves.clear();
            }
        }
        let changed: Vec<Vec<String>> = calls.iter().map(|named| changed_by_calls(named)).collect();
        Self {
            split,
            users,
            calls,
            changed,
            actions,
            state: StateAtCut::default(),
        }
    }
}

/// What each message is as the user's, read in order (`None` for what is
/// neither a user-role message nor a refused call's reason). A user message
/// right after a command, with nothing between (no answer, no output of the
/// command's own), is that command's expanded template.
fn users_of(messages: &[Message], split: &[Option<UserText>]) -> Vec<Option<UserMessage>> {
    let mut reader = UserReader::default();
    messages
        .iter()
        .zip(split)
        .map(|(message, split)| {
            let words = match split {
                Some(split) => Some(split.words.as_str()),
                None => (message.role == Role::Tool)
                    .then(|| rejection_words(&message.content))
                    .flatten(),
            };
            reader.read(message, words)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};

    const REFUSED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

    #[test]
    fn a_refused_edit_changed_no_file_and_a_refused_test_run_is_never_ok() {
        let messages = [
            Message::new(Role::User, "Make the retry back off exponentially."),
            call(
                "1",
                "Edit",
                r#"{"file_path":"src/retry.rs","old_string":"a","new_string":"b"}"#,
            ),
            result("1", "The file src/retry.rs has been updated."),
            call(
                "2",
                "Edit",
                r#"{"file_path":"src/backoff.rs","old_string":"a","new_string":"b"}"#,
            ),
            result("2", REFUSED),
            call("3", "Bash", r#"{"command":"cargo test --workspace"}"#),
            result("3", REFUSED),
        ];

        let reading = Reading::of(&messages, &HarnessPatterns::default(), messages.len());

        let changed: Vec<&String> = reading.changed.iter().flatten().collect();
        assert_eq!(changed, ["src/retry.rs"], "the refused edit wrote nothing");
        assert!(
            reading.calls[3][0]
                .items
                .contains(&(KeepKind::Path, "src/backoff.rs".to_owned())),
            "its path is still named: {:?}",
            reading.calls[3]
        );
        let lines = reading.state.lines().join("\n");
        assert!(
            lines.contains("Bash `cargo test --workspace` → refused by the user, never ran"),
            "{lines}"
        );
        assert!(
            lines.contains("Edit `src/backoff.rs` → refused by the user, never ran"),
            "{lines}"
        );
        assert!(!lines.contains("workspace` → ok"), "{lines}");
    }
}
