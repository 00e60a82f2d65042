//! The upstream misbehaving every way it can: the deadline holds, retries stay
//! within their budget, and no partial summary is ever stored.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::helpers::{TestApp, completions, spawn, spawn_app_with_upstream, upstream_settings};
use crate::llm_client::openai_answer;

const DEADLINE: Duration = Duration::from_millis(1500);

/// Sets up conversation `c` with an anchor a harness wrote; answers the
/// stored summary (the anchor with where things stood).
async fn conversation_with_a_summary(app: &TestApp) -> Value {
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Deploy build 4711."}),
    )
    .await;
    app.report(
        "/summarize",
        json!({"conversation_id": "c", "summary": "The anchor: Deploy build 4711.", "trigger": "harness"}),
    )
    .await;
    app.report("/turn-ended", json!({"conversation_id": "c", "user": "And now?"}))
        .await;
    let anchor = app.state("c").await["summary"]["text"].clone();
    assert!(
        anchor.as_str().unwrap().starts_with("The anchor: Deploy build 4711."),
        "{anchor}"
    );
    anchor
}

/// An upstream that sends its headers, then one byte every 200 ms, forever.
async fn slow_drip() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = vec![0_u8; 64 * 1024];
                let _ = socket.read(&mut request).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n";
                let _ = socket.write_all(head.as_bytes()).await;
                let body = br#"{"choices":[{"message":{"content":"partial summary that never ends"#;
                for byte in body.iter().cycle() {
                    if socket.write_all(&[*byte]).await.is_err() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            });
        }
    });
    address
}

#[tokio::test]
async fn every_upstream_fault_fails_soft_within_the_deadline() {
    let faults: Vec<(&str, ResponseTemplate, u64)> = vec![
        ("500", ResponseTemplate::new(500).set_body_string("boom"), 4),
        (
            "429 with Retry-After",
            ResponseTemplate::new(429).insert_header("retry-after", "0"),
            4,
        ),
        (
            "hang",
            ResponseTemplate::new(200)
                .set_body_json(openai_answer("late"))
                .set_delay(Duration::from_secs(30)),
            1,
        ),
        ("empty", ResponseTemplate::new(200).set_body_json(openai_answer("")), 1),
        (
            "malformed",
            ResponseTemplate::new(200).set_body_string("{\"choices\": [{\"message\": "),
            1,
        ),
        (
            "not JSON",
            ResponseTemplate::new(200).set_body_string("<html>busy</html>"),
            1,
        ),
    ];
    for (name, fault, most_calls) in faults {
        let upstream = MockServer::start().await;
        Mock::given(method("POST")).respond_with(fault).mount(&upstream).await;
        let app = spawn_app_with_upstream(&upstream.uri(), DEADLINE).await;
        let anchor = conversation_with_a_summary(&app).await;
        let started = Instant::now();

        let answer = app.report("/summarize", json!({"conversation_id": "c"})).await;

        let took = started.elapsed();
        assert_eq!(answer["success"], false, "{name}");
        assert_eq!(answer["summary"], anchor, "{name}: the anchor stays");
        assert!(answer["compaction"]["summary"].is_null(), "{name}: no partial summary");
        assert!(took < DEADLINE + Duration::from_millis(700), "{name}: took {took:?}");
        let calls = completions(&upstream).await.len() as u64;
        assert!((1..=most_calls).contains(&calls), "{name}: {calls} calls");
        let state = app.state("c").await;
        assert_eq!(
            (
                state["compactions"].as_u64(),
                state["failed_compactions_in_row"].as_u64()
            ),
            (Some(1), Some(1)),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_slow_drip_is_cut_off_at_the_deadline() {
    let upstream = slow_drip().await;
    let app = spawn_app_with_upstream(&upstream, DEADLINE).await;
    let anchor = conversation_with_a_summary(&app).await;
    let started = Instant::now();

    let answer = app.report("/summarize", json!({"conversation_id": "c"})).await;

    assert_eq!(answer["success"], false);
    assert!(
        answer["error"].as_str().unwrap().contains("deadline"),
        "{}",
        answer["error"]
    );
    assert!(
        started.elapsed() < DEADLINE + Duration::from_millis(700),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(app.state("c").await["summary"]["text"], anchor);
}

#[tokio::test]
async fn past_its_daily_budget_a_tenant_gets_extractive_summaries_that_say_so() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("Summary.")))
        .mount(&upstream)
        .await;
    let settings = upstream_settings(&upstream.uri(), Duration::from_secs(5));
    let app = spawn(compactd::config::Settings {
        daily_token_budget: Some(60),
        ..settings
    })
    .await;
    app.report("/turn-ended", json!({"conversation_id": "c", "user": "hello"}))
        .await;

    let mut writers = Vec::new();
    for turn in 0..3 {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "c", "user": format!("turn {turn}")}),
        )
        .await;
        let answer = app.report("/summarize", json!({"conversation_id": "c"})).await;
        writers.push(answer["compaction"]["summarizer"].as_str().unwrap().to_owned());
        if turn == 2 {
            assert!(
                answer["summary"]
                    .as_str()
                    .unwrap()
                    .contains("daily upstream budget of 60 tokens is spent")
            );
        }
    }

    // Each upstream call reports 40 + 7 tokens: the second passes 60.
    assert_eq!(writers, ["llm", "llm", "extractive"]);
    assert_eq!(completions(&upstream).await.len(), 2);
    let spent: i64 = sqlx::query_scalar("SELECT input_tokens + output_tokens FROM upstream_usage")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(spent, 94);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_summaries_overshoot_the_daily_budget_by_one_call_at_most() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"model": "small-2026", "choices": [{"message": {"role": "assistant", "content": "Summary."}}],
                    "usage": {"prompt_tokens": 4_500, "completion_tokens": 500}}))
                .set_delay(Duration::from_millis(300)),
        )
        .mount(&upstream)
        .await;
    let app = spawn(compactd::config::Settings {
        daily_token_budget: Some(10_000),
        ..upstream_settings(&upstream.uri(), Duration::from_secs(20))
    })
    .await;
    // Each summary's prompt is some 3,000 tokens: a call of about 5,000.
    let turn = "Deploy the billing service to staging and check the retry logs. ".repeat(300);
    for n in 0..16 {
        let id = format!("c{n}");
        app.report("/turn-ended", json!({"conversation_id": id, "user": turn}))
            .await;
    }

    let mut summaries = tokio::task::JoinSet::new();
    for n in 0..16 {
        let request = app
            .post("/summarize")
            .json(&json!({"conversation_id": format!("c{n}")}));
        summaries.spawn(async move { crate::helpers::read(request.send().await.unwrap()).await });
    }
    let answers = summaries.join_all().await;

    let by_model = answers
        .iter()
        .filter(|(status, answer)| *status == 200 && answer["compaction"]["summarizer"] == "llm")
        .count();
    let calls = completions(&upstream).await.len();
    assert_eq!(calls, by_model);
    assert!(
        (1..=3).contains(&calls),
        "16 at once against a 10,000-token budget of 5,000-token calls: {calls} calls"
    );
    let spent: i64 = sqlx::query_scalar("SELECT input_tokens + output_tokens FROM upstream_usage")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(spent <= 15_000, "{spent}");
    for (status, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
    }
    let held: i64 = sqlx::query_scalar("SELECT reserved_tokens FROM upstream_usage")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(held, 0, "every hold given back");
}

#[tokio::test]
async fn an_upstream_that_says_nothing_of_its_usage_is_charged_the_estimate() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"model": "small-2026", "choices": [{"message": {"role": "assistant", "content": "Summary."}}]}),
        ))
        .mount(&upstream)
        .await;
    let app = spawn(upstream_settings(&upstream.uri(), Duration::from_secs(5))).await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Fix the lexer in src/lexer.rs."}),
    )
    .await;

    let (status, answer) = app.post_json("/summarize", &json!({"conversation_id": "c"})).await;

    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["compaction"]["summarizer"], "llm");
    let (spent, calls): (i64, i64) = sqlx::query_as("SELECT input_tokens + output_tokens, calls FROM upstream_usage")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(calls, 1);
    assert!(spent > 500, "the call's estimate, not nothing: {spent}");
}

/// The ledger refuses every new row, as a full disk or a broken replica would.
async fn refuse_ledger_rows(app: &TestApp, refuse: bool) {
    let statements: &[&str] = if refuse {
        &[
            "CREATE FUNCTION refuse_ledger_row() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN RAISE EXCEPTION 'the test refuses ledger rows'; END $$",
            "CREATE TRIGGER refuse_ledger_row BEFORE INSERT ON compactions
             FOR EACH ROW EXECUTE FUNCTION refuse_ledger_row()",
        ]
    } else {
        &["DROP TRIGGER refuse_ledger_row ON compactions"]
    };
    for statement in statements {
        sqlx::query(statement).execute(&app.pool).await.unwrap();
    }
}

#[tokio::test]
async fn a_compaction_that_cannot_be_recorded_gives_its_claim_back() {
    let app = crate::helpers::spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 10})).await;
    let summary = json!({"conversation_id": "c1", "summary": "the harness's own"});
    let keyed = |key: &str| {
        app.post("/summarize")
            .header("idempotency-key", key)
            .json(&summary)
            .send()
    };

    refuse_ledger_rows(&app, true).await;
    let (unkeyed, _) = app.post_json("/summarize", &summary).await;
    let keyed_status = keyed("first-try").await.unwrap().status();
    let (claimed,): (Option<chrono::DateTime<chrono::Utc>>,) =
        sqlx::query_as("SELECT compacting_since FROM conversations WHERE conversation_id = 'c1'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    refuse_ledger_rows(&app, false).await;
    let (retried, answer) = app.post_json("/summarize", &summary).await;

    assert!(
        unkeyed >= 500 && keyed_status.is_server_error(),
        "{unkeyed} {keyed_status}"
    );
    assert_eq!(claimed, None, "the failed attempts left the conversation claimed");
    assert_eq!((retried, answer["success"].as_bool()), (200, Some(true)), "{answer}");
}

#[tokio::test]
async fn a_compaction_that_cannot_be_recorded_counts_what_it_spent_and_holds_nothing() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("Summary.")))
        .mount(&upstream)
        .await;
    let app = spawn(compactd::config::Settings {
        daily_token_budget: Some(10_000),
        ..upstream_settings(&upstream.uri(), Duration::from_secs(5))
    })
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Fix src/lexer.rs."}),
    )
    .await;

    refuse_ledger_rows(&app, true).await;
    let (status, _) = app.post_json("/summarize", &json!({"conversation_id": "c"})).await;
    refuse_ledger_rows(&app, false).await;

    assert!(status >= 500, "{status}");
    assert_eq!(completions(&upstream).await.len(), 1);
    let (spent, held): (i64, i64) =
        sqlx::query_as("SELECT input_tokens + output_tokens, reserved_tokens FROM upstream_usage")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!((spent, held), (47, 0), "the call's tokens counted, its hold given back");
}

#[tokio::test]
async fn the_upstream_client_follows_no_redirect() {
    let elsewhere = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("stolen")))
        .mount(&elsewhere)
        .await;
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(307).insert_header("location", format!("{}/v1/chat/completions", elsewhere.uri())),
        )
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), DEADLINE).await;
    conversation_with_a_summary(&app).await;

    let answer = app.report("/summarize", json!({"conversation_id": "c"})).await;

    assert_eq!(answer["success"], false);
    assert_eq!(answer["error"], "the upstream answered 307");
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "the transcript went to the redirect's target"
    );
}

#[tokio::test]
async fn tenants_see_the_kind_of_an_upstream_failure_not_its_body_or_url() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_string("<html><pre>Traceback: secret_internal_host:8443 in handler</pre></html>"),
        )
        .mount(&upstream)
        .await;
    let mut settings = upstream_settings(&upstream.uri(), DEADLINE);
    if let Some(summarizer) = settings.summarizer.as_mut() {
        summarizer.llm.base_url = format!("{}/v1?api-key=sk-in-the-query", upstream.uri());
    }
    let app = spawn(settings).await;
    conversation_with_a_summary(&app).await;

    let answer = app.report("/summarize", json!({"conversation_id": "c"})).await;
    let (_, ledger) = app.get_json("/conversations/c/compactions").await;

    assert_eq!(answer["error"], "the upstream answered 400");
    for text in [answer.to_string(), ledger.to_string()] {
        for leak in ["Traceback", "secret_internal_host", "sk-in-the-query", "api-key"] {
            assert!(!text.contains(leak), "{leak} in {text}");
        }
    }
}
