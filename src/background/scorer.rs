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
use crate::store::budget;
use crate::store::scoring::{self, ClaimedTurn};

/// A score is one digit: a few tokens of output are plenty.
const SCORE_MAX_TOKENS: u32 = 8;

pub(super) async fn run(workers: Workers) {
    loop {
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
                        Some(value) => scoring::record(&workers.pool, &turn, value, "llm").await.map(drop),
                        None => {
                            scoring::record_failure(&workers.pool, &turn, "score-parse", &excerpt(&completion.text))
                                .await
                        }
                    }
                }
                Err(error) => scoring::record_failure(&workers.pool, &turn, "score-call", &error.to_string()).await,
            }
        }
        None => {
            let value = score::heuristic(turn.user.as_deref(), turn.assistant.as_deref());
            scoring::record(&workers.pool, &turn, value, "heuristic")
                .await
                .map(drop)
        }
    };
    if let Err(err) = outcome {
        // The claim lapses and the turn is taken again.
        tracing::warn!(%err, turn = turn.seq, "could not record a turn's score");
    }
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
