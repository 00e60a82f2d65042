//! What was verified (SPEC §4, *Where things stand*): the last run of each
//! test, build, lint or type check the agent ran and what came of it, and
//! the files changed after the last of them — or that none ran after the
//! files were changed. An agent carrying on must know what is unproven.

use std::sync::LazyLock;

use regex::Regex;

use super::check_commands::check_of;
use super::files::{names_changed, some_of};
use super::outcome::{Action, LINE_CHARS, Outcome};
use super::sentences::one_line;
use crate::domain::transcript::Message;

/// How many checks are shown (the latest of each kind).
const SHOWN: usize = 3;
/// Files changed after the last check, named up to this many.
const FILES_SHOWN: usize = 5;

/// A line of a check's output that says it failed, whatever the exit code
/// the harness saw (a check piped into `tail` or `grep` exits as they do).
static FAILURE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?im)^\s*(?:--- FAIL\b|FAIL\b|FAILED\b|error(?:\[\w+\])?:|\*\* \(\w+Error\)|ERROR:?\s)",
        r"|\berror TS\d+|\b[1-9]\d*\s+(?:failed|failures?|errors?)\b",
    ))
    .expect("a valid pattern")
});

/// What came of a check: a failure line in its output counts even where
/// the call itself was taken to have worked.
fn outcome_of_check(check: &Action, messages: &[Message]) -> String {
    let failed_in_output = || {
        let result = &messages[check.result?].content;
        let at = FAILURE_LINE.find(result)?.start();
        let line_start = result[..at].rfind('\n').map_or(0, |n| n + 1);
        let line = result[line_start..].lines().next().unwrap_or_default();
        Some(one_line(line.trim(), LINE_CHARS))
    };
    match &check.outcome {
        Outcome::Failed(line) => format!("failed: {line}"),
        Outcome::Ok(tally) => match failed_in_output() {
            Some(line) => format!("failed: {line}"),
            None => tally.clone().unwrap_or_else(|| "ok".to_owned()),
        },
        Outcome::Refused(_) | Outcome::Interrupted => check.outcome.refusal(),
        Outcome::Pending => "no result yet".to_owned(),
    }
}

/// The check ran and passed: it worked, and no line of its output says it
/// failed.
pub(crate) fn passed(check: &Action, messages: &[Message]) -> bool {
    matches!(check.outcome, Outcome::Ok(_)) && !outcome_of_check(check, messages).starts_with("failed")
}

/// The checks line: the latest run of each check with what came of it,
/// and what changed after the last one (`changed`: the files each message
/// changed); `None` when nothing was changed
/// and nothing checked, or when the last actions (`shown`) already hold
/// every run it would name and nothing changed after them.
pub(crate) fn checks_line(
    messages: &[Message],
    changed: &[Vec<String>],
    actions: &[Action],
    shown: &[&Action],
) -> Option<String> {
    let checks: Vec<(String, &Action)> = actions
        .iter()
        .filter_map(|action| Some((check_of(action.command.as_deref()?)?, action)))
        .collect();
    let Some((_, last)) = checks.last() else {
        let changed = names_changed(changed);
        return (!changed.is_empty()).then(|| {
            format!(
                "none seen: no test, build or lint ran after the {} changed",
                match changed.len() {
                    1 => "file".to_owned(),
                    n => format!("{n} files"),
                }
            )
        });
    };
    // The latest run of each check, in the order they last ran.
    let mut latest: Vec<&Action> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (kind, check) in checks.iter().rev() {
        if !seen.contains(&kind.as_str()) {
            seen.push(kind);
            latest.push(check);
        }
    }
    latest.truncate(SHOWN);
    latest.reverse();
    let runs: Vec<String> = latest
        .iter()
        .map(|check| {
            format!(
                "`{}` → {}",
                check.target.replace('`', "'"),
                outcome_of_check(check, messages)
            )
        })
        .collect();
    let after = names_changed(&changed[last.message + 1..]);
    if after.is_empty()
        && latest
            .iter()
            .all(|check| shown.iter().any(|action| std::ptr::eq(*action, *check)))
    {
        return None;
    }
    let since = if after.is_empty() {
        String::new()
    } else {
        format!("; then changed, not checked since: {}", some_of(&after, FILES_SHOWN))
    };
    Some(format!("{}{since}", runs.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};
    use crate::summary::read::files::files_changed;
    use crate::summary::read::outcome::actions;

    fn changed_by(messages: &[Message]) -> Vec<Vec<String>> {
        messages.iter().map(files_changed).collect()
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

    fn line(messages: &[Message]) -> Option<String> {
        checks_line(messages, &changed_by(messages), &actions(messages), &[])
    }

    #[test]
    fn the_latest_run_of_each_check_and_what_changed_after() {
        let messages = vec![
            bash("1", "mix test"),
            result("1", "Exit code 2\n** (CompileError) lib/a.ex:3: undefined function x/0"),
            edit("2", "lib/a.ex"),
            result("2", "ok"),
            bash("3", "mix test"),
            result("3", "14 doctests, 73 tests, 0 failures"),
            bash("4", "mix credo --strict"),
            result("4", "Analysis took 0.4 seconds\nfound no issues."),
            edit("5", "lib/spotter_web/live/project_review_live.ex"),
            result("5", "ok"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some(
                "`mix test` → 14 doctests, 73 tests, 0 failures; `mix credo --strict` → ok; \
                 then changed, not checked since: project_review_live.ex"
            )
        );
    }

    #[test]
    fn files_changed_with_no_check_say_none_ran_and_nothing_changed_says_nothing() {
        let messages = vec![
            edit("1", "AGENTS.md"),
            result("1", "ok"),
            edit("2", "README.md"),
            result("2", "ok"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some("none seen: no test, build or lint ran after the 2 files changed")
        );
        assert_eq!(line(&[bash("1", "ls"), result("1", "a b")]), None);
    }

    #[test]
    fn a_check_run_again_filtered_is_one_check() {
        let messages = vec![
            bash(
                "1",
                "go test -tags=integration ./cli/ -run TestShadow -v | grep -E 'FAIL|ok'",
            ),
            result("1", "--- FAIL: TestShadow (0.2s)"),
            bash("2", "go test -tags=integration ./cli/ -run TestShadow -v"),
            result("2", "ok  github.com/entireio/cli 2.917s"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some("`go test -tags=integration ./cli/ -run TestShadow -v` → ok github.com/entireio/cli 2.917s")
        );
    }

    #[test]
    fn a_check_the_last_actions_already_show_is_not_said_twice() {
        let messages = vec![
            edit("1", "src/a.rs"),
            result("1", "ok"),
            bash("2", "cargo test"),
            result("2", "test result: ok. 45 passed; 0 failed"),
        ];
        let all = actions(&messages);
        let last: Vec<&Action> = all.iter().collect();
        let changed = changed_by(&messages);
        assert_eq!(checks_line(&messages, &changed, &all, &last), None);
        assert_eq!(
            checks_line(&messages, &changed, &all, &last[..1]).as_deref(),
            Some("`cargo test` → test result: ok. 45 passed; 0 failed")
        );
    }

    #[test]
    fn a_failure_in_a_piped_checks_output_is_a_failure() {
        let messages = vec![
            bash("1", "go test ./cli/ -run TestShadow -v 2>&1 | grep -E 'FAIL|ok'"),
            result(
                "1",
                "--- FAIL: TestShadow (0.2s)\n    phase_test.go:222: StepCount should be 0, got 1\nFAIL",
            ),
            bash("2", "npx tsc --noEmit | tail -3"),
            result(
                "2",
                "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
            ),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some(
                "`go test ./cli/ -run TestShadow -v | grep -E 'FAIL|ok'` → failed: --- FAIL: TestShadow (0.2s); \
                 `npx tsc --noEmit` → failed: src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."
            )
        );
    }

    #[test]
    fn a_failed_check_is_said_with_its_error() {
        let messages = vec![
            bash("1", "cargo test 2>&1"),
            result("1", "Exit code 101\nerror[E0599]: no method named `retry` found"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some("`cargo test` → failed: error[E0599]: no method named `retry` found")
        );
    }
}
