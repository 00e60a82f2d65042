//! What a tool's result says of its call: it failed (with its first error
//! line), or it worked (with the line an agent carries on from, if any).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::summary::read::git_lines::{is_commit_line, is_push_line};
use crate::summary::read::harness::rejection_words;
use crate::summary::read::sentences::one_line;

/// The most of an error or a result line an action shows.
pub(crate) const LINE_CHARS: usize = 200;

static EXIT_CODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^\s*(?:exit code:?|process exited with code|exited with code|exit status:?)\s*(-?\d+)")
        .expect("a valid pattern")
});
static TOOL_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<tool_use_error>\s*(.*?)\s*(?:</tool_use_error>|\z)").expect("a valid pattern"));
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\A\s*(?:error\b|fatal\b|panic|traceback|exception|\w+error:|\w+exception:|npm err!|failed\b|fail\b|",
        r"\*\* \(|.*command not found|.*no such file or directory|.*permission denied|.*string to replace not found|",
        r".*has not been read yet|cannot\b|could not\b|e\d{4}:|error\[|thread '.*' panicked|.*\b[1-9]\d*\s+(?:failures?|failed)\b)",
    ))
    .expect("a valid pattern")
});
/// Lines of a successful result worth carrying besides a commit or a push:
/// a test tally.
static TALLY_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\A\s*(?:.*\b\d+\s+(?:tests?|examples?|doctests?|specs?|properties)\b.*\b\d+\s+(?:failures?|failed|errors?)\b.*",
        r"|.*\b\d+\s+passed\b.*|test result:.*|ok\s+\S+\s+[\d.]+s|tests?:\s+\d+.*|all \d+ tests? pass.*)\z",
    ))
    .expect("a valid pattern")
});

/// A line a successful result is carried by: a commit, a push, a tally.
fn is_notable(line: &str) -> bool {
    is_commit_line(line) || is_push_line(line) || TALLY_LINE.is_match(line)
}

/// What came of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It worked; with the line worth carrying, if any.
    Ok(Option<String>),
    /// It failed, with its first error line.
    Failed(String),
    /// The user refused it when asked: it never ran (an edit was not
    /// written); with what they said instead, if anything.
    Refused(Option<String>),
    /// The user stopped it: what it did, if anything, is unknown.
    Interrupted,
    /// No result came before the cut.
    Pending,
}

impl Outcome {
    /// Whether the call did not do its work: it failed, was refused or was
    /// stopped (a result not yet come is neither).
    pub(crate) fn fell_through(&self) -> bool {
        matches!(self, Self::Failed(_) | Self::Refused(_) | Self::Interrupted)
    }

    /// What a refused or stopped call came to, as a summary says it: never
    /// as having worked.
    pub(crate) fn refusal(&self) -> String {
        match self {
            Self::Refused(None) => "refused by the user, never ran".to_owned(),
            Self::Refused(Some(words)) => format!("refused by the user, never ran; they said: {words}"),
            Self::Interrupted => "interrupted by the user".to_owned(),
            _ => String::new(),
        }
    }
}

/// A harness's answer for a call the user refused: Claude Code's "The user
/// doesn't want to proceed with this tool use…" (with the user's words
/// after it, if they typed any) and "…doesn't want to take this action right
/// now", Codex's "exec command rejected by user" / "patch rejected by user".
static REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?s)\A\s*(?:The user doesn't want to (?:proceed with this tool use|take this action right now)\.",
        r"|(?:exec command|patch) rejected by user\b|This action was rejected due to unacceptable risk\.)",
    ))
    .expect("a valid pattern")
});
/// A harness's answer for a call the user stopped while it ran (Claude
/// Code's "[Request interrupted by user for tool use]", Codex's "aborted").
static INTERRUPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\A\s*(?:\[Request interrupted by user[^\]\n]*\]|aborted(?: by (?:the )?user)?\.?\s*\z)")
        .expect("a valid pattern")
});

/// Whether a user-role message is Claude Code's word that the user stopped
/// the agent ("[Request interrupted by user…]").
pub(super) fn is_interruption(text: &str) -> bool {
    text.trim_start().starts_with("[Request interrupted by user")
}

/// What a tool's result says of the call: failed (with its first error
/// line) or worked (with a commit or test tally line, if it has one).
pub(crate) fn outcome_of(result: &str) -> Outcome {
    // Codex's function output: {"output": "...", "metadata": {"exit_code": 1}}.
    let (text, exit_code) = match serde_json::from_str::<Value>(result) {
        Ok(Value::Object(object)) if object.contains_key("output") => (
            object["output"].as_str().unwrap_or_default().to_owned(),
            object
                .get("metadata")
                .and_then(|metadata| metadata.get("exit_code"))
                .and_then(Value::as_i64),
        ),
        _ => (
            result.to_owned(),
            EXIT_CODE
                .captures(result)
                .and_then(|found| found[1].parse::<i64>().ok()),
        ),
    };
    if REFUSAL.is_match(&text) {
        let words = rejection_words(&text).map(|words| one_line(words, LINE_CHARS));
        return Outcome::Refused(words);
    }
    // Claude Code writes the exit code of a command it stopped first
    // ("Exit code 137\n[Request interrupted by user for tool use]").
    let after_exit_code = text.trim_start().lines().skip_while(|line| EXIT_CODE.is_match(line));
    if INTERRUPTION.is_match(&text) || INTERRUPTION.is_match(&after_exit_code.collect::<Vec<_>>().join("\n")) {
        return Outcome::Interrupted;
    }
    if let Some(found) = TOOL_ERROR.captures(&text) {
        let first = found[1]
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("the tool refused the call");
        return Outcome::Failed(one_line(first, LINE_CHARS));
    }
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty() && !EXIT_CODE.is_match(line))
        .collect();
    let error_line = lines.iter().find(|line| ERROR_LINE.is_match(line));
    let failed = exit_code.is_some_and(|code| code != 0)
        || lines
            .first()
            .is_some_and(|first| ERROR_LINE.is_match(first) && !is_notable(first));
    if failed {
        let line = error_line.or(lines.first()).map_or_else(
            || format!("exit code {}", exit_code.unwrap_or(1)),
            |line| one_line(line, LINE_CHARS),
        );
        return Outcome::Failed(line);
    }
    // A commit says more than the push after it (`git commit … && git push`).
    let commit = lines.iter().rev().find(|line| is_commit_line(line));
    // Of several tallies (a crate's tests, then its doc-tests), the last
    // that counted something.
    let notable = || lines.iter().rev().filter(|line| is_notable(line));
    Outcome::Ok(
        commit
            .or_else(|| notable().find(|line| counts_something(line)))
            .or_else(|| notable().next())
            .map(|line| one_line(line, LINE_CHARS))
            .or_else(|| labelled(&lines)),
    )
}

/// A heading an agent's own check printed before each answer (`echo "===
/// console.warn ==="`, `--- Bot locales ---`).
static LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A\s*(?:={3,}|-{3,})\s*(\S.*?)\s*(?:={3,}|-{3,})\s*\z").expect("a valid pattern"));

/// A script of such checks: a shell command that echoes a label before
/// what it prints.
static LABEL_ECHO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\becho\s+(?:-e\s+)?["']?\s*(?:={3,}|-{3,})\s*[\p{L}\p{N}]"#).expect("a valid pattern")
});

/// Whether `command` is a script of labelled checks, whose answers say what
/// it looked at (the command beside them is only how).
pub(crate) fn is_labelled_script(command: &str) -> bool {
    LABEL_ECHO.find_iter(command).count() >= 2
}

/// How much of one labelled answer is shown.
const ANSWER_CHARS: usize = 60;

/// The answers of a result made of labelled checks, each as `label: first
/// line` (`console.warn: 0; Bot zh-Hant: MISSING`): what the checks found,
/// which "ok" alone hides. At least two labels, each with an answer.
fn labelled(lines: &[&str]) -> Option<String> {
    let mut answers: Vec<String> = Vec::new();
    let mut label: Option<&str> = None;
    for line in lines {
        if let Some(found) = LABEL
            .captures(line)
            .filter(|found| found[1].chars().any(char::is_alphanumeric))
        {
            if let Some(unanswered) = label.replace(found.get(1).map_or("", |m| m.as_str())) {
                answers.push(format!("{unanswered}: (nothing)"));
            }
        } else if line.chars().any(char::is_alphanumeric)
            && let Some(asked) = label.take()
        {
            answers.push(format!("{asked}: {}", one_line(line.trim(), ANSWER_CHARS)));
        }
    }
    if let Some(unanswered) = label {
        answers.push(format!("{unanswered}: (nothing)"));
    }
    // An error among the answers (a folder that is not there from where the
    // checks ran) puts the zeros beside it in doubt: it is never cut off.
    let doubt = lines
        .iter()
        .find(|line| ERROR_LINE.is_match(line))
        .map(|error| format!("; but: {}", one_line(error.trim(), ANSWER_CHARS * 2)))
        .unwrap_or_default();
    let room = (LINE_CHARS * 2).saturating_sub(doubt.chars().count());
    (answers.len() >= 2).then(|| format!("{}{doubt}", one_line(&answers.join("; "), room)))
}

/// Whether a line holds a whole number above zero (`7 passed`, not only
/// `0 passed … finished in 0.00s`).
fn counts_something(line: &str) -> bool {
    NUMBER
        .find_iter(line)
        .any(|number| !number.as_str().contains('.') && number.as_str().bytes().any(|digit| digit != b'0'))
}

static NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+(?:\.\d+)?").expect("a valid pattern"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_stopped_by_the_user_is_interrupted_whatever_its_exit_code() {
        assert_eq!(
            outcome_of("Exit code 137\n[Request interrupted by user for tool use]"),
            Outcome::Interrupted
        );
    }

    #[test]
    fn of_several_tallies_the_last_that_counted_something_is_the_result() {
        let output = "running 7 tests\ntest result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n   Doc-tests x\n\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s";
        assert_eq!(
            outcome_of(output),
            Outcome::Ok(Some(
                "test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s".into()
            ))
        );
        assert_eq!(
            outcome_of("test result: ok. 0 passed; 0 failed; finished in 0.00s"),
            Outcome::Ok(Some("test result: ok. 0 passed; 0 failed; finished in 0.00s".into())),
            "nothing counted: still the tally"
        );
    }

    #[test]
    fn failures_are_known_by_exit_code_tool_errors_and_error_lines() {
        assert_eq!(
            outcome_of("Exit code 1\n   Compiling x\nerror[E0382]: borrow of moved value: `a`\n  --> src/lib.rs:4"),
            Outcome::Failed("error[E0382]: borrow of moved value: `a`".into())
        );
        assert_eq!(
            outcome_of("<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>"),
            Outcome::Failed("String to replace not found in file.".into())
        );
        assert_eq!(
            outcome_of(
                r#"{"output":"fatal: not a git repository\n","metadata":{"exit_code":128,"duration_seconds":0.1}}"#
            ),
            Outcome::Failed("fatal: not a git repository".into())
        );
        assert_eq!(
            outcome_of("bash: foo: command not found"),
            Outcome::Failed("bash: foo: command not found".into())
        );
    }

    #[test]
    fn a_call_the_user_refused_or_stopped_never_worked() {
        assert_eq!(
            outcome_of(
                "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
            ),
            Outcome::Refused(None)
        );
        assert_eq!(
            outcome_of(
                "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nrun only the unit tests"
            ),
            Outcome::Refused(Some("run only the unit tests".into()))
        );
        assert_eq!(
            outcome_of(
                "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."
            ),
            Outcome::Refused(None)
        );
        assert_eq!(outcome_of("exec command rejected by user"), Outcome::Refused(None));
        assert_eq!(
            outcome_of(r#"{"output":"patch rejected by user","metadata":{"exit_code":1}}"#),
            Outcome::Refused(None)
        );
        assert_eq!(
            outcome_of("[Request interrupted by user for tool use]"),
            Outcome::Interrupted
        );
        assert_eq!(outcome_of("aborted"), Outcome::Interrupted);
        assert_eq!(
            outcome_of("aborted: 3 jobs left behind"),
            Outcome::Ok(None),
            "a word at the start of output is not the harness's answer"
        );
    }

    #[test]
    fn a_script_echoing_two_labels_is_one_of_labelled_checks() {
        assert!(is_labelled_script(
            r#"echo "=== console.warn ===" && grep -rn console.warn src | wc -l; echo '--- Bot locales ---'; ls"#
        ));
        assert!(!is_labelled_script(r#"echo "=== done ===""#), "one label");
        assert!(!is_labelled_script("grep -c '===' notes.md; echo ok; echo ---"));
        assert!(
            !is_labelled_script(
                r#"git commit -m "feat: x" && echo "=====" && git log --oneline -3 && echo "=====" && git status"#
            ),
            "separators are no labels"
        );
    }

    #[test]
    fn a_result_of_labelled_checks_says_what_each_found() {
        assert_eq!(
            outcome_of(
                "=== ESLint unused vars ===\n0\n=== console.warn ===\n3\n=== backup script ===\nscripts/backup.sh\nEXISTS\n=== zh-Hant ===\n"
            ),
            Outcome::Ok(Some(
                "ESLint unused vars: 0; console.warn: 3; backup script: scripts/backup.sh; zh-Hant: (nothing)".into()
            ))
        );
        assert_eq!(
            outcome_of("=== Frontend locales ===\n0\n=== Frontend zh-Hant ===\nMISSING\nls: cannot access 'frontend/messages/': No such file or directory"),
            Outcome::Ok(Some(
                "Frontend locales: 0; Frontend zh-Hant: MISSING; but: ls: cannot access 'frontend/messages/': No such file or directory".into()
            )),
            "what failed beside the answers puts them in doubt"
        );
        assert_eq!(
            outcome_of("=== only one ===\n0\n"),
            Outcome::Ok(None),
            "one label is a heading, not a set of checks"
        );
    }

    #[test]
    fn a_success_carries_its_commit_or_test_tally() {
        assert_eq!(
            outcome_of("[spotter-gqc 99b497c] Add transcript annotations\n 9 files changed, 420 insertions(+)"),
            Outcome::Ok(Some("[spotter-gqc 99b497c] Add transcript annotations".into()))
        );
        assert_eq!(
            outcome_of("Compiling...\nFinished in 0.4 seconds\n14 doctests, 73 tests, 0 failures\n"),
            Outcome::Ok(Some("14 doctests, 73 tests, 0 failures".into()))
        );
        assert_eq!(outcome_of("The file src/a.rs has been updated."), Outcome::Ok(None));
        assert_eq!(
            outcome_of("[x 99b497c] feat: a\n 2 files changed\nTo github.com:m/s.git\n * [new branch]      x -> x"),
            Outcome::Ok(Some("[x 99b497c] feat: a".into())),
            "a commit says more than the push after it"
        );
    }
}
