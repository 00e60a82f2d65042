//! What came of the agent's tool calls (SPEC §4, *Where things stand*):
//! each call paired with its result, whether it failed (and its first error
//! line), and what a successful one said that an agent carries on from (a
//! commit's hash, a test run's tally).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::commands::{normalized, without_leading_cd};
use super::git_lines::{is_commit_line, is_push_line};
use super::sentences::one_line;
use super::tool_calls::tool_name;
use crate::domain::transcript::{Message, Role};

/// The most of an error or a result line an action shows.
pub(crate) const LINE_CHARS: usize = 200;
/// The most of a target (a command, a path) an action shows.
const TARGET_CHARS: usize = 160;

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
    /// No result came before the cut.
    Pending,
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
    Outcome::Ok(
        commit
            .or_else(|| lines.iter().rev().find(|line| is_notable(line)))
            .map(|line| one_line(line, LINE_CHARS)),
    )
}

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
    /// The index of the message that made the call…
    pub message: usize,
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
            Outcome::Pending => "no result yet".to_owned(),
        };
        format!("{}{target} → {outcome}", self.tool)
    }
}

/// Programs that take a subcommand (`git push`, `cargo test`): a command's
/// subject is the program and its subcommand, so `git push --set-upstream
/// origin x` sets right a failed `git push`.
const WITH_SUBCOMMANDS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "mix",
    "go",
    "docker",
    "kubectl",
    "gh",
    "bd",
    "uv",
    "poetry",
    "dotnet",
    "make",
    "just",
    "mise",
    "terraform",
    "helm",
    "bundle",
    "rails",
    "deno",
    "npx",
    "pip",
    "brew",
    "apt",
    "systemctl",
];

/// What a later command must run to set a failure of this one right: its
/// last step's program, with the subcommand where it takes one.
fn subject_of_command(command: &str) -> String {
    let last = command
        .rsplit(['&', ';', '|'])
        .map(str::trim)
        .find(|step| !step.is_empty())
        .unwrap_or(command);
    let words: Vec<&str> = last
        .split_whitespace()
        .filter(|word| !word.contains('=') || word.starts_with('-'))
        .collect();
    match words.as_slice() {
        [program, sub, ..] if WITH_SUBCOMMANDS.contains(program) && !sub.starts_with('-') => format!("{program} {sub}"),
        [program, ..] => (*program).to_owned(),
        [] => command.to_owned(),
    }
}

/// A command as an action shows it: in its normal form, else up to a
/// heredoc's opener (the lines after it are data: a commit message, a
/// file's text), else cut.
fn shown_command(command: &str) -> String {
    if let Some(line) = normalized(command) {
        return line;
    }
    let first = without_leading_cd(command);
    match HEREDOC_DATA.find(&first) {
        Some(found) if found.start() > 0 => format!("{} …", first[..found.start()].trim_end()),
        _ => one_line(command, TARGET_CHARS),
    }
}

/// Where a heredoc's data begins on a command line: `"$(cat <<'EOF'`, `<<EOF`.
static HEREDOC_DATA: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?:["']?\$\(\s*cat\s*)?<<-?\s*['"]?[A-Za-z_]\w*"#).expect("a valid pattern"));

/// A call's target: the command it ran, else the file or URL it named,
/// else its first short string argument; its subject; and the command it
/// ran, whole.
fn target_of(arguments: &str) -> (String, String, Option<String>) {
    let parsed: Value = serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
    let string_at = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| parsed.get(*key).and_then(Value::as_str))
            .filter(|text| !text.trim().is_empty())
            .map(str::to_owned)
    };
    let command = match parsed.get("command").or_else(|| parsed.get("cmd")) {
        Some(Value::Array(words)) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            let wrapped = words.len() >= 3 && words[1].starts_with('-') && words[0].ends_with("sh");
            Some(if wrapped { words[2..].join(" ") } else { words.join(" ") })
        }
        Some(Value::String(line)) if !matches!(line.as_str(), "view" | "create" | "str_replace" | "insert") => {
            Some(line.clone())
        }
        _ => None,
    };
    if let Some(command) = command {
        let shown = shown_command(&command);
        return (
            one_line(&shown, TARGET_CHARS),
            subject_of_command(&shown),
            Some(command),
        );
    }
    if let Some(path) = string_at(&["file_path", "path", "notebook_path", "filePath", "target_file", "url"]) {
        return (one_line(&path, TARGET_CHARS), path, None);
    }
    let first = match &parsed {
        Value::Object(object) => object.values().find_map(Value::as_str).map(str::to_owned),
        Value::String(text) => Some(text.clone()),
        _ => None,
    };
    let shown = first.map(|text| one_line(&text, 80)).unwrap_or_default();
    (shown.clone(), shown, None)
}

/// Every tool call in `messages`, in order, with what came of it (a result
/// is found by its call's id, else it is the next tool message).
pub(crate) fn actions(messages: &[Message]) -> Vec<Action> {
    let mut found: Vec<Action> = Vec::new();
    let mut open: Vec<(String, usize)> = Vec::new();
    for (at, message) in messages.iter().enumerate() {
        match message.role {
            Role::Assistant => {
                for call in &message.tool_calls {
                    let (target, subject, command) = target_of(&call.arguments);
                    open.push((call.id.clone(), found.len()));
                    found.push(Action {
                        tool: tool_name(&call.name).to_owned(),
                        target,
                        command,
                        subject,
                        outcome: Outcome::Pending,
                        message: at,
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
                    found[action].outcome = outcome_of(&message.content);
                    found[action].result = Some(at);
                }
            }
            _ => {}
        }
    }
    found
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
}
