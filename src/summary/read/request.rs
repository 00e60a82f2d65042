//! What a user-role message is to the agent (SPEC §4, *Where things stand*):
//! a substantive request, or only an acknowledgement or a pick from the
//! agent's menu ("Great!", "yes", "2", "Something else"), or a command the
//! user ran through the harness (Claude Code's `<command-name>/handoff`),
//! whose expanded template follows in a message of its own and is not the
//! user's request either.

use std::sync::LazyLock;

use regex::Regex;

use super::slash::{command_run, typed_slash_command};
use super::template::users_part;
use crate::domain::transcript::{Message, Role};

/// Words that make up an acknowledgement or a menu pick, in the languages
/// SPEC §4 names.
const ACKNOWLEDGING: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "yup",
    "ya",
    "y",
    "ok",
    "okay",
    "k",
    "kk",
    "sure",
    "great",
    "thanks",
    "thank",
    "you",
    "thx",
    "ty",
    "perfect",
    "cool",
    "nice",
    "good",
    "fine",
    "awesome",
    "excellent",
    "right",
    "alright",
    "correct",
    "exactly",
    "agreed",
    "lgtm",
    "sgtm",
    "go",
    "ahead",
    "do",
    "it",
    "that",
    "this",
    "continue",
    "proceed",
    "please",
    "pls",
    "sounds",
    "looks",
    "let's",
    "lets",
    "let",
    "us",
    "ship",
    "approve",
    "approved",
    "works",
    "one",
    "option",
    "first",
    "second",
    "third",
    "last",
    "both",
    "all",
    "none",
    "no",
    "nope",
    "n",
    "nah",
    "something",
    "else",
    "makes",
    "sense",
    "got",
    "done",
    "wow",
    "amazing",
    "love",
    "the",
    "a",
    "b",
    "c",
    "d",
    "so",
    "much",
    "very",
    "now",
    "on",
    "with",
    "and",
    "then",
    "keep",
    "going",
    "carry",
    "just",
    "again",
    "too",
    "well",
    "is",
    "as",
    // Russian, Chinese, Spanish, Portuguese, German, French, Japanese, Korean
    "да",
    "ок",
    "хорошо",
    "давай",
    "спасибо",
    "отлично",
    "продолжай",
    "好",
    "好的",
    "是",
    "对",
    "可以",
    "继续",
    "谢谢",
    "sí",
    "si",
    "vale",
    "claro",
    "gracias",
    "sim",
    "obrigado",
    "oui",
    "merci",
    "d'accord",
    "ja",
    "gut",
    "danke",
    "weiter",
    "はい",
    "お願いします",
    "네",
    "좋아",
    "계속",
];

/// The most words an acknowledgement has.
const ACKNOWLEDGEMENT_WORDS: usize = 6;

static MENU_PICK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\A\(?(?:\d{1,2}|[a-e]|option\s+\d{1,2}|#\d{1,2})[.):]?\z").expect("a valid pattern")
});
static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\p{L}\p{N}'’]+").expect("a valid pattern"));
/// Whether the user's words only acknowledge, agree or pick from a menu.
pub(crate) fn is_acknowledgement(words: &str) -> bool {
    let words = words.trim();
    if words.is_empty() || words.chars().count() > 60 {
        return false;
    }
    if MENU_PICK.is_match(words) {
        return true;
    }
    let found: Vec<String> = WORD
        .find_iter(words)
        .map(|word| word.as_str().to_lowercase().replace('’', "'"))
        .collect();
    found.len() <= ACKNOWLEDGEMENT_WORDS && found.iter().all(|word| ACKNOWLEDGING.contains(&word.as_str()))
}

/// What one user-role message is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UserMessage {
    /// The user's own request, as typed.
    Request(String),
    /// An acknowledgement or a menu pick, as typed.
    Answer(String),
    /// A command run through the harness (`/name args`).
    Command(String),
    /// A request sent before, word for word (a plugin loop's prompt sent
    /// again each round): the same request, not a new one.
    Repeat(String),
    /// The expanded template of the command just run, or a template with
    /// nothing of the user's in it (spec-kit's, run without arguments).
    Template,
    /// Harness text only.
    Harness,
}

/// Reads a transcript's messages one at a time, in order (see [`read_users`]).
#[derive(Debug, Default)]
pub(crate) struct UserReader {
    after_command: bool,
    /// The requests read so far, whitespace squeezed: one sent again is a repeat.
    asked: Vec<String>,
}

impl UserReader {
    /// What `message` is, given its user's words (the harness's split of a
    /// user-role message; `None` for other roles).
    pub(crate) fn read(&mut self, message: &Message, words: Option<&str>) -> Option<UserMessage> {
        let Some(words) = words.filter(|_| matches!(message.role, Role::User | Role::Tool)) else {
            if message.role == Role::Assistant {
                self.after_command = false;
            }
            return None;
        };
        if let Some(command) = command_run(&message.content) {
            self.after_command = true;
            return Some(UserMessage::Command(command));
        }
        if words.is_empty() {
            // A local command's output (`/cost`): that command had no template.
            self.after_command = false;
            return Some(UserMessage::Harness);
        }
        let after_command = std::mem::take(&mut self.after_command);
        if let Some((command, template_may_follow)) = typed_slash_command(words) {
            self.after_command = template_may_follow;
            return Some(UserMessage::Command(command));
        }
        // A template's own text is not the user's: only the arguments they
        // gave it are (and those a command already shows with its name).
        let words = match users_part(words) {
            Some(_) if after_command => return Some(UserMessage::Template),
            Some(own) if own.is_empty() => return Some(UserMessage::Template),
            Some(own) => own,
            None if after_command => return Some(UserMessage::Template),
            None => words.to_owned(),
        };
        if is_acknowledgement(&words) {
            return Some(UserMessage::Answer(words));
        }
        let squeezed = words.split_whitespace().collect::<Vec<_>>().join(" ");
        if self.asked.contains(&squeezed) {
            return Some(UserMessage::Repeat(words));
        }
        self.asked.push(squeezed);
        Some(UserMessage::Request(words))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::read::harness::HarnessPatterns;
    use crate::summary::read::reading::Reading;

    fn read_users(messages: &[Message], harness: &HarnessPatterns) -> Vec<Option<UserMessage>> {
        Reading::of(messages, harness, messages.len()).users
    }

    #[test]
    fn acknowledgements_and_menu_picks_are_not_requests() {
        for text in [
            "Great!",
            "ok",
            "yes",
            "2",
            "Something else",
            "yeah let's do it",
            "go ahead",
            "Perfect, thanks!",
            "option 3",
            "b)",
            "да, продолжай",
            "好的",
            "sí, gracias",
        ] {
            assert!(is_acknowledgement(text), "{text}");
        }
        for text in [
            "continue merge, then push",
            "yes - commit, push, reply to the PR review comment",
            "no remove this again, the risk someone assumes it's a stable link is to big",
            "Fix the flaky test",
            "2 more tests please, for the parser",
        ] {
            assert!(!is_acknowledgement(text), "{text}");
        }
    }

    #[test]
    fn what_the_user_typed_into_a_refused_tool_call_is_theirs() {
        let refused = |words: &str| Message {
            tool_call_id: Some("p".into()),
            ..Message::new(
                Role::Tool,
                format!(
                    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n{words}"
                ),
            )
        };
        let messages = [
            Message::new(Role::User, "Plan the swipe app."),
            Message::new(Role::Assistant, "Here is the plan."),
            Message {
                tool_call_id: Some("p".into()),
                ..Message::new(
                    Role::Tool,
                    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  Amazing! Go and implement it. Commit as you complete tasks, with Conventional Commits.",
                )
            },
            refused("ok"),
            Message::new(Role::Tool, "The file a.rs has been updated."),
        ];
        assert_eq!(
            read_users(&messages, &HarnessPatterns::default()),
            [
                Some(UserMessage::Request("Plan the swipe app.".into())),
                None,
                Some(UserMessage::Request(
                    "Amazing! Go and implement it. Commit as you complete tasks, with Conventional Commits.".into()
                )),
                Some(UserMessage::Answer("ok".into())),
                None,
            ]
        );
    }

    #[test]
    fn after_a_local_commands_output_the_user_types_a_request_again() {
        let messages = [
            Message::new(
                Role::User,
                "<command-name>/cost</command-name>\n<command-message>cost</command-message>",
            ),
            Message::new(
                Role::User,
                "<local-command-stdout>Total cost: $0.12</local-command-stdout>",
            ),
            Message::new(Role::User, "Please update src/storage/client.rs."),
        ];
        assert_eq!(
            read_users(&messages, &HarnessPatterns::default())[2],
            Some(UserMessage::Request("Please update src/storage/client.rs.".into()))
        );
    }

    #[test]
    fn a_command_and_its_template_are_not_the_users_request() {
        let messages = [
            Message::new(Role::User, "Refactor the retry loop in src/retry.rs."),
            Message::new(Role::Assistant, "Done."),
            Message::new(
                Role::User,
                "<command-message>handoff is running…</command-message>\n<command-name>/handoff</command-name>\n<command-args>for the night</command-args>",
            ),
            Message::new(
                Role::User,
                "# Session Handoff\n\nWrite a handoff note. Never skip the open questions.",
            ),
            Message::new(Role::Assistant, "Here is the handoff."),
            Message::new(Role::User, "Great!"),
        ];
        let read = read_users(&messages, &HarnessPatterns::default());
        assert_eq!(
            read,
            [
                Some(UserMessage::Request("Refactor the retry loop in src/retry.rs.".into())),
                None,
                Some(UserMessage::Command("/handoff for the night".into())),
                Some(UserMessage::Template),
                None,
                Some(UserMessage::Answer("Great!".into())),
            ]
        );
    }

    #[test]
    fn a_slash_command_typed_as_the_whole_message_is_a_command_run_not_a_request() {
        let messages = [
            Message::new(Role::User, "Release v0.16.0 once the last two items are done."),
            Message::new(Role::Assistant, "Progress saved. Running compact."),
            Message::new(Role::User, "/compact"),
            Message::new(Role::User, "/cost"),
            Message::new(Role::User, "/usr/local/bin is missing from PATH"),
            Message::new(Role::User, "/tmp is wiped on reboot, keep the cache elsewhere"),
            Message::new(Role::User, "/review  the retry loop"),
            Message::new(Role::User, "Review src/retry.rs for races; never change its API."),
            Message::new(Role::Assistant, "Reviewed."),
            Message::new(Role::User, "/compact keep the release steps"),
            Message::new(Role::User, "Now tag the release."),
        ];
        let read = read_users(&messages, &HarnessPatterns::default());
        assert_eq!(
            read,
            [
                Some(UserMessage::Request(
                    "Release v0.16.0 once the last two items are done.".into()
                )),
                None,
                Some(UserMessage::Command("/compact".into())),
                Some(UserMessage::Command("/cost".into())),
                Some(UserMessage::Request("/usr/local/bin is missing from PATH".into())),
                Some(UserMessage::Request(
                    "/tmp is wiped on reboot, keep the cache elsewhere".into()
                )),
                Some(UserMessage::Command("/review the retry loop".into())),
                // A custom command's expanded prompt follows it.
                Some(UserMessage::Template),
                None,
                Some(UserMessage::Command("/compact keep the release steps".into())),
                // A built-in expands into nothing: the next message is the user's.
                Some(UserMessage::Request("Now tag the release.".into())),
            ]
        );
    }

    #[test]
    fn a_spec_kit_template_is_a_request_only_for_the_arguments_the_user_gave_it() {
        let template = |arguments: &str| {
            format!(
                "---\ndescription: Create or update the feature specification.\n---\n\nUser input:\n\n{arguments}\n\n## Outline\n\n1. Never skip the checklist.\n2. Write the spec to specs/001/spec.md."
            )
        };
        let messages = [
            Message::new(Role::User, template("$ARGUMENTS")),
            Message::new(Role::Assistant, "Which feature?"),
            Message::new(
                Role::User,
                template("Build a photo album app that groups photos by date."),
            ),
        ];
        assert_eq!(
            read_users(&messages, &HarnessPatterns::default()),
            [
                Some(UserMessage::Template),
                None,
                Some(UserMessage::Request(
                    "Build a photo album app that groups photos by date.".into()
                )),
            ]
        );
    }

    #[test]
    fn a_prompt_sent_again_word_for_word_is_a_repeat_not_a_new_request() {
        let prompt = "Work through TODO.md one item at a time.\nRun the tests after each item.";
        let messages = [
            Message::new(Role::User, prompt),
            Message::new(Role::Assistant, "Did the first item."),
            Message::new(Role::User, prompt),
            Message::new(Role::Assistant, "Did the second item."),
            Message::new(
                Role::User,
                "Work through TODO.md one item at a time. Run the tests after each item.",
            ),
        ];
        let read = read_users(&messages, &HarnessPatterns::default());
        assert_eq!(read[0], Some(UserMessage::Request(prompt.into())));
        assert_eq!(read[2], Some(UserMessage::Repeat(prompt.into())));
        assert!(
            matches!(read[4], Some(UserMessage::Repeat(_))),
            "spacing aside, it is the same prompt: {:?}",
            read[4]
        );
    }
}
