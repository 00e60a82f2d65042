use std::time::Duration;

use compactd::config::{Leases, Settings};
use compactd::domain::TenantId;
use compactd::http::idempotency::fingerprint;
use compactd::store::idempotency::{self, Claim, ClaimToken};
use compactd::store::processes::{self, ProcessId};
use serde_json::json;

use crate::helpers::{spawn, spawn_app, test_settings};

#[tokio::test]
async fn a_retry_with_the_same_key_replays_the_first_answer_and_changes_nothing() {
    let app = spawn_app().await;
    let body = json!({"conversation_id": "c1", "user": "hello"});
    let send = || {
        app.post("/turn-ended")
            .header("Idempotency-Key", "turn-1")
            .json(&body)
            .send()
    };

    let first = send().await.unwrap();
    let first_bytes = first.bytes().await.unwrap();
    let retry = send().await.unwrap();
    let replayed = retry.headers().get("idempotent-replayed").cloned();
    let retry_bytes = retry.bytes().await.unwrap();

    assert_eq!(retry_bytes, first_bytes, "byte for byte");
    assert_eq!(replayed.unwrap(), "true");
    let state = app.state("c1").await;
    assert_eq!(state["turns_since_compaction"], 1);
    assert_eq!(state["event_count"], 1);
    assert_eq!(state["turn_count"], 1);
}

#[tokio::test]
async fn the_same_request_spelled_differently_is_the_same_request() {
    let app = spawn_app().await;
    let send = |body: &'static str| {
        app.post("/usage")
            .header("Idempotency-Key", "u-1")
            .header("content-type", "application/json")
            .body(body)
            .send()
    };

    let first = send(r#"{"conversation_id": "c1", "used": 5}"#).await.unwrap();
    let second = send(r#"{"used":5,"conversation_id":"c1"}"#).await.unwrap();

    assert_eq!(first.status(), 200);
    assert_eq!(second.status(), 200);
    assert_eq!(first.bytes().await.unwrap(), second.bytes().await.unwrap());
    assert_eq!(app.state("c1").await["event_count"], 1);
}

#[tokio::test]
async fn the_same_key_with_another_body_or_route_is_422() {
    let app = spawn_app().await;
    let key = ("Idempotency-Key", "k");
    app.post("/usage")
        .header(key.0, key.1)
        .json(&json!({"conversation_id": "c1", "used": 5}))
        .send()
        .await
        .unwrap();

    let other_body = app
        .post("/usage")
        .header(key.0, key.1)
        .json(&json!({"conversation_id": "c1", "used": 6}))
        .send();
    let other_route = app
        .post("/decide")
        .header(key.0, key.1)
        .json(&json!({"conversation_id": "c1", "used": 5}))
        .send();
    let (other_body, other_route) = (other_body.await.unwrap(), other_route.await.unwrap());

    assert_eq!(other_body.status(), 422);
    assert_eq!(other_route.status(), 422);
    let problem: serde_json::Value = other_body.json().await.unwrap();
    assert_eq!(problem["type"], "/problems/idempotency-key-reused");
    assert_eq!(app.state("c1").await["used"], 5);
}

#[tokio::test]
async fn a_retry_while_the_first_is_in_flight_is_409() {
    let app = spawn_app().await;
    let body = json!({"conversation_id": "c1", "used": 5});
    let send = || {
        app.post("/usage")
            .header("Idempotency-Key", "busy-key")
            .json(&body)
            .send()
    };
    // The same request holds the key: it claimed it and has not answered yet.
    let fingerprint = &fingerprint("POST /usage", body.to_string().as_bytes());
    let token = ClaimToken::new();
    let holder = a_live_process(&app).await;
    let claim = claim_as(&app, "busy-key", fingerprint, token, holder).await;
    assert_eq!(claim, Claim::Fresh);

    let in_flight = send().await.unwrap();

    assert_eq!(in_flight.status(), 409);
    assert_eq!(in_flight.headers()["retry-after"], "1");
    assert_eq!(app.conversation_count().await, 0);
    idempotency::abandon(
        &mut app.pool.acquire().await.unwrap(),
        &TenantId::open(),
        "busy-key",
        token,
    )
    .await
    .unwrap();
    assert_eq!(
        send().await.unwrap().status(),
        200,
        "the key is free once the first gives up"
    );
}

#[tokio::test]
async fn a_claim_unanswered_past_the_configured_lease_is_taken_over() {
    let app = spawn(Settings {
        leases: Leases {
            request: Duration::from_secs(90),
            ..Leases::default()
        },
        ..test_settings()
    })
    .await;
    let body = json!({"conversation_id": "c1", "used": 5});
    // The same request, claimed by a process that may have died.
    let fingerprint = &fingerprint("POST /usage", body.to_string().as_bytes());
    let holder = a_live_process(&app).await;
    for (key, age) in [("dead", 91), ("alive", 89)] {
        claim_as(&app, key, fingerprint, ClaimToken::new(), holder).await;
        sqlx::query("UPDATE idempotency_keys SET created_at = now() - make_interval(secs => $2) WHERE key = $1")
            .bind(key)
            .bind(f64::from(age))
            .execute(&app.pool)
            .await
            .unwrap();
    }
    let send = |key: &'static str| app.post("/usage").header("Idempotency-Key", key).json(&body).send();

    assert_eq!(send("dead").await.unwrap().status(), 200, "its holder is gone");
    assert_eq!(
        send("alive").await.unwrap().status(),
        409,
        "its holder may still answer"
    );
}

/// Claims `key` for the open tenant's request with `fingerprint`, as
/// `holder`'s request `token`, the way a replica's request does.
async fn claim_as(
    app: &crate::helpers::TestApp,
    key: &str,
    fingerprint: &[u8],
    token: ClaimToken,
    holder: ProcessId,
) -> Claim {
    let mut conn = app.pool.acquire().await.unwrap();
    let lease = (Leases::default().request, holder);
    idempotency::begin(&mut conn, &TenantId::open(), key, fingerprint, token, lease, Some("c1"))
        .await
        .unwrap()
}

/// A process that says it is alive, and keeps saying so for the rest of
/// the test, as a running replica does.
async fn a_live_process(app: &crate::helpers::TestApp) -> ProcessId {
    let process = ProcessId::new();
    processes::beat(&mut app.pool.acquire().await.unwrap(), process)
        .await
        .unwrap();
    let pool = app.pool.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(processes::HEARTBEAT);
        loop {
            every.tick().await;
            if let Ok(mut conn) = pool.acquire().await {
                let _ = processes::beat(&mut conn, process).await;
            }
        }
    });
    process
}

#[tokio::test]
async fn a_claim_whose_holder_fell_silent_is_taken_over_at_once_and_a_live_holders_is_not() {
    let app = spawn_app().await;
    let body = json!({"conversation_id": "c1", "used": 5});
    let fingerprint = &fingerprint("POST /usage", body.to_string().as_bytes());
    // One stopped beating longer ago than a holder may be silent (10 s),
    // though its claim is only seconds old, far inside the lease (11 minutes).
    let silent = ProcessId::new();
    sqlx::query("INSERT INTO processes (id, seen_at) VALUES ($1::uuid, now() - interval '11 seconds')")
        .bind(silent.to_string())
        .execute(&app.pool)
        .await
        .unwrap();
    let beating = a_live_process(&app).await;
    for (key, holder) in [("silent", silent), ("beating", beating)] {
        claim_as(&app, key, fingerprint, ClaimToken::new(), holder).await;
    }
    let send = |key: &'static str| app.post("/usage").header("Idempotency-Key", key).json(&body).send();

    assert_eq!(send("silent").await.unwrap().status(), 200, "its holder is dead");
    assert_eq!(
        send("beating").await.unwrap().status(),
        409,
        "its holder may still answer"
    );
}

#[tokio::test]
async fn a_rejected_request_does_not_use_up_its_key() {
    let app = spawn_app().await;
    let send = |used: i64| {
        app.post("/usage")
            .header("Idempotency-Key", "k")
            .json(&json!({"conversation_id": "c1", "used": used}))
            .send()
    };

    let rejected = send(-1).await.unwrap();
    let accepted = send(5).await.unwrap();

    assert_eq!(rejected.status(), 422);
    assert_eq!(accepted.status(), 200);
}

#[tokio::test]
async fn an_invalid_key_is_422() {
    let app = spawn_app().await;

    for key in ["", &"k".repeat(256), "has space", "naïve"] {
        let response = app
            .post("/usage")
            .header("Idempotency-Key", key.as_bytes())
            .json(&json!({"conversation_id": "c1", "used": 5}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422, "{key:?}");
    }
    assert_eq!(app.conversation_count().await, 0);
}

#[tokio::test]
async fn decisions_replay_too() {
    let app = spawn_app().await;
    app.report(
        "/usage",
        json!({"conversation_id": "c1", "used": 190000, "size": 200000}),
    )
    .await;
    let send = || {
        app.post("/decide")
            .header("Idempotency-Key", "d")
            .json(&json!({"conversation_id": "c1"}))
            .send()
    };

    let first = send().await.unwrap().bytes().await.unwrap();
    let second = send().await.unwrap().bytes().await.unwrap();

    assert_eq!(first, second);
    assert_eq!(app.events("c1").await.len(), 2, "one usage, one decision");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_requests_with_one_key_have_one_effect_and_one_answer() {
    let app = spawn_app().await;
    let body = json!({"conversation_id": "c1", "user": "only once"});

    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let request = app.post("/turn-ended").header("Idempotency-Key", "same").json(&body);
        requests.spawn(async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.bytes().await.unwrap())
        });
    }
    let answers = requests.join_all().await;

    let bodies: std::collections::HashSet<_> = answers
        .iter()
        .filter(|(s, _)| *s == 200)
        .map(|(_, b)| b.clone())
        .collect();
    assert!(
        answers.iter().all(|(status, _)| matches!(status, 200 | 409)),
        "{answers:?}"
    );
    assert_eq!(bodies.len(), 1, "every 200 is the same answer, byte for byte");
    let state = app.state("c1").await;
    assert_eq!(
        (state["event_count"].as_i64(), state["turn_count"].as_i64()),
        (Some(1), Some(1)),
        "one effect"
    );
}
