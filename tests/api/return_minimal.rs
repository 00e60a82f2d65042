//! `Prefer: return=minimal` (RFC 7240, issue 25) on the reports: an agent
//! that does not read the state gets 204 and no body; what it reported is
//! recorded all the same, and errors are still problems.

use reqwest::Response;
use serde_json::{Value, json};

use crate::helpers::{TestApp, read, spawn_app};

async fn post(app: &TestApp, path: &str, body: Value, headers: &[(&str, &str)]) -> Response {
    let mut request = app.post(path).json(&body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

async fn assert_minimal(response: Response) {
    assert_eq!(response.status(), 204);
    assert_eq!(response.headers()["preference-applied"], "return=minimal");
    assert!(response.headers().get("content-type").is_none());
    assert_eq!(response.bytes().await.unwrap().len(), 0);
}

#[tokio::test]
async fn a_report_preferring_a_minimal_return_is_recorded_and_answered_with_no_body() {
    let app = spawn_app().await;
    let minimal = [("Prefer", "return=minimal")];

    let usage = post(
        &app,
        "/usage",
        json!({"conversation_id": "c", "used": 150_000, "size": 200_000}),
        &minimal,
    )
    .await;
    assert_minimal(usage).await;
    let turn = post(
        &app,
        "/turn-ended",
        json!({"conversation_id": "c", "user": "fix the parser"}),
        &minimal,
    )
    .await;
    assert_minimal(turn).await;

    let state = app.state("c").await;
    assert_eq!(state["used"], 150_000, "{state}");
    let (_, turns) = app.get_json("/conversations/c/turns").await;
    assert_eq!(turns["turns"][0]["user"], "fix the parser", "{turns}");
    let (status, whole) = read(
        post(
            &app,
            "/usage",
            json!({"conversation_id": "c", "used": 160_000}),
            &[("Prefer", "return=representation")],
        )
        .await,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(whole["used"], 160_000, "another preference gets the state: {whole}");
}

#[tokio::test]
async fn an_answer_kept_for_a_key_is_kept_whole_and_replayed_as_each_retry_prefers() {
    let app = spawn_app().await;
    let body = json!({"conversation_id": "c", "used": 1000});

    let first = post(
        &app,
        "/usage",
        body.clone(),
        &[("Prefer", "return=minimal"), ("Idempotency-Key", "k1")],
    )
    .await;
    assert_minimal(first).await;
    let replayed = post(&app, "/usage", body.clone(), &[("Idempotency-Key", "k1")]).await;
    assert_eq!(replayed.headers()["idempotent-replayed"], "true");
    let (status, state) = read(replayed).await;
    assert_eq!((status, &state["used"]), (200, &json!(1000)), "{state}");
    let again = post(
        &app,
        "/usage",
        body,
        &[("Prefer", "return=minimal"), ("Idempotency-Key", "k1")],
    )
    .await;
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_minimal(again).await;
    assert_eq!(app.events("c").await.len(), 1, "recorded once");
}

#[tokio::test]
async fn a_bad_report_preferring_a_minimal_return_is_still_a_problem() {
    let app = spawn_app().await;
    let response = post(
        &app,
        "/usage",
        json!({"conversation_id": "c", "used": -1}),
        &[("Prefer", "return=minimal")],
    )
    .await;
    assert_eq!(response.status(), 422);
    assert_eq!(response.headers()["content-type"], "application/problem+json");
    assert_eq!(app.conversation_count().await, 0);
}
