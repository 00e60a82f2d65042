//! The lines git prints for a commit it made and for a push: what tells a
//! tool result that work was committed or pushed, and what it was; and
//! which of git's verbs a command line's step runs.

use std::sync::LazyLock;

use regex::Regex;

/// `[main 47f5d06] feat(types): …`, `[main (root-commit) 377a873] chore: …`,
/// `[detached HEAD 4444444] wip`: what git prints for a commit it made.
pub(super) static COMMIT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\s*\[([^\]\n]+?)(?:\s+\([\w -]+\))?\s+([0-9a-f]{7,40})\]\s+(.+?)\s*$").expect("a valid pattern")
});
/// `   99b497c..ceff8c3  spotter-gqc -> spotter-gqc`, `+ a..b x -> x (forced update)`.
pub(super) static PUSHED_RANGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\s*\+?\s*[0-9a-f]{7,40}\.{2,3}([0-9a-f]{7,40})\s+(\S+)\s+->\s+(\S+)").expect("a valid pattern")
});
/// ` * [new branch]      spotter-gqc -> spotter-gqc`.
pub(super) static PUSHED_NEW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*\*\s+\[new branch\]\s+(\S+)\s+->\s+(\S+)").expect("a valid pattern"));

/// Whether a result line is a commit as git prints it.
pub(crate) fn is_commit_line(line: &str) -> bool {
    COMMIT_LINE.is_match(line)
}

/// Whether a result line is a push as git prints it.
pub(crate) fn is_push_line(line: &str) -> bool {
    PUSHED_RANGE.is_match(line) || PUSHED_NEW.is_match(line)
}

/// What a `git` step does (`commit` of `git -C repo commit -m …`), or `None`
/// when the step is not git's.
pub(super) fn git_verb(step: &str) -> Option<&str> {
    let mut words = step.split_whitespace();
    if words.next()? != "git" {
        return None;
    }
    while let Some(word) = words.next() {
        match word {
            "-C" | "-c" | "--git-dir" | "--work-tree" => {
                words.next();
            }
            flag if flag.starts_with('-') => {}
            verb => return Some(verb),
        }
    }
    None
}

/// Git verbs that make a commit and print it.
pub(super) const COMMITTING: &[&str] = &["commit", "cherry-pick", "revert"];
