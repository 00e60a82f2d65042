//! A summary the harness wrote, held to the same budget and keep guard as
//! any: what of the keep set its agent is owed beside it, and the names the
//! caller found it made up, counted by kind.

use std::collections::BTreeMap;

use super::draft::{Draft, Rules};
use super::finish::finish_off_thread;
use crate::summary::Writer;
use crate::summary::keep::give_back::{spelled_otherwise, worth_giving_back};
use crate::summary::keep::{KeepKind, KeepSet};
use crate::summary::read::identifiers;
use crate::summary::write::{Parts, Shape};

/// What of `keep` a harness's agent is owed beside its summary `text`, and
/// the kept paths `text` spells otherwise (`summary::keep::give_back`),
/// worked out on a blocking thread: thousands of paths beside a 256 KiB text.
pub(crate) async fn for_harness_off_thread(text: &str, keep: &KeepSet) -> (KeepSet, String) {
    let given = |text: &str, keep: &KeepSet| {
        let owed = worth_giving_back(keep);
        let spelled = spelled_otherwise(text, &owed);
        (owed, spelled)
    };
    let (owned_text, set) = (text.to_owned(), keep.clone());
    match tokio::task::spawn_blocking(move || given(&owned_text, &set)).await {
        Ok(done) => done,
        // The thread pool is shutting down: here, then.
        Err(_) => given(text, keep),
    }
}

/// A summary the harness wrote: recorded as its narrative, held to the same
/// budget and keep guard as any (the state at the cut is the harness's to say).
pub(crate) async fn from_harness(text: &str, invented: &[String], rules: Rules<'_>) -> Draft {
    let narrative = text.trim().to_owned();
    // The harness said where things stand in its own words: only the
    // request it left out is added.
    // Its agent is owed what it does not have, as the hook gives it back
    // (`POST …/keep/check`): not what it only looked at, nor a path the
    // harness spelled otherwise.
    let (keep, spelled) = for_harness_off_thread(&narrative, rules.keep).await;
    // Only what the budget keeps of its text counts as held: the stored
    // summary is the next compaction's anchor and a handoff's source, and
    // must hold every item it can (the hook gives back what is appended).
    let parts = Parts {
        beside: &spelled,
        ..Parts::of(&narrative, Shape::Prose, rules.conversation)
    };
    let mut finished = finish_off_thread(parts, &keep, rules.max_tokens).await;
    // What the caller found it made up, counted as a model's would be.
    let by_kind = invented_by_kind(invented);
    let total: u64 = by_kind.values().sum();
    if total > 0 {
        metrics::counter!("compactd_invented_identifiers_total").increment(total);
    }
    finished.1.add_invented(&by_kind);
    Draft::new(Writer::Harness, narrative, finished)
}

/// Each identifier by its kind, as the keep set would read it (a name the
/// reading does not tell, an id).
fn invented_by_kind(invented: &[String]) -> BTreeMap<KeepKind, u64> {
    let mut by_kind = BTreeMap::new();
    for name in invented {
        let found = identifiers(name);
        let kind = found
            .iter()
            .find(|(_, identifier)| identifier == name)
            .or(found.first())
            .map_or(KeepKind::Id, |(kind, _)| *kind);
        *by_kind.entry(kind).or_insert(0) += 1;
    }
    by_kind
}
