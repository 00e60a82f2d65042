//! Who may do what: the auth matrix of SPEC §6.

use compactd::app::keys as admin;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, read, spawn_app};

/// A new key, once the service has taken it in (its NOTIFY lands in
/// milliseconds; an unknown id is refused from memory, so the test waits).
pub async fn key(app: &TestApp, tenant: &str, role: &str) -> (String, String) {
    let mut generations = app.keys.generations();
    let (id, key) = admin::create(&app.pool, tenant, role, None).await.unwrap();
    while !app.keys.knows(&id) {
        tokio::time::timeout(std::time::Duration::from_secs(10), generations.changed())
            .await
            .expect("the new key's NOTIFY reached the service")
            .unwrap();
    }
    (id, key)
}

async fn post_as(app: &TestApp, key: &str, path: &str, body: Value) -> (u16, Value) {
    read(app.post(path).bearer_auth(key).json(&body).send().await.unwrap()).await
}

async fn get_as(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    read(app.get(path).bearer_auth(key).send().await.unwrap()).await
}

#[tokio::test]
async fn without_keys_the_service_is_open_as_tenant_default() {
    let app = spawn_app().await;

    let (status, _) = app
        .post_json("/usage", &json!({"conversation_id": "c", "used": 1}))
        .await;
    let (with_junk, _) = read(
        app.post("/usage")
            .header("authorization", "Basic abc")
            .json(&json!({"conversation_id": "c", "used": 2}))
            .send()
            .await
            .unwrap(),
    )
    .await;

    assert_eq!((status, with_junk), (200, 200));
    let tenant: String = sqlx::query_scalar("SELECT tenant FROM conversations")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(tenant, "default");
}

#[tokio::test]
async fn missing_malformed_unknown_and_revoked_keys_are_401() {
    let app = spawn_app().await;
    let (revoked_id, revoked) = key(&app, "acme", "agent").await;
    let (_, good) = key(&app, "acme", "agent").await;
    admin::revoke(&app.pool, &revoked_id).await.unwrap();
    app.keys.reload().await.unwrap();
    let unknown = format!("cpk_{}_{}", "0".repeat(16), "0".repeat(64));
    let wrong_secret = format!("{}{}", &good[..good.len() - 64], "f".repeat(64));
    let body = json!({"conversation_id": "c", "used": 1});

    let missing = read(app.post("/usage").json(&body).send().await.unwrap()).await;
    let cases = [
        ("malformed", "Bearer nonsense".to_owned()),
        ("wrong scheme", format!("Basic {good}")),
        ("unknown", format!("Bearer {unknown}")),
        ("wrong secret", format!("Bearer {wrong_secret}")),
        ("revoked", format!("Bearer {revoked}")),
    ];
    assert_eq!(missing.0, 401, "missing: {}", missing.1);
    for (name, header) in cases {
        let response = app
            .post("/usage")
            .header("authorization", header)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{name}");
        assert_eq!(
            response.headers()["www-authenticate"],
            "Bearer realm=\"compactd\"",
            "{name}"
        );
        let (_, problem) = read(response).await;
        assert_eq!(problem["type"], "/problems/unauthorized", "{name}");
    }
    assert_eq!(app.conversation_count().await, 0);
    assert_eq!(post_as(&app, &good, "/usage", body).await.0, 200);
}

#[tokio::test]
async fn the_first_key_works_from_its_first_use_whether_or_not_its_notify_has_landed() {
    let app = spawn_app().await;
    // A key made where the service hears nothing of it (as when its NOTIFY
    // is still on the way).
    sqlx::query("ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed")
        .execute(&app.pool)
        .await
        .unwrap();
    let (id, key) = admin::create(&app.pool, "acme", "reader", None).await.unwrap();
    assert!(!app.keys.knows(&id), "the service has not heard of it");

    let (with_key, answer) = read(app.get("/conversations").bearer_auth(&key).send().await.unwrap()).await;
    assert_eq!(with_key, 200, "{answer}");
    let (without, problem) = read(app.get("/conversations").send().await.unwrap()).await;
    assert_eq!(
        without, 401,
        "open mode ended with the first key's first use: {problem}"
    );
    let (made_up, _) = read(
        app.get("/conversations")
            .bearer_auth("cpk_0000000000000000_00000000000000000000000000000000")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(made_up, 401);
}

#[tokio::test]
async fn a_new_key_works_once_its_notify_lands_and_a_revocation_reaches_the_service_by_itself() {
    let app = spawn_app().await;
    let (id, agent) = key(&app, "acme", "agent").await;

    let first = post_as(&app, &agent, "/usage", json!({"conversation_id": "c", "used": 1})).await;
    let mut generations = app.keys.generations();
    generations.borrow_and_update();
    admin::revoke(&app.pool, &id).await.unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(10), generations.changed())
        .await
        .unwrap()
        .unwrap();
    let after = post_as(&app, &agent, "/usage", json!({"conversation_id": "c", "used": 2})).await;

    assert_eq!(first.0, 200, "{}", first.1);
    assert_eq!(after.0, 401, "the NOTIFY made the service re-read its keys");
}

#[tokio::test]
async fn a_reader_reads_but_may_not_write() {
    let app = spawn_app().await;
    let (_, agent) = key(&app, "acme", "agent").await;
    let (_, reader) = key(&app, "acme", "reader").await;
    post_as(
        &app,
        &agent,
        "/turn-ended",
        json!({"conversation_id": "c", "user": "hi"}),
    )
    .await;

    let writes = [
        post_as(&app, &reader, "/usage", json!({"conversation_id": "c", "used": 5})).await,
        post_as(&app, &reader, "/turn-ended", json!({"conversation_id": "c"})).await,
        post_as(&app, &reader, "/decide", json!({"conversation_id": "c"})).await,
        post_as(&app, &reader, "/summarize", json!({"conversation_id": "c"})).await,
        post_as(&app, &reader, "/handoff", json!({"conversation_id": "c"})).await,
    ];
    let reads = [
        get_as(&app, &reader, "/conversations/c").await,
        get_as(&app, &reader, "/conversations/c/events").await,
        get_as(&app, &reader, "/conversations/c/turns").await,
        get_as(&app, &reader, "/conversations/c/compactions").await,
        get_as(&app, &reader, "/compactions").await,
        get_as(&app, &reader, "/due").await,
    ];

    assert!(writes.iter().all(|(status, _)| *status == 403), "{writes:?}");
    assert!(reads.iter().all(|(status, _)| *status == 200), "{reads:?}");
    assert_eq!(get_as(&app, &reader, "/conversations/c").await.1["event_count"], 1);
}

#[tokio::test]
async fn another_tenants_conversation_is_404_for_reads_and_writes() {
    let app = spawn_app().await;
    let (_, a) = key(&app, "tenant-a", "agent").await;
    let (_, b) = key(&app, "tenant-b", "admin").await;
    post_as(
        &app,
        &a,
        "/turn-ended",
        json!({"conversation_id": "secret", "user": "a's words"}),
    )
    .await;
    post_as(
        &app,
        &a,
        "/summarize",
        json!({"conversation_id": "secret", "summary": "a's summary"}),
    )
    .await;

    let reads = [
        get_as(&app, &b, "/conversations/secret").await.0,
        get_as(&app, &b, "/conversations/secret/events").await.0,
        get_as(&app, &b, "/conversations/secret/turns?q=words").await.0,
        get_as(&app, &b, "/conversations/secret/compactions").await.0,
    ];
    let writes = [
        post_as(&app, &b, "/summarize", json!({"conversation_id": "secret"}))
            .await
            .0,
        post_as(&app, &b, "/handoff", json!({"conversation_id": "secret"}))
            .await
            .0,
    ];
    let decide = post_as(&app, &b, "/decide", json!({"conversation_id": "secret"})).await;
    let (_, fleet) = get_as(&app, &b, "/compactions").await;
    let usage = post_as(&app, &b, "/usage", json!({"conversation_id": "secret", "used": 9})).await;

    assert_eq!(reads, [404; 4]);
    assert_eq!(writes, [404; 2]);
    assert!(decide.1["state"].is_null(), "b sees no conversation of that name");
    assert!(
        fleet["compactions"].as_array().unwrap().is_empty(),
        "a's ledger is not b's"
    );
    assert_eq!(usage.0, 200, "b's own conversation of the same name");
    let (_, mine) = get_as(&app, &a, "/conversations/secret").await;
    assert_eq!(
        (mine["used"].as_u64(), mine["turn_count"].as_i64()),
        (Some(0), Some(1)),
        "a's is untouched"
    );
}

#[tokio::test]
async fn manual_recovery_takes_an_admin_key() {
    let app = spawn_app().await;
    let (_, agent) = key(&app, "acme", "agent").await;
    let (_, admin_key) = key(&app, "acme", "admin").await;
    post_as(&app, &agent, "/usage", json!({"conversation_id": "c", "used": 1})).await;
    let body = json!({"conversation_id": "c", "trigger": "manual_recovery"});

    let refused = post_as(&app, &agent, "/summarize", body.clone()).await;
    let allowed = post_as(&app, &admin_key, "/summarize", body).await;

    assert_eq!(refused.0, 403);
    assert_eq!(refused.1["type"], "/problems/forbidden");
    assert_eq!(allowed.0, 200, "{}", allowed.1);
}

#[tokio::test]
async fn a_key_past_its_rate_gets_429_with_retry_after() {
    let app = crate::helpers::spawn(compactd::config::Settings {
        rate_per_second: 1,
        rate_burst: 3,
        ..crate::helpers::test_settings()
    })
    .await;
    let (_, agent) = key(&app, "acme", "agent").await;
    let (_, other) = key(&app, "acme", "agent").await;

    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(app.get("/compactions").bearer_auth(&agent).send().await.unwrap());
    }
    let limited = statuses.pop().unwrap();

    assert_eq!(limited.status(), 429);
    let wait: u64 = limited.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&wait), "{wait}");
    assert_eq!(statuses[0].status(), 200);
    assert_eq!(
        get_as(&app, &other, "/compactions").await.0,
        200,
        "another key has its own budget"
    );
}

#[tokio::test]
async fn a_request_past_its_deadline_is_answered_503_not_left_hanging() {
    let upstream = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(30)))
        .mount(&upstream)
        .await;
    let mut settings = crate::helpers::upstream_settings(&upstream.uri(), std::time::Duration::from_secs(20));
    settings.timeouts.summarize = std::time::Duration::from_millis(500);
    let app = crate::helpers::spawn(settings).await;
    app.report("/turn-ended", json!({"conversation_id": "c", "user": "hi"}))
        .await;
    let started = std::time::Instant::now();

    let response = app
        .post("/summarize")
        .json(&json!({"conversation_id": "c"}))
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let (_, problem) = read(response).await;
    assert_eq!(problem["type"], "/problems/timeout");
}
