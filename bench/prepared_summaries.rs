//! Compaction without waiting (issue 12): 50 conversations grow at an
//! agent's pace against an upstream that takes 5 s per summary, compacting
//! when `/decide` says so, once with summaries prepared ahead and once
//! without. Prints `/summarize`'s p50 and p99, upstream calls and tokens per
//! compaction, and the share of preparations wasted. As in a fleet, not
//! every conversation gets there: one in ten rolls over instead of its last
//! compaction, and one in ten ends just short of it.
//!
//! `cargo run --release --example prepared_summaries`
//! (`PREPARED_CONVERSATIONS`, `PREPARED_TURN_MS`, `PREPARED_UPSTREAM_MS`,
//! `PREPARED_COMPACTIONS` change the run.)

#[path = "support/mod.rs"]
mod support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use compactd::config::BackgroundSettings;
use compactd::llm::tokens;
use serde_json::{Value, json};
use sqlx::ConnectOptions;

const WINDOW: u64 = 200_000;
/// Its compaction trigger: three quarters of it.
const TRIGGER: u64 = WINDOW / 4 * 3;
/// Context in use just after a compaction: the system prompt, tools, summary.
const AFTER_COMPACTION: u64 = 30_000;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A turn's text: about `tokens` tokens of an agent's work on a ticket.
fn turn_text(conversation: usize, turn: usize, tokens: u64) -> (String, String) {
    let user = format!(
        "Step {turn}: look at PROJ-{conversation}{turn:03} in src/service_{conversation}/handler_{turn}.rs and fix what fails; do not touch the public API."
    );
    let sentence = format!(
        "I read src/service_{conversation}/handler_{turn}.rs, ran the tests for PROJ-{conversation}{turn:03}, and the retry path now backs off for 250ms before trying again. "
    );
    let per_sentence = tokens::count(&sentence).max(1);
    let assistant = sentence.repeat(usize::try_from(tokens / per_sentence).unwrap_or(1).max(1));
    (user, assistant)
}

struct Compacted {
    latency: Duration,
    prepared: bool,
}

/// How a conversation's last cycle ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    Compacts,
    /// Rolls over into a successor instead of compacting.
    RollsOver,
    /// The user leaves at 92% of the trigger.
    Ends,
}

/// One conversation: turns at `turn_ms` (±30%), about 3,000 tokens of
/// context each, until it has compacted `compactions` times (its last cycle
/// ending as its fate says).
async fn conversation(base: String, n: usize, turn_ms: u64, compactions: usize) -> Vec<Compacted> {
    let fate = match n % 10 {
        8 => Fate::RollsOver,
        9 => Fate::Ends,
        _ => Fate::Compacts,
    };
    let client = reqwest::Client::new();
    let id = format!("agent-{n}");
    let mut rng = fastrand::Rng::with_seed(n as u64);
    // Conversations start at different points, as a fleet's do.
    let mut used = 60_000 + rng.u64(0..60_000);
    let mut done = Vec::new();
    let mut turn = 0;
    while done.len() < compactions {
        let last_cycle = done.len() + 1 == compactions;
        let growth = 2_500 + rng.u64(0..1_500);
        used += growth;
        if last_cycle && fate == Fate::Ends && used >= TRIGGER * 92 / 100 {
            break;
        }
        let (user, assistant) = turn_text(n, turn, growth);
        support::post(
            &client,
            format!("{base}/usage"),
            json!({"conversation_id": id, "used": used, "size": WINDOW}),
        )
        .await;
        support::post(
            &client,
            format!("{base}/turn-ended"),
            json!({"conversation_id": id, "user": user, "assistant": assistant}),
        )
        .await;
        let decision = support::post(&client, format!("{base}/decide"), json!({"conversation_id": id})).await;
        if decision["decision"] == "compact" && last_cycle && fate == Fate::RollsOver {
            support::post(&client, format!("{base}/handoff"), json!({"conversation_id": id})).await;
            break;
        }
        if decision["decision"] == "compact" {
            let started = Instant::now();
            let answer = support::post(&client, format!("{base}/summarize"), json!({"conversation_id": id})).await;
            done.push(Compacted {
                latency: started.elapsed(),
                prepared: answer["compaction"]["prepared"] == true,
            });
            used = AFTER_COMPACTION;
            support::post(
                &client,
                format!("{base}/usage"),
                json!({"conversation_id": id, "used": used, "size": WINDOW}),
            )
            .await;
        }
        turn += 1;
        let pause = turn_ms * 7 / 10 + rng.u64(0..=turn_ms * 6 / 10);
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    done
}

async fn run(label: &str, database: &str, prepare_at_percent: u64) -> Value {
    let conversations = env("PREPARED_CONVERSATIONS", 50) as usize;
    let turn_ms = env("PREPARED_TURN_MS", 1_500);
    let compactions = env("PREPARED_COMPACTIONS", 2) as usize;
    let upstream = support::fake_upstream(Duration::from_millis(env("PREPARED_UPSTREAM_MS", 5_000))).await;
    let calls_before = support::CALLS[support::SUMMARY].load(Ordering::Relaxed);
    let mut settings = support::settings(
        &upstream,
        Some(BackgroundSettings {
            poll: Duration::from_millis(200),
            idle_sweep_every: None,
            ..BackgroundSettings::default()
        }),
        false,
    );
    settings.policy.prepare_at_percent = prepare_at_percent;
    let base = support::serve(database, settings, 16).await;
    let started = Instant::now();
    let tasks: Vec<_> = (0..conversations)
        .map(|n| tokio::spawn(conversation(base.clone(), n, turn_ms, compactions)))
        .collect();
    let mut compacted = Vec::new();
    for task in tasks {
        compacted.extend(task.await.expect("a conversation"));
    }
    let elapsed = started.elapsed();
    let calls = support::CALLS[support::SUMMARY].load(Ordering::Relaxed) - calls_before;
    let mut latencies: Vec<Duration> = compacted.iter().map(|c| c.latency).collect();
    latencies.sort();
    let prepared = compacted.iter().filter(|c| c.prepared).count();
    let stats = support::post_get(&format!("{base}/stats")).await;
    let mut db = support::admin()
        .database(database)
        .connect()
        .await
        .expect("the bench database");
    let (compaction_tokens, preparation_tokens): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT coalesce(sum(coalesce(upstream_input_tokens, 0) + coalesce(upstream_output_tokens, 0)), 0)::bigint FROM compactions),
                (SELECT coalesce(sum(coalesce(upstream_input_tokens, 0) + coalesce(upstream_output_tokens, 0)), 0)::bigint FROM preparations)",
    )
    .fetch_one(&mut db)
    .await
    .expect("the token sums");
    let n = compacted.len().max(1) as f64;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let p = &stats["preparation"];
    println!(
        "{label}: {} compactions in {:.0} s ({prepared} merged a prepared summary; {} conversations rolled over, {} ended short)\n  \
         /summarize p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms\n  \
         upstream summary calls {calls} ({:.2} per compaction); upstream tokens {} for compactions + {} for preparations ({:.0} per compaction)\n  \
         preparations: {} planned, {} used, {} wasted, {} dropped, {} ready at the end; wasted share {}; wasted by reason {}",
        compacted.len(),
        elapsed.as_secs_f64(),
        (0..conversations).filter(|n| n % 10 == 8).count(),
        (0..conversations).filter(|n| n % 10 == 9).count(),
        ms(support::percentile(&latencies, 0.50)),
        ms(support::percentile(&latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
        calls as f64 / n,
        compaction_tokens,
        preparation_tokens,
        (compaction_tokens + preparation_tokens) as f64 / n,
        p["planned"],
        p["used"],
        p["wasted"],
        p["dropped"],
        p["ready"],
        p["wasted_rate"],
        p["wasted_by_reason"],
    );
    stats
}

#[tokio::main]
async fn main() {
    run("preparation off", "compactd_bench_prepared_off", 0).await;
    run("preparation on (85%)", "compactd_bench_prepared_on", 85).await;
}
