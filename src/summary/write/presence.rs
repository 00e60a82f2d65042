//! Whether a text holds an item word for word (SPEC §4, the keep guard):
//! whitespace does not count, and a name counts only where it stands on its
//! own (`src/a.rs` is not in `xsrc/a.rs.bak`).

use super::render::expanded;
use crate::summary::keep::set::KeepItem;
use crate::summary::kinds::KeepKind;

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
    let standing = Standing::of(item.kind);
    if matches!(standing, Standing::Anywhere) {
        return haystack.contains(&needle);
    }
    // Every occurrence, overlapping ones too: `ab a` stands on its own at
    // the second place it occurs in `ab ab a`.
    occurrences(haystack, &needle).any(|at| {
        let (alone, folder) = standing_at(haystack, at, at + needle.len());
        alone || (folder && matches!(standing, Standing::AloneOrFolder))
    })
}

/// Where `needle` starts in `haystack`, overlapping occurrences included.
fn occurrences<'a>(haystack: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + haystack.get(from..)?.find(needle)?;
        from = at + haystack[at..].chars().next().map_or(1, char::len_utf8);
        Some(at)
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

    /// Whether it holds each of `items`, the summary read once for all.
    pub fn holds_each(&self, items: &[&KeepItem]) -> Vec<bool> {
        Finder::new(items.iter().copied()).held(&self.0).as_ref().clone()
    }
}

/// How an item must stand in a text to be held there.
#[derive(Debug, Clone, Copy)]
enum Standing {
    /// Anywhere: a sentence (a request, a rule, a command).
    Anywhere,
    /// On its own: a name.
    Alone,
    /// On its own, or as the folder of a name that follows (`src/` in
    /// `src/a.rs`): a path or a file changed.
    AloneOrFolder,
}

impl Standing {
    const fn of(kind: KeepKind) -> Self {
        match kind {
            KeepKind::Request | KeepKind::Prohibition | KeepKind::Command => Self::Anywhere,
            KeepKind::FileChanged | KeepKind::Path => Self::AloneOrFolder,
            _ => Self::Alone,
        }
    }
}

/// Texts whose answers are kept: a fit asks about a handful of texts, each
/// many times.
const TEXTS_REMEMBERED: usize = 16;

/// Which of many items a text holds word for word, as [`holds`] says, with
/// the text read once however many items are asked about (issue 37: asked
/// one item at a time, 20,000 items against a 262,144-character summary
/// took seconds of a core, every time the summary was fitted).
pub(super) struct Finder {
    /// `None` when there is nothing to find, or the automaton could not be
    /// built: the patterns are then looked for one by one.
    automaton: Option<aho_corasick::AhoCorasick>,
    patterns: Vec<String>,
    /// Each item's pattern and how it must stand; `None`: nothing to find
    /// (an empty item, which every text holds).
    items: Vec<Option<(usize, Standing)>>,
    /// The texts asked about and their answers.
    remembered: std::cell::RefCell<Vec<Remembered>>,
}

/// A text asked about and the answer given.
type Remembered = (std::rc::Rc<str>, std::rc::Rc<Vec<bool>>);

impl Finder {
    /// A finder for `items`, answering by their order.
    pub(super) fn new<'a>(items: impl IntoIterator<Item = &'a KeepItem>) -> Self {
        Self::of_names(items.into_iter().map(|item| (item.kind, item.text.as_str())))
    }

    /// A finder for texts of a kind that are no keep item (the names a line
    /// of where things stand holds), each standing as an item of its kind.
    pub(super) fn of_names<'a>(names: impl IntoIterator<Item = (KeepKind, &'a str)>) -> Self {
        let mut ids: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut patterns: Vec<String> = Vec::new();
        let items = names
            .into_iter()
            .map(|(kind, text)| {
                let needle = squeezed(text);
                if needle.is_empty() {
                    return None;
                }
                let id = *ids.entry(needle).or_insert_with_key(|needle| {
                    patterns.push(needle.clone());
                    patterns.len() - 1
                });
                Some((id, Standing::of(kind)))
            })
            .collect();
        let automaton = (!patterns.is_empty())
            .then(|| {
                aho_corasick::AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::Standard)
                    .build(&patterns)
                    .ok()
            })
            .flatten();
        Self {
            automaton,
            patterns,
            items,
            remembered: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// For each item, whether `haystack` (squeezed) holds it.
    pub(super) fn held(&self, haystack: &str) -> std::rc::Rc<Vec<bool>> {
        if let Some((_, held)) = self
            .remembered
            .borrow()
            .iter()
            .find(|(text, _)| text.as_ref() == haystack)
        {
            return held.clone();
        }
        let held = std::rc::Rc::new(self.find(haystack));
        let mut remembered = self.remembered.borrow_mut();
        if remembered.len() == TEXTS_REMEMBERED {
            remembered.remove(0);
        }
        remembered.push((haystack.into(), held.clone()));
        held
    }

    fn find(&self, haystack: &str) -> Vec<bool> {
        // Per pattern: found anywhere, on its own, on its own or as a folder.
        let mut found = vec![[false; 3]; self.patterns.len()];
        let mut saw = |pattern: usize, start: usize, end: usize| {
            let seen = &mut found[pattern];
            seen[0] = true;
            if !seen[1] {
                let (alone, folder) = standing_at(haystack, start, end);
                seen[1] |= alone;
                seen[2] |= alone || folder;
            }
        };
        match &self.automaton {
            Some(automaton) => {
                for at in automaton.find_overlapping_iter(haystack) {
                    saw(at.pattern().as_usize(), at.start(), at.end());
                }
            }
            None => {
                for (pattern, needle) in self.patterns.iter().enumerate() {
                    for start in occurrences(haystack, needle) {
                        saw(pattern, start, start + needle.len());
                    }
                }
            }
        }
        self.items
            .iter()
            .map(|item| match item {
                None => true,
                Some((pattern, Standing::Anywhere)) => found[*pattern][0],
                Some((pattern, Standing::Alone)) => found[*pattern][1],
                Some((pattern, Standing::AloneOrFolder)) => found[*pattern][2],
            })
            .collect()
    }
}

/// Whether the text found at `start..end` stands on its own, and whether it
/// stands as the folder of a name that follows (a folder is named where a
/// file inside it is named in full).
fn standing_at(haystack: &str, start: usize, end: usize) -> (bool, bool) {
    let before = haystack[..start].chars().next_back();
    if !before.is_none_or(|c| !is_name_char(c) && c != '.') {
        return (false, false);
    }
    let mut after = haystack[end..].chars();
    match after.next() {
        None => (true, false),
        Some('.') => (after.next().is_none_or(|c| !c.is_alphanumeric()), false),
        Some('/') => (false, true),
        Some(c) => (!is_name_char(c), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::keep::set::{KeepSet, Place};
    use crate::summary::keep::{Sighting, Source};

    fn items(list: &[(KeepKind, &str)]) -> Vec<KeepItem> {
        let mut set = KeepSet::default();
        let place = Place::of_turn(1);
        for (kind, text) in list {
            set.observe(&[Sighting::new(*kind, *text, Source::User)], &place);
        }
        set.items().to_vec()
    }

    /// The finder's answers are `holds`'s, item by item.
    fn agree(list: &[KeepItem], haystack: &str) {
        let finder = Finder::new(list);
        let held = finder.held(haystack);
        for (item, held) in list.iter().zip(held.iter()) {
            assert_eq!(
                *held,
                holds(haystack, item),
                "{:?} {:?} in {haystack:?}",
                item.kind,
                item.text
            );
        }
    }

    #[test]
    fn the_finder_answers_as_holds_does_on_names_folders_and_sentences() {
        let list = items(&[
            (KeepKind::Path, "src/a.rs"),
            (KeepKind::Path, "src"),
            (KeepKind::Id, "ABC-123"),
            (KeepKind::FileChanged, "src/billing"),
            (KeepKind::Command, "cargo test"),
            (KeepKind::Prohibition, "Don't touch prod."),
            (KeepKind::Url, "https://example.com/a"),
            (KeepKind::Id, "v1.2"),
            (KeepKind::Id, "ab a"),
        ]);
        for haystack in [
            "ab ab a",
            "we read src/a.rs and ran cargo test",
            "xsrc/a.rs.bak and src/a.rsx, ABC-1234, ABC-123.",
            "see src/billing/retry.rs; Don't touch prod. ok",
            "https://example.com/a/b v1.2.3 v1.2. src",
            "",
            "src/a.rs",
        ] {
            agree(&list, &squeezed(haystack));
        }
    }

    #[test]
    fn the_finder_agrees_with_holds_on_random_texts() {
        let alphabet = ['a', 'b', '/', '.', '-', ' ', 'é', '_'];
        let word = |rng: &mut fastrand::Rng, most: usize| -> String {
            (0..rng.usize(1..=most))
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect()
        };
        let mut rng = fastrand::Rng::with_seed(37);
        let kinds = [KeepKind::Path, KeepKind::Id, KeepKind::FileChanged, KeepKind::Command];
        for _ in 0..200 {
            let list: Vec<(KeepKind, String)> = (0..12)
                .map(|_| (kinds[rng.usize(..kinds.len())], word(&mut rng, 4)))
                .collect();
            let borrowed: Vec<(KeepKind, &str)> = list.iter().map(|(k, t)| (*k, t.as_str())).collect();
            let list = items(&borrowed);
            agree(&list, &squeezed(&word(&mut rng, 60)));
        }
    }

    #[test]
    fn twenty_thousand_items_against_the_longest_text_are_found_in_one_pass() {
        let texts: Vec<String> = (0..20_000).map(|n| format!("src/module_{n}/file_{n}.rs")).collect();
        let borrowed: Vec<(KeepKind, &str)> = texts.iter().map(|t| (KeepKind::Path, t.as_str())).collect();
        let list = items(&borrowed);
        let haystack: String = (0..262_144 / 32)
            .map(|n| format!("src/module_{n}/file_{n}.rs "))
            .collect();
        let finder = Finder::new(&list);

        let held = finder.held(&squeezed(&haystack));

        let expected = list
            .iter()
            .filter(|item| haystack.split(' ').any(|word| word == item.text))
            .count();
        assert_eq!(held.iter().filter(|h| **h).count(), expected);
        assert!(
            std::rc::Rc::ptr_eq(&held, &finder.held(&squeezed(&haystack))),
            "asked again, not read again"
        );
    }
}
