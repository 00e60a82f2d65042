//! One long conversation through 50 compactions against a fake upstream:
//! upstream input tokens per compaction with anchored summaries (the prior
//! summary plus the turns since the boundary) beside what re-summarizing the
//! whole history would send.
//!
//! `cargo run --release --example anchored_summaries` (DATABASE_URL: a
//! Postgres it may create `compactd_bench_anchored` on).

#[path = "support/mod.rs"]
mod support;

use std::time::Duration;

use compactd::domain::transcript::{Message, Role};
use compactd::llm::tokens;
use compactd::summary::write::prompt::{system_prompt, user_message};
use serde_json::json;

const COMPACTIONS: usize = 50;
const TURNS_PER_COMPACTION: usize = 10;

fn turn_text(round: usize, turn: usize) -> (String, String) {
    let user = format!(
        "Round {round}, step {turn}: check the deployment of build {} and update ticket OPS-{}. \
         Look at the logs, compare the latency with last week, and tell me whether the error rate moved. {}",
        4000 + round * 10 + turn,
        100 + round,
        "Please include the numbers you see and what you think they mean for the release plan. ".repeat(3)
    );
    let assistant = format!(
        "Build {} is deployed; ticket OPS-{} updated. Latency is within last week's range and the error rate is flat. {}",
        4000 + round * 10 + turn,
        100 + round,
        "I compared p50 and p99 across regions and found no regressions worth blocking the release on. ".repeat(3)
    );
    (user, assistant)
}

#[tokio::main]
async fn main() {
    let upstream = support::fake_upstream(Duration::ZERO).await;
    let base = support::compactd("compactd_bench_anchored", &upstream, 8).await;
    let client = reqwest::Client::new();
    let mut history: Vec<Message> = Vec::new();
    let whole_prompt_base = tokens::count(&system_prompt(4_000));
    println!("compaction  anchored_input_tokens  whole_history_input_tokens");
    let mut rows = Vec::new();
    for round in 1..=COMPACTIONS {
        for turn in 0..TURNS_PER_COMPACTION {
            let (user, assistant) = turn_text(round, turn);
            support::post(
                &client,
                format!("{base}/turn-ended"),
                json!({"conversation_id": "long", "user": user, "assistant": assistant}),
            )
            .await;
            history.push(Message::new(Role::User, user));
            history.push(Message::new(Role::Assistant, assistant));
        }
        let answer = support::post(&client, format!("{base}/summarize"), json!({"conversation_id": "long"})).await;
        assert_eq!(answer["success"], true, "{answer}");
        let anchored = answer["compaction"]["upstream_input_tokens"].as_u64().unwrap_or(0);
        let whole = whole_prompt_base + tokens::count(&user_message(None, &history));
        println!("{round:>10}  {anchored:>21}  {whole:>26}");
        rows.push((round, anchored, whole));
    }
    println!();
    println!("summary (input tokens sent upstream per compaction):");
    for at in [5, 25, 50] {
        let (_, anchored, whole) = rows[at - 1];
        println!(
            "  at {at:>2}: anchored {anchored:>6}   whole history {whole:>7}   ({:.1}x)",
            whole as f64 / anchored as f64
        );
    }
}
