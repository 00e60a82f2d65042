//! Writing one summary from what was gathered: the transcript counted and
//! cut, the keep set brought up to date, and the summary written by whom
//! the plan names, under §4's rules, into the attempt to record.

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::ahead::{self, Transcript};
use super::gather::Gathered;
use super::plan::{self, Plan};
use super::{Drafted, NO_UPSTREAM, Request};
use crate::app::budget::{Reservation, summary_estimate};
use crate::app::keep_set::{self, Observation, TakenIn};
use crate::app::{AppResult, Refusal, Services};
use crate::domain::ConversationId;
use crate::domain::transcript::{Message, Role};
use crate::llm::{LlmError, tokens};
use crate::policy::{CompactionTrigger, cut};
use crate::records::StoredConversation;
use crate::store::StoreError;
use crate::store::compactions::Attempt;
use crate::summary::read::{HarnessPatterns, StateAtCut, state_at_cut};
use crate::summary::summarizer::{self, Draft, PreparedNarrative, Rules};
use crate::summary::write::prompt::PROMPT_VERSION;
use crate::summary::write::summary_max_tokens;
use crate::summary::{Via, Writer};

/// Writes the summary `gathered` calls for, as [`plan`] chooses, into an
/// attempt ready to be recorded.
pub(super) async fn write(
    services: &Services,
    request: Request,
    stored: StoredConversation,
    gathered: Gathered,
    started: Instant,
) -> AppResult<Drafted> {
    let prior = stored.summary.as_ref().map(|(text, _)| text.clone());
    let trigger = plan::trigger(request.trigger, &stored);
    let harness_summary = plan::harness_summary(trigger, request.summary.clone());
    if gathered.transcript.messages.is_empty() && prior.is_none() && harness_summary.is_none() {
        return Err(Refusal::Conflict(
            "nothing to summarize: no messages were sent, none are stored since the last boundary, and there is no summary yet"
                .to_owned(),
        ));
    }
    let tokens_before_asked = request.tokens_before;
    let reported = gathered.reported;
    let mut read = read(services, &request, &stored, gathered, prior.clone()).await;
    let offered = read.offered.take();
    let transcript_tokens = read.counted.prior + read.counted.per_message.iter().sum::<u64>();
    let tokens_before = plan::tokens_before(tokens_before_asked, reported, transcript_tokens);
    let harness = &services.summaries.harness;
    let rules = Rules {
        keep: &read.taken.set,
        max_tokens: summary_max_tokens(services.summaries.max_tokens, stored.state.size),
        transcript_tokens,
        harness,
        state: &read.state,
        conversation: request.id.as_str(),
    };
    let given = harness_summary.is_some();
    let chosen = ahead::choose(
        offered,
        &read.counted,
        read.cut_at,
        given,
        &stored.state,
        &services.policy,
    );
    let planned = plan::plan(trigger, harness_summary, &chosen, services.summary_model.is_some());
    let delta = &read.transcript.messages[..read.cut_at];
    let (written, reserved) = run(services, &request, planned, prior.as_deref(), delta, rules).await?;
    let (ahead, prepared_age_ms) = plan::ahead(&chosen, request.at);
    let mut attempt = attempt(&request, trigger, tokens_before, &read);
    attempt.prepared_age_ms = prepared_age_ms;
    match written {
        Ok(draft) => {
            let kept_tokens: u64 = read.counted.per_message[read.cut_at..].iter().sum();
            attempt.tokens_after = tokens::count(&draft.text) + kept_tokens;
            attempt.summarizer = draft.writer;
            attempt.prompt_version = (draft.writer == Writer::Llm).then_some(PROMPT_VERSION);
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
    attempt.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Drafted {
        ahead,
        keep: read.taken,
        tenant: request.tenant,
        id: request.id,
        attempt,
        prior,
        size: stored.state.size,
        claim: None,
        claimed_since: None,
        observations: read.observations,
        reserved: reserved.unwrap_or_default(),
    })
}

/// The transcript read: counted, cut where the recent messages stay
/// verbatim, what it says taken into the keep set, where things stand.
struct Read {
    transcript: crate::app::transcript::Gathered,
    counted: ahead::Counted,
    /// Where the verbatim messages begin (`None`: nothing kept verbatim).
    kept_from: Option<usize>,
    /// The delta's end: `kept_from`, else every message.
    cut_at: usize,
    /// The preparation offered, once checked against the transcript.
    offered: Option<crate::store::prepared::Ready>,
    observations: Vec<Observation>,
    state: StateAtCut,
    taken: TakenIn,
}

/// Reads the transcript off the async threads, two at a time.
async fn read(
    services: &Services,
    request: &Request,
    stored: &StoredConversation,
    gathered: Gathered,
    prior: Option<String>,
) -> Read {
    let Gathered {
        transcript,
        sent,
        keep,
        unread,
        offered,
        ..
    } = gathered;
    let counting = Transcript {
        messages: Arc::clone(&transcript.messages),
        prior,
        boundary_turn: stored.boundary_turn_seq,
        anchor_seq: stored.summary.as_ref().map(|(_, seq)| *seq),
    };
    let harness = services.summaries.harness.clone();
    // The stored turns are read while the transcript is counted.
    let (mut observations, (counted, offered)) = tokio::join!(
        async {
            keep_set::of_turns_off_thread(request.id.clone(), unread, harness.clone())
                .await
                .unwrap_or_default()
        },
        ahead::count(counting, offered)
    );
    let kept_from = request
        .keep_recent_tokens
        .map(|keep| cut::kept_from(&transcript.messages, &counted.per_message, keep));
    let cut_at = kept_from.unwrap_or(transcript.messages.len());
    let seq = stored.last_compaction_seq + 1;
    // Where things stand is read from the delta beside the keep set's items
    // (the kept messages come again in the next delta: read them then).
    let (from_sent, state) = tokio::join!(
        async {
            if sent {
                let delta = transcript.messages[..cut_at].to_vec();
                observe_sent(request.id.clone(), seq, request.at, delta, harness.clone()).await
            } else {
                Vec::new()
            }
        },
        read_state(Arc::clone(&transcript.messages), cut_at, harness.clone())
    );
    observations.extend(from_sent);
    let taken = TakenIn::of(keep, &observations);
    Read {
        transcript,
        counted,
        kept_from,
        cut_at,
        offered,
        observations,
        state,
        taken,
    }
}

/// Carries the plan out; the upstream is asked only with what its call may
/// take held first, and answers with the hold it took.
async fn run(
    services: &Services,
    request: &Request,
    planned: Plan<'_>,
    prior: Option<&str>,
    delta: &[Message],
    rules: Rules<'_>,
) -> AppResult<(Result<Draft, LlmError>, Option<Reservation>)> {
    let written = match planned {
        Plan::CleanSlate(text) => Ok(summarizer::clean_slate(&text, rules.max_tokens).await),
        Plan::Harness(text) => Ok(summarizer::from_harness(&text, &request.invented, rules).await),
        Plan::Merge(ready) => {
            let prepared = PreparedNarrative {
                narrative: &ready.narrative,
                model: ready.model.as_deref(),
            };
            Ok(summarizer::merge(prepared, &delta[ready.covered.messages..], rules).await)
        }
        Plan::Extractive => summarizer::write(Via::Extractive(NO_UPSTREAM), prior, delta, rules).await,
        Plan::Model => {
            let estimate = summary_estimate(rules.transcript_tokens, rules.max_tokens);
            let reserved = {
                let mut conn = services.warm.acquire().await.map_err(StoreError::from)?;
                services.budget.reserve(&mut conn, &request.tenant, estimate).await?
            };
            let via = match (&services.summary_model, &reserved) {
                (Some(model), Ok(_)) => Via::Upstream(model),
                (_, Err(spent)) => Via::Extractive(spent.reason()),
                (None, Ok(_)) => Via::Extractive(NO_UPSTREAM),
            };
            let written = summarizer::write(via, prior, delta, rules).await;
            return Ok((written, reserved.ok()));
        }
    };
    Ok((written, None))
}

/// The attempt as the transcript and the request describe it, before its
/// summary is in.
fn attempt(request: &Request, trigger: CompactionTrigger, tokens_before: u64, read: &Read) -> Attempt {
    let messages = &read.transcript.messages;
    let role_count = |role: Role| messages.iter().filter(|m| m.role == role).count() as u64;
    Attempt {
        at: request.at,
        trigger,
        by_host: request.by_host,
        idle: request.idle,
        summarizer: Writer::Llm,
        model: None,
        tokens_before,
        tokens_after: tokens_before,
        total_messages: messages.len() as u64,
        user_messages: role_count(Role::User),
        assistant_messages: role_count(Role::Assistant),
        tool_messages: role_count(Role::Tool),
        kept_from: read.kept_from.map(|k| k as u64),
        duration_ms: 0,
        upstream_input_tokens: None,
        upstream_output_tokens: None,
        outcome: Err(String::new()),
        prompt_version: None,
        boundary_turn_seq: read.transcript.boundary(read.cut_at),
        keep: None,
        prepared_age_ms: None,
        harness: request.harness.clone(),
        upstream_calls: None,
        fallback: None,
    }
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
