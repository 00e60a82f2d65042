//! Values the agent took from tool output (issue 41): a line near the top of
//! a tool's result — a contact's name, a PR number, a timeout, a row count —
//! that a later message of the agent's used. The summary keeps the line
//! with the call it came from, where the bare value alone would say nothing.

use std::sync::LazyLock;

use regex::Regex;

use super::outcome::{Action, Outcome};
use super::sentences::one_line;
use crate::domain::transcript::{Message, Role};

/// How far into a result a value counts as at its top: lines…
const TOP_LINES: usize = 40;
/// …and bytes.
const TOP_BYTES: usize = 4096;
/// How many lines one result gives at most…
const PER_RESULT: usize = 2;
/// …and how many the summary shows (the latest results').
const SHOWN: usize = 3;
/// The most of a line shown.
const LINE_CHARS: usize = 160;

/// A token that names one thing: it has a digit (`#4821`, `45s`, `1,204`,
/// `v2.3.1`), an inner capital or underscore (`fetchUser`, `ERR_TIMEOUT`),
/// an `@` (an address), or is a run of capitalized words (`Dana Whitfield`).
static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\p{Lu}\p{Ll}+(?:[ \t]\p{Lu}\p{Ll}+)+",
        r"|[\p{L}\d#$][\p{L}\d_.,:/#@$%-]*[\p{L}\d%]",
    ))
    .expect("a valid pattern")
});

/// Whether `token` names one thing rather than being a common word or a
/// small number.
fn is_distinctive(token: &str) -> bool {
    let chars = token.chars().count();
    let digits = token.chars().filter(char::is_ascii_digit).count();
    let has_inner_capital = token.chars().skip(1).any(char::is_uppercase) && token.chars().any(char::is_lowercase);
    let name = token.contains([' ', '\t']);
    (digits > 0 && chars >= 3)
        || (chars >= 5 && (token.contains('_') || has_inner_capital))
        || token.contains('@')
        || name
}

/// The distinctive tokens of `text`.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    TOKEN
        .find_iter(text)
        .map(|m| m.as_str().trim_end_matches(['.', ',', ':']))
        .filter(|token| is_distinctive(token))
}

/// A token that names a file or a folder: a tool's listing, which the
/// agent goes on to open; no value it took.
fn is_path_like(token: &str) -> bool {
    // An address or a URL is a value, whatever its slashes and dots.
    if token.contains('@') || token.contains("://") {
        return false;
    }
    token.contains(['/', '\\'])
        || token.rsplit_once('.').is_some_and(|(stem, extension)| {
            stem.chars().any(char::is_alphabetic)
                && (1..=5).contains(&extension.len())
                && extension.chars().all(|c| c.is_ascii_alphabetic())
        })
}

/// Whether `token` passed to a later call is a value the agent took (a
/// port, a PR number, a setting), not a file it went on to open.
fn passes_a_value(token: &str) -> bool {
    !is_path_like(token)
}

/// What an assistant message says and passes to its calls.
fn said_by(message: &Message) -> String {
    let mut said = message.content.clone();
    for call in &message.tool_calls {
        said.push('\n');
        said.push_str(&call.arguments);
    }
    said
}

/// The top of a result: its first lines, within a few kilobytes.
fn top(result: &str) -> impl Iterator<Item = &str> {
    let mut end = result.len().min(TOP_BYTES);
    while !result.is_char_boundary(end) {
        end -= 1;
    }
    result[..end].lines().take(TOP_LINES)
}

/// The lines at the top of tool results that a later message of the
/// agent's used a value of, each with the call that showed it:
/// `Read 'crm/contacts.json' showed: "owner: Dana Whitfield"`; the latest
/// results' last. A line the reader already has (`shown_elsewhere`: the
/// last actions, the commits) is not said again.
/// A line number a reading tool put before the line (`81→`, `104:`, a
/// grep's `src/a.rs:104:`): the file's, not the value's.
static LINE_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A\s*(?:[^\s:]*\p{L}[^\s:]*:)?\d+(?:→|:)").expect("a valid pattern"));

fn without_line_number(line: &str) -> &str {
    let line = line.trim();
    match LINE_NUMBER.find(line) {
        // `10:22:13` is a time, not line 10.
        Some(number) if !line[number.end()..].starts_with(|c: char| c.is_ascii_digit()) => line[number.end()..].trim(),
        _ => line,
    }
}

/// A line that only opens a call or a block (`register_middlewares(`): no
/// value a reader can use on its own.
fn opens_a_block(line: &str) -> bool {
    line.ends_with(['(', '[', '{'])
}

pub(crate) fn relied_on(messages: &[Message], actions: &[Action], shown_elsewhere: &[&str]) -> Vec<String> {
    // What the agent wrote, and what it passed to its calls.
    let said: Vec<Option<(&str, String)>> = messages
        .iter()
        .map(|message| {
            (message.role == Role::Assistant).then(|| {
                let passed: Vec<&str> = message.tool_calls.iter().map(|call| call.arguments.as_str()).collect();
                (message.content.as_str(), passed.join("\n"))
            })
        })
        .collect();
    // Anyone's words count as known: a value the user gave is theirs, not
    // the tool's.
    let seen: Vec<String> = messages.iter().map(said_by).collect();
    let mut shown: Vec<String> = Vec::new();
    for action in actions {
        let (Some(at), Outcome::Ok(_)) = (action.result, &action.outcome) else {
            continue;
        };
        // What the agent knew before the result is not taken from it.
        let known_before = seen[..at].iter().map(String::as_str).collect::<Vec<_>>();
        let used_after = &said[at + 1..];
        let mut lines: Vec<String> = Vec::new();
        for line in top(&messages[at].content) {
            // Judged without the line number: citing line 142 is no use
            // of what line 142 holds.
            let line = without_line_number(line);
            let relied = tokens(line).any(|token| {
                !known_before.iter().any(|text| text.contains(token))
                    && used_after.iter().flatten().any(|(wrote, passed)| {
                        wrote.contains(token) || (passes_a_value(token) && passed.contains(token))
                    })
            });
            // A listing's line that is only a path names what the agent
            // opened next; the path is in the keep set already.
            let only_a_path = is_path_like(line)
                && !line.contains("://")
                && line.chars().all(|c| c.is_alphanumeric() || "/\\._-~".contains(c));
            if relied && !line.is_empty() && !opens_a_block(line) && !only_a_path {
                let line = one_line(line, LINE_CHARS);
                if !lines.contains(&line) && !shown_elsewhere.iter().any(|text| text.contains(&line)) {
                    lines.push(line);
                }
            }
            if lines.len() == PER_RESULT {
                break;
            }
        }
        if lines.is_empty() {
            continue;
        }
        let source = format!("{} `{}`", action.tool, action.target.replace('`', "'"));
        let quoted: Vec<String> = lines
            .into_iter()
            .map(|line| format!("\"{}\"", line.replace('"', "'")))
            .collect();
        shown.push(format!("{source} showed: {}", quoted.join("; ")));
    }
    shown.split_off(shown.len().saturating_sub(SHOWN))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};
    use crate::summary::read::outcome::actions;

    #[test]
    fn a_value_from_the_top_of_a_result_that_the_agent_used_is_kept_with_its_source() {
        let messages = [
            Message::new(Role::User, "Email the owner of the Acme account about the renewal."),
            call("1", "Read", r#"{"file_path":"crm/accounts/acme.json"}"#),
            result(
                "1",
                "{\n  \"account\": \"Acme\",\n  \"owner\": \"Dana Whitfield\",\n  \"renewal_date\": \"2027-02-01\",\n  \"seats\": 40\n}",
            ),
            call("2", "Bash", r#"{"command":"gh pr list --search renewal"}"#),
            result(
                "2",
                "4821  Renewal reminder template  feature/renewal  OPEN\n77  Old thing  x  CLOSED",
            ),
            Message::new(
                Role::Assistant,
                "I'll draft the email to Dana Whitfield, reusing the template from PR #4821.",
            ),
        ];

        let kept = relied_on(&messages, &actions(&messages), &[]);

        assert_eq!(
            kept,
            [
                "Read `crm/accounts/acme.json` showed: \"'owner': 'Dana Whitfield',\"",
                "Bash `gh pr list --search renewal` showed: \"4821 Renewal reminder template feature/renewal OPEN\"",
            ]
        );
    }

    #[test]
    fn a_path_the_agent_opened_next_is_no_value_taken() {
        let messages = [
            Message::new(Role::User, "Why do uploads fail?"),
            call("1", "Glob", r#"{"pattern":"src/**/ipfs*.ts"}"#),
            result("1", "/repo/src/v2/ipfs.controller.ts"),
            Message::new(
                Role::Assistant,
                "The upload goes through /repo/src/v2/ipfs.controller.ts.",
            ),
            call("2", "Read", r#"{"file_path":"/repo/src/v2/ipfs.controller.ts"}"#),
            result("2", "const apiHost = 'localhost';\nconst apiPort = 5001;"),
            call("3", "Bash", r#"{"command":"nc -z host 5001"}"#),
            result("3", ""),
        ];
        assert_eq!(
            relied_on(&messages, &actions(&messages), &[]),
            ["Read `/repo/src/v2/ipfs.controller.ts` showed: \"const apiPort = 5001;\""],
            "the port passed on is a value taken; the path the listing showed and the agent opened is not"
        );
    }

    #[test]
    fn what_the_agent_knew_before_or_never_used_is_not_kept() {
        let messages = [
            Message::new(Role::Assistant, "Checking whether src/retry.rs still has MAX_RETRIES."),
            call("1", "Bash", r#"{"command":"grep -n MAX_RETRIES src/retry.rs"}"#),
            result("1", "12:const MAX_RETRIES: u32 = 5;\n13:const BACKOFF_MS: u64 = 250;"),
            Message::new(Role::Assistant, "MAX_RETRIES is there; moving on."),
        ];
        assert!(relied_on(&messages, &actions(&messages), &[]).is_empty());
    }

    #[test]
    fn a_value_the_user_gave_or_a_line_shown_elsewhere_is_not_from_tool_output() {
        let messages = [
            Message::new(Role::User, "Work on PROJ-410: the backoff must be 774ms."),
            call("1", "Bash", r#"{"command":"gh issue view 410"}"#),
            result(
                "1",
                "title: Retries give up early (PROJ-410)\n- Three attempts 774ms apart.",
            ),
            call("2", "Bash", r#"{"command":"git commit -am 'backoff'"}"#),
            result("2", "[fix/retries 9f3c2ab] backoff"),
            Message::new(Role::Assistant, "PROJ-410: 774ms backoff, committed as 9f3c2ab."),
        ];
        let commits = "9f3c2ab backoff (on fix/retries); [fix/retries 9f3c2ab] backoff";
        assert!(relied_on(&messages, &actions(&messages), &[commits]).is_empty());
        assert_eq!(
            relied_on(&messages, &actions(&messages), &[]),
            ["Bash `git commit -am 'backoff'` showed: \"[fix/retries 9f3c2ab] backoff\""]
        );
    }

    #[test]
    fn a_line_is_kept_without_the_readers_line_number_and_one_that_only_opens_a_call_is_not() {
        let messages = [
            Message::new(Role::User, "Make the bot speak every locale."),
            call("1", "Grep", r#"{"pattern":"i18n","path":"src/bot.py"}"#),
            result(
                "1",
                "104: from src.middlewares import register_middlewares\n106: register_middlewares(",
            ),
            call("2", "Read", r#"{"file_path":"src/config.py"}"#),
            result(
                "2",
                "   223→    default_language: str = 'ru'\n   224→    available_languages: list[str] = Field(default_factory=lambda: ['ru', 'en'])",
            ),
            Message::new(
                Role::Assistant,
                "register_middlewares sets up i18n, but available_languages defaults to ru and en only.",
            ),
        ];
        assert_eq!(
            relied_on(&messages, &actions(&messages), &[]),
            [
                "Grep `src/bot.py` showed: \"from src.middlewares import register_middlewares\"",
                "Read `src/config.py` showed: \"available_languages: list[str] = Field(default_factory=lambda: ['ru', 'en'])\"",
            ]
        );
    }

    #[test]
    fn a_value_at_a_lines_start_is_not_taken_for_its_line_number() {
        for (line, kept) in [
            (
                "4821\tFix retries\tfix/retries\tOPEN",
                "4821\tFix retries\tfix/retries\tOPEN",
            ),
            (
                "127.0.0.1:8080: bind: address already in use",
                "127.0.0.1:8080: bind: address already in use",
            ),
            ("10:22:13 ERROR timeout after 45s", "10:22:13 ERROR timeout after 45s"),
            ("   142→    timeout_ms: 45000,", "timeout_ms: 45000,"),
            ("src/a.rs:104: const MAX: u32 = 5;", "const MAX: u32 = 5;"),
            (
                "104: from src.middlewares import setup",
                "from src.middlewares import setup",
            ),
        ] {
            assert_eq!(without_line_number(line), kept, "{line}");
        }
    }
}
