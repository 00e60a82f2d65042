//! What is still open at the cut beyond the last exchange (SPEC §4, *Where
//! things stand*): questions the agent ended a turn on that the user went
//! past without answering, and requests whose changes no passing check has
//! run over since. An agent carrying on must not take either as settled.

use std::collections::HashSet;

use super::check_commands::check_of;
use super::checks::passed;
use super::outcome::Action;
use super::request::UserMessage;
use super::sentences::{is_question, one_line, sentences};
use super::wrapped::is_wide;
use crate::domain::transcript::{Message, Role};

/// How many of each are shown (the latest).
const SHOWN: usize = 2;
/// How much of a question, or of a request, is quoted.
const QUOTED_CHARS: usize = 160;
/// Files named per unverified request.
const FILES_SHOWN: usize = 3;
/// A word this long or longer may show that a request answers a question.
const TELLING_WORD_CHARS: usize = 5;

/// The questions the agent ended a turn on whose user's next words were a
/// new request that takes none of the question's words up: the user went
/// past it. A turn ends on the agent's words with no call after them.
pub(super) fn unanswered(messages: &[Message], read: &[Option<UserMessage>]) -> Vec<String> {
    let mut open = Vec::new();
    let mut last_words: Option<usize> = None;
    for (at, (message, user)) in messages.iter().zip(read).enumerate() {
        match user {
            Some(UserMessage::Request(words)) => {
                if let Some(said) = last_words
                    && let Some(question) = trailing_question(&messages[said].content)
                    && !takes_up(words, &messages[said].content, &question)
                {
                    open.push(question);
                }
                last_words = None;
            }
            Some(UserMessage::Answer(_) | UserMessage::Command(_)) => last_words = None,
            _ if message.role == Role::Assistant
                && message.tool_calls.is_empty()
                && !message.content.trim().is_empty() =>
            {
                last_words = Some(at);
            }
            _ if !message.tool_calls.is_empty() || message.role == Role::Tool => last_words = None,
            _ => {}
        }
    }
    open.split_off(open.len().saturating_sub(SHOWN))
}

/// The question `text` ends on, quoted on one line.
fn trailing_question(text: &str) -> Option<String> {
    let all = sentences(text);
    let last = all.last()?.trim_end();
    is_question(last).then(|| one_line(last, QUOTED_CHARS))
}

/// Words long enough to tell, and in scripts written without spaces (or
/// with particles glued on, as Korean), every three letters in a row (two
/// are too common: この, 这个).
fn telling_words(text: &str) -> HashSet<String> {
    let mut telling: HashSet<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= TELLING_WORD_CHARS)
        .map(str::to_lowercase)
        .collect();
    let letters: Vec<char> = text.chars().collect();
    for run in letters.windows(3) {
        if run.iter().all(|c| is_wide(*c)) {
            telling.insert(run.iter().collect());
        }
    }
    telling
}

/// Words a reply opens with when it decides ("Yes, but…", "No — first…"):
/// it answers the question.
const PICKS: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "sure",
    "ok",
    "okay",
    "no",
    "nope",
    "both",
    "neither",
    "да",
    "нет",
    "sí",
    "oui",
    "ja",
    "nein",
    "sim",
    "não",
    "はい",
    "いいえ",
    "네",
    "아니요",
];

/// A reply this short that names an option the message offered picks it.
const PICK_WORDS: usize = 4;

/// The reply takes up the question the agent's `message` ended on: it
/// opens with a decision, or with the number of an option the message
/// offered ("1 does seem like a decent path" to "Option 1 is simpler…"),
/// or shares a telling word with the question, or, short, names an option
/// the message offered ("Rustup").
fn takes_up(reply: &str, message: &str, question: &str) -> bool {
    let first = reply
        .split(|c: char| !c.is_alphanumeric())
        .find(|word| !word.is_empty())
        .map(str::to_lowercase)
        .unwrap_or_default();
    let message_lower = message.to_lowercase();
    let offered_number = !first.is_empty()
        && first.len() <= 2
        && first.chars().all(|c| c.is_ascii_digit())
        && [
            format!("option {first}"),
            format!("\n{first}."),
            format!("\n{first})"),
            format!("**{first}"),
        ]
        .iter()
        .any(|offer| message_lower.contains(offer.as_str()));
    let reply_words = telling_words(reply);
    PICKS.contains(&first.as_str())
        || offered_number
        || !reply_words.is_disjoint(&telling_words(question))
        || (reply.split_whitespace().count() <= PICK_WORDS && !reply_words.is_disjoint(&telling_words(message)))
}

/// Prose no test or build checks: a change to it needs no verifying.
fn is_prose(file: &str) -> bool {
    let extension = file.rsplit_once('.').map_or("", |(_, extension)| extension);
    ["md", "txt", "rst", "adoc"].contains(&extension.to_ascii_lowercase().as_str())
}

/// The requests whose files changed after the last passing check (when any
/// check ran at all), latest last, each with the files it changed (prose
/// left out). The latest request alone is the checks line's to say: it
/// names what changed since the last check.
pub(super) fn unverified(
    messages: &[Message],
    read: &[Option<UserMessage>],
    changed: &[Vec<String>],
    actions: &[Action],
) -> Vec<String> {
    let checks: Vec<&Action> = actions
        .iter()
        .filter(|action| action.command.as_deref().and_then(check_of).is_some())
        .collect();
    if checks.is_empty() {
        // The checks line says none ran after the files changed.
        return Vec::new();
    }
    let verified_through = checks
        .iter()
        .rev()
        .find(|check| passed(check, messages))
        .map(|check| check.message);
    let mut open: Vec<(String, Vec<String>)> = Vec::new();
    let mut request: Option<&str> = None;
    for (at, (user, files)) in read.iter().zip(changed).enumerate() {
        if let Some(UserMessage::Request(words)) = user {
            request = Some(words);
            continue;
        }
        let files: Vec<String> = files.iter().filter(|file| !is_prose(file)).cloned().collect();
        let (Some(words), false) = (request, files.is_empty()) else {
            continue;
        };
        if verified_through.is_some_and(|through| at < through) {
            continue;
        }
        let quoted = one_line(words, QUOTED_CHARS);
        match open.last_mut() {
            Some((last, named)) if *last == quoted => named.extend(files),
            _ => open.push((quoted, files)),
        }
    }
    let latest_request = read.iter().rev().find_map(|user| match user {
        Some(UserMessage::Request(words)) => Some(one_line(words, QUOTED_CHARS)),
        _ => None,
    });
    if let [(only, _)] = open.as_slice()
        && Some(only) == latest_request.as_ref()
    {
        return Vec::new();
    }
    open.split_off(open.len().saturating_sub(SHOWN))
        .into_iter()
        .map(|(request, mut files)| {
            let mut seen = HashSet::new();
            files.retain(|file| seen.insert(file.clone()));
            let more = files.len().saturating_sub(FILES_SHOWN);
            files.truncate(FILES_SHOWN);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!("«{request}» (changed {}{more})", files.join(", "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};
    use crate::summary::read::harness::HarnessPatterns;
    use crate::summary::read::reading::Reading;

    fn user(text: &str) -> Message {
        Message::new(Role::User, text)
    }

    fn agent(text: &str) -> Message {
        Message::new(Role::Assistant, text)
    }

    fn bash(id: &str, command: &str) -> Message {
        call(id, "Bash", &serde_json::json!({ "command": command }).to_string())
    }

    fn edit(id: &str, path: &str) -> Message {
        call(
            id,
            "Edit",
            &serde_json::json!({ "file_path": path, "old_string": "a", "new_string": "b" }).to_string(),
        )
    }

    fn read(messages: &[Message]) -> Reading {
        Reading::of(messages, &HarnessPatterns::default(), messages.len())
    }

    #[test]
    fn a_question_the_user_went_past_stays_open_and_one_they_took_up_does_not() {
        let messages = vec![
            user("Port the invoice routes to FastAPI."),
            agent("Ported. Should the admin routes move in this change too?"),
            user("Fix the flaky login test first."),
            agent("Fixed it. Do you want the retries logged at debug level?"),
            user("Yes, log the retries at debug."),
            agent("Done."),
        ];
        let reading = read(&messages);
        assert_eq!(
            unanswered(&messages, &reading.users),
            ["Should the admin routes move in this change too?"]
        );
    }

    #[test]
    fn a_reply_that_picks_or_shares_a_word_in_any_script_answers_the_question() {
        let messages = vec![
            user("Show the email on the profile page."),
            agent(
                "Do you want me to just store it client-side from what the user typed, or do you want a proper `/auth/me` endpoint?",
            ),
            user("1 does seem like a decent path forward, though we might want to improve this in future."),
            agent("ログファイルやセッションメタデータをリポジトリにコミットすることになりますが、そのまま進めますか？"),
            user("コミットして"),
            agent("커밋/릴리스를 진행할까요, 아니면 다른 항목을 먼저 하시겠습니까?"),
            user("v0.16.0의 남은 2개 항목 완료 후 릴리스"),
            agent(
                "Install Rust with rustup (per user) or with pacman (system-wide).\n\nWhich approach sounds better for you?",
            ),
            user("Rustup"),
            agent("Should I proceed with phase 2 now, or would you like to test the backend first?"),
            user("the panel is missing the system tray applet, but shows the open tasks"),
            agent("I refactored the parser; all tests pass.\n\nShould I also update the changelog?"),
            user("Some tests in CI still fail on Windows, look into that"),
            agent("このファイルを削除してもいいですか？"),
            user("このバグを先に直して"),
        ];
        let reading = read(&messages);
        assert_eq!(
            unanswered(&messages, &reading.users),
            [
                "Should I also update the changelog?",
                "このファイルを削除してもいいですか？"
            ]
        );
    }

    #[test]
    fn a_question_asked_on_the_way_to_a_tool_call_waits_on_nobody() {
        let messages = vec![
            user("Find why the build breaks."),
            agent("Is it the lockfile? Let me check."),
            bash("1", "git diff Cargo.lock"),
            result("1", "no changes"),
            user("Also bump the version."),
        ];
        let reading = read(&messages);
        assert!(unanswered(&messages, &reading.users).is_empty());
    }

    #[test]
    fn requests_changed_after_the_last_passing_check_are_not_yet_verified() {
        let mut messages = vec![
            user("Make the parser accept trailing commas."),
            edit("1", "src/parser.rs"),
            result("1", "ok"),
            bash("2", "cargo test"),
            result("2", "test result: ok. 12 passed; 0 failed"),
            user("Now add a --strict flag."),
            edit("3", "src/cli.rs"),
            result("3", "ok"),
            edit("4", "src/main.rs"),
            result("4", "ok"),
            user("Also log the retries."),
            edit("5", "src/log.rs"),
            result("5", "ok"),
            user("And document it in the README."),
            edit("6", "README.md"),
            result("6", "ok"),
        ];
        let reading = read(&messages);
        let open = unverified(&messages, &reading.users, &reading.changed, &reading.actions);
        assert_eq!(
            open,
            [
                "«Now add a --strict flag.» (changed src/cli.rs, src/main.rs)",
                "«Also log the retries.» (changed src/log.rs)",
            ],
            "the latest two; prose needs no verifying"
        );
        messages.truncate(10);
        let reading = read(&messages);
        assert!(
            unverified(&messages, &reading.users, &reading.changed, &reading.actions).is_empty(),
            "the latest request alone is the checks line's to say"
        );
    }

    #[test]
    fn a_failing_check_verifies_nothing_and_no_check_at_all_is_the_checks_lines_to_say() {
        let mut messages = vec![
            user("Make the parser accept trailing commas."),
            edit("1", "src/parser.rs"),
            result("1", "ok"),
            bash("2", "cargo test"),
            result("2", "test result: FAILED. 11 passed; 1 failed"),
            user("What does the lexer do with tabs?"),
        ];
        let reading = read(&messages);
        assert_eq!(
            unverified(&messages, &reading.users, &reading.changed, &reading.actions),
            ["«Make the parser accept trailing commas.» (changed src/parser.rs)"]
        );
        messages.drain(3..5);
        let reading = read(&messages);
        assert!(unverified(&messages, &reading.users, &reading.changed, &reading.actions).is_empty());
    }
}
