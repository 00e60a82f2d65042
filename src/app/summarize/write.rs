//! Writing one summary: the transcript since the boundary gathered and
//! counted, the keep set brought up to date, the summary written by the
//! upstream, the extractive summarizer or the harness, under §4's rules.

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::ahead::{self, Transcript};
use super::compact::Ahead;
use super::{Drafted, NO_UPSTREAM, Request, transcript};
use crate::app::budget::summary_estimate;
use crate::app::keep_set::{self, Observation, TakenIn};
use crate::app::{Outcome, Refusal, Services};
use crate::domain::ConversationId;
use crate::llm::summarizer::{PreparedNarrative, Rules};
use crate::llm::{self, Via, Writer, summarizer, tokens};
use crate::policy::keep::{HarnessPatterns, StateAtCut, state_at_cut, summary_max_tokens};
use crate::policy::prepare::Reason;
use crate::policy::prompt::PROMPT_VERSION;
use crate::policy::transcript::{Message, Role};
use crate::policy::{CompactionTrigger, cut};
use crate::store::compactions::Attempt;
use crate::store::{StoreError, StoredConversation, events, prepared, turns};

pub(super) async fn write(
    services: &Services,
    request: Request,
    stored: StoredConversation,
    started: Instant,
) -> Outcome<Drafted> {
    let sent_messages = request.messages.is_some();
    let (gathered, stored_keep, unread, offered, reported) = {
        let mut conn = services.pool.acquire().await.map_err(StoreError::from)?;
        let gathered = transcript::gather(&mut conn, &request.tenant, &request.id, &stored, request.messages).await?;
        let stored_keep = crate::store::keep::load(&mut conn, &request.tenant, &request.id).await?;
        // Stored turns are read even when the caller sends `messages`: they
        // may hold what the messages do not (a turn begun before a rollover,
        // a caller that sends only part of its transcript). Read twice, an
        // item counts twice; read never, it would be lost.
        let unread = turns::since(&mut conn, &request.tenant, &request.id, stored_keep.turns_read).await?;
        let offered = prepared::ready(&mut conn, &request.tenant, &request.id).await?;
        // Sent nothing, the agent's own report of its context since the last
        // compaction is what this one shrinks (the stored turns are only what
        // compactd was told of it), unless turns stored since outgrew it.
        let reported = match (sent_messages, request.tokens_before) {
            (false, None) => events::used_reported_since_compaction(&mut conn, &request.tenant, &request.id).await?,
            _ => None,
        };
        (gathered, stored_keep, unread, offered, reported)
    };
    let prior = stored.summary.as_ref().map(|(text, _)| text.clone());
    let trigger = request.trigger.unwrap_or_else(|| pending_trigger(&stored));
    let harness_summary = match (trigger, request.summary) {
        (CompactionTrigger::ManualRecovery, summary) => Some(summary.unwrap_or_default()),
        (_, summary) => summary,
    };
    if gathered.messages.is_empty() && prior.is_none() && harness_summary.is_none() {
        return Err(Refusal::Conflict(
            "nothing to summarize: no messages were sent, none are stored since the last boundary, and there is no summary yet"
                .to_owned(),
        ));
    }
    let transcript = Transcript {
        messages: Arc::clone(&gathered.messages),
        prior: prior.clone(),
        boundary_turn: stored.boundary_turn_seq,
        anchor_seq: stored.summary.as_ref().map(|(_, seq)| *seq),
    };
    let harness = services.summaries.harness.clone();
    // The stored turns are read while the transcript is counted: two threads.
    let (of_turns, (counted, offered)) = tokio::join!(
        async {
            keep_set::of_turns_off_thread(request.id.clone(), unread, harness.clone())
                .await
                .unwrap_or_default()
        },
        ahead::count(transcript, offered)
    );
    let kept_from = request
        .keep_recent_tokens
        .map(|keep| cut::kept_from(&gathered.messages, &counted.per_message, keep));
    let cut_at = kept_from.unwrap_or(gathered.messages.len());
    let delta = &gathered.messages[..cut_at];
    let seq = stored.last_compaction_seq + 1;
    // The kept messages come again in the next delta: read them then.
    let mut observations = of_turns;
    // Where things stand is read from the delta beside the keep set's items:
    // both read every message, off the async threads.
    let (sent, state) = tokio::join!(
        async {
            if sent_messages {
                observe_sent(request.id.clone(), seq, request.at, delta.to_vec(), harness.clone()).await
            } else {
                Vec::new()
            }
        },
        read_state(Arc::clone(&gathered.messages), cut_at, harness.clone())
    );
    observations.extend(sent);
    let taken = TakenIn::of(stored_keep, &observations);
    let counted_before = counted.prior + counted.per_message.iter().sum::<u64>();
    let tokens_before = request
        .tokens_before
        .unwrap_or_else(|| reported.map_or(counted_before, |used| used.max(counted_before)));
    let rules = Rules {
        keep: &taken.set,
        max_tokens: summary_max_tokens(services.summaries.max_tokens, stored.state.size),
        transcript_tokens: counted.prior + counted.per_message.iter().sum::<u64>(),
        harness: &harness,
        state: &state,
        conversation: request.id.as_str(),
    };
    let given = harness_summary.is_some();
    let chosen = ahead::choose(offered, &counted, cut_at, given, &stored.state, &services.policy);
    // The upstream is asked only with what its call may take held first.
    let reserved = match &services.summary_model {
        Some(_) if !given && chosen.is_err() => {
            let estimate = summary_estimate(rules.transcript_tokens, rules.max_tokens);
            let mut conn = services.pool.acquire().await.map_err(StoreError::from)?;
            Some(services.budget.reserve(&mut conn, &request.tenant, estimate).await?)
        }
        _ => None,
    };
    let written = match (harness_summary, &chosen) {
        (Some(text), _) if trigger == CompactionTrigger::ManualRecovery => {
            Ok(summarizer::clean_slate(&text, rules.max_tokens).await)
        }
        (Some(text), _) => Ok(summarizer::from_harness(&text, rules).await),
        // No upstream call, whatever the budget: what was prepared is paid for.
        (None, Ok(ready)) => {
            let prepared = PreparedNarrative {
                narrative: &ready.narrative,
                model: ready.model.as_deref(),
            };
            Ok(summarizer::merge(prepared, &delta[ready.covered.messages..], rules).await)
        }
        (None, Err(_)) => {
            let via = match (&services.summary_model, &reserved) {
                (_, Some(Err(spent))) => Via::Extractive(spent.reason()),
                (Some(model), Some(Ok(_))) => Via::Upstream(model),
                _ => Via::Extractive(NO_UPSTREAM),
            };
            llm::summarizer::write(via, prior.as_deref(), delta, rules).await
        }
    };
    let kept_tokens: u64 = counted.per_message[cut_at..].iter().sum();
    let role_count = |role: Role| gathered.messages.iter().filter(|m| m.role == role).count() as u64;
    let mut attempt = Attempt {
        at: request.at,
        trigger,
        by_host: request.by_host,
        idle: request.idle,
        summarizer: Writer::Llm,
        model: None,
        tokens_before,
        tokens_after: tokens_before,
        total_messages: gathered.messages.len() as u64,
        user_messages: role_count(Role::User),
        assistant_messages: role_count(Role::Assistant),
        tool_messages: role_count(Role::Tool),
        kept_from: kept_from.map(|k| k as u64),
        duration_ms: 0,
        upstream_input_tokens: None,
        upstream_output_tokens: None,
        outcome: Err(String::new()),
        prompt_version: None,
        boundary_turn_seq: gathered.boundary(cut_at),
        keep: None,
        prepared_age_ms: None,
        harness: request.harness.clone(),
        upstream_calls: None,
        fallback: None,
    };
    match written {
        Ok(draft) => {
            attempt.tokens_after = tokens::count(&draft.text) + kept_tokens;
            attempt.summarizer = draft.writer;
            attempt.prompt_version = (draft.writer == llm::Writer::Llm).then_some(PROMPT_VERSION);
            attempt.model = draft.model;
            attempt.upstream_input_tokens = draft.upstream_input_tokens;
            attempt.upstream_output_tokens = draft.upstream_output_tokens;
            attempt.upstream_calls = Some(draft.upstream_calls);
            attempt.fallback = draft.fallback;
            attempt.keep = Some(draft.figures);
            attempt.outcome = Ok(draft.text);
        }
        Err(error) => {
            attempt.model = services.summary_model.as_ref().map(|m| m.model.clone());
            attempt.outcome = Err(error.to_string());
        }
    }
    let ahead = match chosen {
        // A merge does not fail: the attempt succeeded with it.
        Ok(ready) => {
            let age = (request.at - ready.planned_at).num_milliseconds().max(0);
            attempt.prepared_age_ms = Some(u64::try_from(age).unwrap_or(0));
            Ahead::Used(ready.seq)
        }
        // With none offered, only a plan not yet written can be open: it ends
        // `compacted_first` whatever this says.
        Err(reason) => Ahead::Unused(reason.unwrap_or(Reason::Superseded)),
    };
    attempt.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Drafted {
        ahead,
        keep: taken,
        tenant: request.tenant,
        id: request.id,
        attempt,
        prior,
        size: stored.state.size,
        claim: None,
        observations,
        reserved: reserved.and_then(Result::ok).unwrap_or_default(),
    })
}

/// The pending decision's trigger when it names a compaction, else `manual`.
fn pending_trigger(stored: &StoredConversation) -> CompactionTrigger {
    stored
        .pending_decision
        .as_ref()
        .and_then(|pending| pending.trigger?.compaction())
        .unwrap_or(CompactionTrigger::Manual)
}

/// What the sent delta says (after the stored turns), read off the async
/// threads: a delta full of tool output takes a while.
async fn observe_sent(
    id: ConversationId,
    seq: i64,
    at: DateTime<Utc>,
    delta: Vec<Message>,
    harness: Arc<HarnessPatterns>,
) -> Vec<Observation> {
    off_thread(move || keep_set::of_messages(&id, seq, at, &delta, &harness)).await
}

/// Where things stand at the end of the delta (its first `cut_at`
/// messages), read off the async threads.
async fn read_state(messages: Arc<Vec<Message>>, cut_at: usize, harness: Arc<HarnessPatterns>) -> StateAtCut {
    let read = move || state_at_cut(&messages[..cut_at], &harness);
    match tokio::task::spawn_blocking(read).await {
        Ok(state) => state,
        Err(err) => {
            tracing::warn!(%err, "where things stand could not be read");
            StateAtCut::default()
        }
    }
}

async fn off_thread(read: impl FnOnce() -> Vec<Observation> + Send + 'static) -> Vec<Observation> {
    tokio::task::spawn_blocking(read).await.unwrap_or_else(|err| {
        tracing::warn!(%err, "the transcript could not be read into the keep set");
        Vec::new()
    })
}
