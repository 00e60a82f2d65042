//! The scorer: claims unscored turns, scores each with one small upstream
//! call (or the heuristic), records the score or why there is none, then
//! audits the conversations it touched when their audit is due.

use std::collections::BTreeSet;

use tokio::task::JoinSet;

use super::{Workers, audit};
use crate::domain::TenantId;
use crate::llm::CompletionRequest;
use crate::llm::error::excerpt;
use crate::policy::score;
use crate::store::scoring::{self, ClaimedTurn};
use crate::store::{self, StoreResult, budget};

/// A score is one digit: a few tokens of output are plenty.
const SCORE_MAX_TOKENS: u32 = 8;

pub(super) async fn run(workers: Workers) {
    loop {
        if let Ok(waiting) = scoring::waiting(&workers.pool).await {
            metrics::gauge!("compactd_background_queue_depth", "work" => "scoring").set(waiting as f64);
        }
        let claimed = scoring::claim(&workers.pool, workers.settings.batch, workers.settings.abandoned_after).await;
        let turns = match claimed {
            Ok(turns) if !turns.is_empty() => turns,
            Ok(_) => {
                tokio::time::sleep(workers.settings.poll).await;
                continue;
            }
            Err(err) => {
                tracing::warn!(%err, "cannot claim turns to score");
                tokio::time::sleep(workers.settings.poll * 4).await;
                continue;
            }
        };
        let touched: BTreeSet<(String, String)> = turns
            .iter()
            .map(|turn| (turn.tenant.clone(), turn.conversation_id.clone()))
            .collect();
        let mut scoring = JoinSet::new();
        for turn in turns {
            scoring.spawn(score_one(workers.clone(), turn));
        }
        scoring.join_all().await;
        for (tenant, conversation_id) in touched {
            audit::run_if_due(&workers, &tenant, &conversation_id).await;
        }
    }
}

async fn score_one(workers: Workers, turn: ClaimedTurn) {
    let outcome = match upstream_for(&workers, &turn.tenant).await {
        Some(model) => {
            let request = CompletionRequest {
                model: model.model.clone(),
                system: score::system_prompt(),
                user: score::user_message(turn.user.as_deref(), turn.assistant.as_deref()),
                max_tokens: SCORE_MAX_TOKENS,
                temperature: 0.0,
            };
            match model.client.complete(&request).await {
                Ok(completion) => {
                    spend(
                        &workers,
                        &turn.tenant,
                        completion.input_tokens,
                        completion.output_tokens,
                    )
                    .await;
                    match score::parse(&completion.text) {
                        Some(value) => scored(&workers, &turn, value, "llm").await,
                        None => skipped(&workers, &turn, "score-parse", &excerpt(&completion.text)).await,
                    }
                }
                Err(error) => skipped(&workers, &turn, "score-call", &error.to_string()).await,
            }
        }
        None => {
            let value = score::heuristic(turn.user.as_deref(), turn.assistant.as_deref());
            scored(&workers, &turn, value, "heuristic").await
        }
    };
    if let Err(err) = outcome {
        tracing::warn!(%err, turn = turn.seq, "could not record a turn's score");
        // Taken again next round; should this fail too, the claim lapses.
        if let Err(err) = scoring::release(&workers.pool, &turn).await {
            tracing::debug!(%err, turn = turn.seq, "could not give a turn's claim back");
        }
    }
}

async fn scored(workers: &Workers, turn: &ClaimedTurn, value: u8, source: &'static str) -> StoreResult<()> {
    if store::retry_lost_races(|| scoring::record(&workers.pool, turn, value, source)).await? {
        metrics::counter!("compactd_turns_scored_total", "source" => source).increment(1);
    }
    Ok(())
}

async fn skipped(workers: &Workers, turn: &ClaimedTurn, reason: &'static str, detail: &str) -> StoreResult<()> {
    metrics::counter!("compactd_background_skipped_total", "reason" => reason).increment(1);
    store::retry_lost_races(|| scoring::record_failure(&workers.pool, turn, reason, detail)).await
}

/// The score model, unless there is none or the tenant's budget is spent.
pub(super) async fn upstream_for<'a>(workers: &'a Workers, tenant: &str) -> Option<&'a super::ScoreModel> {
    let model = workers.score_model.as_ref()?;
    let Some(daily) = workers.daily_token_budget else {
        return Some(model);
    };
    let tenant = TenantId::parse("tenant", tenant).ok()?;
    let mut conn = workers.pool.acquire().await.ok()?;
    let spent = budget::spent_today(&mut conn, &tenant).await.ok()?;
    (spent < daily).then_some(model)
}

pub(super) async fn spend(workers: &Workers, tenant: &str, input: Option<u64>, output: Option<u64>) {
    let (Some(input), Ok(tenant)) = (input, TenantId::parse("tenant", tenant)) else {
        return;
    };
    if let Ok(mut conn) = workers.pool.acquire().await
        && let Err(err) = budget::spend(&mut conn, &tenant, input, output.unwrap_or(0)).await
    {
        tracing::warn!(%err, "could not count upstream tokens against the budget");
    }
}
