//! The files an agent's tool calls changed, named as a reader would: once
//! each, by the file's name, with its folder where two share a name.

use super::tool_calls::{Named, called};
use crate::domain::transcript::{Message, Role};
use crate::summary::kinds::KeepKind;

/// What each of an assistant message's tool calls names (nothing for
/// another role's): read once, for the files it changed and the keep set.
pub(crate) fn calls_named(message: &Message) -> Vec<Named> {
    if message.role != Role::Assistant {
        return Vec::new();
    }
    message
        .tool_calls
        .iter()
        .map(|call| called(&call.name, &call.arguments))
        .collect()
}

/// The files a message's tool calls (`calls`: what each named) created,
/// wrote, edited, moved or deleted, in order, once each: its
/// `file_changed` sightings, without reading the rest of it.
pub(crate) fn changed_by_calls(calls: &[Named]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for (kind, text) in calls.iter().flat_map(|named| &named.items) {
        if *kind == KeepKind::FileChanged && !files.contains(text) {
            files.push(text.clone());
        }
    }
    files
}

/// The files an assistant message's tool calls changed (see
/// [`changed_by_calls`]).
#[cfg(test)]
pub(crate) fn files_changed(message: &Message) -> Vec<String> {
    changed_by_calls(&calls_named(message))
}

/// A file's name without its folders (a line that names the request or the
/// check it belongs to; the full path is in the keep set's files changed).
pub(crate) fn file_name(path: &str) -> &str {
    path.trim_end_matches('/').rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Whether `file` lies inside `folder` (`src/a/b.rs` in `src/a`): a folder
/// made for a file it holds is named by that file.
pub(crate) fn is_inside(file: &str, folder: &str) -> bool {
    let folder = folder.trim_end_matches('/');
    file.strip_prefix(folder)
        .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
}

/// The files changed by messages whose [`changed_by_calls`] are `changed`, in
/// order, once each, each by its name (with its folder where two share a
/// name: `a/mod.rs`, `b/mod.rs`).
pub(crate) fn names_changed(changed: &[Vec<String>]) -> Vec<String> {
    let mut paths: Vec<&String> = Vec::new();
    for file in changed.iter().flatten() {
        if !paths.contains(&file) {
            paths.push(file);
        }
    }
    let shared = |name: &str| paths.iter().filter(|path| file_name(path) == name).count() > 1;
    paths
        .iter()
        .map(|path| {
            let name = file_name(path);
            if shared(name) {
                let folder = path
                    .trim_end_matches('/')
                    .rsplit(['/', '\\'])
                    .nth(1)
                    .unwrap_or_default();
                format!("{folder}/{name}")
            } else {
                name.to_owned()
            }
        })
        .collect()
}

/// `names` joined, the first `shown` of them and how many more.
pub(crate) fn some_of(names: &[String], shown: usize) -> String {
    match names.len().checked_sub(shown) {
        Some(more) if more > 0 => format!("{} and {more} more", names[..shown].join(", ")),
        _ => names.join(", "),
    }
}
