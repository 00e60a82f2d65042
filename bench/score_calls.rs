//! Upstream calls per 100 turns (SPEC §5: one score call a turn, plus the
//! audits' batched re-scores and memory rebuilds), against a fake upstream:
//! once with turns paced (each scored before the next arrives, as a
//! conversation with a person goes), once in a burst (turns faster than the
//! scorer, when audits take over in batches).
//!
//! The fake upstream scores thanks 1, tickets 4 and the rest 3, and the turns
//! are a third of each.
//!
//! `cargo run --release --example score_calls`

#[path = "support/mod.rs"]
mod support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use compactd::config::BackgroundSettings;
use serde_json::json;
use sqlx::postgres::PgConnectOptions;

const TURNS: usize = 100;

fn reset() {
    for calls in &support::CALLS {
        calls.store(0, Ordering::Relaxed);
    }
}

fn report(label: &str) {
    let calls = |kind: usize| support::CALLS[kind].load(Ordering::Relaxed);
    let (scores, rescores, memories) = (calls(support::SCORE), calls(support::RESCORE), calls(support::MEMORY));
    println!(
        "{label}: {scores} score calls + {rescores} audit re-scores + {memories} memory rebuilds = {} upstream calls per {TURNS} turns",
        scores + rescores + memories
    );
}

async fn scored(database: &str) -> i64 {
    let options: PgConnectOptions = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
        .parse()
        .expect("a Postgres URL");
    let pool = compactd::store::pool(options.database(database), 1);
    let count = sqlx::query_scalar("SELECT count(*) FROM turns WHERE score IS NOT NULL")
        .fetch_one(&pool)
        .await
        .unwrap_or(0);
    pool.close().await;
    count
}

async fn run(name: &str, paced: bool) {
    let upstream = support::fake_upstream(Duration::ZERO).await;
    let background = BackgroundSettings {
        poll: Duration::from_millis(20),
        idle_sweep_every: None,
        ..BackgroundSettings::default()
    };
    let base = support::compactd_with(name, &upstream, 8, Some(background)).await;
    let client = reqwest::Client::new();
    reset();
    for n in 0..TURNS {
        // A third chatter, a third tickets, a third routine checks.
        let user = match n % 3 {
            0 => "thanks, looks good".to_owned(),
            1 => format!("Update ticket OPS-{n} with the release notes."),
            _ => format!("Check the logs of run {n}."),
        };
        let body = json!({"conversation_id": "paced", "user": user, "assistant": "Done."});
        support::post(&client, format!("{base}/turn-ended"), body).await;
        while paced && scored(name).await < n as i64 + 1 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    while scored(name).await < TURNS as i64 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Let the last audit finish.
    tokio::time::sleep(Duration::from_millis(500)).await;
    report(if paced { "paced" } else { "burst" });
}

#[tokio::main]
async fn main() {
    run("compactd_bench_scores_paced", true).await;
    run("compactd_bench_scores_burst", false).await;
}
