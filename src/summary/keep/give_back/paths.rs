//! The keep set's paths as giving back reads them: which items name a path,
//! the folders kept paths lie under, the files deleted since, and a path's
//! tails (what a harness may spell it by).

use std::collections::{HashMap, HashSet};

use crate::summary::keep::set::KeepSet;
use crate::summary::kinds::KeepKind;
use crate::summary::read::shell::changes_by;

pub(super) fn is_path_like(kind: KeepKind) -> bool {
    matches!(kind, KeepKind::Path | KeepKind::FileChanged)
}

/// The folders kept paths lie under, and the files deleted, each looked up
/// at once.
pub(super) struct Paths<'a> {
    /// Every folder a kept path lies under (`/p`, `/p/lib` of `/p/lib/a.ex`).
    folders: HashSet<&'a str>,
    /// Files changed that an agent's `rm` deleted after their last write.
    pub(super) deleted: HashSet<&'a str>,
}

impl<'a> Paths<'a> {
    pub(super) fn of(set: &'a KeepSet) -> Self {
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
    pub(super) fn is_folder(&self, path: &str) -> bool {
        path.ends_with(['/', '\\']) || self.folders.contains(path)
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

pub(super) fn segments(path: &str) -> usize {
    path.split(['/', '\\']).filter(|segment| !segment.is_empty()).count()
}

/// What follows each separator of `path`, while two segments are left at
/// least: `b/c/d.rs`, `c/d.rs` of `/a/b/c/d.rs`.
pub(super) fn tails(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices(['/', '\\'])
        .map(move |(at, _)| &path[at + 1..])
        .filter(|tail| !tail.is_empty() && segments(tail) >= 2)
}

pub(super) fn is_absolute(path: &str) -> bool {
    path.starts_with(['/', '~']) || path.get(1..3).is_some_and(|drive| drive == ":\\" || drive == ":/")
}
