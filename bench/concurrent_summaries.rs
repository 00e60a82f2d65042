//! 100 concurrent /summarize calls against an upstream that answers in one
//! second, while one client keeps reporting usage: how long the 100 take, and
//! what /usage latency does meanwhile.
//!
//! `cargo run --release --example concurrent_summaries`

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

const CONVERSATIONS: usize = 100;

async fn usage_latencies(client: reqwest::Client, base: String, stop: Arc<AtomicBool>) -> Vec<Duration> {
    let mut latencies = Vec::new();
    let mut used = 0;
    while !stop.load(Ordering::Relaxed) {
        used += 1;
        let started = Instant::now();
        support::post(
            &client,
            format!("{base}/usage"),
            json!({"conversation_id": "reporter", "used": used}),
        )
        .await;
        latencies.push(started.elapsed());
    }
    latencies.sort();
    latencies
}

fn describe(label: &str, latencies: &[Duration]) {
    println!(
        "{label}: {} requests, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        latencies.len(),
        support::percentile(latencies, 0.50).as_secs_f64() * 1e3,
        support::percentile(latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3
    );
}

#[tokio::main]
async fn main() {
    let upstream = support::fake_upstream(Duration::from_secs(1)).await;
    let base = support::compactd("compactd_bench_concurrent", &upstream, 16).await;
    let client = reqwest::Client::new();
    for i in 0..CONVERSATIONS {
        for turn in 0..4 {
            let body = json!({"conversation_id": format!("c{i}"), "user": format!("question {turn} about build {}", 4000 + i), "assistant": "answer"});
            support::post(&client, format!("{base}/turn-ended"), body).await;
        }
    }

    let stop = Arc::new(AtomicBool::new(false));
    let idle = tokio::spawn(usage_latencies(client.clone(), base.clone(), stop.clone()));
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Relaxed);
    let idle = idle.await.expect("the reporter");

    let stop = Arc::new(AtomicBool::new(false));
    let busy = tokio::spawn(usage_latencies(client.clone(), base.clone(), stop.clone()));
    let started = Instant::now();
    let calls: Vec<_> = (0..CONVERSATIONS)
        .map(|i| {
            let (client, base) = (client.clone(), base.clone());
            tokio::spawn(async move {
                support::post(
                    &client,
                    format!("{base}/summarize"),
                    json!({"conversation_id": format!("c{i}")}),
                )
                .await
            })
        })
        .collect();
    let mut succeeded = 0;
    for call in calls {
        succeeded += usize::from(call.await.expect("a summarize call")["success"] == true);
    }
    let took = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let busy = busy.await.expect("the reporter");

    println!(
        "{CONVERSATIONS} concurrent /summarize calls, upstream answering in 1 s (32 upstream calls in flight at most):"
    );
    println!("  all answered in {:.2} s, {succeeded} succeeded", took.as_secs_f64());
    describe("  /usage while idle          ", &idle);
    describe("  /usage during the summaries", &busy);
}
