//! A history check: many clients with timeouts and retries on a few
//! conversations; afterwards every counter equals the operations that were
//! acknowledged, no effect happened twice, and every log is gapless.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::task::JoinSet;

use crate::helpers::spawn_app;

const CLIENTS: usize = 32;
const OPERATIONS: usize = 20;
const CONVERSATIONS: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_retrying_clients_leave_exactly_the_acknowledged_history() {
    let app = spawn_app().await;
    let timeouts = Arc::new(AtomicU64::new(0));
    let retries = Arc::new(AtomicU64::new(0));
    let mut clients = JoinSet::new();
    for client in 0..CLIENTS {
        let (base, timeouts, retries) = (app.address.clone(), timeouts.clone(), retries.clone());
        clients.spawn(async move {
            let http = reqwest::Client::new();
            let mut acknowledged = [0_u64; CONVERSATIONS];
            for op in 0..OPERATIONS {
                let conversation = (client + op) % CONVERSATIONS;
                let key = format!("client-{client}-op-{op}");
                let body = json!({"conversation_id": format!("c{conversation}"), "user": key});
                // Retry the same operation with the same key until it is
                // acknowledged; each attempt gives up sooner than the service
                // may answer under this load.
                let mut patience = Duration::from_millis(15);
                loop {
                    let attempt = http
                        .post(format!("{base}/turn-ended"))
                        .header("Idempotency-Key", &key)
                        .json(&body)
                        .timeout(patience)
                        .send();
                    match attempt.await {
                        Ok(response) if response.status() == 200 => break,
                        Ok(response) => {
                            assert!(matches!(response.status().as_u16(), 409 | 503), "{}", response.status())
                        }
                        Err(err) => {
                            assert!(err.is_timeout(), "{err}");
                            timeouts.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    retries.fetch_add(1, Ordering::Relaxed);
                    patience = (patience * 2).min(Duration::from_secs(2));
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                acknowledged[conversation] += 1;
            }
            acknowledged
        });
    }
    let mut acknowledged = [0_u64; CONVERSATIONS];
    for counts in clients.join_all().await {
        for (total, count) in acknowledged.iter_mut().zip(counts) {
            *total += count;
        }
    }

    println!(
        "history check: {} client timeouts, {} retries",
        timeouts.load(Ordering::Relaxed),
        retries.load(Ordering::Relaxed)
    );
    assert_eq!(acknowledged.iter().sum::<u64>(), (CLIENTS * OPERATIONS) as u64);
    for (conversation, expected) in acknowledged.iter().enumerate() {
        let id = format!("c{conversation}");
        let state = app.state(&id).await;
        assert_eq!(
            state["turns_since_compaction"].as_u64(),
            Some(*expected),
            "{id}: one turn per acknowledged operation"
        );
        assert_eq!(
            state["turn_count"].as_u64(),
            Some(*expected),
            "{id}: no turn stored twice"
        );
        let seqs: Vec<u64> = app
            .events(&id)
            .await
            .iter()
            .map(|e| e["seq"].as_u64().unwrap())
            .collect();
        assert_eq!(seqs, (1..=*expected).collect::<Vec<_>>(), "{id}: the log is gapless");
        let distinct: i64 =
            sqlx::query_scalar("SELECT count(DISTINCT user_text) FROM turns WHERE conversation_id = $1")
                .bind(&id)
                .fetch_one(&app.pool)
                .await
                .unwrap();
        assert_eq!(distinct as u64, *expected, "{id}: every operation's effect, once");
    }
}

#[tokio::test]
async fn a_page_of_long_turns_is_bounded_in_bytes_and_each_turn_reads_whole_on_its_own() {
    let app = spawn_app().await;
    for n in 1..=40 {
        let user = format!("turn {n} ") + &"u".repeat(20_000);
        let assistant = format!("answer {n} ") + &"a".repeat(20_000);
        app.report(
            "/turn-ended",
            json!({"conversation_id": "long", "user": user, "assistant": assistant}),
        )
        .await;
    }

    let (status, page) = app.get_json("/conversations/long/turns?limit=200").await;

    assert_eq!(status, 200, "{page}");
    let turns = page["turns"].as_array().unwrap();
    let bytes: usize = turns
        .iter()
        .map(|t| t["user"].as_str().unwrap().len() + t["assistant"].as_str().unwrap().len())
        .sum();
    assert!(bytes <= 1024 * 1024, "{bytes} bytes of text in one page");
    assert!(turns.len() < 40, "the page ended at its size: {}", turns.len());
    let last = turns.last().unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        page["next_from"],
        last - 1,
        "the next page reads on from the first left out"
    );
    let first = &turns[0];
    assert_eq!(first["id"], 40);
    assert_eq!(first["clipped"], true);
    assert_eq!(first["user_chars"], 20_008);
    assert_eq!(first["user"].as_str().unwrap().chars().count(), 16_384);

    let (status, whole) = app.get_json("/conversations/long/turns/40").await;
    assert_eq!(status, 200, "{whole}");
    assert_eq!(whole["clipped"], false);
    assert_eq!(whole["user"].as_str().unwrap().chars().count(), 20_008);
    assert_eq!(whole["conversation_id"], "long");

    let (status, next) = app
        .get_json(&format!("/conversations/long/turns?limit=200&from={}", last - 1))
        .await;
    assert_eq!(status, 200);
    assert_eq!(next["turns"][0]["id"], last - 1, "nothing skipped between the pages");

    for (path, expected) in [
        ("/conversations/long/turns/999", 404),
        ("/conversations/long/turns/abc", 422),
        ("/conversations/long/turns/0", 404),
        ("/conversations/nobody/turns/1", 404),
    ] {
        let (status, problem) = app.get_json(path).await;
        assert_eq!(status, expected, "{path}: {problem}");
    }
}

#[tokio::test]
async fn a_context_of_long_turns_is_bounded_in_bytes_and_keeps_the_newest() {
    let app = spawn_app().await;
    for n in 1..=40 {
        let user = format!("turn {n} ") + &"u".repeat(20_000);
        let assistant = format!("answer {n} ") + &"a".repeat(20_000);
        app.report(
            "/turn-ended",
            json!({"conversation_id": "long", "user": user, "assistant": assistant}),
        )
        .await;
    }

    let (status, context) = app.get_json("/conversations/long/context?recent=200").await;

    assert_eq!(status, 200, "{context}");
    let recent = context["recent"].as_array().unwrap();
    let bytes: usize = recent
        .iter()
        .map(|t| t["user"].as_str().unwrap().len() + t["assistant"].as_str().unwrap().len())
        .sum();
    assert!(bytes <= 1024 * 1024, "{bytes} bytes of text in one context");
    assert!(recent.len() < 40, "older turns gave way: {}", recent.len());
    let newest = recent.last().unwrap();
    assert_eq!(newest["id"], 40, "the newest is kept");
    assert_eq!(newest["clipped"], true);
    assert_eq!(newest["user_chars"], 20_008);
    let messages = context["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        2 * recent.len(),
        "the ready-to-send list carries the same turns"
    );
    assert!(
        messages
            .iter()
            .all(|m| m["content"].as_str().unwrap().chars().count() <= 16_384)
    );
}
