//! What an agent that worked with git changed and never committed, as far
//! as the transcript shows: said when no commit followed its changes.

use super::commands::steps;
use super::files::{names_changed, some_of};
use super::git_lines::{COMMIT_LINE, COMMITTING, git_verb};
use super::outcome::Action;
use crate::domain::transcript::Message;

/// Files changed since the last commit, named up to this many.
pub(super) const UNCOMMITTED_SHOWN: usize = 6;

/// A scratch file or the harness's own, which no repository holds.
fn is_scratch(file: &str) -> bool {
    ["/tmp/", "/private/tmp/", "/var/folders/"]
        .iter()
        .any(|scratch| file.starts_with(scratch))
        || file.contains("/.claude/")
        || file.starts_with("~/.")
}

/// Whether any of `actions` ran git with a verb that is `wanted`.
fn runs_git<'a>(mut actions: impl Iterator<Item = &'a Action>, wanted: impl Fn(&str) -> bool) -> bool {
    actions.any(|action| {
        action
            .command
            .as_deref()
            .is_some_and(|command| steps(command).iter().any(|step| git_verb(step).is_some_and(&wanted)))
    })
}

/// No commit made by an agent that worked with git: what it changed is
/// not committed, as far as the transcript shows (a reader would otherwise
/// take edits shown beside a pull request for part of it).
pub(super) fn nothing_committed(messages: &[Message], changed: &[Vec<String>], actions: &[Action]) -> Option<String> {
    // Only what came after the first change can have committed it.
    let first_change = changed.iter().position(|files| !files.is_empty())?;
    let after: Vec<&Action> = actions.iter().filter(|action| action.message >= first_change).collect();
    let uses_git = runs_git(actions.iter(), |_| true);
    // A commit that printed nothing (`git commit -q`, one still running) or
    // was made another way (`gt create`, a release script, which print git's
    // line too), or a tree git called clean: then nothing is said.
    let commit_ran = runs_git(after.iter().copied(), |verb| COMMITTING.contains(&verb));
    let may_have_committed = commit_ran
        || after.iter().filter_map(|action| action.result).any(|at| {
            let printed = &messages[at].content;
            COMMIT_LINE.is_match(printed) || printed.contains("nothing to commit")
        });
    // Scratch files and the harness's own (`/tmp/…`, `~/.claude/plans/…`)
    // are no part of the repository.
    let in_the_work: Vec<Vec<String>> = changed
        .iter()
        .map(|files| files.iter().filter(|file| !is_scratch(file)).cloned().collect())
        .collect();
    let changed = names_changed(&in_the_work);
    (uses_git && !may_have_committed && !changed.is_empty()).then(|| {
        format!(
            "none made; changed, not committed: {}",
            some_of(&changed, UNCOMMITTED_SHOWN)
        )
    })
}
