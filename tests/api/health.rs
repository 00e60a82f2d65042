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
