//! One audit (SPEC §5), when due: a batched re-score of unscored and weak
//! turns, 5s hoisted word for word into the critical list, the rolling memory
//! rebuilt from new 3s and 4s, 1s and 2s outside the newest few evicted.

use std::collections::HashMap;

use std::time::Duration;

use super::Services;
use crate::domain::{ConversationId, TenantId};
use crate::llm::error::excerpt;
use crate::llm::{CompletionRequest, UpstreamModel};
use crate::policy::audit::{self, AuditConfig, LiveTurn};
use crate::policy::score;
use crate::records::Critical;
use crate::store;
use crate::store::audits::{self, Claimed, Outcome};

/// Room for one `id: score` line per turn.
const RESCORE_MAX_TOKENS: u32 = 1_024;
const MEMORY_MAX_TOKENS: u32 = 1_024;

/// When audits are due, and how long a claim or a failure holds.
#[derive(Debug, Clone)]
pub(crate) struct AuditSettings {
    pub config: AuditConfig,
    /// A claim older than this was abandoned (its worker died): taken again.
    pub abandoned_after: Duration,
    /// A failed audit is not retried sooner than this.
    pub retry_after: Duration,
}

/// Why an audit gave up.
struct GaveUp {
    reason: &'static str,
    detail: String,
}

/// Audits the conversation when its audit is due and no other worker runs it.
pub(crate) async fn run_if_due(
    services: &Services,
    settings: &AuditSettings,
    tenant: &TenantId,
    conversation_id: &ConversationId,
) {
    let claimed = async {
        let mut conn = services.warm.acquire().await?;
        audits::claim(
            &mut conn,
            tenant,
            conversation_id,
            &settings.config,
            (settings.abandoned_after, services.process),
            settings.retry_after,
            score::READS_CHARS,
        )
        .await
    }
    .await;
    let claimed = match claimed {
        Ok(Some(claimed)) => claimed,
        Ok(None) => return,
        Err(err) => {
            tracing::warn!(%err, "cannot claim an audit");
            return;
        }
    };
    let recorded = match decide(services, &settings.config, &claimed).await {
        Ok(outcome) => {
            metrics::counter!("compactd_audits_total").increment(1);
            store::retry_lost_races(|| async {
                let mut conn = services.warm.acquire().await?;
                audits::finish(&mut conn, &claimed, &outcome).await
            })
            .await
        }
        Err(gave_up) => {
            metrics::counter!("compactd_background_skipped_total", "reason" => gave_up.reason).increment(1);
            store::retry_lost_races(|| async {
                let mut conn = services.warm.acquire().await?;
                audits::give_up(&mut conn, &claimed, gave_up.reason, &gave_up.detail).await
            })
            .await
        }
    };
    if let Err(err) = recorded {
        // The claim lapses and the audit is taken again.
        tracing::warn!(%err, "could not record an audit");
    }
}

async fn decide(services: &Services, config: &AuditConfig, claimed: &Claimed) -> Result<Outcome, GaveUp> {
    let model = services.score_model_for(&claimed.tenant).await;
    let asked: Vec<&LiveTurn> = claimed
        .live
        .iter()
        .filter(|turn| claimed.to_rescore.contains(&turn.seq))
        .collect();
    let scores: HashMap<i64, u8> = match (model, asked.is_empty()) {
        (_, true) => HashMap::new(),
        (Some(model), false) => {
            let request = CompletionRequest {
                model: model.model.clone(),
                system: audit::rescore_system_prompt(),
                user: audit::rescore_user_message(&asked),
                max_tokens: RESCORE_MAX_TOKENS,
                temperature: 0.0,
            };
            let answer = ask(services, model, &claimed.tenant, &request).await?;
            let seqs: Vec<i64> = asked.iter().map(|turn| turn.seq).collect();
            audit::parse_rescore(&answer, &seqs).ok_or_else(|| GaveUp {
                reason: "audit-parse",
                detail: excerpt(&answer),
            })?
        }
        (None, false) => asked
            .iter()
            .map(|turn| {
                (
                    turn.seq,
                    score::heuristic(turn.user.as_deref(), turn.assistant.as_deref()),
                )
            })
            .collect(),
    };
    let merged: Vec<LiveTurn> = claimed
        .live
        .iter()
        .map(|turn| LiveTurn {
            score: scores.get(&turn.seq).copied().or(turn.score),
            ..turn.clone()
        })
        .collect();
    let mut critical = claimed.critical.clone();
    for turn in merged.iter().filter(|turn| turn.score == Some(5)) {
        let hoisted = Critical {
            turn_id: turn.seq,
            user: turn.user.clone(),
            assistant: turn.assistant.clone(),
        };
        if !critical
            .iter()
            .any(|kept| kept.user == hoisted.user && kept.assistant == hoisted.assistant)
        {
            critical.push(hoisted);
        }
    }
    let facts: Vec<&LiveTurn> = merged
        .iter()
        .filter(|turn| matches!(turn.score, Some(3 | 4)) && turn.seq > claimed.memory_turn_seq)
        .collect();
    let memory = match facts.last() {
        None => None,
        Some(newest) => Some((rebuilt_memory(services, config, claimed, &facts).await?, newest.seq)),
    };
    let evicted = audit::to_evict(&merged, config);
    Ok(Outcome {
        scores,
        critical,
        memory,
        evicted,
    })
}

async fn rebuilt_memory(
    services: &Services,
    config: &AuditConfig,
    claimed: &Claimed,
    facts: &[&LiveTurn],
) -> Result<String, GaveUp> {
    let Some(model) = services.score_model_for(&claimed.tenant).await else {
        return Ok(audit::heuristic_memory(claimed.memory.as_deref(), facts, config));
    };
    let request = CompletionRequest {
        model: model.model.clone(),
        system: audit::memory_system_prompt(),
        user: audit::memory_user_message(claimed.memory.as_deref(), facts),
        max_tokens: MEMORY_MAX_TOKENS,
        temperature: 0.2,
    };
    ask(services, model, &claimed.tenant, &request).await
}

/// One of the audit's upstream calls, counted against the tenant's budget.
async fn ask(
    services: &Services,
    model: &UpstreamModel,
    tenant: &TenantId,
    request: &CompletionRequest,
) -> Result<String, GaveUp> {
    let completion = model.client.complete(request).await.map_err(|err| GaveUp {
        reason: "audit-call",
        detail: err.to_string(),
    })?;
    services
        .spend_on_scores(tenant, completion.input_tokens, completion.output_tokens)
        .await;
    Ok(completion.text)
}
