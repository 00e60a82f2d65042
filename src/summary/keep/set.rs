//! A conversation's keep set (SPEC §4): every item its messages said, once,
//! with its first and last place, how often it was seen and by whom; and the
//! order a summary takes them in — the budget's tiers, newest and most often
//! seen first within each.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::extract::Sighting;
use crate::summary::kinds::{KeepKind, Source, Sources};

/// Where an item was seen: a stored turn, or a message of a `/summarize` delta.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub conversation_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<i64>,
    /// The compaction whose delta held it…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_seq: Option<i64>,
    /// …and its index there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<i64>,
    pub at: DateTime<Utc>,
}

/// A place in conversation `c` at turn `turn`, for tests.
#[cfg(test)]
impl Place {
    pub(crate) fn of_turn(turn: i64) -> Self {
        Self {
            conversation_id: "c".into(),
            turn_id: Some(turn),
            compaction_seq: None,
            message: None,
            at: DateTime::<Utc>::UNIX_EPOCH,
        }
    }
}

/// The budget's tiers (SPEC §4), in the order a summary fills them; tier 5
/// is the narrative itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    Request = 1,
    Prohibition = 2,
    NamedByUser = 3,
    FileChanged = 4,
    NamedByAssistant = 6,
    /// Seen first in tool output, and mentioned again by the agent.
    SeenInToolOutput = 7,
}

impl Tier {
    pub(crate) const fn number(self) -> u8 {
        self as u8
    }

    /// Tiers the keep guard checks and appends before the narrative.
    pub(crate) const fn is_guarded(self) -> bool {
        self.number() <= 4
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeepItem {
    pub kind: KeepKind,
    pub text: String,
    /// Where it was seen first.
    pub source: Source,
    /// Everywhere it was seen.
    pub sources: Sources,
    pub first_seen: Place,
    pub last_seen: Place,
    /// The keep set's clock when it was first and last seen: a total order.
    pub first_tick: u64,
    pub last_tick: u64,
    pub times_seen: u64,
}

impl KeepItem {
    /// Its tier, or `None` when no summary carries it (a name only ever seen
    /// in tool output: findable, not worth a summary's room).
    pub(crate) fn tier(&self) -> Option<Tier> {
        match self.kind {
            KeepKind::Request => Some(Tier::Request),
            KeepKind::Prohibition => Some(Tier::Prohibition),
            KeepKind::FileChanged => Some(Tier::FileChanged),
            _ if self.sources.contains(Source::User) => Some(Tier::NamedByUser),
            _ if matches!(self.source, Source::Assistant | Source::ToolCall) => Some(Tier::NamedByAssistant),
            _ if self.sources.contains(Source::Assistant) || self.sources.contains(Source::ToolCall) => {
                Some(Tier::SeenInToolOutput)
            }
            _ => None,
        }
    }

    fn key(&self) -> (KeepKind, String) {
        key(self.kind, &self.text)
    }
}

/// One request at a time: a newer one replaces it, whatever its text.
fn key(kind: KeepKind, text: &str) -> (KeepKind, String) {
    match kind {
        KeepKind::Request => (kind, String::new()),
        _ => (kind, text.to_owned()),
    }
}

#[derive(Debug, Clone, Default)]
pub struct KeepSet {
    items: Vec<KeepItem>,
    index: HashMap<(KeepKind, String), usize>,
    clock: u64,
    changed: BTreeSet<usize>,
    /// Items dropped since the set was loaded (a file moved away).
    removed: Vec<(KeepKind, String)>,
}

impl KeepSet {
    /// A set as stored, its clock where it stopped.
    pub(crate) fn new(items: Vec<KeepItem>, clock: u64) -> Self {
        let mut set = Self {
            clock,
            ..Self::default()
        };
        for item in items {
            let at = set.items.len();
            set.clock = set.clock.max(item.last_tick);
            set.index.insert(item.key(), at);
            set.items.push(item);
        }
        set
    }

    pub(crate) fn clock(&self) -> u64 {
        self.clock
    }

    pub fn items(&self) -> &[KeepItem] {
        &self.items
    }

    /// The items added or changed since the set was loaded.
    pub(crate) fn changed(&self) -> impl Iterator<Item = &KeepItem> {
        self.changed.iter().map(|at| &self.items[*at])
    }

    /// The items (kind, text) dropped since the set was loaded.
    pub(crate) fn removed(&self) -> &[(KeepKind, String)] {
        &self.removed
    }

    /// Drops a file changed that was moved elsewhere: it is listed where it
    /// went, not where it was.
    fn forget_moved(&mut self, from: &str) {
        let key = (KeepKind::FileChanged, from.to_owned());
        let Some(at) = self.index.remove(&key) else {
            return;
        };
        self.items.remove(at);
        self.changed = self
            .changed
            .iter()
            .filter(|changed| **changed != at)
            .map(|changed| if *changed > at { changed - 1 } else { *changed })
            .collect();
        for position in self.index.values_mut() {
            if *position > at {
                *position -= 1;
            }
        }
        self.removed.push(key);
    }

    /// Takes in what one place said; the clock moves once for it.
    pub fn observe(&mut self, sightings: &[Sighting], place: &Place) {
        if sightings.is_empty() {
            return;
        }
        self.clock += 1;
        let tick = self.clock;
        for sighting in sightings {
            if let Some(from) = &sighting.moved_from
                && *from != sighting.text
            {
                self.forget_moved(from);
            }
            let key = key(sighting.kind, &sighting.text);
            match self.index.get(&key).copied() {
                Some(at) if self.items[at].text == sighting.text => {
                    let item = &mut self.items[at];
                    item.sources.insert(sighting.source);
                    item.last_seen = place.clone();
                    item.last_tick = tick;
                    item.times_seen += 1;
                    self.changed.insert(at);
                }
                existing => {
                    let item = KeepItem {
                        kind: sighting.kind,
                        text: sighting.text.clone(),
                        source: sighting.source,
                        sources: Sources::of(sighting.source),
                        first_seen: place.clone(),
                        last_seen: place.clone(),
                        first_tick: tick,
                        last_tick: tick,
                        times_seen: 1,
                    };
                    let at = match existing {
                        Some(at) => {
                            self.items[at] = item;
                            at
                        }
                        None => {
                            self.items.push(item);
                            self.items.len() - 1
                        }
                    };
                    self.index.insert(key, at);
                    self.changed.insert(at);
                }
            }
        }
    }

    /// The items a summary may carry, in the order it takes them: by tier,
    /// then newest, then most often seen (then by kind and text, so the order
    /// is total and summaries are reproducible).
    pub(crate) fn ranked(&self) -> Vec<(Tier, &KeepItem)> {
        let mut ranked: Vec<(Tier, &KeepItem)> = self
            .items
            .iter()
            .filter_map(|item| item.tier().map(|tier| (tier, item)))
            .collect();
        ranked.sort_by(|(a_tier, a), (b_tier, b)| {
            (a_tier, Reverse(a.last_tick), Reverse(a.times_seen), a.kind, &a.text).cmp(&(
                b_tier,
                Reverse(b.last_tick),
                Reverse(b.times_seen),
                b.kind,
                &b.text,
            ))
        });
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The user's latest request, as the set holds it.
    fn request(set: &KeepSet) -> Option<&KeepItem> {
        set.items().iter().find(|item| item.kind == KeepKind::Request)
    }

    fn place(turn: i64) -> Place {
        Place::of_turn(turn)
    }

    fn seen(kind: KeepKind, text: &str, source: Source) -> Sighting {
        Sighting::new(kind, text, source)
    }

    #[test]
    fn items_are_kept_once_with_their_places_and_sources() {
        let mut set = KeepSet::default();
        set.observe(&[seen(KeepKind::Path, "src/a.rs", Source::ToolResult)], &place(1));
        set.observe(&[seen(KeepKind::Path, "src/a.rs", Source::Assistant)], &place(2));
        assert_eq!(set.items().len(), 1);
        let item = &set.items()[0];
        assert_eq!(
            (item.times_seen, item.first_seen.turn_id, item.last_seen.turn_id),
            (2, Some(1), Some(2))
        );
        assert_eq!(item.source, Source::ToolResult);
        assert_eq!(item.tier(), Some(Tier::SeenInToolOutput));
        assert_eq!(set.clock(), 2);
    }

    #[test]
    fn a_newer_request_replaces_the_old_one() {
        let mut set = KeepSet::default();
        set.observe(&[seen(KeepKind::Request, "first", Source::User)], &place(1));
        set.observe(&[seen(KeepKind::Request, "second", Source::User)], &place(2));
        assert_eq!(set.items().len(), 1);
        assert_eq!(request(&set).map(|r| r.text.as_str()), Some("second"));
        assert_eq!(request(&set).map(|r| r.times_seen), Some(1));
    }

    #[test]
    fn names_only_ever_seen_in_tool_output_are_not_carried() {
        let mut set = KeepSet::default();
        set.observe(
            &[seen(KeepKind::Path, "node_modules/x/y.js", Source::ToolResult)],
            &place(1),
        );
        assert_eq!(set.items()[0].tier(), None);
        assert!(set.ranked().is_empty());
    }

    #[test]
    fn tiers_come_first_then_the_newest() {
        let mut set = KeepSet::default();
        set.observe(&[seen(KeepKind::Path, "old/user.rs", Source::User)], &place(1));
        set.observe(&[seen(KeepKind::Path, "agent.rs", Source::Assistant)], &place(2));
        set.observe(&[seen(KeepKind::Prohibition, "Never push.", Source::User)], &place(3));
        set.observe(&[seen(KeepKind::Path, "new/user.rs", Source::User)], &place(4));
        set.observe(&[seen(KeepKind::FileChanged, "f.rs", Source::ToolCall)], &place(5));
        let order: Vec<&str> = set.ranked().iter().map(|(_, item)| item.text.as_str()).collect();
        assert_eq!(order, ["Never push.", "new/user.rs", "old/user.rs", "f.rs", "agent.rs"]);
    }

    #[test]
    fn a_moved_file_is_kept_where_it_went() {
        let mut set = KeepSet::default();
        set.observe(
            &[seen(KeepKind::FileChanged, "notes/draft.md", Source::ToolCall)],
            &place(1),
        );
        set.observe(&[seen(KeepKind::Path, "src/lib.rs", Source::User)], &place(2));
        let moved = Sighting {
            moved_from: Some("notes/draft.md".into()),
            ..seen(KeepKind::FileChanged, "docs/final.md", Source::ToolCall)
        };
        set.observe(&[moved], &place(3));
        let files: Vec<&str> = set
            .items()
            .iter()
            .filter(|item| item.kind == KeepKind::FileChanged)
            .map(|item| item.text.as_str())
            .collect();
        assert_eq!(files, ["docs/final.md"]);
        assert_eq!(set.removed(), [(KeepKind::FileChanged, "notes/draft.md".to_owned())]);
        let changed: Vec<&str> = set.changed().map(|item| item.text.as_str()).collect();
        assert_eq!(changed, ["src/lib.rs", "docs/final.md"]);
    }

    #[test]
    fn a_reloaded_set_continues_its_clock_and_reports_only_changes() {
        let mut first = KeepSet::default();
        first.observe(&[seen(KeepKind::Id, "PROJ-1", Source::User)], &place(1));
        let mut reloaded = KeepSet::new(first.items().to_vec(), first.clock());
        assert_eq!(reloaded.changed().count(), 0);
        reloaded.observe(&[seen(KeepKind::Id, "PROJ-2", Source::User)], &place(2));
        assert_eq!(
            reloaded.changed().map(|i| i.text.as_str()).collect::<Vec<_>>(),
            ["PROJ-2"]
        );
        assert_eq!(reloaded.items()[1].first_tick, 2);
    }
}
