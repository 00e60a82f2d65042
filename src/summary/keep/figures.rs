//! What became of the keep set's items in one summary (SPEC §4): for each
//! kind, how many the summary was to carry, and how many were already in the
//! writer's text, appended by the keep guard, or parked for want of room.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::summary::kinds::KeepKind;

/// What became of one kind's items in one summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindFigures {
    /// Items the summary was to carry.
    pub checked: u64,
    /// Already in the writer's narrative, word for word.
    pub present: u64,
    /// Appended by the keep guard.
    pub appended: u64,
    /// Did not fit: kept in the keep set and the stored turns only.
    pub parked: u64,
    /// In the writer's text but in nothing it was given: marked
    /// `[unverified]` where it stands (never among `checked`).
    #[serde(default)]
    pub invented: u64,
}

impl KindFigures {
    fn add(&mut self, other: &Self) {
        self.checked += other.checked;
        self.present += other.present;
        self.appended += other.appended;
        self.parked += other.parked;
        self.invented += other.invented;
    }
}

/// What became of a summary's items, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeepFigures {
    pub by_kind: BTreeMap<KeepKind, KindFigures>,
}

impl KeepFigures {
    pub(crate) fn total(&self) -> KindFigures {
        let mut total = KindFigures::default();
        for figures in self.by_kind.values() {
            total.add(figures);
        }
        total
    }

    /// Counts the identifiers the writer invented, by kind.
    pub(crate) fn add_invented(&mut self, invented: &BTreeMap<KeepKind, u64>) {
        for (kind, count) in invented {
            self.by_kind.entry(*kind).or_default().invented += count;
        }
    }

    pub(in crate::summary) fn count(&mut self, kind: KeepKind, outcome: Outcome) {
        let figures = self.by_kind.entry(kind).or_default();
        figures.checked += 1;
        match outcome {
            Outcome::Present => figures.present += 1,
            Outcome::Appended => figures.appended += 1,
            Outcome::Parked => figures.parked += 1,
        }
    }
}

/// What became of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::summary) enum Outcome {
    Present,
    Appended,
    Parked,
}
