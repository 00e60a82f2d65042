//! Which command lines run a check (SPEC §4, *Where things stand*): a test,
//! build, lint or type check — `cargo test`, `mix credo`, `npm run
//! test:unit`, `uv run pytest`, `python manage.py test`, `./run_tests.sh` —
//! and not what merely installs or runs something (`npm ci`, `uv add
//! pytest`, `cargo install`, `cargo run --bin build-index`, `go mod verify`).
//! A run is known by its program and verb, so a later run of the same check,
//! filtered or on fewer files, is its latest run.

use super::commands::steps;

/// Programs that are a check whatever follows them (but an install verb).
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
];

/// Verbs (or script names) that make a build tool's run a check.
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
    "tsc",
    "verify",
    "ci",
    "e2e",
    "spec",
];

/// Verbs that install, add or set up rather than check.
const SETUP_VERBS: &[&str] = &[
    "install",
    "i",
    "add",
    "remove",
    "rm",
    "uninstall",
    "update",
    "upgrade",
    "sync",
    "pip",
    "init",
    "new",
    "create",
    "fetch",
    "link",
    "audit",
    "outdated",
    "dedupe",
    "mod",
    "get",
    "deps.get",
    "run",
];

/// Build tools whose verb says what a run does, and the words that only
/// hand on to the program or script after them (`npm run`, `uv run`,
/// `python -m`, `bundle exec`).
const BUILD_TOOLS: &[(&str, &[&str])] = &[
    ("cargo", &[]),
    ("go", &[]),
    ("mix", &[]),
    ("npm", &["run", "run-script", "exec"]),
    ("pnpm", &["run", "exec", "dlx"]),
    ("yarn", &["run", "exec", "dlx"]),
    ("bun", &["run", "x"]),
    ("npx", &[]),
    ("bunx", &[]),
    ("pnpx", &[]),
    ("uvx", &[]),
    ("make", &[]),
    ("just", &[]),
    ("dotnet", &[]),
    ("gradle", &[]),
    ("gradlew", &[]),
    ("mvn", &[]),
    ("deno", &["task"]),
    ("swift", &[]),
    ("zig", &[]),
    ("bazel", &[]),
    ("python", &["-m"]),
    ("python3", &["-m"]),
    ("uv", &["run"]),
    ("poetry", &["run"]),
    ("pdm", &["run"]),
    ("hatch", &["run"]),
    ("bundle", &["exec"]),
    ("rails", &[]),
    ("rake", &[]),
    ("sbt", &[]),
    ("stack", &[]),
    ("cabal", &[]),
    ("node", &[]),
];

/// Programs that run the program named after them.
const RUNNER_PROGRAMS: &[&str] = &["npx", "bunx", "pnpx", "uvx"];

/// Words that make a script's name a check's (`run_tests.sh`, `lint.sh`):
/// fewer than a verb's, since `build_report.py` builds no code.
const SCRIPT_WORDS: &[&str] = &["test", "tests", "lint", "check", "typecheck", "ci", "e2e", "spec"];

/// Whether a verb names a check: a check program, or a check word in it
/// (`test:unit`, `type-check`).
fn says_check(word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    CHECK_PROGRAMS.contains(&word.as_str()) || word.split([':', '-', '_']).any(|part| CHECK_WORDS.contains(&part))
}

/// Whether a script's name names a check.
fn names_check(script: &str) -> bool {
    let name = script.rsplit('/').next().unwrap_or(script).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    stem.split(['-', '_']).any(|part| SCRIPT_WORDS.contains(&part))
}

/// A script run by its path (`./run_tests.sh`, `scripts/lint.sh`).
fn is_script(word: &str) -> bool {
    (word.starts_with("./") || word.contains('/'))
        && [".sh", ".bash", ".zsh", ".py", ".js", ".ts"]
            .iter()
            .any(|ext| word.ends_with(ext))
}

/// The check one simple command runs, known by its program and verb.
fn check_in_step(step: &str) -> Option<String> {
    // Leading `NAME=value` words set the environment, they are not the program.
    let words: Vec<&str> = step
        .split_whitespace()
        .skip_while(|word| word.contains('=') && !word.starts_with('-'))
        .collect();
    let first = *words.first()?;
    let program = first.rsplit('/').next().unwrap_or(first);
    if is_script(first) {
        return names_check(first).then(|| first.to_owned());
    }
    if CHECK_PROGRAMS.contains(&program) {
        let verb = words[1..].iter().find(|word| !word.starts_with('-'));
        let setup = verb.is_some_and(|verb| SETUP_VERBS.contains(verb) || *verb == "format");
        return (!setup).then(|| program.to_owned());
    }
    let (_, hands_on) = BUILD_TOOLS.iter().find(|(tool, _)| *tool == program)?;
    let mut rest = words[1..]
        .iter()
        .filter(|word| !word.starts_with('-') || hands_on.contains(word))
        .skip_while(|word| hands_on.contains(word));
    let mut verb = *rest.next()?;
    // `python manage.py test`, `node scripts/ci.js`: the script, then its verb.
    if verb.ends_with(".py") || verb.ends_with(".js") {
        if names_check(verb) {
            return Some(format!("{program} {verb}"));
        }
        verb = *rest.next()?;
    }
    let installs = SETUP_VERBS.contains(&verb) || verb == "ci" && ["npm", "pnpm", "yarn", "bun"].contains(&program);
    if installs {
        return None;
    }
    // `npx playwright install` installs; `npx vitest run` checks.
    if RUNNER_PROGRAMS.contains(&program)
        && rest
            .next()
            .is_some_and(|next| SETUP_VERBS.contains(next) && *next != "run")
    {
        return None;
    }
    says_check(verb).then(|| format!("{program} {verb}"))
}

/// The check a command line runs (`go test`, `mix credo`), or `None`.
pub(crate) fn check_of(command: &str) -> Option<String> {
    steps(command).iter().find_map(|step| check_in_step(step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_builds_lints_and_type_checks_are_checks_by_program_and_verb() {
        for (command, check) in [
            ("mix test test/a_test.exs", "mix test"),
            ("cargo clippy --all-targets -- -D warnings", "cargo clippy"),
            ("cd web && pnpm run test:unit", "pnpm test:unit"),
            ("npm test", "npm test"),
            ("uv run pytest -q", "uv pytest"),
            ("python -m pytest tests/", "python pytest"),
            ("go vet ./...", "go vet"),
            ("mix compile --warnings-as-errors && mix credo --strict", "mix compile"),
            ("npx tsc --noEmit", "npx tsc"),
            ("make test", "make test"),
            ("./gradlew build", "gradlew build"),
            ("RUST_LOG=debug cargo nextest run", "cargo nextest"),
            ("echo start && cargo test", "cargo test"),
            ("python manage.py test", "python test"),
            ("bazel test //...", "bazel test"),
            ("./run_tests.sh --fast", "./run_tests.sh"),
            ("go test ./... 2>&1 | grep -E 'FAIL|ok'", "go test"),
            ("npx vitest run", "npx vitest"),
            ("bundle exec rspec spec/models", "bundle rspec"),
        ] {
            assert_eq!(check_of(command).as_deref(), Some(check), "{command}");
        }
    }

    #[test]
    fn installs_runs_and_reads_are_no_checks() {
        for command in [
            "git commit -m 'add tests'",
            "grep -rn test src/",
            "cat test/a_test.exs",
            "ls tests",
            "npm install highlight.js",
            "npm ci",
            "npm i -D vitest",
            "yarn add -D eslint",
            "npm uninstall jest",
            "uv add pytest",
            "uv sync --extra test",
            "uv pip install pytest",
            "poetry install --with test",
            "cargo install cargo-nextest",
            "cargo add tokio --features test-util",
            "cargo run --bin build-index",
            "cargo run --release -- --test-mode",
            "go mod verify",
            "ruff format .",
            "npx playwright install",
            "mix deps.get",
            "bd show spotter-gqc",
            "python scripts/build_report.py",
            "cat > notes.md <<'EOF'\ncargo test\nEOF",
        ] {
            assert_eq!(check_of(command), None, "{command}");
        }
    }
}
