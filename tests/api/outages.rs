//! The database going away under the service, as a crash, a restart or an
//! operator terminating connections does it: callers are told to retry (503
//! with Retry-After), never 500, and nothing is left stuck behind.

use std::time::Duration;

use compactd::config::Settings;
use compactd::startup::{Application, StartupError};
use serde_json::json;
use sqlx::Connection;

use crate::helpers::{TestApp, admin_options, spawn_app, test_settings};
use crate::proxy::{Fault, FaultyProxy};

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

#[tokio::test]
async fn ending_every_pooled_connection_costs_one_request_not_one_per_connection() {
    let app = spawn_app().await;
    // Opens several connections at once, so that several sit idle when they are ended.
    let mut ended = 0;
    for round in 0..10 {
        let mut burst = tokio::task::JoinSet::new();
        for n in 0..24 {
            let request = app
                .post("/usage")
                .json(&json!({"conversation_id": format!("w{n}"), "used": 100 + round, "size": 10_000}));
            burst.spawn(async move { request.send().await.map(|answer| answer.status().as_u16()) });
        }
        for status in burst.join_all().await {
            assert_eq!(status.unwrap(), 200);
        }
        ended = terminate_connections(&app).await;
        if ended >= 4 {
            break;
        }
    }
    assert!(ended >= 4, "the pool held {ended} connections: the test proves nothing");
    let statuses = usage_burst(&app, 1).await;
    let refused = statuses.iter().filter(|(status, _)| *status != 200).count();
    assert!(
        refused <= 1,
        "{ended} connections ended, {refused} requests refused: {statuses:?}"
    );
}

#[tokio::test]
async fn a_key_whose_claim_committed_unheard_is_not_stranded() {
    let app = spawn_app().await;
    let proxy = FaultyProxy::start(b"INSERT INTO idempotency_keys", Fault::SwallowAnswer).await;
    let (address, _stop) = app.replica_through(test_settings(), proxy.options.clone()).await;
    let client = reqwest::Client::new();
    let send = || {
        client
            .post(format!("{address}/usage"))
            .header("Idempotency-Key", "k-1")
            .json(&json!({"conversation_id": "c1", "used": 5, "size": 1000}))
            .send()
    };

    let first = tokio::spawn(send());
    proxy.swallowing.notified().await;
    // The claim commits on the database while its answer is held back.
    let committed = tokio::time::timeout(Duration::from_secs(20), async {
        let mut every = tokio::time::interval(Duration::from_millis(5));
        loop {
            every.tick().await;
            let claims: i64 = sqlx::query_scalar("SELECT count(*) FROM idempotency_keys WHERE key = 'k-1'")
                .fetch_one(&app.pool)
                .await
                .unwrap();
            if claims == 1 {
                break;
            }
        }
    })
    .await;
    assert!(committed.is_ok(), "the claim never committed");
    proxy.cut();
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.status(), 503, "{:?}", first.text().await);

    // The retry runs (once the failed request has given its claim back), instead
    // of being told for ten minutes that a request nobody runs is in flight.
    let mut retry = send().await.unwrap();
    let mut tries = 1;
    while retry.status() == 409 && tries < 200 {
        tokio::task::yield_now().await;
        retry = send().await.unwrap();
        tries += 1;
    }
    assert_eq!(retry.status(), 200, "after {tries} tries: {:?}", retry.text().await);
    assert_eq!(app.state("c1").await["used"], 5);
}

/// The status `/usage` at `address` answers a caller with `key`.
async fn usage_status(address: &str, key: &str) -> u16 {
    reqwest::Client::new()
        .post(format!("{address}/usage"))
        .bearer_auth(key)
        .json(&json!({"conversation_id": "c", "used": 1, "size": 1000}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_revocation_made_while_the_key_listener_was_cut_off_is_not_missed() {
    let app = spawn_app().await;
    let proxy = FaultyProxy::start(b"LISTEN", Fault::CutWhenTold).await;
    let (address, _stop) = app.replica_through(test_settings(), proxy.options.clone()).await;
    let (id, key) = crate::auth::key(&app, "acme", "agent").await;
    let status = || usage_status(&address, &key);
    // The replica took the key in from its own LISTEN.
    let started = std::time::Instant::now();
    while status().await != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the replica never took the key in"
        );
        tokio::task::yield_now().await;
    }

    // Its listening connection dies without a word, and until the key is
    // revoked nothing can connect again: the revocation's NOTIFY reaches nobody.
    let listening = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
        )
        .fetch_one(&app.pool)
        .await
        .unwrap()
    };
    let before = listening().await;
    proxy.open.send_replace(false);
    proxy.cut();
    // The server has seen the replica's listener go (the app's own stays).
    while listening().await == before {
        tokio::task::yield_now().await;
    }
    sqlx::query("UPDATE api_keys SET revoked_at = now() WHERE id = $1")
        .bind(&id)
        .execute(&app.pool)
        .await
        .unwrap();
    proxy.open.send_replace(true);

    // Refused at once, not after the 30 s backstop re-read.
    let started = std::time::Instant::now();
    let mut last = status().await;
    while last == 200 && started.elapsed() < Duration::from_secs(5) {
        tokio::task::yield_now().await;
        last = status().await;
    }
    assert_eq!(last, 401, "the revoked key still worked after {:?}", started.elapsed());
}

#[tokio::test]
async fn unknown_key_ids_are_refused_from_memory_while_the_keys_cannot_be_read() {
    let app = spawn_app().await;
    let (_, good) = crate::auth::key(&app, "acme", "agent").await;
    // Any read of the keys now waits behind this lock.
    let mut admin =
        sqlx::PgConnection::connect_with(&admin_options().database(app.pool.connect_options().get_database().unwrap()))
            .await
            .unwrap();
    let mut locking = admin.begin().await.unwrap();
    sqlx::query("LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *locking)
        .await
        .unwrap();

    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    for n in 0..50 {
        let made_up = format!("cpk_{n:016x}_{}", "0".repeat(64));
        let answer = client
            .post(format!("{}/usage", app.address))
            .bearer_auth(&made_up)
            .json(&json!({"conversation_id": "c", "used": 1}))
            .send()
            .await
            .expect("answered without waiting for the keys table");
        assert_eq!(answer.status(), 401);
    }
    assert_eq!(usage_status(&app.address, &good).await, 200);
    locking.rollback().await.unwrap();
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn start_up_waits_for_the_database_and_says_not_ready_meanwhile() {
    let app = spawn_app().await;
    let database = app.pool.connect_options().get_database().unwrap().to_owned();
    let proxy = FaultyProxy::start(b"never sent", Fault::CutWhenTold).await;
    proxy.open.send_replace(false);
    let port = free_port();
    let settings = Settings {
        addr: ([127, 0, 0, 1], port).into(),
        ..test_settings()
    };
    let pool = compactd::store::pool(proxy.options.clone().database(&database), 4);
    let building = tokio::spawn(Application::build(settings, pool));

    let client = reqwest::Client::new();
    let ready = |path: &'static str| client.get(format!("http://127.0.0.1:{port}{path}")).send();
    let waiting = loop {
        if let Ok(answer) = ready("/readyz").await {
            break answer;
        }
        tokio::task::yield_now().await;
    };
    assert_eq!(waiting.status(), 503);
    assert_eq!(waiting.headers()["retry-after"], "1");
    assert_eq!(ready("/healthz").await.unwrap().status(), 200, "alive while it waits");
    assert_eq!(ready("/usage").await.unwrap().status(), 503);
    assert!(!building.is_finished());

    proxy.open.send_replace(true);
    let started = building.await.unwrap().expect("it starts once the database answers");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(started.run_until(async {
        stopped.await.ok();
    }));
    assert_eq!(ready("/readyz").await.unwrap().status(), 200);
    let _ = stop.send(());
}

#[tokio::test]
async fn start_up_gives_up_on_the_database_after_the_configured_wait() {
    let proxy = FaultyProxy::start(b"never sent", Fault::CutWhenTold).await;
    proxy.open.send_replace(false);
    let settings = Settings {
        database_wait: Duration::from_secs(1),
        ..test_settings()
    };
    let started = std::time::Instant::now();
    let built = Application::build(settings, compactd::store::pool(proxy.options.clone(), 2)).await;
    assert!(
        matches!(built, Err(StartupError::DatabaseUnavailable { .. })),
        "{:?}",
        built.err()
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}
