//! Whether a text holds an item word for word (SPEC §4, the keep guard):
//! whitespace does not count, and a name counts only where it stands on its
//! own (`src/a.rs` is not in `xsrc/a.rs.bak`).

use super::KeepKind;
use super::render::expanded;
use super::set::KeepItem;

pub(super) fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '/' | '\\' | '-')
}

/// Whether `haystack` (squeezed) holds `item` word for word: a sentence
/// anywhere, a name only where it stands on its own (`src/a.rs` is not in
/// `xsrc/a.rs.bak`).
pub(super) fn holds(haystack: &str, item: &KeepItem) -> bool {
    let needle = squeezed(&item.text);
    if needle.is_empty() {
        return true;
    }
    if matches!(item.kind, KeepKind::Request | KeepKind::Prohibition | KeepKind::Command) {
        return haystack.contains(&needle);
    }
    haystack.match_indices(&needle).any(|(at, _)| {
        let before = haystack[..at].chars().next_back();
        let rest = &haystack[at + needle.len()..];
        let mut after = rest.chars();
        let free_before = before.is_none_or(|c| !is_name_char(c) && c != '.');
        let free_after = match after.next() {
            None => true,
            Some('.') => after.next().is_none_or(|c| !c.is_alphanumeric()),
            // A folder is named where a file inside it is named in full.
            Some('/') => matches!(item.kind, KeepKind::FileChanged | KeepKind::Path),
            Some(c) => !is_name_char(c),
        };
        free_before && free_after
    })
}

/// A summary, ready to be asked which items it holds word for word.
#[derive(Debug, Clone)]
pub struct Presence(String);

impl Presence {
    pub fn of(summary: &str) -> Self {
        Self(squeezed(&expanded(summary)))
    }

    pub fn holds(&self, item: &KeepItem) -> bool {
        holds(&self.0, item)
    }
}
