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
