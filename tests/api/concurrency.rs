use serde_json::json;
use tokio::task::JoinSet;

use crate::helpers::spawn_app;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_concurrent_turn_ends_count_exactly_two_hundred() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "busy", "used": 10}))
        .await;

    let mut requests = JoinSet::new();
    for i in 0..200 {
        let request = app
            .post("/turn-ended")
            .json(&json!({"conversation_id": "busy", "user": format!("message {i}")}));
        requests.spawn(async move { request.send().await.map(|r| r.status().as_u16()) });
    }
    let statuses: Vec<u16> = requests.join_all().await.into_iter().map(Result::unwrap).collect();

    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let state = app.state("busy").await;
    assert_eq!(state["turns_since_compaction"], 200);
    assert_eq!(state["total_user_messages"], 200);
    assert_eq!(state["turn_count"], 200);
    assert_eq!(state["event_count"], 201);
    let seqs: Vec<i64> = app
        .events("busy")
        .await
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(
        seqs,
        (1..=201).collect::<Vec<_>>(),
        "one event each, numbered without gaps"
    );
    let turn_seqs: Vec<i64> = sqlx::query_scalar("SELECT seq FROM turns ORDER BY seq")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(turn_seqs, (1..=200).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_first_reports_create_one_conversation() {
    let app = spawn_app().await;

    let mut requests = JoinSet::new();
    for i in 0..50 {
        let (path, body) = if i % 2 == 0 {
            ("/usage", json!({"conversation_id": "new", "used": i}))
        } else {
            ("/turn-ended", json!({"conversation_id": "new"}))
        };
        let request = app.post(path).json(&body);
        requests.spawn(async move { request.send().await.map(|r| r.status().as_u16()) });
    }
    let statuses: Vec<u16> = requests.join_all().await.into_iter().map(Result::unwrap).collect();

    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(app.conversation_count().await, 1);
    let state = app.state("new").await;
    assert_eq!(state["event_count"], 50);
    assert_eq!(state["turns_since_compaction"], 25);
}
