//! What is worth giving back to an agent whose harness wrote its own
//! summary (issue 39): the keep set without what only looked like an item
//! there, and the harness's text with the paths it names by another
//! spelling. Graders of the hook on real Claude Code sessions called half
//! of what it gave back noise: files its summary held by their path in the
//! project, files the agent only read, folders, commands run once (`ls`,
//! `grep`, `git status`, a task closed), bare counts. How the kept paths
//! are read is [`paths`]; which commands are the project's checks,
//! [`project_check`].

mod paths;
mod project_check;

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use paths::{Paths, is_absolute, is_path_like, segments, tails};
use project_check::is_project_check;

use super::set::{KeepItem, KeepSet, Tier};
use crate::summary::kinds::{KeepKind, Source};
use crate::summary::read::files::file_name;

/// The set as a harness's agent would want it given back: what the agent
/// named in passing (a file it read, a folder it listed, a command other
/// than a check, a count) goes. The user's own items, requests, rules and
/// files changed stay, but for a folder that is one only because files
/// under it changed.
pub(crate) fn worth_giving_back(set: &KeepSet) -> KeepSet {
    let paths = Paths::of(set);
    let kept = set
        .items()
        .iter()
        .filter(|item| !only_looked_at(item, &paths))
        .cloned()
        .collect();
    KeepSet::new(kept, set.clock())
}

fn only_looked_at(item: &KeepItem, paths: &Paths) -> bool {
    let named_by_agent = matches!(item.tier(), Some(Tier::NamedByAssistant | Tier::SeenInToolOutput));
    match item.kind {
        // A file deleted since is no file of the project's (graders: a
        // migration written, then removed, listed as changed misleads).
        KeepKind::FileChanged => {
            paths.is_folder(&item.text) || is_harness_scratch(&item.text) || paths.deleted.contains(item.text.as_str())
        }
        // A file the agent only read: its summary names those that mattered
        // (graders called 24 of 26 such paths noise or repeated); one only
        // ever in tool output is given back to nobody.
        KeepKind::Path => named_by_agent || item.tier().is_none(),
        // The project's check, run again and again; the rest the agent did
        // once (a look, a push, a task closed, a test of one file, a check
        // it ran a single time) and get_keep_set still lists.
        KeepKind::Command if named_by_agent => item.times_seen < 2 || !is_project_check(&item.text),
        // A page the agent only fetched was a lookup (graders: noise); one
        // it wrote about (a pull request it opened) is not.
        KeepKind::Url if named_by_agent => !item.sources.contains(Source::Assistant),
        KeepKind::Quantity if named_by_agent => is_count(&item.text),
        _ => false,
    }
}

/// A file the harness keeps for itself (Claude Code's plan files), not one
/// of the project's.
fn is_harness_scratch(path: &str) -> bool {
    path.replace('\\', "/").contains("/.claude/plans/")
}

/// A count standing alone (`84 tests`, `Total: 0`): what it counted is not
/// said, and it is out of date by the next run.
fn is_count(quantity: &str) -> bool {
    TALLY.is_match(quantity.trim()) || crate::summary::read::quantities::is_count(quantity)
}

/// A tally line's figure: `Total: 0`, `Done: 5`.
static TALLY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Z][a-z]+:\s*\d{1,3}$").expect("a valid pattern"));

/// What `text` (a harness's summary) names by another spelling than the
/// keep set's: a kept absolute path by its place in the project
/// (`lib/a/b.ex` for `/home/u/proj/lib/a/b.ex`), a kept relative path by an
/// absolute one ending in it, a kept path by its file's name where no other
/// kept path has that name (`mix.exs`); and the agent's commands it holds
/// in substance (`credo --strict` for `mix credo --strict`). One a line, for the fit
/// to find beside the text. A path's tail has two segments at least: that
/// of a relative path could be another file's (`lib/src/a.rs` is not
/// `src/a.rs`).
pub(crate) fn spelled_otherwise(text: &str, set: &KeepSet) -> String {
    let words: HashSet<&str> = text
        .split(|c: char| c.is_whitespace() || "`\"'()[]{}<>,;|*".contains(c))
        .map(|word| word.trim_end_matches(['.', ':', '!', '?']).trim_start_matches("./"))
        .filter(|word| word.len() > 2)
        .collect();
    // The tails of the absolute paths the text names, for a kept relative one.
    let absolute_tails: HashSet<&str> = words
        .iter()
        .filter(|word| is_absolute(word))
        .flat_map(|word| tails(word))
        .collect();
    let paths: Vec<&KeepItem> = set.items().iter().filter(|item| is_path_like(item.kind)).collect();
    // The files of each name: a bare name kept beside a path is no second
    // file of that name, nor a path kept as a path and as a file changed.
    let mut names: HashMap<&str, HashSet<&str>> = HashMap::new();
    for item in paths.iter().filter(|item| item.text.contains(['/', '\\'])) {
        names.entry(file_name(&item.text)).or_default().insert(&item.text);
    }
    let one_file = |name: &str| names.get(name).is_some_and(|files| files.len() == 1);
    let named = |item: &KeepItem| {
        let path = item.text.as_str();
        let name = file_name(path);
        if is_absolute(path) {
            tails(path).any(|tail| words.contains(tail))
                || (name.contains('.') && name != path && words.contains(name) && one_file(name))
        } else {
            (segments(path) >= 2 && absolute_tails.contains(path))
                || (name.contains('.') && name != path && words.contains(name) && one_file(name))
        }
    };
    let lowered: HashSet<String> = text
        .split(|c: char| c.is_whitespace() || "`\"'()[]{}<>,;|*".contains(c))
        .map(|word| word.trim_end_matches(['.', ':', '!', '?']).to_lowercase())
        .filter(|word| !word.is_empty())
        .collect();
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|item| named(item))
        .chain(set.items().iter().filter(|item| {
            item.kind == KeepKind::Command
                && matches!(item.tier(), Some(Tier::NamedByAssistant | Tier::SeenInToolOutput))
                && held_in_substance(&item.text, &lowered)
        }))
        .map(|item| item.text.as_str())
        .filter(|text| seen.insert(*text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `words` (a text's, lowercased) hold a command of the agent's in
/// substance: each of its words but the program, its output's filters
/// aside (`credo --strict` holds `mix credo --strict`, "run the tests"
/// does not hold `mix test`, "mix test passes" does).
fn held_in_substance(command: &str, words: &HashSet<String>) -> bool {
    let run = command.split('|').next().unwrap_or(command);
    let said: Vec<String> = run
        .split_whitespace()
        .filter(|word| !word.contains(['>', '&']))
        .map(|word| {
            word.trim_matches(['"', '\''])
                .trim_end_matches(['.', ':', '!', '?'])
                .to_lowercase()
        })
        .filter(|word| !word.is_empty())
        .collect();
    // One word past the program (`test` of `mix test`) is any prose's: the
    // program must be said too.
    let from = if said.len() > 2 { 1 } else { 0 };
    said.len() >= 2 && said[from..].iter().all(|word| words.contains(word))
}
#[cfg(test)]
mod tests {
    use super::super::Sighting;
    use super::super::set::Place;
    use super::*;
    use crate::summary::kinds::Source;
    use crate::summary::read::shell::changes_by;

    fn set_of(items: &[(KeepKind, &str, Source)]) -> KeepSet {
        let mut set = KeepSet::default();
        for (turn, (kind, text, source)) in items.iter().enumerate() {
            set.observe(&[Sighting::new(*kind, *text, *source)], &Place::of_turn(turn as i64));
        }
        set
    }

    /// Every command of `set` run a second time, as checks are.
    fn run_again(set: &mut KeepSet) {
        let commands: Vec<Sighting> = set
            .items()
            .iter()
            .filter(|item| item.kind == KeepKind::Command)
            .map(|item| Sighting::new(item.kind, item.text.as_str(), item.source))
            .collect();
        set.observe(&commands, &Place::of_turn(99));
    }

    fn texts(set: &KeepSet) -> Vec<&str> {
        set.items().iter().map(|item| item.text.as_str()).collect()
    }

    #[test]
    fn what_the_agent_only_looked_at_is_not_given_back() {
        let mut set = set_of(&[
            (KeepKind::FileChanged, "/p/lib/a.ex", Source::ToolCall),
            (KeepKind::FileChanged, "/p/scripts", Source::ToolCall),
            (KeepKind::FileChanged, "/p/scripts/run.sh", Source::ToolCall),
            (KeepKind::Path, "/p/lib", Source::ToolCall),
            (KeepKind::Path, "priv/scripts/", Source::Assistant),
            (KeepKind::Path, "a.ex", Source::Assistant),
            (KeepKind::Path, "b.ex", Source::Assistant),
            (KeepKind::Command, "ls -la | grep dialyzer", Source::ToolCall),
            (KeepKind::Command, "bash -n x.sh && echo \"ok\"", Source::ToolCall),
            (KeepKind::Command, "git status --short", Source::ToolCall),
            (KeepKind::Command, "mix test", Source::ToolCall),
            (KeepKind::Command, "git push", Source::ToolCall),
            (KeepKind::Command, "bd close proj-4.2", Source::ToolCall),
            (KeepKind::Command, "cargo clippy --all-targets", Source::ToolCall),
            (KeepKind::Quantity, "84 tests", Source::Assistant),
            (KeepKind::Quantity, "500ms", Source::Assistant),
            (KeepKind::Quantity, "Total: 0", Source::Assistant),
        ]);
        run_again(&mut set);
        assert_eq!(
            texts(&worth_giving_back(&set)),
            [
                "/p/lib/a.ex",
                "/p/scripts/run.sh",
                "mix test",
                "cargo clippy --all-targets",
                "500ms"
            ]
        );
    }

    #[test]
    fn only_the_projects_own_checks_pages_the_agent_wrote_about_and_its_files_are_given_back() {
        let mut set = set_of(&[
            (KeepKind::Command, "mix test test/a_test.exs", Source::ToolCall),
            (
                KeepKind::Command,
                "mix credo --strict lib/a.ex lib/b.ex",
                Source::ToolCall,
            ),
            (
                KeepKind::Command,
                "mix compile --warnings-as-errors && mix credo --strict",
                Source::ToolCall,
            ),
            (KeepKind::Command, "mix test --seed 0 2>&1 | tail -20", Source::ToolCall),
            (KeepKind::Command, "go test ./...", Source::ToolCall),
            (KeepKind::Command, "cd web && pnpm run test:unit", Source::ToolCall),
            (
                KeepKind::Command,
                "cargo clippy --all-targets -- -D warnings",
                Source::ToolCall,
            ),
            (KeepKind::Command, "mix test | xargs rm", Source::ToolCall),
            (
                KeepKind::Command,
                "go test ./... 2>&1 | grep -E 'FAIL|ok'",
                Source::ToolCall,
            ),
            (KeepKind::Command, "python manage.py test", Source::ToolCall),
            (KeepKind::Url, "https://hexdocs.pm/a/A.html", Source::ToolCall),
            (KeepKind::Url, "https://github.com/o/r/pull/12", Source::Assistant),
            (KeepKind::Url, "https://ci.example.com/runs/7", Source::User),
            (
                KeepKind::FileChanged,
                "/home/u/.claude/plans/drifting-whisper.md",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/home/u/p/.claude/settings.json",
                Source::ToolCall,
            ),
        ]);
        run_again(&mut set);
        // A check run a single time is a one-off.
        set.observe(
            &[Sighting::new(
                KeepKind::Command,
                "mix format --check-formatted",
                Source::ToolCall,
            )],
            &Place::of_turn(30),
        );
        assert_eq!(
            texts(&worth_giving_back(&set)),
            [
                "mix test --seed 0 2>&1 | tail -20",
                "go test ./...",
                "cd web && pnpm run test:unit",
                "cargo clippy --all-targets -- -D warnings",
                "go test ./... 2>&1 | grep -E 'FAIL|ok'",
                "python manage.py test",
                "https://github.com/o/r/pull/12",
                "https://ci.example.com/runs/7",
                "/home/u/p/.claude/settings.json",
            ]
        );
    }

    #[test]
    fn a_file_deleted_after_its_last_write_is_not_given_back_as_changed() {
        let mut set = set_of(&[
            (KeepKind::FileChanged, "/p/priv/migrations/1_add.exs", Source::ToolCall),
            (KeepKind::FileChanged, "/p/lib/a.ex", Source::ToolCall),
        ]);
        // One tool call: the command and the files it deletes.
        let rm = "rm /p/priv/migrations/1_add.exs /p/lib/a.ex";
        let call: Vec<Sighting> = std::iter::once(Sighting::new(KeepKind::Command, rm, Source::ToolCall))
            .chain(
                changes_by(rm)
                    .files
                    .into_iter()
                    .map(|file| Sighting::new(KeepKind::FileChanged, file, Source::ToolCall)),
            )
            .collect();
        set.observe(&call, &Place::of_turn(2));
        // Written again after it was deleted: it is there.
        set.observe(
            &[Sighting::new(KeepKind::FileChanged, "/p/lib/a.ex", Source::ToolCall)],
            &Place::of_turn(3),
        );
        assert_eq!(texts(&worth_giving_back(&set)), ["/p/lib/a.ex"]);
    }

    #[test]
    fn a_command_the_summary_says_in_substance_is_held() {
        let set = set_of(&[
            (KeepKind::Command, "mix credo --strict", Source::ToolCall),
            (KeepKind::Command, "mix test", Source::ToolCall),
            (KeepKind::Command, "mix compile --warnings-as-errors", Source::ToolCall),
            (KeepKind::Command, "git status", Source::User),
        ]);
        let text = "Pre-commit: `credo --strict` is clean, mix test passes; mix compile too. git status shows nothing.";
        assert_eq!(spelled_otherwise(text, &set), "mix credo --strict\nmix test");
        assert_eq!(spelled_otherwise("Run the tests.", &set), "");
        assert_eq!(
            spelled_otherwise("Added a test; the build compiles.", &set),
            "",
            "a word of prose is no command"
        );
    }

    #[test]
    fn what_the_user_named_is_given_back_whatever_it_is() {
        let set = set_of(&[
            (KeepKind::Command, "git status", Source::User),
            (KeepKind::Path, "lib", Source::User),
            (KeepKind::Path, "lib/a.ex", Source::Assistant),
        ]);
        assert_eq!(texts(&worth_giving_back(&set)), ["git status", "lib"]);
    }

    #[test]
    fn a_path_in_the_project_is_the_absolute_path_it_ends() {
        let set = set_of(&[
            (KeepKind::FileChanged, "/home/u/p/lib/web/live.ex", Source::ToolCall),
            (KeepKind::FileChanged, "/home/u/p/mix.exs", Source::ToolCall),
            (KeepKind::Path, "src/billing/retry.rs", Source::Assistant),
            (KeepKind::Path, "src/a.rs", Source::Assistant),
        ]);
        let text = "Edited `lib/web/live.ex` and **mix.exs**; see /repo/src/billing/retry.rs. Also lib/src/a.rs.";
        assert_eq!(
            spelled_otherwise(text, &set),
            "/home/u/p/lib/web/live.ex\n/home/u/p/mix.exs\nsrc/billing/retry.rs"
        );
        assert_eq!(spelled_otherwise("Edited web/other/live.ex", &set), "");
        assert_eq!(spelled_otherwise("Edited a.rs", &set), "src/a.rs");
    }

    #[test]
    fn a_file_name_two_kept_paths_share_spells_neither() {
        let set = set_of(&[
            (KeepKind::FileChanged, "/p/config/dev.exs", Source::ToolCall),
            (KeepKind::FileChanged, "/p/rel/dev.exs", Source::ToolCall),
            (KeepKind::FileChanged, "/p/lib/app.ex", Source::ToolCall),
            (KeepKind::Path, "app.ex", Source::User),
            (KeepKind::Path, "/p/lib/app.ex", Source::Assistant),
        ]);
        assert_eq!(spelled_otherwise("Updated dev.exs and app.ex", &set), "/p/lib/app.ex");
    }
}
