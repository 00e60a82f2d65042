//! What was verified (SPEC §4, *Where things stand*): the last run of each
//! test, build, lint or type check the agent ran and what came of it, and
//! the files changed after the last of them — or that none ran after the
//! files were changed. An agent carrying on must know what is unproven.

use super::extract::{names_changed, some_of};
use super::outcome::{Action, Outcome};
use crate::policy::transcript::Message;

/// How many checks are shown (the latest of each kind).
const SHOWN: usize = 3;
/// Files changed after the last check, named up to this many.
const FILES_SHOWN: usize = 5;

/// Programs that are a check whatever follows them.
const CHECK_PROGRAMS: &[&str] = &[
    "pytest",
    "jest",
    "vitest",
    "mocha",
    "rspec",
    "phpunit",
    "ctest",
    "tsc",
    "eslint",
    "mypy",
    "pyright",
    "ruff",
    "flake8",
    "pylint",
    "golangci-lint",
    "shellcheck",
    "tox",
    "nox",
    "playwright",
    "cypress",
    "biome",
    "clippy-driver",
];

/// Subcommands (or scripts) that make a build tool's run a check.
const CHECK_WORDS: &[&str] = &[
    "test",
    "tests",
    "nextest",
    "build",
    "check",
    "clippy",
    "lint",
    "vet",
    "compile",
    "credo",
    "dialyzer",
    "typecheck",
    "type-check",
    "tsc",
    "verify",
    "ci",
    "e2e",
];

/// Runners that run a program or a script named after them.
const RUNNERS: &[&str] = &["npx", "bunx", "uvx", "pnpx", "exec", "run", "-m", "dlx"];

/// Build tools whose subcommand says what a run does.
const BUILD_TOOLS: &[&str] = &[
    "cargo",
    "go",
    "mix",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "make",
    "just",
    "dotnet",
    "gradle",
    "./gradlew",
    "mvn",
    "deno",
    "swift",
    "zig",
    "python",
    "python3",
    "uv",
    "poetry",
    "bundle",
    "rails",
    "rake",
    "sbt",
    "stack",
    "cabal",
    "elixir",
    "node",
    "npx",
    "bunx",
    "pnpx",
    "uvx",
];

/// Whether one step of a command line (no `&&`, `;` or `|`) is a check.
fn is_check_step(step: &str) -> bool {
    let words: Vec<&str> = step
        .split_whitespace()
        .filter(|word| !word.contains('=') || word.starts_with('-'))
        .collect();
    let Some(program) = words.first() else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    if CHECK_PROGRAMS.contains(&program) {
        return true;
    }
    if !BUILD_TOOLS.contains(&program) && !BUILD_TOOLS.contains(&words[0]) {
        return false;
    }
    // The first words past the program, runners and flags: `npm run test:unit`,
    // `uv run pytest`, `python -m pytest`, `mix compile --warnings-as-errors`.
    words[1..]
        .iter()
        .filter(|word| !word.starts_with('-') || **word == "-m")
        .take(3)
        .take_while(|word| RUNNERS.contains(word) || !word.contains(['/', '.']) || word.starts_with("test"))
        .any(|word| {
            let word = word.to_ascii_lowercase();
            CHECK_PROGRAMS.contains(&word.as_str())
                || word.split([':', '-', '_']).any(|part| CHECK_WORDS.contains(&part))
                || CHECK_WORDS.contains(&word.as_str())
        })
}

/// The check a command line runs, known by its program and first word
/// (`go test`, `mix credo`), or `None` when it runs none: a later run of
/// the same check, filtered or on fewer files, is its latest run.
pub(crate) fn check_of(command: &str) -> Option<String> {
    let first_word = command.split_whitespace().next().unwrap_or("");
    if matches!(first_word, "git" | "gh" | "bd" | "echo" | "cat" | "grep" | "rg") {
        return None;
    }
    let step = command
        .split(['&', ';', '|'])
        .map(str::trim)
        .find(|step| is_check_step(step))?;
    let words: Vec<&str> = step
        .split_whitespace()
        .filter(|word| !word.contains('=') && !word.starts_with('-'))
        .enumerate()
        .filter(|(at, word)| *at == 0 || !RUNNERS.contains(word))
        .map(|(_, word)| word)
        .take(2)
        .collect();
    Some(words.join(" "))
}

/// The checks line: the latest run of each check with what came of it,
/// and what changed after the last one; `None` when nothing was changed
/// and nothing checked, or when the last actions (`shown`) already hold
/// every run it would name and nothing changed after them.
pub(crate) fn checks_line(messages: &[Message], actions: &[Action], shown: &[&Action]) -> Option<String> {
    let checks: Vec<(String, &Action)> = actions
        .iter()
        .filter(|action| action.ran_command)
        .filter_map(|action| Some((check_of(&action.target)?, action)))
        .collect();
    let Some((_, last)) = checks.last() else {
        let changed = names_changed(messages);
        return (!changed.is_empty()).then(|| {
            format!(
                "none run: no test, build or lint ran after the {} changed",
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
            let outcome = match &check.outcome {
                Outcome::Ok(Some(line)) => line.clone(),
                Outcome::Ok(None) => "ok".to_owned(),
                Outcome::Failed(line) => format!("failed: {line}"),
                Outcome::Pending => "no result yet".to_owned(),
            };
            format!("`{}` → {outcome}", check.target.replace('`', "'"))
        })
        .collect();
    let after = names_changed(&messages[last.message + 1..]);
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
    use crate::policy::keep::outcome::actions;
    use crate::policy::transcript::fixtures::{call, result};

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
        checks_line(messages, &actions(messages), &[])
    }

    #[test]
    fn tests_builds_lints_and_type_checks_are_checks() {
        for command in [
            "mix test test/a_test.exs",
            "cargo clippy --all-targets -- -D warnings",
            "cd web && pnpm run test:unit",
            "npm test",
            "uv run pytest -q",
            "python -m pytest tests/",
            "go vet ./...",
            "mix compile --warnings-as-errors && mix credo --strict",
            "npx tsc --noEmit",
            "make test",
            "./gradlew build",
            "RUST_LOG=debug cargo nextest run",
        ] {
            assert!(
                check_of(&crate::policy::keep::commands::without_leading_cd(command)).is_some(),
                "{command}"
            );
        }
        for command in [
            "git commit -m 'add tests'",
            "grep -rn test src/",
            "cat test/a_test.exs",
            "ls tests",
            "npm install highlight.js",
            "mix deps.get",
            "cargo run --release -- --test-mode",
            "bd show spotter-gqc",
            "python scripts/build_report.py",
        ] {
            assert_eq!(check_of(command), None, "{command}");
        }
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
            Some("none run: no test, build or lint ran after the 2 files changed")
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
        assert_eq!(checks_line(&messages, &all, &last), None);
        assert_eq!(
            checks_line(&messages, &all, &last[..1]).as_deref(),
            Some("`cargo test` → test result: ok. 45 passed; 0 failed")
        );
    }

    #[test]
    fn a_failed_check_is_said_with_its_error() {
        let messages = vec![
            bash("1", "cargo test 2>&1 | tail -20"),
            result("1", "Exit code 101\nerror[E0599]: no method named `retry` found"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some("`cargo test` → failed: error[E0599]: no method named `retry` found")
        );
    }
}
