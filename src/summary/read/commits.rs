//! The commits the agent made (SPEC §4, *Where things stand*): each one's
//! hash and subject as git printed them, the branch, how far the branch was
//! pushed, and the files changed since the last commit — what a successor
//! must not redo, and what is still only in the working tree.

use super::commands::steps;
use super::files::{names_changed, some_of};
use super::git_lines::{COMMIT_LINE, COMMITTING, PUSHED_NEW, PUSHED_RANGE, git_verb};
use super::outcome::Action;
use super::sentences::one_line;
use super::uncommitted::{UNCOMMITTED_SHOWN, nothing_committed};
use crate::domain::transcript::Message;

/// A commit's subject is shown up to this many characters…
const SUBJECT_CHARS: usize = 100;
/// …and this many of the latest commits (the earlier are counted).
const SHOWN: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Commit {
    branch: String,
    hash: String,
    subject: String,
    /// The message whose call made it.
    message: usize,
    pushed: bool,
}

/// The branch name a push names on the local side (`HEAD` is the branch
/// the last commit was on).
fn local_branch<'a>(named: &'a str, last: Option<&'a str>) -> &'a str {
    if named == "HEAD" { last.unwrap_or(named) } else { named }
}

/// The branch a step makes and switches to (`git checkout -b NEW`, `git
/// switch -c NEW`), with the start point it names, if any.
fn branch_made(step: &str) -> Option<(String, Option<String>)> {
    let verb = git_verb(step)?;
    // A redirection (`2>&1`) is the shell's, not a start point.
    let words: Vec<&str> = step
        .split_whitespace()
        .filter(|word| !word.contains(['>', '<']))
        .collect();
    let flag = match verb {
        "checkout" => ["-b", "-B"].iter().find(|flag| words.contains(flag))?,
        "switch" => ["-c", "-C", "--create"].iter().find(|flag| words.contains(flag))?,
        _ => return None,
    };
    let at = words.iter().position(|word| word == flag)?;
    let new = words.get(at + 1)?.to_string();
    let start = words
        .get(at + 2)
        .filter(|word| !word.starts_with('-'))
        .map(|word| word.to_string());
    Some((new, start))
}

/// The branch a step switches to (`git checkout main`, `git switch main`);
/// not a path checked out (`git checkout -- src/a.rs`).
fn branch_switched(step: &str) -> Option<String> {
    let verb = git_verb(step)?;
    if !matches!(verb, "checkout" | "switch") || step.contains(" -- ") {
        return None;
    }
    let words: Vec<&str> = step.split_whitespace().collect();
    let after = words.iter().position(|word| *word == verb)?;
    let rest: Vec<&str> = words[after + 1..].to_vec();
    match rest.as_slice() {
        [branch] if !branch.starts_with('-') => Some((*branch).to_owned()),
        _ => None,
    }
}

/// The branch the work is on, and each new branch's origin: commits made
/// before a new branch was pushed went with it.
#[derive(Default)]
struct Branches {
    current: Option<String>,
    made_from: Vec<(String, Option<String>)>,
}

impl Branches {
    /// Follows the branches a command line's steps make and switch to.
    fn follow(&mut self, steps: &[String]) {
        for step in steps {
            if let Some((new, start)) = branch_made(step) {
                self.made_from
                    .push((new.clone(), start.or_else(|| self.current.clone())));
                self.current = Some(new);
            } else if let Some(branch) = branch_switched(step) {
                self.current = Some(branch);
            }
        }
    }

    /// The branch `branch` was made from, when it was made here.
    fn origin(&self, branch: &str) -> Option<String> {
        self.made_from
            .iter()
            .rev()
            .find(|(new, _)| new == branch)
            .and_then(|(_, from)| from.clone())
    }
}

fn read_commits(messages: &[Message], actions: &[Action]) -> Vec<Commit> {
    let mut commits: Vec<Commit> = Vec::new();
    let mut branches = Branches::default();
    for action in actions {
        let (Some(at), Some(command)) = (action.result, action.command.as_deref()) else {
            continue;
        };
        // Only what git printed for the commits and pushes this line ran.
        let steps = steps(command);
        branches.follow(&steps);
        let verbs: Vec<&str> = steps.iter().filter_map(|step| git_verb(step)).collect();
        let amends = steps
            .iter()
            .any(|step| git_verb(step) == Some("commit") && step.split_whitespace().any(|word| word == "--amend"));
        let result = &messages[at].content;
        if verbs.iter().any(|verb| COMMITTING.contains(verb)) {
            for found in COMMIT_LINE.captures_iter(result) {
                let hash = found[2].to_owned();
                if commits.iter().any(|known| known.hash == hash) {
                    continue;
                }
                let branch = found[1].to_owned();
                // An amended commit takes the place of the one it amends.
                if amends && let Some(last) = commits.iter().rposition(|c| c.branch == branch) {
                    commits.remove(last);
                }
                branches.current = Some(branch.clone());
                commits.push(Commit {
                    branch,
                    hash,
                    subject: one_line(&found[3], SUBJECT_CHARS),
                    message: action.message,
                    pushed: false,
                });
            }
        }
        if !verbs.contains(&"push") {
            continue;
        }
        let last_branch = commits.last().map(|c| c.branch.clone());
        for found in PUSHED_RANGE.captures_iter(result) {
            let upto = &found[1];
            let branch = local_branch(&found[2], last_branch.as_deref()).to_owned();
            // Everything on the branch up to the pushed hash went with it.
            if let Some(last) = commits
                .iter()
                .rposition(|c| c.branch == branch && (upto.starts_with(&c.hash) || c.hash.starts_with(upto)))
            {
                for commit in commits[..=last].iter_mut().filter(|c| c.branch == branch) {
                    commit.pushed = true;
                }
            }
        }
        for found in PUSHED_NEW.captures_iter(result) {
            let branch = local_branch(&found[1], last_branch.as_deref()).to_owned();
            // A new branch nothing was committed on, made from where the
            // work stood (`git checkout -b`): its commits went with it, and
            // that branch is where the work is now.
            let origin = branches.origin(&branch);
            if !commits.iter().any(|c| c.branch == branch)
                && let Some(from) = &origin
            {
                for commit in commits.iter_mut().filter(|c| &c.branch == from) {
                    commit.branch = branch.clone();
                }
            }
            for commit in commits.iter_mut().filter(|c| c.branch == branch) {
                commit.pushed = true;
            }
        }
    }
    commits
}

/// The commits line: the latest commits with their hashes and subjects, on
/// which branch, how far it was pushed, and what changed since the last
/// one (`changed`: the files each message changed); `None` when the agent
/// made no commit.
pub(crate) fn commits_line(messages: &[Message], changed: &[Vec<String>], actions: &[Action]) -> Option<String> {
    let commits = read_commits(messages, actions);
    let Some(last) = commits.last() else {
        return nothing_committed(messages, changed, actions);
    };
    let earlier = commits.len().saturating_sub(SHOWN);
    let mut shown: Vec<String> = commits[earlier..]
        .iter()
        .map(|commit| format!("{} {}", commit.hash, commit.subject))
        .collect();
    if earlier > 0 {
        shown.insert(0, format!("{earlier} earlier"));
    }
    let branches: Vec<&str> = commits.iter().fold(Vec::new(), |mut names, c| {
        if !names.contains(&c.branch.as_str()) {
            names.push(c.branch.as_str());
        }
        names
    });
    let pushed = match commits.iter().rposition(|c| c.pushed) {
        Some(at) if at + 1 == commits.len() => "all pushed".to_owned(),
        Some(at) => format!("pushed through {}, not {}", commits[at].hash, last.hash),
        None => "none pushed".to_owned(),
    };
    let since = names_changed(&changed[last.message + 1..]);
    let uncommitted = if since.is_empty() {
        String::new()
    } else {
        format!(
            "; changed since the last commit: {}",
            some_of(&since, UNCOMMITTED_SHOWN)
        )
    };
    Some(format!(
        "{} (on {}; {pushed}){uncommitted}",
        shown.join("; "),
        branches.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};
    use crate::summary::read::files::files_changed;
    use crate::summary::read::outcome::actions;

    fn bash(id: &str, command: &str) -> Message {
        call(id, "Bash", &serde_json::json!({ "command": command }).to_string())
    }

    fn line(messages: &[Message]) -> Option<String> {
        let changed: Vec<Vec<String>> = messages.iter().map(files_changed).collect();
        commits_line(messages, &changed, &actions(messages))
    }

    #[test]
    fn commits_are_listed_with_their_branch_and_how_far_it_was_pushed() {
        let messages = vec![
            bash(
                "1",
                "git add . && git commit -m \"$(cat <<'EOF'\nfeat: annotations\n\nLong body.\nEOF\n)\"",
            ),
            result(
                "1",
                "[spotter-gqc 99b497c] feat: annotations\n 12 files changed, 420 insertions(+)",
            ),
            bash("2", "git push"),
            result("2", "fatal: The current branch spotter-gqc has no upstream branch."),
            bash("3", "git push --set-upstream origin spotter-gqc"),
            result("3", " * [new branch]      spotter-gqc -> spotter-gqc"),
            bash("4", "git commit -am 'feat: annotation state' && git push"),
            result(
                "4",
                "[spotter-gqc ceff8c3] feat: annotation state\n 3 files changed\nTo github.com:m/s.git\n   99b497c..ceff8c3  spotter-gqc -> spotter-gqc",
            ),
            bash("5", "git commit -m 'feat: review page'"),
            result("5", "[spotter-gqc bb53fb4] feat: review page\n 4 files changed"),
            call(
                "6",
                "Edit",
                r#"{"file_path":"lib/spotter_web/live/project_review_live.ex","old_string":"a","new_string":"b"}"#,
            ),
            result("6", "ok"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some(
                "99b497c feat: annotations; ceff8c3 feat: annotation state; bb53fb4 feat: review page \
                 (on spotter-gqc; pushed through ceff8c3, not bb53fb4); changed since the last commit: project_review_live.ex"
            )
        );
    }

    #[test]
    fn commits_made_before_a_new_branch_was_pushed_went_with_it() {
        let messages = vec![
            bash("1", "git commit -m 'refactor: minimal redesign'"),
            result("1", "[main 661f0a3] refactor: minimal redesign\n 9 files changed"),
            bash("2", "git checkout -b refactor/minimal 2>&1"),
            result("2", "Switched to a new branch 'refactor/minimal'"),
            bash("3", "git push -u origin refactor/minimal 2>&1"),
            result(
                "3",
                "To https://github.com/t/me.git\n * [new branch]      refactor/minimal -> refactor/minimal",
            ),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some("661f0a3 refactor: minimal redesign (on refactor/minimal; all pushed)")
        );
    }

    #[test]
    fn a_new_branch_made_from_elsewhere_takes_no_commits_with_it() {
        let messages = vec![
            bash("1", "git commit -m 'wip parser'"),
            result("1", "[feature-a 1a2b3c4] wip parser"),
            bash(
                "2",
                "git checkout main && git checkout -b hotfix && git push -u origin hotfix",
            ),
            result("2", " * [new branch]      hotfix -> hotfix"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some("1a2b3c4 wip parser (on feature-a; none pushed)")
        );
    }

    #[test]
    fn a_root_commit_and_many_commits_are_shown_the_latest_first_counted() {
        let mut messages = vec![bash("0", "git init && git commit -m 'chore: init'")];
        messages.push(result("0", "[main (root-commit) 377a873] chore: init"));
        for n in 1..=9 {
            messages.push(bash(&n.to_string(), &format!("git commit -m 'feat: part {n}'")));
            messages.push(result(
                &n.to_string(),
                &format!("[main {n}{n}{n}{n}abc] feat: part {n}"),
            ));
        }
        let text = line(&messages).unwrap();
        assert!(text.starts_with("2 earlier; 2222abc feat: part 2;"), "{text}");
        assert!(text.ends_with("9999abc feat: part 9 (on main; none pushed)"), "{text}");
    }

    #[test]
    fn files_changed_in_a_repository_with_no_commit_after_are_said_not_committed() {
        let mut messages = vec![
            bash("1", "git checkout feat/phase-12"),
            result("1", "Switched to branch 'feat/phase-12'"),
        ];
        messages.push(call(
            "2",
            "Edit",
            r#"{"file_path":"apps/web/src/stores/auth.store.ts","old_string":"a","new_string":"b"}"#,
        ));
        messages.push(result(
            "2",
            "The file apps/web/src/stores/auth.store.ts has been updated.",
        ));
        assert_eq!(
            line(&messages).as_deref(),
            Some("none made; changed, not committed: auth.store.ts")
        );
        assert_eq!(line(&messages[2..]), None, "without git, nothing is said of commits");
        messages.push(bash("3", "gt create -m 'feat: email'"));
        messages.push(result("3", "[feat/phase-12 1a2b3c4] feat: email\n 1 file changed"));
        assert_eq!(line(&messages), None, "a commit made another way is no 'none made'");
        messages.truncate(4);
        messages.push(bash("3", "git commit -qam 'feat: email'"));
        messages.push(result("3", ""));
        assert_eq!(line(&messages), None, "a quiet commit may have been made");
    }

    #[test]
    fn no_commit_no_line_and_what_only_looks_like_one_is_none() {
        let messages = vec![
            bash("1", "cargo test"),
            result("1", "[main 1234567] looks like a commit but cargo printed it"),
            bash("2", "cat .github/fixtures/log.txt"),
            result("2", "[main 7654321] a commit in a file that was read"),
            bash("3", "git log --oneline -3"),
            result(
                "3",
                "99b497c feat: annotations\n[main 1111111] a subject that looks printed",
            ),
            bash("4", "git status"),
            result("4", "On branch main\nnothing to commit"),
        ];
        assert_eq!(line(&messages), None);
    }

    #[test]
    fn a_fetch_is_no_push_an_amend_replaces_its_commit_and_a_detached_head_commits_too() {
        let messages = vec![
            bash("1", "git commit -m 'feat: a'"),
            result("1", "[feat 1111111] feat: a"),
            bash("2", "git fetch origin"),
            result("2", " * [new branch]      feat       -> origin/feat"),
            bash("3", "git commit --amend --no-edit"),
            result("3", "[feat 2222222] feat: a"),
            bash("4", "git -C /repo commit -m 'wip'"),
            result("4", "[detached HEAD 3333333] wip"),
        ];
        assert_eq!(
            line(&messages).as_deref(),
            Some("2222222 feat: a; 3333333 wip (on feat, detached HEAD; none pushed)")
        );
    }
}
