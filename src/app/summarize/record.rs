//! A compaction's attempt recorded: the ledger row, the state change it
//! makes, the keep set and the preparations it closes, and its counters.

use sqlx::{Connection, PgConnection};

use super::prepare::count_wasted;
use super::{Ahead, Drafted};
use crate::domain::Prices;
use crate::policy::prepare::Reason;
use crate::records::{Recorded, StoredConversation};
use crate::store::compactions::{self, Applied, Attempt};
use crate::store::keep;
use crate::store::prepared::{self, Closing};
use crate::store::{StoreResult, conversations};

/// Why an attempt was not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NotRecorded {
    /// The conversation was deleted while its summary was written.
    Deleted,
    /// Its claim was taken over (its process fell silent): the request that
    /// took it records its own.
    TakenOver,
}

/// Records the attempt and applies it, in a transaction of its own (or a
/// savepoint of the caller's); the claim ends. Nothing is recorded when the
/// conversation is gone or the claim is no longer this attempt's.
pub(super) async fn record(
    conn: &mut PgConnection,
    prepared: &Drafted,
    prices: &Prices,
) -> StoreResult<Result<(Recorded, StoredConversation), NotRecorded>> {
    let mut tx = conn.begin().await?;
    let attempt = &prepared.attempt;
    let Some(locked) = conversations::lock(&mut tx, &prepared.tenant, &prepared.id).await? else {
        return Ok(Err(NotRecorded::Deleted));
    };
    if let Some(since) = prepared.claimed_since
        && compactions::claimed_since(&mut tx, &prepared.tenant, &prepared.id).await? != Some(since)
    {
        return Ok(Err(NotRecorded::TakenOver));
    }
    let applied = applied(&locked, attempt);
    let cost = cost_of(attempt, prices);
    let recorded = compactions::record(&mut tx, &prepared.tenant, &prepared.id, attempt, &applied, cost).await?;
    if attempt.outcome.is_ok() {
        // The conversation's row is locked (conversations::lock).
        (prepared.keep)
            .save(&mut tx, &prepared.tenant, &prepared.id, &prepared.observations)
            .await?;
        if let Some(figures) = &attempt.keep {
            keep::tally(&mut tx, &prepared.tenant, attempt.at, figures).await?;
        }
        let closing = match prepared.ahead {
            Ahead::Used(seq) => Closing::compacted(Some((seq, recorded.0.seq)), Reason::Superseded),
            Ahead::Unused(reason) => Closing::compacted(None, reason),
        };
        for reason in prepared::close(&mut tx, &prepared.tenant, &prepared.id, closing).await? {
            count_wasted(reason, 1);
        }
    }
    count(attempt);
    if let Some(cost) = cost {
        metrics::counter!("compactd_summary_cost_microdollars_total", "trigger" => attempt.trigger.as_str())
            .increment((cost * 1e6).round() as u64);
    }
    tx.commit().await?;
    Ok(Ok(recorded))
}

/// What the attempt's summary cost upstream (SPEC §6): its tokens at its
/// model's price; nothing when no model was called, `None` when one was that
/// has no price. Its input is counted as read fresh: a summarizer's prompt
/// is new text each time.
fn cost_of(attempt: &Attempt, prices: &Prices) -> Option<f64> {
    let (input, output) = (attempt.upstream_input_tokens, attempt.upstream_output_tokens);
    if input.unwrap_or(0) == 0 && output.unwrap_or(0) == 0 {
        return Some(0.0);
    }
    let price = prices.of(attempt.model.as_deref())?;
    Some(price.of_call(input.unwrap_or(0), 0, output.unwrap_or(0)))
}

/// What the attempt leaves the conversation with (SPEC §2): on success it
/// is compacted (the policy's transition) and the summary becomes the anchor
/// (an empty one is none); on failure only the failure counts.
fn applied(stored: &StoredConversation, attempt: &Attempt) -> Applied {
    let mut state = stored.state.clone();
    let seq = stored.last_compaction_seq + 1;
    match &attempt.outcome {
        Ok(summary) => {
            state.compacted(attempt.by_host, attempt.idle, attempt.at);
            Applied {
                state,
                summary: (!summary.trim().is_empty()).then(|| summary.clone()),
                summary_seq: Some(seq),
                boundary_turn_seq: attempt.boundary_turn_seq,
                seq,
            }
        }
        Err(_) => {
            state.compaction_failed();
            Applied {
                state,
                summary: stored.summary.as_ref().map(|(text, _)| text.clone()),
                summary_seq: stored.summary.as_ref().map(|(_, seq)| *seq),
                boundary_turn_seq: stored.boundary_turn_seq,
                seq,
            }
        }
    }
}

fn count(attempt: &Attempt) {
    metrics::counter!(
        "compactd_compactions_total",
        "trigger" => attempt.trigger.as_str(),
        "success" => if attempt.outcome.is_ok() { "true" } else { "false" },
        "summarizer" => attempt.summarizer.as_str(),
    )
    .increment(1);
    if attempt.outcome.is_ok() && attempt.prepared_age_ms.is_some() {
        metrics::counter!("compactd_prepared_compactions_total").increment(1);
    }
    if attempt.outcome.is_ok() {
        // Callers may state counts up to 2^63; no context is near a trillion
        // tokens, and a counter that wrapped would read as a reset.
        metrics::counter!("compactd_tokens_saved_total").increment(attempt.tokens_saved().min(1_000_000_000_000));
    }
    for (kind, figures) in attempt.keep.iter().flat_map(|keep| &keep.by_kind) {
        for (outcome, items) in [
            ("present", figures.present),
            ("appended", figures.appended),
            ("parked", figures.parked),
        ] {
            if items > 0 {
                metrics::counter!("compactd_keep_items_total", "kind" => kind.as_str(), "outcome" => outcome)
                    .increment(items);
            }
        }
    }
}
