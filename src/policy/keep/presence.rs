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
/// `xsrc/a.rs.bak`). A path is held relative or absolute: `src/a.rs` by
/// `/repo/src/a.rs`, and `/repo/src/a.rs` by `src/a.rs` (an agent's tools
/// name files from the root, its summaries from the project).
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
    spellings(standing, &needle).iter().any(|spelling| {
        occurrences(haystack, spelling)
            .any(|at| standing.accepts(spelling, standing_at(haystack, at, at + spelling.len())))
    })
}

/// The ways a text may hold `needle`: itself, and for an absolute path each
/// of its tails of two parts or more (`/repo/src/a.rs`: `repo/src/a.rs`,
/// `src/a.rs`).
fn spellings(standing: Standing, needle: &str) -> Vec<String> {
    let mut spellings = vec![needle.to_owned()];
    if matches!(standing, Standing::AloneOrFolder) && needle.starts_with('/') && !needle.contains(' ') {
        let parts: Vec<&str> = needle.split('/').filter(|part| !part.is_empty()).collect();
        for from in 0..parts.len().saturating_sub(1) {
            spellings.push(parts[from..].join("/"));
        }
    }
    spellings
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

    /// Whether `spelling`, found standing as `stood`, holds the item. A
    /// path of two parts or more is held as the tail of a longer one too.
    fn accepts(self, spelling: &str, stood: Stood) -> bool {
        match self {
            Self::Anywhere => true,
            Self::Alone => stood.alone,
            Self::AloneOrFolder => stood.alone || stood.folder || (stood.tail && spelling.contains('/')),
        }
    }
}

/// How a text found in a haystack stands there.
#[derive(Debug, Clone, Copy, Default)]
struct Stood {
    /// On its own.
    alone: bool,
    /// On its own before, a folder's `/` after (`src` in `src/a.rs`).
    folder: bool,
    /// After a `/`, on its own or a folder after (`src/a.rs` in `/repo/src/a.rs`).
    tail: bool,
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
    /// Each item's patterns (its spellings) and how it must stand; `None`:
    /// nothing to find (an empty item, which every text holds).
    items: Vec<Option<(Vec<usize>, Standing)>>,
    /// The texts asked about and their answers.
    remembered: std::cell::RefCell<Vec<Remembered>>,
}

/// A text asked about and the answer given.
type Remembered = (std::rc::Rc<str>, std::rc::Rc<Vec<bool>>);

impl Finder {
    /// A finder for `items`, answering by their order.
    pub(super) fn new<'a>(items: impl IntoIterator<Item = &'a KeepItem>) -> Self {
        let mut ids: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut patterns: Vec<String> = Vec::new();
        let items = items
            .into_iter()
            .map(|item| {
                let needle = squeezed(&item.text);
                if needle.is_empty() {
                    return None;
                }
                let standing = Standing::of(item.kind);
                let ids = spellings(standing, &needle)
                    .into_iter()
                    .map(|spelling| {
                        *ids.entry(spelling).or_insert_with_key(|spelling| {
                            patterns.push(spelling.clone());
                            patterns.len() - 1
                        })
                    })
                    .collect();
                Some((ids, standing))
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
        // Per pattern: found anywhere, and every way it stood.
        let mut found = vec![(false, Stood::default()); self.patterns.len()];
        let mut saw = |pattern: usize, start: usize, end: usize| {
            let (anywhere, seen) = &mut found[pattern];
            *anywhere = true;
            if !(seen.alone && seen.folder && seen.tail) {
                let stood = standing_at(haystack, start, end);
                seen.alone |= stood.alone;
                seen.folder |= stood.folder;
                seen.tail |= stood.tail;
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
                Some((patterns, standing)) => patterns.iter().any(|&pattern| {
                    let (anywhere, stood) = found[pattern];
                    anywhere && standing.accepts(&self.patterns[pattern], stood)
                }),
            })
            .collect()
    }
}

/// How the text found at `start..end` stands: on its own, as the folder of
/// a name that follows (a folder is named where a file inside it is named
/// in full), or as the tail of a longer path.
fn standing_at(haystack: &str, start: usize, end: usize) -> Stood {
    let before = haystack[..start].chars().next_back();
    let starts_alone = before.is_none_or(|c| !is_name_char(c) && c != '.');
    let mut after = haystack[end..].chars();
    let (ends_alone, ends_folder) = match after.next() {
        None => (true, false),
        Some('.') => (after.next().is_none_or(|c| !c.is_alphanumeric()), false),
        Some('/') => (false, true),
        Some(c) => (!is_name_char(c), false),
    };
    Stood {
        alone: starts_alone && ends_alone,
        folder: starts_alone && ends_folder,
        tail: before == Some('/') && within_absolute_path(&haystack[..start]) && (ends_alone || ends_folder),
    }
}

/// Whether the word `before` ends in is a path from the root or the home
/// directory (`/repo/`, `~/repo/`): `src/a.rs` is the tail of `/repo/src/a.rs`,
/// not of `lib/src/a.rs`, another file.
fn within_absolute_path(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '`' | '\'' | '"' | '(' | '[' | '<' | ',' | ';' | '='))
        .next()
        .unwrap_or_default();
    word.starts_with('/') || word.starts_with("~/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::keep::set::{KeepSet, Place};
    use crate::policy::keep::{Sighting, Source};

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
    fn a_path_is_held_relative_or_absolute_but_not_as_another_files_tail() {
        let list = items(&[
            (KeepKind::Path, "/repo/src/billing/retry.rs"),
            (KeepKind::FileChanged, "src/billing/mod.rs"),
            (KeepKind::Path, "retry.rs"),
            (KeepKind::Path, "/repo/Cargo.toml"),
        ]);
        let held = |haystack: &str| -> Vec<bool> {
            agree(&list, &squeezed(haystack));
            list.iter().map(|item| holds(&squeezed(haystack), item)).collect()
        };

        assert_eq!(
            held("Edited src/billing/retry.rs and /repo/src/billing/mod.rs."),
            [true, true, false, false],
            "the absolute path by its project-relative spelling, the relative one by the absolute"
        );
        assert_eq!(
            held("Edited lib/src/billing/mod.rs and xsrc/billing/retry.rs.bak; see Cargo.toml"),
            [false, false, false, false],
            "another file's tail, a longer name, and a bare file name are not the path"
        );
        assert_eq!(
            held("Read ~/repo/src/billing/mod.rs and retry.rs"),
            [false, true, true, false]
        );
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
