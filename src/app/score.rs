//! Score turns (SPEC §5): claim unscored turns so that no two workers score
//! one, score each with one small upstream call (or the heuristic when there
//! is no model or the tenant's budget is spent), and record the score or why
//! there is none.

use super::Services;
use crate::llm::CompletionRequest;
use crate::llm::error::excerpt;
use crate::policy::score;
use crate::store::scoring::{self, ClaimedTurn};
use crate::store::{self, StoreResult};

/// A score is one digit: a few tokens of output are plenty.
const SCORE_MAX_TOKENS: u32 = 8;

/// Claims up to `batch` unscored turns; a claim older than the workers'
/// lease was its worker's last and is taken again.
pub(crate) async fn claim(services: &Services, batch: i64) -> StoreResult<Vec<ClaimedTurn>> {
    let mut conn = services.warm.acquire().await?;
    if let Ok(waiting) = scoring::waiting(&mut conn).await {
        metrics::gauge!("compactd_background_queue_depth", "work" => "scoring").set(waiting as f64);
    }
    scoring::claim(
        &mut conn,
        batch,
        (services.leases.worker, services.process),
        score::READS_CHARS,
    )
    .await
}

/// Scores one claimed turn and records it; a score that cannot be recorded
/// gives the turn's claim back, for the next round.
pub(crate) async fn score(services: &Services, turn: ClaimedTurn) {
    let outcome = match services.score_model_for(&turn.tenant).await {
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
                    services
                        .spend_on_scores(&turn.tenant, completion.input_tokens, completion.output_tokens)
                        .await;
                    match score::parse(&completion.text) {
                        Some(value) => scored(services, &turn, value, "llm").await,
                        None => skipped(services, &turn, "score-parse", &excerpt(&completion.text)).await,
                    }
                }
                Err(error) => skipped(services, &turn, "score-call", &error.to_string()).await,
            }
        }
        None => {
            let value = score::heuristic(turn.user.as_deref(), turn.assistant.as_deref());
            scored(services, &turn, value, "heuristic").await
        }
    };
    if let Err(err) = outcome {
        tracing::warn!(%err, turn = turn.seq, "could not record a turn's score");
        // Taken again next round; should this fail too, the claim lapses.
        let released = async {
            let mut conn = services.warm.acquire().await?;
            scoring::release(&mut conn, &turn).await
        };
        if let Err(err) = released.await {
            tracing::debug!(%err, turn = turn.seq, "could not give a turn's claim back");
        }
    }
}

async fn scored(services: &Services, turn: &ClaimedTurn, value: u8, source: &'static str) -> StoreResult<()> {
    let recorded = store::retry_lost_races(|| async {
        let mut conn = services.warm.acquire().await?;
        scoring::record(&mut conn, turn, value, source).await
    })
    .await?;
    if recorded {
        metrics::counter!("compactd_turns_scored_total", "source" => source).increment(1);
    }
    Ok(())
}

async fn skipped(services: &Services, turn: &ClaimedTurn, reason: &'static str, detail: &str) -> StoreResult<()> {
    metrics::counter!("compactd_background_skipped_total", "reason" => reason).increment(1);
    store::retry_lost_races(|| async {
        let mut conn = services.warm.acquire().await?;
        scoring::record_failure(&mut conn, turn, reason, detail).await
    })
    .await
}
