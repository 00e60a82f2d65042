use serde_json::json;

use crate::helpers::{encode, spawn_app};

#[tokio::test]
async fn reading_an_unknown_conversation_is_a_404_problem() {
    let app = spawn_app().await;

    let response = app.get("/conversations/nobody").send().await.unwrap();

    assert_eq!(response.status(), 404);
    assert_eq!(response.headers()["content-type"], "application/problem+json");
    let problem: serde_json::Value = response.json().await.unwrap();
    assert_eq!(problem["status"], 404);
    assert_eq!(problem["type"], "/problems/not-found");
    assert_eq!(
        problem["detail"], r#"no conversation "nobody""#,
        "the id as sent, not a Rust type"
    );
    let (status, _) = app.get_json("/conversations/nobody/events").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn ids_with_slashes_and_unicode_are_reachable_by_path() {
    let app = spawn_app().await;
    let id = "team/會話 #7?";
    app.report("/usage", json!({"conversation_id": id, "used": 1})).await;

    let state = app.state(id).await;

    assert_eq!(state["conversation_id"], id);
    assert_eq!(app.events(id).await.len(), 1);
    let (status, _) = app.get_json(&format!("/conversations/{}", encode("team"))).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_event_log_pages_in_order() {
    let app = spawn_app().await;
    for _ in 0..5 {
        app.report("/turn-ended", json!({"conversation_id": "c1"})).await;
    }

    let (_, first) = app.get_json("/conversations/c1/events?limit=2").await;
    let (_, second) = app
        .get_json(&format!(
            "/conversations/c1/events?limit=2&after={}",
            first["next_after"]
        ))
        .await;
    let (_, last) = app.get_json("/conversations/c1/events?limit=2&after=4").await;

    let seqs = |page: &serde_json::Value| -> Vec<i64> {
        page["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(seqs(&first), [1, 2]);
    assert_eq!(seqs(&second), [3, 4]);
    assert_eq!(seqs(&last), [5]);
    assert!(last["next_after"].is_null());
    assert_eq!(first["events"][0]["kind"], "turn_ended");
}
