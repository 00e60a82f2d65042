//! Writes a summary by anchored iterative summarization (SPEC §3, §4): the
//! prior summary's narrative is the anchor, the transcript the delta; the
//! upstream writes the new narrative, or the extractive summarizer when
//! there is none; either way the budget fits it with the keep set's items
//! (the keep guard), and nothing in it can close a handoff. What each is
//! held to and becomes is in `draft`; that last fitting, in `finish`; a
//! summary the harness wrote, in `harness`.

mod draft;
mod finish;
mod harness;

use super::write::chunked::{self, Unfolded};
use super::write::extractive;
use crate::domain::transcript::Message;
use crate::llm::LlmError;
use crate::summary::Writer;
use crate::summary::keep::invented::{Given, mark_invented, still_marked};
use crate::summary::keep::{KeepKind, KeepSet};
use crate::summary::read::Reading;
use crate::summary::write::narrative::{merged, narrative_of};
use crate::summary::write::{Parts, Shape};

pub(crate) use draft::{Draft, Rules, Via};
pub use finish::finish;
pub(crate) use finish::{StopOnDrop, finish_off_thread};
pub(crate) use harness::{for_harness_off_thread, from_harness};

/// The new summary of `messages` (read into `rules.reading`) on top of the
/// stored summary `prior`; an upstream failure is the error, and the caller
/// keeps the anchor.
pub(crate) async fn write(
    via: Via<'_>,
    prior: Option<&str>,
    messages: &[Message],
    rules: Rules<'_>,
) -> Result<Draft, LlmError> {
    let anchor = prior.map(narrative_of).filter(|anchor| !anchor.is_empty());
    match via {
        Via::Upstream(summary_model, within) => {
            match chunked::fold(summary_model, within, anchor, messages, rules.max_tokens).await {
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
                // The anchor is never replaced by what is no summary.
                Err(Unfolded::Unusable {
                    why,
                    calls,
                    input_tokens,
                    output_tokens,
                }) => {
                    metrics::counter!("compactd_summary_fallbacks_total", "reason" => "unusable").increment(1);
                    let draft = extractive_draft(anchor, messages, rules, why).await;
                    Ok(Draft {
                        fallback: Some(why),
                        upstream_calls: calls,
                        upstream_input_tokens: input_tokens,
                        upstream_output_tokens: output_tokens,
                        model: Some(summary_model.model.clone()),
                        ..draft
                    })
                }
            }
        }
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
    let narrative = extractive::narrative(anchor, messages, rules.reading, why);
    let max_tokens = extractive::max_tokens(rules.transcript_tokens, rules.max_tokens);
    let finished = finish_off_thread(rules.parts(&narrative, Shape::Lines), rules.keep, max_tokens).await;
    Draft::new(Writer::Extractive, narrative, finished)
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
    // The messages after the preparation read on their own: read as the
    // tail of the compaction's reading, a command or a call before them
    // would change what they are. Their lines need no state at the cut.
    let since = extractive::request_lines(delta, &Reading::of_messages(delta, rules.harness));
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
    use crate::llm::tokens;
    use crate::summary::keep::{Place, sightings};
    use crate::summary::read::HarnessPatterns;
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
        let reading = Reading::default();
        let rules = Rules {
            keep: &set,
            max_tokens: 500,
            transcript_tokens: 50_000,
            harness: &harness,
            reading: &reading,
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
            narrative_of(&draft.text).starts_with("We hardened the billing retries."),
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
