//! What is worth giving back to an agent whose harness wrote its own
//! summary (issue 39): the keep set without what only looked like an item
//! there, and the harness's text with the paths it names by another
//! spelling. Graders of the hook on real Claude Code sessions called half
//! of what it gave back noise: files its summary held by their path in the
//! project, files the agent only read, folders, commands run once (`ls`,
//! `grep`, `git status`, a task closed), bare counts.

use super::check_commands::check_of;
use super::extract::file_name;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use super::KeepKind;
use super::set::{KeepItem, KeepSet, Tier};

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

/// The folders kept paths lie under, each looked up at once.
struct Paths<'a> {
    /// Every folder a kept path lies under (`/p`, `/p/lib` of `/p/lib/a.ex`).
    folders: HashSet<&'a str>,
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
        Self { folders }
    }

    /// `scripts/`, or `scripts` where `scripts/run.sh` is kept too.
    fn is_folder(&self, path: &str) -> bool {
        path.ends_with(['/', '\\']) || self.folders.contains(path)
    }
}

fn only_looked_at(item: &KeepItem, paths: &Paths) -> bool {
    let named_by_agent = matches!(item.tier(), Some(Tier::NamedByAssistant | Tier::SeenInToolOutput));
    match item.kind {
        KeepKind::FileChanged => paths.is_folder(&item.text),
        // A file the agent only read: its summary names those that mattered
        // (graders called 24 of 26 such paths noise or repeated); one only
        // ever in tool output is given back to nobody.
        KeepKind::Path => named_by_agent || item.tier().is_none(),
        // A check is run again; the rest the agent did once (a look, a
        // push, a task closed) and get_keep_set still lists.
        KeepKind::Command if named_by_agent => check_of(&item.text).is_none(),
        KeepKind::Quantity if named_by_agent => is_count(&item.text),
        _ => false,
    }
}

/// A count standing alone (`84 tests`, `Total: 0`): what it counted is not
/// said, and it is out of date by the next run.
fn is_count(quantity: &str) -> bool {
    TALLY.is_match(quantity.trim()) || super::quantities::is_count(quantity)
}

/// A tally line's figure: `Total: 0`, `Done: 5`.
static TALLY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Z][a-z]+:\s*\d{1,3}$").expect("a valid pattern"));

/// What `text` (a harness's summary) names by another spelling than the
/// keep set's: a kept absolute path by its place in the project
/// (`lib/a/b.ex` for `/home/u/proj/lib/a/b.ex`), a kept relative path by an
/// absolute one ending in it, a kept path by its file's name where no other
/// kept path has that name (`mix.exs`). One kept path a line, for the fit
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
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|item| named(item))
        .map(|item| item.text.as_str())
        .filter(|text| seen.insert(*text))
        .collect::<Vec<_>>()
        .join("\n")
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
    use super::super::kinds::Source;
    use super::super::set::Place;
    use super::*;

    fn set_of(items: &[(KeepKind, &str, Source)]) -> KeepSet {
        let mut set = KeepSet::default();
        for (turn, (kind, text, source)) in items.iter().enumerate() {
            set.observe(&[Sighting::new(*kind, *text, *source)], &Place::of_turn(turn as i64));
        }
        set
    }

    fn texts(set: &KeepSet) -> Vec<&str> {
        set.items().iter().map(|item| item.text.as_str()).collect()
    }

    #[test]
    fn what_the_agent_only_looked_at_is_not_given_back() {
        let set = set_of(&[
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
