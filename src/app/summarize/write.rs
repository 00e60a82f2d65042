//! Writing a compaction's summary from what was gathered: the transcript
//! read (`super::read`), and the summary written by whom the plan names,
//! under §4's rules, into the attempt to record.

use std::time::Instant;

use super::ahead;
use super::gather::Gathered;
use super::plan::{self, Plan};
use super::read::{Read, ReadFor, read};
use super::{Drafted, NO_UPSTREAM, Request};
use crate::app::budget::{Reservation, summary_estimate};
use crate::app::{AppResult, Refusal, Services};
use crate::domain::transcript::{Message, Role};
use crate::llm::{LlmError, tokens};
use crate::policy::CompactionTrigger;
use crate::records::StoredConversation;
use crate::store::StoreError;
use crate::store::compactions::Attempt;
use crate::summary::summarizer::{self, Draft, PreparedNarrative, Rules};
use crate::summary::write::prompt::PROMPT_VERSION;
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
    let whose = ReadFor {
        id: &request.id,
        keep_recent_tokens: request.keep_recent_tokens,
        at: request.at,
    };
    let mut read = read(services, whose, &stored, gathered, prior.clone()).await;
    let offered = read.offered.take();
    let tokens_before = plan::tokens_before(tokens_before_asked, reported, read.transcript_tokens());
    let rules = read.rules(services, stored.state.size, request.id.as_str());
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
                (Some(model), Ok(_)) => Via::Upstream(model, model.client.deadline()),
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
