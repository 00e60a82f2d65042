//! The database going away under the service, as a crash, a restart or an
//! operator terminating connections does it: callers are told to retry (503
//! with Retry-After), never 500, and nothing is left stuck behind.

use serde_json::json;
use sqlx::Connection;

use crate::helpers::{TestApp, admin_options, spawn_app};

/// Ends every connection the app holds to its database, as
/// `pg_terminate_backend` does when an operator (or a failover) does it.
pub async fn terminate_connections(app: &TestApp) -> i64 {
    let database = app.pool.connect_options().get_database().unwrap().to_owned();
    let mut admin = sqlx::PgConnection::connect_with(&admin_options()).await.unwrap();
    let ended: i64 = sqlx::query_scalar(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
          WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(database)
    .fetch_one(&mut admin)
    .await
    .unwrap();
    admin.close().await.ok();
    ended
}

async fn usage_burst(app: &TestApp, round: usize) -> Vec<(u16, Option<String>)> {
    let mut answers = Vec::new();
    for n in 0..12 {
        let answer = app
            .post("/usage")
            .json(&json!({"conversation_id": format!("c{n}"), "used": 100 + round, "size": 10_000}))
            .send()
            .await
            .unwrap();
        let retry_after = answer
            .headers()
            .get("retry-after")
            .map(|value| value.to_str().unwrap().to_owned());
        answers.push((answer.status().as_u16(), retry_after));
    }
    answers
}

#[tokio::test]
async fn terminated_database_connections_answer_503_with_retry_after_never_500() {
    let app = spawn_app().await;
    let mut seen = Vec::new();
    for round in 0..6 {
        // Fills the pool with live connections, then ends them all under it.
        seen.extend(usage_burst(&app, round).await);
        assert!(terminate_connections(&app).await > 0);
        seen.extend(usage_burst(&app, round).await);
    }
    let refused: Vec<_> = seen.iter().filter(|(status, _)| *status != 200).collect();
    assert!(
        refused
            .iter()
            .all(|(status, retry_after)| *status == 503 && retry_after.as_deref() == Some("1")),
        "{refused:?}"
    );
    assert!(
        !refused.is_empty(),
        "no request met a terminated connection: the test proves nothing"
    );
    // The dead connections are dropped as they are met: the service answers again.
    let mut round = 100;
    while usage_burst(&app, round).await.iter().any(|(status, _)| *status != 200) {
        round += 1;
        assert!(round < 110, "the service did not recover");
    }
}
