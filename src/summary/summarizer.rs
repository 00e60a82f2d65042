//! Writes a summary by anchored iterative summarization (SPEC §3, §4): the
//! prior summary's narrative is the anchor, the transcript the delta; the
//! upstream writes the new narrative, or the extractive summarizer when
//! there is none; either way the budget fits it with the keep set's items
//! (the keep guard), and nothing in it can close a handoff.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::write::chunked::{self, Unfolded};
use super::write::extractive;
use crate::domain::transcript::Message;
use crate::llm::{LlmError, UpstreamModel, tokens};
use crate::summary::Writer;
use crate::summary::handoff::defuse_handoff_tags;
use crate::summary::keep::give_back::{spelled_otherwise, worth_giving_back};
use crate::summary::keep::invented::{Given, mark_invented, still_marked};
use crate::summary::keep::{KeepFigures, KeepKind, KeepSet};
use crate::summary::read::{HarnessPatterns, StateAtCut, identifiers};
use crate::summary::write::narrative::{merged, narrative_of};
use crate::summary::write::{Parts, Shape, fit_unless};

/// What every summary is held to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules<'a> {
    /// The conversation's keep set, this compaction's delta taken in.
    pub keep: &'a KeepSet,
    /// The conversation's budget (`summary_max_tokens`).
    pub max_tokens: u64,
    /// The tokens of the anchor and the delta: an extractive summary of a
    /// long transcript is at most a tenth of it.
    pub transcript_tokens: u64,
    pub harness: &'a HarnessPatterns,
    /// Where things stand at the cut, from the transcript.
    pub state: &'a StateAtCut,
    /// The conversation summarized (its parked line names it).
    pub conversation: &'a str,
}

impl Rules<'_> {
    fn parts<'a>(&'a self, narrative: &'a str, shape: Shape) -> Parts<'a> {
        Parts {
            narrative,
            shape,
            state: self.state,
            beside: "",
            conversation: self.conversation,
        }
    }
}

/// A new summary, ready to become the anchor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Draft {
    pub text: String,
    /// What its writer wrote, before the budget and the keep guard: what a
    /// prepared summary keeps to merge a compaction's delta into.
    pub narrative: String,
    pub writer: Writer,
    pub model: Option<String>,
    pub upstream_input_tokens: Option<u64>,
    pub upstream_output_tokens: Option<u64>,
    /// Upstream calls it took (more than one: the delta was chunked, or a
    /// refusal of the context was planned around).
    pub upstream_calls: u32,
    /// Why it was written extractively though a model is configured.
    pub fallback: Option<&'static str>,
    /// What became of the keep set's items.
    pub figures: KeepFigures,
}

impl Draft {
    fn new(writer: Writer, narrative: String, (text, figures): (String, KeepFigures)) -> Self {
        Self {
            text,
            narrative,
            writer,
            model: None,
            upstream_input_tokens: None,
            upstream_output_tokens: None,
            upstream_calls: 0,
            fallback: None,
            figures,
        }
    }
}

/// How the summary is to be written.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Via<'a> {
    Upstream(&'a UpstreamModel),
    /// Without a model, for this reason (said in the summary).
    Extractive(&'a str),
}

/// The summary of `parts` and the keep set within `max_tokens`, unable to
/// close a handoff.
pub fn finish(parts: Parts<'_>, keep: &KeepSet, max_tokens: u64) -> (String, KeepFigures) {
    finish_unless(parts, keep, max_tokens, &|| false).unwrap_or_default()
}

/// [`finish`], given up (`None`) as soon as `stopped` says so.
fn finish_unless(
    parts: Parts<'_>,
    keep: &KeepSet,
    max_tokens: u64,
    stopped: &dyn Fn() -> bool,
) -> Option<(String, KeepFigures)> {
    let narrative = defuse_handoff_tags(parts.narrative);
    let beside = defuse_handoff_tags(parts.beside);
    let parts = Parts {
        narrative: &narrative,
        beside: &beside,
        ..parts
    };
    let mut budget = max_tokens;
    loop {
        let fitted = fit_unless(parts, keep, budget, &tokens::count, stopped)?;
        // A kept item may itself hold a handoff tag; defused, it can count more.
        let text = defuse_handoff_tags(&fitted.text);
        let over = tokens::count(&text).saturating_sub(max_tokens);
        if over == 0 || budget <= over {
            return Some((text, fitted.figures));
        }
        budget -= over;
    }
}

/// Set when the future that waits for work on a blocking thread is dropped
/// (its request was abandoned at its deadline, its client went away, the
/// service is stopping): the work stops at its next check.
pub(crate) struct StopOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What a summary is made of, owned, to be fitted on another thread.
#[derive(Debug, Clone)]
struct OwnedParts {
    narrative: String,
    shape: Shape,
    state: StateAtCut,
    beside: String,
    conversation: String,
}

impl OwnedParts {
    fn parts(&self) -> Parts<'_> {
        Parts {
            narrative: &self.narrative,
            shape: self.shape,
            state: &self.state,
            beside: &self.beside,
            conversation: &self.conversation,
        }
    }

    fn of(parts: Parts<'_>) -> Self {
        Self {
            narrative: parts.narrative.to_owned(),
            shape: parts.shape,
            state: parts.state.clone(),
            beside: parts.beside.to_owned(),
            conversation: parts.conversation.to_owned(),
        }
    }
}

/// [`finish`] on a blocking thread: fitting a long narrative counts tokens
/// for a tenth of a second or more, which must not stall the async workers.
pub(crate) async fn finish_off_thread(parts: Parts<'_>, keep: &KeepSet, max_tokens: u64) -> (String, KeepFigures) {
    let owned = OwnedParts::of(parts);
    let set = keep.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let _waiting = StopOnDrop(stop.clone());
    let work = move || {
        let finished = finish_unless(owned.parts(), &set, max_tokens, &|| stop.load(Ordering::Relaxed));
        if finished.is_none() {
            metrics::counter!("compactd_abandoned_work_total", "work" => "fit").increment(1);
        }
        finished
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(Some(finished)) => finished,
        // Stopped only once this future is dropped, or the thread pool is
        // shutting down: fit it here.
        Ok(None) | Err(_) => finish(parts, keep, max_tokens),
    }
}

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

/// The new summary of `messages` on top of the stored summary `prior`; an
/// upstream failure is the error, and the caller keeps the anchor.
pub(crate) async fn write(
    via: Via<'_>,
    prior: Option<&str>,
    messages: &[Message],
    rules: Rules<'_>,
) -> Result<Draft, LlmError> {
    let anchor = prior.map(narrative_of).filter(|anchor| !anchor.is_empty());
    match via {
        Via::Upstream(summary_model) => match chunked::fold(summary_model, anchor, messages, rules.max_tokens).await {
            Ok(folded) => {
                if folded.chunked {
                    metrics::counter!("compactd_chunked_summaries_total").increment(1);
                }
                let (narrative, invented) = mark_off_thread(folded.narrative, anchor, messages, rules.keep).await;
                let mut finished =
                    finish_off_thread(rules.parts(&narrative, Shape::Prose), rules.keep, rules.max_tokens).await;
                let invented = still_marked(&finished.0, &invented);
                let invented_total: u64 = invented.values().sum();
                if invented_total > 0 {
                    metrics::counter!("compactd_invented_identifiers_total").increment(invented_total);
                }
                finished.1.add_invented(&invented);
                Ok(Draft {
                    model: Some(folded.model),
                    upstream_input_tokens: folded.input_tokens,
                    upstream_output_tokens: folded.output_tokens,
                    upstream_calls: folded.calls,
                    ..Draft::new(Writer::Llm, narrative, finished)
                })
            }
            Err(Unfolded::Failed(error)) => Err(error),
            // An agent whose context is full can always compact.
            Err(Unfolded::DoesNotFit(why, calls)) => {
                metrics::counter!("compactd_summary_fallbacks_total", "reason" => "context_length").increment(1);
                let draft = extractive_draft(anchor, messages, rules, why).await;
                Ok(Draft {
                    fallback: Some(why),
                    upstream_calls: calls,
                    model: Some(summary_model.model.clone()),
                    ..draft
                })
            }
        },
        Via::Extractive(why) => Ok(extractive_draft(anchor, messages, rules, why).await),
    }
}

/// The model's `narrative` with what it invented marked (against the
/// anchor, the delta and the keep set), and what it invented, off the async
/// threads: the delta is searched once for each identifier.
async fn mark_off_thread(
    narrative: String,
    anchor: Option<&str>,
    messages: &[Message],
    keep: &KeepSet,
) -> (String, Vec<(KeepKind, String)>) {
    let mut given: Vec<String> = messages.iter().flat_map(Message::texts_seen).collect();
    given.extend(anchor.map(str::to_owned));
    given.extend(keep.items().iter().map(|item| item.text.clone()));
    let unmarked = narrative.clone();
    let mark = move || {
        let texts: Vec<&str> = given.iter().map(String::as_str).collect();
        mark_invented(&narrative, Given { texts: &texts })
    };
    // The thread pool is shutting down: the text goes unmarked.
    tokio::task::spawn_blocking(mark)
        .await
        .unwrap_or_else(|_| (unmarked, Vec::new()))
}

async fn extractive_draft(anchor: Option<&str>, messages: &[Message], rules: Rules<'_>, why: &str) -> Draft {
    let narrative = extractive::narrative(anchor, messages, rules.harness, why);
    let max_tokens = extractive::max_tokens(rules.transcript_tokens, rules.max_tokens);
    let finished = finish_off_thread(rules.parts(&narrative, Shape::Lines), rules.keep, max_tokens).await;
    Draft::new(Writer::Extractive, narrative, finished)
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

/// What a summary prepared ahead left for a compaction to merge into.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PreparedNarrative<'a> {
    /// What the upstream wrote for the turns it covers.
    pub narrative: &'a str,
    pub model: Option<&'a str>,
}

/// A prepared summary merged with the delta after it, with no upstream
/// call (issue 12): its narrative, then one line per request of the delta,
/// held to the budget and the keep guard like any summary.
pub(crate) async fn merge(prepared: PreparedNarrative<'_>, delta: &[Message], rules: Rules<'_>) -> Draft {
    let since = extractive::request_lines(delta, rules.harness);
    let narrative = merged(prepared.narrative, &since);
    let finished = finish_off_thread(rules.parts(&narrative, Shape::Prose), rules.keep, rules.max_tokens).await;
    Draft {
        model: prepared.model.map(str::to_owned),
        ..Draft::new(Writer::Llm, narrative, finished)
    }
}

/// An operator's clean slate (`manual_recovery`): the text as given, within
/// the budget, with nothing appended.
pub(crate) async fn clean_slate(text: &str, max_tokens: u64) -> Draft {
    let narrative = text.trim().to_owned();
    let parts = Parts::of(&narrative, Shape::Prose, "");
    let finished = finish_off_thread(parts, &KeepSet::default(), max_tokens).await;
    Draft::new(Writer::Harness, narrative, finished)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::Role;
    use crate::summary::keep::{Place, sightings};
    use crate::summary::write::narrative::SINCE_HEADING;

    fn keep_set_of(messages: &[Message], harness: &HarnessPatterns) -> KeepSet {
        let mut set = KeepSet::default();
        for (n, message) in messages.iter().enumerate() {
            let place = Place {
                conversation_id: "c".into(),
                turn_id: Some(n as i64 + 1),
                compaction_seq: None,
                message: None,
                at: chrono::DateTime::UNIX_EPOCH,
            };
            set.observe(&sightings(message, harness), &place);
        }
        set
    }

    #[tokio::test]
    async fn a_merge_keeps_the_prepared_prose_the_lines_since_and_the_keep_set_within_the_budget() {
        let harness = HarnessPatterns::default();
        let delta = [
            Message::new(Role::User, "Deploy build 4711 to staging; do not touch prod."),
            Message::new(Role::Assistant, "Deployed 4711 to staging."),
        ];
        let set = keep_set_of(&delta, &harness);
        let prose = "We hardened the billing retries. ".repeat(400);
        let state = StateAtCut::default();
        let rules = Rules {
            keep: &set,
            max_tokens: 500,
            transcript_tokens: 50_000,
            harness: &harness,
            state: &state,
            conversation: "c",
        };
        let prepared = PreparedNarrative {
            narrative: &prose,
            model: Some("m"),
        };

        let draft = merge(prepared, &delta, rules).await;

        assert!(tokens::count(&draft.text) <= 500, "{}", draft.text);
        assert_eq!((draft.writer, draft.model.as_deref()), (Writer::Llm, Some("m")));
        assert!(
            draft.text.starts_with("We hardened the billing retries."),
            "{}",
            draft.text
        );
        assert!(
            draft.text.contains(&format!(
                "{SINCE_HEADING}\n- Deploy build 4711 to staging; do not touch prod. → Deployed 4711 to staging."
            )),
            "the newest line stays whole while the prose gives way: {}",
            draft.text
        );
        assert!(draft.text.contains("do not touch prod"), "{}", draft.text);
        assert_eq!(draft.upstream_input_tokens, None, "no upstream call");
        let again = merge(prepared, &delta, rules).await;
        assert_eq!(again, draft, "deterministic");
    }
}
