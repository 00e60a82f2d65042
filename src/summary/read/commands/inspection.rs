//! Commands that only look (SPEC §4, *Precision*): an agent's `grep`, `cat`,
//! `ls` or `git log` told it something then and changes nothing, so naming
//! it again is not worth a reader's tokens; what it found is the last
//! actions' and tool output's to say. Such a command stays in the keep set.

use super::steps;

/// Programs that read and print, never write (without a redirection).
const LOOKING: &[&str] = &[
    "awk", "basename", "cat", "cd", "column", "cut", "date", "df", "diff", "dirname", "du", "echo", "fd", "file",
    "find", "grep", "egrep", "fgrep", "head", "jq", "less", "ls", "nl", "printf", "pwd", "readlink", "realpath", "rg",
    "sort", "stat", "tail", "test", "tree", "true", "type", "uniq", "wc", "which", "xxd", "yq", "[",
];

/// What `git` does without changing the repository.
const GIT_LOOKING: &[&str] = &[
    "blame",
    "branch",
    "diff",
    "grep",
    "log",
    "ls-files",
    "remote",
    "rev-parse",
    "show",
    "status",
    "describe",
];

/// Words that make a looking program write or run something: `sort -o`,
/// `yq -i`, `fd -x`, `find -fprint`.
const WRITING_FLAGS: &[(&str, &[&str])] = &[
    ("sort", &["-o", "--output"]),
    ("yq", &["-i", "--inplace"]),
    ("jq", &["--in-place"]),
    ("fd", &["-x", "-X", "--exec", "--exec-batch"]),
    (
        "find",
        &[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
        ],
    ),
];

/// Words that make a looking `git` verb change something: `git branch -D`,
/// `git remote add`.
const GIT_WRITING_WORDS: &[&str] = &[
    "-d",
    "-D",
    "-m",
    "-M",
    "-c",
    "-C",
    "-u",
    "--delete",
    "--move",
    "--copy",
    "--set-upstream-to",
    "--unset-upstream",
    "add",
    "remove",
    "rm",
    "rename",
    "set-url",
    "set-head",
    "prune",
    "update",
];

/// Programs that search: printing nothing, they found nothing.
const SEARCHING: &[&str] = &["rg", "grep", "egrep", "fgrep", "ag", "ack", "find", "fd"];

/// Whether `command` only looks, and searches (`rg -n "decision" src/ |
/// head -20`, `git grep x`): what it printed is what it found.
pub(crate) fn only_searches(command: &str) -> bool {
    only_looks(command)
        && steps(command)
            .iter()
            .find(|step| !step.starts_with("cd "))
            .is_some_and(|first| {
                let words: Vec<&str> = first.split_whitespace().filter(|word| !word.contains('=')).collect();
                match words.as_slice() {
                    ["git", "grep", ..] => true,
                    [program, ..] => SEARCHING.contains(&program.rsplit('/').next().unwrap_or(program)),
                    [] => false,
                }
            })
}

/// Whether every simple command of `command` only looks: a program of
/// [`LOOKING`] or a looking `git`, with no redirection into a file, no
/// `sed -i` and no `find -delete`/`-exec`.
pub(crate) fn only_looks(command: &str) -> bool {
    let steps = steps(command);
    !steps.is_empty() && steps.iter().all(|step| step_only_looks(step))
}

fn step_only_looks(step: &str) -> bool {
    let words: Vec<&str> = step.split_whitespace().collect();
    if words.iter().any(|word| writes_a_file(word)) {
        return false;
    }
    let Some(program) = words
        .iter()
        .copied()
        .find(|word| !word.contains('=') || word.starts_with('-'))
    else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let writes = WRITING_FLAGS
        .iter()
        .find(|(name, _)| *name == program)
        .is_some_and(|(_, flags)| words.iter().any(|word| flags.contains(word)));
    match program {
        _ if writes => false,
        "git" => {
            let mut after = words.iter().skip_while(|word| **word != "git").skip(1);
            after.find(|word| !word.starts_with('-')).is_some_and(|sub| {
                GIT_LOOKING.contains(sub) && !words.iter().any(|word| GIT_WRITING_WORDS.contains(word))
            })
        }
        // `-i`, `-Ei`, `-ni`, `--in-place=.bak`: sed edits the file.
        "sed" => !words.iter().any(|word| {
            word.starts_with("--in-place") || (word.starts_with('-') && !word.starts_with("--") && word.contains('i'))
        }),
        _ => LOOKING.contains(&program),
    }
}

/// A word that sends output into a file (`>`, `>>`, `tee`), not into
/// another stream (`2>&1`) or nowhere (`>/dev/null`).
fn writes_a_file(word: &str) -> bool {
    if word == "tee" {
        return true;
    }
    let Some(at) = word.find('>') else {
        return false;
    };
    let target = word[at..].trim_start_matches('>');
    // `2>&1` and `>&2` send it to another stream; `&>` or `>` with the file
    // as the next word write one.
    !((target.starts_with('&') && target.len() > 1) || target.starts_with("/dev/null"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_is_a_look_that_searches() {
        assert!(only_searches("rg -n \"decision\" src/ 2>/dev/null | head -20"));
        assert!(only_searches("LC_ALL=C grep -rn x src/"));
        assert!(only_searches("git grep -n retry"));
        assert!(only_searches("cd /repo && rg -n retry src/"), "after a cd");
        assert!(!only_searches("cat src/a.rs"), "a read");
        assert!(!only_searches("find . -name '*.tmp' -delete"), "a deletion");
        assert!(!only_searches("cargo test"));
    }

    #[test]
    fn searches_reads_and_listings_only_look() {
        for command in [
            r#"rg -n "decision" src/entirecontext/cli/import_cmds.py"#,
            "grep -c \"localeCode:\" lib/language_repository.dart",
            "cat .gitignore | rg -n \"entire|opencode\"",
            "ls frontend/messages/ | sort && echo \"---\" && ls frontend/messages/ | wc -l",
            "git log --oneline -5 --format=\"%s\"",
            "git status --short",
            "sed -n 1,40p src/main.rs",
            "find . -name config.ts -path \"*/i18n/*\" 2>/dev/null",
            "cd frontend && npx eslint src/ 2>&1 | grep no-unused-vars | wc -l",
        ] {
            let looks = only_looks(command);
            // npx runs a program that may write: not a look.
            assert_eq!(looks, !command.contains("npx"), "{command}");
        }
    }

    #[test]
    fn what_changes_or_runs_something_does_not_only_look() {
        for command in [
            "git commit -m \"chore: housekeeping\"",
            "git add .gitignore docs/adr/0019.md",
            "sed -i 's/a/b/' src/main.rs",
            "cat header.md body.md > README.md",
            "echo done >> log.txt",
            "grep -l TODO src | tee todo.txt",
            "find . -name '*.orig' -delete",
            "sed -Ei 's/a/b/' src/main.rs",
            "sed --in-place=.bak 's/a/b/' src/main.rs",
            "rg TODO src &> todo.txt",
            "sort -o out.txt in.txt",
            "yq -i '.a = 1' config.yaml",
            "fd -e pyc -x rm",
            "env RUST_LOG=debug cargo run",
            "git branch -D feature",
            "git remote add upstream https://github.com/o/r.git",
            "cargo test",
            "uv run pytest -q",
            "rm -rf target",
            "",
        ] {
            assert!(!only_looks(command), "{command}");
        }
    }
}
