use crate::helpers::spawn_app;

#[tokio::test]
async fn the_service_is_live_and_ready() {
    let app = spawn_app().await;

    let (live, _) = app.get_json("/healthz").await;
    let (ready, body) = app.get_json("/readyz").await;

    assert_eq!((live, ready), (200, 200));
    assert_eq!(body["status"], "ready");
}

#[tokio::test]
async fn readiness_fails_fast_without_the_database() {
    let app = spawn_app().await;
    app.pool.close().await;

    let (status, problem) = app.get_json("/readyz").await;

    assert_eq!(status, 503);
    assert_eq!(problem["type"], "/problems/unavailable");
}

#[tokio::test]
async fn a_write_without_a_database_is_a_fast_503_with_retry_after() {
    let app = spawn_app().await;
    app.pool.close().await;
    let started = std::time::Instant::now();

    let response = app
        .post("/usage")
        .json(&serde_json::json!({"conversation_id": "c", "used": 1}))
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}
