//! A preparation's summary written: the covered turns read as a compaction
//! reads them, the upstream asked under the same rules with what its call
//! may take held first, within the preparation's own deadline, and what it
//! wrote made into the row a later compaction takes it by.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;

use super::Outcome;
use super::gather::gather;
use super::record::{dropped, failed, record};
use crate::app::Services;
use crate::app::budget::{Reservation, summary_estimate};
use crate::app::summarize::read::{Read, ReadFor, read};
use crate::domain::transcript::Message;
use crate::llm::{LlmError, UpstreamModel};
use crate::policy::prepare::{self, Covered, Reason};
use crate::store::preparations::{Claimed, Written};
use crate::store::{self, StoreResult};
use crate::summary::Via;
use crate::summary::summarizer::{self, Draft, Rules};
use crate::summary::write::prompt::PROMPT_VERSION;

/// Past its upstream calls' deadline, what a preparation waits for before
/// it is given up (the calls end by then; this bounds the rest).
pub(super) const GIVEN_UP_AFTER: Duration = Duration::from_secs(15);

/// Writes the claimed preparation, its upstream calls done `within` this
/// long, and records it; what became of it.
pub(super) async fn write(services: &Services, claimed: &Claimed, within: Duration) -> StoreResult<Outcome> {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + within + GIVEN_UP_AFTER;
    let Some(model) = services.summary_model.as_ref() else {
        return dropped(services, claimed, Reason::Upstream).await;
    };
    let Some((stored, gathered)) = gather(services, claimed).await? else {
        return dropped(services, claimed, Reason::CompactedFirst).await;
    };
    let prior = stored.summary.as_ref().map(|(text, _)| text.clone());
    let whose = ReadFor {
        id: &claimed.conversation_id,
        // A preparation summarizes every turn it covers.
        keep_recent_tokens: None,
        // Unread: no messages were sent.
        at: Utc::now(),
    };
    let read = read(services, whose, &stored, gathered, prior.clone()).await;
    let messages = &read.transcript.messages;
    let fingerprint = fingerprint(prior.clone(), Arc::clone(messages)).await;
    let (true, Some(fingerprint)) = (read.whole, fingerprint) else {
        // Counts read only in part would be kept for the compaction to trust:
        // nothing is written, as when nothing is left to prepare.
        return dropped(services, claimed, Reason::CompactedFirst).await;
    };
    let rules = read.rules(services, stored.state.size, claimed.conversation_id.as_str());
    let asked = ask(
        services,
        claimed,
        model,
        prior.as_deref(),
        messages,
        rules,
        (deadline, within),
    )
    .await?;
    let (draft, reserved) = match asked {
        Ok(asked) => asked,
        Err(outcome) => return Ok(outcome),
    };
    let calls = u64::from(draft.upstream_calls);
    let written = written_of(claimed, &read, fingerprint, draft, started);
    for (direction, spent) in [
        ("input", written.upstream_input_tokens),
        ("output", written.upstream_output_tokens),
    ] {
        metrics::counter!("compactd_preparation_upstream_tokens_total", "direction" => direction)
            .increment(spent.unwrap_or(0));
    }
    // Spent is spent, whatever becomes of what was written.
    let spent = (written.upstream_input_tokens, written.upstream_output_tokens);
    services.true_up(&claimed.tenant, reserved, spent, calls).await;
    store::retry_lost_races(|| async {
        let mut conn = services.warm.acquire().await?;
        record(&mut conn, claimed, &written, (&read.taken, &read.observations)).await
    })
    .await
}

/// The fingerprint a compaction checks the preparation by, off the async
/// threads (a long transcript takes a while); `None`: the runtime is
/// shutting down.
async fn fingerprint(prior: Option<String>, messages: Arc<Vec<Message>>) -> Option<[u8; 32]> {
    tokio::task::spawn_blocking(move || prepare::fingerprint(prior.as_deref(), &messages))
        .await
        .ok()
}

/// Asks the upstream for the summary, with what its call may take held
/// first, and gives up at the deadline; `Err`: what became of the
/// preparation instead (a refusal is charged what it spent).
async fn ask(
    services: &Services,
    claimed: &Claimed,
    model: &UpstreamModel,
    prior: Option<&str>,
    messages: &[Message],
    rules: Rules<'_>,
    (deadline, within): (tokio::time::Instant, Duration),
) -> StoreResult<Result<(summarizer::Draft, Reservation), Outcome>> {
    // The upstream is asked only with what its call may take held first.
    let estimate = summary_estimate(rules.transcript_tokens, rules.max_tokens);
    let reserved = {
        let mut conn = services.warm.acquire().await?;
        services.budget.reserve(&mut conn, &claimed.tenant, estimate).await?
    };
    let reserved = match reserved {
        Ok(reserved) => reserved,
        Err(spent) => {
            tracing::debug!(preparation = claimed.seq, reason = spent.reason(), "not prepared");
            return dropped(services, claimed, Reason::Budget).await.map(Err);
        }
    };
    let writing = summarizer::write(Via::Upstream(model, within), prior, messages, rules);
    let Ok(written) = tokio::time::timeout_at(deadline, writing).await else {
        // The call may have been answered, and billed, as it was given up:
        // it is charged its estimate, and the hold is given back.
        services.true_up(&claimed.tenant, reserved, (None, None), 1).await;
        metrics::counter!("compactd_abandoned_work_total", "work" => "preparation").increment(1);
        tracing::warn!(
            preparation = claimed.seq,
            ?within,
            "a summary took too long to prepare: dropped"
        );
        return dropped(services, claimed, Reason::Upstream).await.map(Err);
    };
    let draft = match written {
        // What the model's context cannot hold, or what it answered with
        // no summary, is not prepared: the compaction writes it then, and
        // says why if it must do without the model.
        Ok(Draft {
            fallback: Some(why),
            upstream_calls,
            upstream_input_tokens,
            upstream_output_tokens,
            ..
        }) => {
            let spent = (upstream_input_tokens, upstream_output_tokens);
            services
                .true_up(&claimed.tenant, reserved, spent, u64::from(upstream_calls))
                .await;
            return failed(services, claimed, model, &why).await.map(Err);
        }
        Ok(draft) => draft,
        Err(error) => {
            // A call given up at its deadline may have been answered, and
            // billed: it is charged its estimate.
            let given_up = u64::from(matches!(error, LlmError::Deadline { .. }));
            services
                .true_up(&claimed.tenant, reserved, (None, None), given_up)
                .await;
            return failed(services, claimed, model, &error).await.map(Err);
        }
    };
    Ok(Ok((draft, reserved)))
}

/// What the worker keeps of the summary it was written.
fn written_of(
    claimed: &Claimed,
    read: &Read,
    fingerprint: [u8; 32],
    draft: summarizer::Draft,
    started: Instant,
) -> Written {
    Written {
        covered: Covered {
            boundary_turn: claimed.boundary_turn_seq,
            anchor_seq: claimed.anchor_seq,
            messages: read.transcript.messages.len(),
            fingerprint,
        },
        message_tokens: read.counted.per_message.clone(),
        anchor_tokens: read.counted.prior,
        narrative: draft.narrative,
        summary: draft.text,
        model: draft.model,
        prompt_version: PROMPT_VERSION,
        upstream_input_tokens: draft.upstream_input_tokens,
        upstream_output_tokens: draft.upstream_output_tokens,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        keep: draft.figures,
    }
}
