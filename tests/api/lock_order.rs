//! One lock order for every writer: the conversation's row first, then its
//! turns and keep items. The hot path, the scorer, audits and compactions run
//! together on three replicas of one database, and Postgres counts no
//! deadlock.

use std::time::Duration;

use compactd::config::BackgroundSettings;
use compactd::config::Settings;
use compactd::policy::audit::AuditConfig;
use serde_json::json;
use sqlx::Connection;

use crate::helpers::{admin_options, spawn_app, test_settings};

fn busy_background() -> Settings {
    Settings {
        background: Some(BackgroundSettings {
            poll: Duration::from_millis(5),
            batch: 4,
            audit: AuditConfig {
                every_new_turns: 2,
                ..AuditConfig::default()
            },
            audit_retry_after: Duration::from_millis(10),
            idle_sweep_every: None,
            ..BackgroundSettings::default()
        }),
        ..test_settings()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writers_on_three_replicas_never_deadlock() {
    let app = spawn_app().await;
    let database = app.pool.connect_options().get_database().unwrap().to_owned();
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(app.replica(busy_background()).await);
    }
    let addresses: Vec<String> = replicas.iter().map(|(address, _)| address.clone()).collect();

    let mut clients = tokio::task::JoinSet::new();
    for client in 0..12 {
        let addresses = addresses.clone();
        clients.spawn(async move {
            let http = reqwest::Client::new();
            let mut failures = Vec::new();
            for n in 0..100usize {
                let address = &addresses[(client + n) % addresses.len()];
                let conversation = format!("c{}", (client + n) % 10);
                let (path, body) = match n % 12 {
                    11 => ("/summarize", json!({"conversation_id": conversation})),
                    even if even % 2 == 0 => (
                        "/usage",
                        json!({"conversation_id": conversation, "used": 1000 + n, "size": 200_000}),
                    ),
                    _ => (
                        "/turn-ended",
                        json!({"conversation_id": conversation,
                               "user": format!("Step {n}: look at src/app/{client}.rs and never touch prod."),
                               "assistant": "Done; see /tmp/out.log."}),
                    ),
                };
                let answer = http.post(format!("{address}{path}")).json(&body).send().await.unwrap();
                let status = answer.status().as_u16();
                if status != 200 && !(path == "/summarize" && status == 409) {
                    failures.push((path, status, answer.text().await.unwrap_or_default()));
                }
            }
            failures
        });
    }
    let failures: Vec<_> = clients.join_all().await.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{failures:?}");
    let scored: i64 = sqlx::query_scalar("SELECT count(*) FROM turns WHERE score IS NOT NULL")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(scored > 0, "the scorer ran alongside");

    // A backend reports its counts as it exits, or once idle for a while
    // (Postgres flushes an idle backend's statistics within 10 s): stop the
    // replicas, then wait until every backend has done one or the other.
    for (_, stop) in replicas {
        let _ = stop.send(());
    }
    app.pool.close().await;
    let mut admin = sqlx::PgConnection::connect_with(&admin_options()).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        // The first app's key listener stays; it writes nothing. Its
        // heartbeat stays too, on a connection of its own, writing its own
        // row only (it cannot take part in a deadlock).
        let unreported: Vec<String> = sqlx::query_scalar(
            "SELECT format('%s %s %s', pid, state, left(query, 60)) FROM pg_stat_activity
              WHERE datname = $1 AND query NOT ILIKE 'LISTEN%' AND query NOT ILIKE 'INSERT INTO processes%'
                AND NOT (state = 'idle' AND state_change < now() - interval '11 seconds')",
        )
        .bind(&database)
        .fetch_all(&mut admin)
        .await
        .unwrap();
        if unreported.is_empty() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "backends stayed busy: {unreported:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    sqlx::query("SELECT pg_stat_clear_snapshot()")
        .execute(&mut admin)
        .await
        .unwrap();
    let deadlocks: i64 = sqlx::query_scalar("SELECT deadlocks FROM pg_stat_database WHERE datname = $1")
        .bind(&database)
        .fetch_one(&mut admin)
        .await
        .unwrap();
    assert_eq!(deadlocks, 0);
}
