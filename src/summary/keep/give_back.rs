//! What is worth giving back to an agent whose harness wrote its own
//! summary (issue 39): the keep set without what only looked like an item
//! there, and the harness's text with the paths it names by another
//! spelling. Graders of the hook on real Claude Code sessions called half
//! of what it gave back noise: files its summary held by their path in the
//! project, files the agent only read, folders, commands run once (`ls`,
//! `grep`, `git status`, a task closed), bare counts.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use super::set::{KeepItem, KeepSet, Tier};
use crate::summary::kinds::{KeepKind, Source};
use crate::summary::read::check_commands::check_of;
use crate::summary::read::files::file_name;
use crate::summary::read::shell::changes_by;

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

fn is_path_like(kind: KeepKind) -> bool {
    matches!(kind, KeepKind::Path | KeepKind::FileChanged)
}

/// The folders kept paths lie under, and the files deleted, each looked up
/// at once.
struct Paths<'a> {
    /// Every folder a kept path lies under (`/p`, `/p/lib` of `/p/lib/a.ex`).
    folders: HashSet<&'a str>,
    /// Files changed that an agent's `rm` deleted after their last write.
    deleted: HashSet<&'a str>,
}

impl<'a> Paths<'a> {
    fn of(set: &'a KeepSet) -> Self {
        let mut folders = HashSet::new();
        for item in set.items().iter().filter(|item| is_path_like(item.kind)) {
            let path = item.text.trim_end_matches(['/', '\\']);
            for (at, _) in path.match_indices(['/', '\\']).filter(|(at, _)| *at > 0) {
                folders.insert(&path[..at]);
            }
        }
        Self {
            folders,
            deleted: deleted(set),
        }
    }

    /// `scripts/`, or `scripts` where `scripts/run.sh` is kept too.
    fn is_folder(&self, path: &str) -> bool {
        path.ends_with(['/', '\\']) || self.folders.contains(path)
    }
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

/// The files changed whose last change was an agent's command deleting
/// them: no write followed the `rm` (the same command's sighting of the
/// file shares its tick).
fn deleted(set: &KeepSet) -> HashSet<&str> {
    let files: HashMap<&str, u64> = set
        .items()
        .iter()
        .filter(|item| item.kind == KeepKind::FileChanged)
        .map(|item| (item.text.as_str(), item.last_tick))
        .collect();
    let mut deleted = HashSet::new();
    for command in set.items().iter().filter(|item| item.kind == KeepKind::Command) {
        for removed in changes_by(&command.text).removed {
            if let Some((file, last)) = files.get_key_value(removed.as_str())
                && *last <= command.last_tick
            {
                deleted.insert(*file);
            }
        }
    }
    deleted
}

/// A file the harness keeps for itself (Claude Code's plan files), not one
/// of the project's.
fn is_harness_scratch(path: &str) -> bool {
    path.replace('\\', "/").contains("/.claude/plans/")
}

/// A check of the whole project, as it is run again (`mix test`, `cargo
/// clippy --all-targets -- -D warnings`, `go test ./...`), its output
/// trimmed or not: not one run on a file or two (graders called those
/// one-offs of a finished task), nor several steps joined.
fn is_project_check(command: &str) -> bool {
    let command = command.trim();
    let command = command
        .strip_prefix("cd ")
        .and_then(|rest| rest.split_once("&&"))
        .map_or(command, |(_, rest)| rest);
    let mut stages = unquoted_pipes(command).into_iter();
    let check = stages.next().unwrap_or_default();
    let filters_only = stages.all(|filter| {
        let program = filter.split_whitespace().next().unwrap_or_default();
        matches!(program, "tail" | "head" | "grep" | "less" | "cat" | "tee")
    });
    // The script an interpreter runs is the program, not a file it checks
    // (`python manage.py test`, `php vendor/bin/phpunit`).
    let interpreted = check.split_whitespace().next().is_some_and(|program| {
        matches!(
            program,
            "python" | "python3" | "php" | "node" | "ruby" | "bash" | "sh" | "perl"
        )
    });
    filters_only
        && !check.contains("&&")
        && !check.contains("||")
        && !check.contains(';')
        && check_of(check).is_some()
        && !check
            .split_whitespace()
            .skip(if interpreted { 2 } else { 1 })
            .any(names_a_file)
}

/// A command line's stages: split at each `|` outside quotes (`grep -E
/// 'FAIL|ok'` is one stage), `||` left whole.
fn unquoted_pipes(command: &str) -> Vec<&str> {
    let mut stages = Vec::new();
    let (mut quote, mut start) = (None, 0);
    let bytes = command.as_bytes();
    for (at, byte) in bytes.iter().enumerate() {
        match (quote, *byte) {
            (Some(q), b) if b == q => quote = None,
            (None, b'\'' | b'"') => quote = Some(*byte),
            (None, b'|') if bytes.get(at + 1) != Some(&b'|') && (at == 0 || bytes[at - 1] != b'|') => {
                stages.push(&command[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    stages.push(&command[start..]);
    stages
}

/// An argument naming a file or folder: `test/a_test.exs`, `lib/`, `a.rs`;
/// not the whole tree (`./...`, `.`, `//...`), an option or a redirection.
fn names_a_file(word: &str) -> bool {
    let word = word.trim_matches(['"', '\'']);
    if word.starts_with('-') || word.contains(['>', '&', '=']) || matches!(word, "." | "./..." | "..." | "//...") {
        return false;
    }
    word.contains('/')
        || word.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && ext.len() <= 5
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        })
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

fn segments(path: &str) -> usize {
    path.split(['/', '\\']).filter(|segment| !segment.is_empty()).count()
}

/// What follows each separator of `path`, while two segments are left at
/// least: `b/c/d.rs`, `c/d.rs` of `/a/b/c/d.rs`.
fn tails(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices(['/', '\\'])
        .map(move |(at, _)| &path[at + 1..])
        .filter(|tail| !tail.is_empty() && segments(tail) >= 2)
}

fn is_absolute(path: &str) -> bool {
    path.starts_with(['/', '~']) || path.get(1..3).is_some_and(|drive| drive == ":\\" || drive == ":/")
}

#[cfg(test)]
mod tests {
    use super::super::Sighting;
    use super::super::set::Place;
    use super::*;
    use crate::summary::kinds::Source;

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
