//! One compaction, from request to ledger row (SPEC §3, /summarize): claim the
//! conversation, gather the transcript since its boundary, cut off what stays
//! verbatim, have the summary written, and record the attempt with the state
//! change it makes. Used by /summarize, and by anything else that compacts.

mod claim;
pub mod keep;
mod transcript;

pub use claim::Claim;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use sqlx::{Connection, PgConnection, PgPool};

use crate::domain::{ConversationId, TenantId};
use crate::llm::summarizer::Rules;
use crate::llm::{self, SummaryModel, Via, summarizer, tokens};
use crate::policy::keep::{HarnessPatterns, summary_max_tokens};
use crate::policy::prompt::PROMPT_VERSION;
use crate::policy::transcript::{Message, Role};
use crate::policy::{Trigger, cut};
use crate::store::compactions::{self, Attempt, Recorded, Unclaimed};
use crate::store::{StoreError, StoreResult, StoredConversation, budget, turns};
use keep::Observation;

/// How long a claim lasts before it counts as abandoned: past any upstream
/// deadline the service allows, with room to record.
pub const CLAIM_ABANDONED_AFTER: Duration = Duration::from_secs(11 * 60);

/// Why no model wrote a summary.
pub const NO_UPSTREAM: &str = "no upstream LLM is configured";

/// What every summary is held to, whoever writes it (SPEC §4).
#[derive(Debug, Clone)]
pub struct SummaryConfig {
    /// `COMPACTD_SUMMARY_MAX_TOKENS`: a summary's whole budget, before the
    /// window's twentieth and the floor apply.
    pub max_tokens: u64,
    /// Harness text in the user role, built in and added.
    pub harness: Arc<HarnessPatterns>,
}

impl Default for SummaryConfig {
    fn default() -> Self {
        Self {
            max_tokens: DEFAULT_SUMMARY_MAX_TOKENS,
            harness: Arc::default(),
        }
    }
}

/// The spec's default for `COMPACTD_SUMMARY_MAX_TOKENS`.
pub const DEFAULT_SUMMARY_MAX_TOKENS: u64 = 4_000;

/// Who may write summaries, and what they are held to.
#[derive(Debug, Clone, Copy)]
pub struct Writers<'a> {
    /// The upstream; `None`: extractive summaries.
    pub model: Option<&'a SummaryModel>,
    /// Upstream tokens a tenant may spend a day; past it, extractive summaries.
    pub daily_budget: Option<u64>,
    pub config: &'a SummaryConfig,
}

/// What the caller asks for.
#[derive(Debug, Clone)]
pub struct Request {
    pub tenant: TenantId,
    pub id: ConversationId,
    /// The transcript since the boundary; `None`: the stored turns.
    pub messages: Option<Vec<Message>>,
    /// A summary the harness wrote itself: recorded, no model called.
    pub summary: Option<String>,
    /// `None`: the pending decision's trigger, else `manual`.
    pub trigger: Option<Trigger>,
    pub by_host: bool,
    pub idle: bool,
    pub tokens_before: Option<u64>,
    pub keep_recent_tokens: Option<u64>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("no conversation {0:?}: report usage or a turn first")]
    Missing(String),
    #[error("a compaction of this conversation is already running; retry when it ends")]
    Busy,
    #[error(
        "nothing to summarize: no messages were sent, none are stored since the last boundary, and there is no summary yet"
    )]
    Empty,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A written (or failed) summary, ready to be recorded.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub tenant: TenantId,
    pub id: ConversationId,
    pub attempt: Attempt,
    /// The anchor before this attempt (what a failure leaves in place).
    pub prior: Option<String>,
    /// The window's size when known, for the overflow check.
    pub size: u64,
    /// To give back if the attempt is not recorded.
    pub claim: Claim,
    /// What the transcript said, for the keep set when the attempt succeeds.
    pub observations: Vec<Observation>,
}

/// Claims the conversation and writes its summary. No connection is held
/// while the summary is written; a refusal gives the claim back.
pub async fn prepare(pool: &PgPool, writers: Writers<'_>, request: Request) -> Result<Prepared, Refused> {
    let started = Instant::now();
    let (stored, since) = {
        let mut conn = pool.acquire().await.map_err(StoreError::from)?;
        match compactions::claim(&mut conn, &request.tenant, &request.id, CLAIM_ABANDONED_AFTER).await? {
            Ok(claimed) => claimed,
            Err(Unclaimed::Missing) => return Err(Refused::Missing(request.id.to_string())),
            Err(Unclaimed::Busy) => return Err(Refused::Busy),
        }
    };
    let claim = Claim {
        tenant: request.tenant.clone(),
        id: request.id.clone(),
        since,
    };
    let prepared = write(pool, writers, request, stored, &claim, started).await;
    if prepared.is_err() {
        claim.give_back(pool).await;
    }
    prepared
}

async fn write(
    pool: &PgPool,
    writers: Writers<'_>,
    request: Request,
    stored: StoredConversation,
    claim: &Claim,
    started: Instant,
) -> Result<Prepared, Refused> {
    let sent_messages = request.messages.is_some();
    let (gathered, spent, stored_keep, unread) = {
        let mut conn = pool.acquire().await.map_err(StoreError::from)?;
        let gathered = transcript::gather(&mut conn, &request.tenant, &request.id, &stored, request.messages).await?;
        let spent = match writers.daily_budget {
            Some(_) => budget::spent_today(&mut conn, &request.tenant).await?,
            None => 0,
        };
        let stored_keep = crate::store::keep::load(&mut conn, &request.tenant, &request.id).await?;
        // Stored turns are read even when the caller sends `messages`: they
        // may hold what the messages do not (a turn begun before a rollover,
        // a caller that sends only part of its transcript). Read twice, an
        // item counts twice; read never, it would be lost.
        let unread = turns::since(&mut conn, &request.tenant, &request.id, stored_keep.turns_read).await?;
        (gathered, spent, stored_keep, unread)
    };
    let prior = stored.summary.as_ref().map(|(text, _)| text.clone());
    let trigger = request.trigger.unwrap_or_else(|| pending_trigger(&stored));
    let harness_summary = match (trigger, request.summary) {
        (Trigger::ManualRecovery, summary) => Some(summary.unwrap_or_default()),
        (_, summary) => summary,
    };
    if gathered.messages.is_empty() && prior.is_none() && harness_summary.is_none() {
        return Err(Refused::Empty);
    }
    let counted = count_tokens(gathered.messages.clone(), prior.clone()).await;
    let kept_from = request
        .keep_recent_tokens
        .map(|keep| cut::kept_from(&gathered.messages, &counted.per_message, keep));
    let cut_at = kept_from.unwrap_or(gathered.messages.len());
    let delta = &gathered.messages[..cut_at];
    let seq = stored.last_compaction_seq + 1;
    let harness = writers.config.harness.clone();
    // The kept messages come again in the next delta: read them then.
    let sent_delta = if sent_messages { delta.to_vec() } else { Vec::new() };
    let observations = observe(request.id.clone(), seq, request.at, unread, sent_delta, harness.clone()).await;
    let mut keep_set = stored_keep.set;
    keep::take_in(&mut keep_set, stored_keep.turns_read, &observations);
    let tokens_before = request
        .tokens_before
        .unwrap_or_else(|| counted.prior + counted.per_message.iter().sum::<u64>());
    let rules = Rules {
        keep: &keep_set,
        max_tokens: summary_max_tokens(writers.config.max_tokens, stored.state.size),
        transcript_tokens: counted.prior + counted.per_message.iter().sum::<u64>(),
        harness: &harness,
    };
    let written = match harness_summary {
        Some(text) if trigger == Trigger::ManualRecovery => Ok(summarizer::clean_slate(&text, rules.max_tokens).await),
        Some(text) => Ok(summarizer::from_harness(&text, rules).await),
        None => {
            let over_budget = writers
                .daily_budget
                .filter(|budget| spent >= *budget)
                .map(|budget| format!("the tenant's daily upstream budget of {budget} tokens is spent"));
            let via = match (writers.model, &over_budget) {
                (_, Some(why)) => Via::Extractive(why),
                (Some(model), None) => Via::Upstream(model),
                (None, None) => Via::Extractive(NO_UPSTREAM),
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
        summarizer: "llm",
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
    };
    match written {
        Ok(draft) => {
            attempt.tokens_after = tokens::count(&draft.text) + kept_tokens;
            attempt.summarizer = draft.writer.as_str();
            attempt.prompt_version = (draft.writer == llm::Writer::Llm).then_some(PROMPT_VERSION);
            attempt.model = draft.model;
            attempt.upstream_input_tokens = draft.upstream_input_tokens;
            attempt.upstream_output_tokens = draft.upstream_output_tokens;
            attempt.keep = Some(draft.figures);
            attempt.outcome = Ok(draft.text);
        }
        Err(error) => {
            attempt.model = writers.model.map(|m| m.model.clone());
            attempt.outcome = Err(error.to_string());
        }
    }
    attempt.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Prepared {
        tenant: request.tenant,
        id: request.id,
        attempt,
        prior,
        size: stored.state.size,
        claim: claim.clone(),
        observations,
    })
}

/// The pending decision's trigger when it names a compaction, else `manual`.
fn pending_trigger(stored: &StoredConversation) -> Trigger {
    stored
        .pending_decision
        .as_ref()
        .and_then(|pending| pending["trigger"].as_str())
        .and_then(Trigger::parse)
        .filter(|trigger| trigger.is_compaction_trigger())
        .unwrap_or(Trigger::Manual)
}

/// What the unread turns and the sent delta say, read off the async threads:
/// a delta full of tool output takes a while.
async fn observe(
    id: ConversationId,
    seq: i64,
    at: DateTime<Utc>,
    unread: Vec<crate::store::turns::Turn>,
    delta: Vec<Message>,
    harness: Arc<HarnessPatterns>,
) -> Vec<Observation> {
    let read = move || {
        let mut observations = keep::of_turns(&id, &unread, &harness);
        observations.extend(keep::of_messages(&id, seq, at, &delta, &harness));
        observations
    };
    tokio::task::spawn_blocking(read).await.unwrap_or_else(|err| {
        tracing::warn!(%err, "the transcript could not be read into the keep set");
        Vec::new()
    })
}

struct Counted {
    per_message: Vec<u64>,
    prior: u64,
}

/// Token counts off the async threads: a long transcript takes a while.
async fn count_tokens(messages: Vec<Message>, prior: Option<String>) -> Counted {
    let len = messages.len();
    let count = move || Counted {
        per_message: messages.iter().map(|m| tokens::count(&m.text_for_counting())).collect(),
        prior: prior.as_deref().map_or(0, tokens::count),
    };
    // Should the tokenizer ever fail, the counts are unknown, not the request.
    tokio::task::spawn_blocking(count).await.unwrap_or(Counted {
        per_message: vec![0; len],
        prior: 0,
    })
}

/// Records the attempt and applies it, in a transaction of its own (or a
/// savepoint of the caller's); the claim ends.
pub async fn record(conn: &mut PgConnection, prepared: &Prepared) -> StoreResult<(Recorded, StoredConversation)> {
    let mut tx = conn.begin().await?;
    let recorded = compactions::record(&mut tx, &prepared.tenant, &prepared.id, &prepared.attempt).await?;
    let attempt = &prepared.attempt;
    if attempt.outcome.is_ok() {
        // The conversation's row is locked: read the set again and take in
        // what this compaction read, so a handoff in between counts once.
        let mut stored = crate::store::keep::load(&mut tx, &prepared.tenant, &prepared.id).await?;
        let read = keep::take_in(&mut stored.set, stored.turns_read, &prepared.observations);
        crate::store::keep::save(&mut tx, &prepared.tenant, &prepared.id, &stored.set, read).await?;
        if let Some(figures) = &attempt.keep {
            crate::store::keep::tally(&mut tx, &prepared.tenant, attempt.at, figures).await?;
        }
    }
    if let (Some(input), output) = (attempt.upstream_input_tokens, attempt.upstream_output_tokens) {
        budget::spend(&mut tx, &prepared.tenant, input, output.unwrap_or(0)).await?;
    }
    metrics::counter!(
        "compactd_compactions_total",
        "trigger" => attempt.trigger.as_str(),
        "success" => if attempt.outcome.is_ok() { "true" } else { "false" },
        "summarizer" => attempt.summarizer,
    )
    .increment(1);
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
    tx.commit().await?;
    Ok(recorded)
}
