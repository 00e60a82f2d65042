//! Prepare summaries ahead (issue 12): a worker claims a planned
//! preparation, writes the summary a compaction would write from the stored
//! turns it covers (the same prompt, the same keep set and budget, on the
//! same anchor) and keeps it, with the counts and the fingerprint a later
//! compaction checks it by. The tenant's daily upstream budget counts it;
//! past the budget nothing is prepared. Claimed through the database, so no
//! two workers write one, and one whose worker died is taken again.

use std::time::{Duration, Instant};

use sqlx::{Connection, PgConnection};

use super::Services;
use super::budget::{Reservation, summary_estimate};
use super::keep_set::{self, Observation, TakenIn};
use super::transcript::messages_of;
use crate::domain::transcript::Message;
use crate::domain::{ConversationId, TenantId};
use crate::llm::refusal::ContextRefusal;
use crate::llm::{LlmError, UpstreamModel, tokens};
use crate::policy::prepare::{self, Covered, Reason};
use crate::records::StoredConversation;
use crate::store::preparations::{self, Claimed, Kept, Written};
use crate::store::{self, StoreResult, conversations, keep, turns};
use crate::summary::Via;
use crate::summary::read::state_at_cut;
use crate::summary::summarizer::{self, Rules};
use crate::summary::write::prompt::PROMPT_VERSION;
use crate::summary::write::summary_max_tokens;

/// Claims up to `batch` planned preparations; a claim older than the
/// workers' lease was its worker's last and is taken again.
pub(crate) async fn claim(services: &Services, batch: i64) -> StoreResult<Vec<Claimed>> {
    claim_within(services, batch, services.leases.worker, None).await
}

/// Claims up to `batch` planned preparations (of one conversation only,
/// when `only` names it), taking over claims older than `lapsed_after`.
async fn claim_within(
    services: &Services,
    batch: i64,
    lapsed_after: Duration,
    only: Option<(&TenantId, &ConversationId)>,
) -> StoreResult<Vec<Claimed>> {
    let mut conn = services.warm.acquire().await?;
    if only.is_none()
        && let Ok(waiting) = preparations::waiting(&mut conn).await
    {
        metrics::gauge!("compactd_background_queue_depth", "work" => "preparation").set(waiting as f64);
    }
    preparations::claim(&mut conn, batch, lapsed_after, only).await
}

/// Counts preparations wasted for `reason` (the metrics of issue 12).
pub(crate) fn count_wasted(reason: Reason, preparations: u64) {
    metrics::counter!("compactd_preparations_wasted_total", "reason" => reason.as_str()).increment(preparations);
}

/// What became of one claimed preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Written and kept for the next compaction.
    Ready,
    /// Written, but closed meanwhile (its tokens count as wasted).
    Wasted(Reason),
    /// Another worker took the claim over.
    Lost,
    /// Not written, for this reason.
    Dropped(Reason),
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::Wasted(_) => "wasted",
            Self::Lost => "lost",
            Self::Dropped(_) => "dropped",
        }
    }
}

/// Writes one claimed preparation and records it, within `within` (a
/// summary's own time, shorter than a claim lasts): one that takes longer
/// is dropped as the upstream's failure, never left to lapse and be taken
/// again with the same calls (issue 23). A store error leaves the claim to
/// lapse, and the preparation is taken again.
pub(crate) async fn prepare(services: &Services, claimed: Claimed, within: Duration) -> StoreResult<Outcome> {
    let outcome = write(services, &claimed, within)
        .await
        .inspect_err(|err| tracing::warn!(%err, preparation = claimed.seq, "a summary could not be prepared"))?;
    metrics::counter!("compactd_preparations_total", "outcome" => outcome.name()).increment(1);
    if let Outcome::Wasted(reason) = outcome {
        count_wasted(reason, 1);
    }
    Ok(outcome)
}

async fn write(services: &Services, claimed: &Claimed, within: Duration) -> StoreResult<Outcome> {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + within;
    let Some(model) = services.summary_model.as_ref() else {
        return dropped(services, claimed, Reason::Upstream).await;
    };
    let Some(Gathered {
        stored,
        messages,
        stored_keep,
        unread,
    }) = gather(services, claimed).await?
    else {
        return dropped(services, claimed, Reason::CompactedFirst).await;
    };
    let prior = stored.summary.as_ref().map(|(text, _)| text.clone());
    let harness = services.summaries.harness.clone();
    let (observations, counts, messages) = read(
        claimed.conversation_id.clone(),
        unread,
        messages,
        prior.clone(),
        harness,
    )
    .await;
    if messages.is_empty() {
        return dropped(services, claimed, Reason::CompactedFirst).await;
    }
    let taken = TakenIn::of(stored_keep, &observations);
    let state = state_at_cut(&messages, &services.summaries.harness);
    let rules = Rules {
        keep: &taken.set,
        max_tokens: summary_max_tokens(services.summaries.max_tokens, stored.state.size),
        transcript_tokens: counts.anchor + counts.messages.iter().sum::<u64>(),
        harness: &services.summaries.harness,
        state: &state,
        conversation: claimed.conversation_id.as_str(),
    };
    let asked = ask(
        services,
        claimed,
        model,
        prior.as_deref(),
        &messages,
        rules,
        (deadline, within),
    )
    .await?;
    let (draft, reserved) = match asked {
        Ok(asked) => asked,
        Err(outcome) => return Ok(outcome),
    };
    let calls = u64::from(draft.upstream_calls);
    let written = written_of(claimed, counts, draft, messages.len(), started);
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
        record(&mut conn, claimed, &written, (&taken, &observations)).await
    })
    .await
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
    let writing = summarizer::write(Via::Upstream(model), prior, messages, rules);
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
        // What the model's context cannot hold is not prepared: the
        // compaction writes it then, extractively, and says why.
        Ok(draft) if draft.fallback.is_some() => {
            let calls = u64::from(draft.upstream_calls);
            let spent = (draft.upstream_input_tokens, draft.upstream_output_tokens);
            services.true_up(&claimed.tenant, reserved, spent, calls).await;
            let refused = LlmError::ContextLength(ContextRefusal::default());
            return failed(services, claimed, model, &refused).await.map(Err);
        }
        Ok(draft) => draft,
        Err(error) => {
            services.true_up(&claimed.tenant, reserved, (None, None), 0).await;
            return failed(services, claimed, model, &error).await.map(Err);
        }
    };
    Ok(Ok((draft, reserved)))
}

/// What a preparation summarizes, read in one go.
struct Gathered {
    stored: StoredConversation,
    /// The turns it covers, as messages.
    messages: Vec<Message>,
    stored_keep: keep::StoredKeep,
    /// The turns it covers that the keep set has not read yet.
    unread: Vec<turns::Turn>,
}

/// Reads what the preparation covers; `None` when there is nothing (left)
/// to prepare: a compaction moved the conversation on, or no turn is covered.
async fn gather(services: &Services, claimed: &Claimed) -> StoreResult<Option<Gathered>> {
    let mut conn = services.warm.acquire().await?;
    let stored = conversations::find(&mut conn, &claimed.tenant, &claimed.conversation_id).await?;
    let Some(stored) = stored.filter(|stored| still_stands(stored, claimed)) else {
        return Ok(None);
    };
    let since = turns::since(
        &mut conn,
        &claimed.tenant,
        &claimed.conversation_id,
        claimed.boundary_turn_seq,
    )
    .await?;
    let covered: Vec<_> = since
        .into_iter()
        .filter(|turn| turn.seq <= claimed.through_turn_seq)
        .collect();
    let stored_keep = keep::load(&mut conn, &claimed.tenant, &claimed.conversation_id).await?;
    let (messages, _) = messages_of(&covered);
    if messages.is_empty() {
        return Ok(None);
    }
    let unread: Vec<_> = covered
        .into_iter()
        .filter(|turn| turn.seq > stored_keep.turns_read)
        .collect();
    Ok(Some(Gathered {
        stored,
        messages,
        stored_keep,
        unread,
    }))
}

/// What the worker keeps of the summary it was written.
fn written_of(
    claimed: &Claimed,
    counts: Counts,
    draft: summarizer::Draft,
    messages: usize,
    started: Instant,
) -> Written {
    Written {
        covered: Covered {
            boundary_turn: claimed.boundary_turn_seq,
            anchor_seq: claimed.anchor_seq,
            messages,
            fingerprint: counts.fingerprint,
        },
        message_tokens: counts.messages,
        anchor_tokens: counts.anchor,
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

/// The conversation still stands where the preparation was planned: no
/// compaction moved its boundary or wrote another anchor since.
fn still_stands(stored: &StoredConversation, claimed: &Claimed) -> bool {
    stored.boundary_turn_seq == claimed.boundary_turn_seq
        && stored.summary.as_ref().map(|(_, seq)| *seq) == claimed.anchor_seq
        && stored.last_turn_seq >= claimed.through_turn_seq
}

/// Keeps what was written, in one transaction that holds the conversation's
/// row first: the preparation becomes ready (unless it was closed while it
/// was written) and the turns it read go into the keep set. (Its tokens
/// were counted against the budget before, either way.)
async fn record(
    conn: &mut PgConnection,
    claimed: &Claimed,
    written: &Written,
    (taken, observations): (&TakenIn, &[Observation]),
) -> StoreResult<Outcome> {
    let mut tx = conn.begin().await?;
    let stored = conversations::lock(&mut tx, &claimed.tenant, &claimed.conversation_id).await?;
    let kept = preparations::record_written(&mut tx, claimed, written).await?;
    if kept == Kept::Ready
        && let Some(stored) = stored
        && still_stands(&stored, claimed)
    {
        // Read once, here, the turns it covers need not be read again at
        // the compaction: the keep set comes out the same either way.
        taken
            .save(&mut tx, &claimed.tenant, &claimed.conversation_id, observations)
            .await?;
    }
    tx.commit().await?;
    Ok(match kept {
        Kept::Ready => Outcome::Ready,
        Kept::Wasted(reason) => Outcome::Wasted(reason),
        Kept::Lost => Outcome::Lost,
    })
}

async fn dropped(services: &Services, claimed: &Claimed, reason: Reason) -> StoreResult<Outcome> {
    let mut conn = services.warm.acquire().await?;
    dropped_on(&mut conn, claimed, reason).await
}

async fn dropped_on(conn: &mut PgConnection, claimed: &Claimed, reason: Reason) -> StoreResult<Outcome> {
    if preparations::drop_claimed(conn, claimed, reason).await? {
        let skipped = preparations::skipped_reason(reason);
        metrics::counter!("compactd_background_skipped_total", "reason" => skipped).increment(1);
    }
    Ok(Outcome::Dropped(reason))
}

async fn failed(
    services: &Services,
    claimed: &Claimed,
    model: &UpstreamModel,
    error: &LlmError,
) -> StoreResult<Outcome> {
    tracing::info!(%error, model = %model.model, preparation = claimed.seq, "a summary could not be prepared upstream");
    dropped(services, claimed, Reason::Upstream).await
}

/// The counts a compaction takes from a preparation, and its fingerprint.
struct Counts {
    messages: Vec<u64>,
    anchor: u64,
    fingerprint: [u8; 32],
}

/// What the unread turns say, the messages' and anchor's tokens and their
/// fingerprint, off the async threads (a long transcript takes a while);
/// the messages come back with them.
async fn read(
    id: ConversationId,
    unread: Vec<turns::Turn>,
    messages: Vec<Message>,
    prior: Option<String>,
    harness: std::sync::Arc<crate::summary::read::HarnessPatterns>,
) -> (Vec<Observation>, Counts, Vec<Message>) {
    let reading = move || {
        let observations = keep_set::of_turns(&id, &unread, &harness);
        let counts = Counts {
            messages: tokens::of_messages(&messages),
            anchor: prior.as_deref().map_or(0, tokens::count),
            fingerprint: prepare::fingerprint(prior.as_deref(), &messages),
        };
        (observations, counts, messages)
    };
    match tokio::task::spawn_blocking(reading).await {
        Ok(read) => read,
        // The runtime is shutting down: no messages, nothing is written.
        Err(_) => (
            Vec::new(),
            Counts {
                messages: Vec::new(),
                anchor: 0,
                fingerprint: [0; 32],
            },
            Vec::new(),
        ),
    }
}

/// Runs every planned preparation of one conversation now, here: what a
/// replay does to stand for a worker that had the time (deterministic,
/// whatever the timing).
pub(crate) async fn settle(services: &Services, tenant: &TenantId, id: &ConversationId) -> StoreResult<usize> {
    let mut written = 0;
    // A usage report plans one at a time: a few rounds settle any backlog.
    for _ in 0..8 {
        // Nobody else works on a replay's conversations: every claim is free.
        let claimed = claim_within(services, 4, Duration::ZERO, Some((tenant, id))).await?;
        if claimed.is_empty() {
            break;
        }
        for one in claimed {
            // A replay stands for a worker that had all the time it needed.
            if prepare(services, one, Duration::from_secs(24 * 60 * 60)).await? == Outcome::Ready {
                written += 1;
            }
        }
    }
    Ok(written)
}
