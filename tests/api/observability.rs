//! What operators read: /stats, /metrics, request ids and JSON logs.

use std::time::Duration;

use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::binary;
use crate::helpers::{Database, read, spawn_app, spawn_app_with_upstream};
use crate::llm_client::openai_answer;

#[tokio::test]
async fn stats_count_compactions_decisions_and_rollovers() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains("fail-me"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("Summary.")))
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(2)).await;
    for id in ["a", "b", "c"] {
        app.report(
            "/usage",
            json!({"conversation_id": id, "used": 190000, "size": 200000, "at": "2026-10-18T09:00:00Z"}),
        )
        .await;
        app.report(
            "/turn-ended",
            json!({"conversation_id": id, "user": "please continue", "at": "2026-10-18T09:00:00Z"}),
        )
        .await;
        app.report("/decide", json!({"conversation_id": id, "at": "2026-10-18T09:00:01Z"}))
            .await;
    }
    app.report(
        "/summarize",
        json!({"conversation_id": "a", "at": "2026-10-18T09:01:00Z"}),
    )
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "b", "user": "fail-me", "at": "2026-10-18T09:01:30Z"}),
    )
    .await;
    app.report(
        "/summarize",
        json!({"conversation_id": "b", "at": "2026-10-18T09:02:00Z"}),
    )
    .await;
    app.report(
        "/summarize",
        json!({"conversation_id": "c", "summary": "mine", "trigger": "harness", "at": "2026-10-18T09:03:00Z"}),
    )
    .await;
    app.report(
        "/handoff",
        json!({"conversation_id": "a", "successor_id": "a2", "at": "2026-10-18T09:04:00Z"}),
    )
    .await;
    app.report(
        "/handoff",
        json!({"conversation_id": "b", "declined": true, "at": "2026-10-18T09:05:00Z"}),
    )
    .await;

    let (status, stats) = app.get_json("/stats").await;
    let (_, later) = app.get_json("/stats?since=2026-10-18T09:02:30Z").await;

    assert_eq!(status, 200, "{stats}");
    let triggers = stats["triggers"].as_array().unwrap();
    let emergency = triggers.iter().find(|t| t["trigger"] == "emergency").unwrap();
    assert_eq!(
        (&emergency["count"], &emergency["successes"], &emergency["failures"]),
        (&json!(2), &json!(1), &json!(1))
    );
    assert!(emergency["p95_duration_ms"].as_f64().unwrap() >= emergency["p50_duration_ms"].as_f64().unwrap());
    let harness = triggers.iter().find(|t| t["trigger"] == "harness").unwrap();
    assert_eq!(harness["count"], 1);
    assert_eq!(stats["decisions"], json!([{"decision": "compact", "count": 3}]));
    assert_eq!(
        (&stats["rollovers"], &stats["declined_rollovers"]),
        (&json!(1), &json!(1))
    );
    app.report("/usage", json!({"conversation_id": "huge", "used": 1}))
        .await;
    for _ in 0..2 {
        let body = json!({"conversation_id": "huge", "summary": "s", "tokens_before": 9_000_000_000_000_000_000_u64, "at": "2026-10-18T09:06:00Z"});
        app.report("/summarize", body).await;
    }
    let (status, saturated) = app.get_json("/stats").await;
    assert_eq!(status, 200, "sums of counts near 2^63 saturate: {saturated}");
    let later_triggers: Vec<&str> = later["triggers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["trigger"].as_str().unwrap())
        .collect();
    assert_eq!(later_triggers, ["harness"], "since filters by time");
    assert!(later["decisions"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_a_sane_one_sent_is_kept() {
    let app = spawn_app().await;

    let fresh = app.get("/healthz").send().await.unwrap();
    let kept = app
        .get("/healthz")
        .header("x-request-id", "trace-42.a_b")
        .send()
        .await
        .unwrap();
    let replaced = app
        .get("/healthz")
        .header("x-request-id", "no spaces please")
        .send()
        .await
        .unwrap();
    let problem = app.get("/no/such/thing").send().await.unwrap();

    assert_eq!(fresh.headers()["x-request-id"].to_str().unwrap().len(), 32);
    assert_eq!(kept.headers()["x-request-id"], "trace-42.a_b");
    assert_ne!(replaced.headers()["x-request-id"], "no spaces please");
    assert!(problem.headers().contains_key("x-request-id"), "errors too");
}

/// The value of the sample of `name` whose labels include all of `labels`.
pub fn sample(metrics: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    metrics.lines().filter(|line| !line.starts_with('#')).find_map(|line| {
        let (series, value) = line.rsplit_once(' ')?;
        let matches = series.starts_with(name)
            && series[name.len()..].starts_with(['{', ' '])
            && labels
                .iter()
                .all(|(key, val)| series.contains(&format!("{key}=\"{val}\"")));
        matches.then(|| value.parse().ok()).flatten()
    })
}

/// The service at `base` answered every report (`/usage`, `/turn-ended`)
/// with no body, as `Prefer: return=minimal` asks, and none with one.
pub async fn every_report_was_answered_minimal(base: &str) {
    let metrics = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for route in ["/usage", "/turn-ended"] {
        let answered = |status| {
            let labels = [("method", "POST"), ("route", route), ("status", status)];
            sample(&metrics, "compactd_http_request_duration_seconds_count", &labels)
        };
        assert!(answered("204") > Some(0.0), "{route} was reported with return=minimal");
        assert_eq!(answered("200"), None, "no {route} answer carried the state no one read");
    }
}

#[tokio::test]
async fn metrics_after_a_scripted_run_show_the_counts_it_caused_and_logs_carry_request_ids() {
    let database = Database::create().await;
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&upstream)
        .await;
    let (url, base) = (database.url(), format!("{}/v1", upstream.uri()));
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("RUST_LOG", "info"),
        ("COMPACTD_LOG_FORMAT", "json"),
        ("COMPACTD_BACKGROUND", "false"),
        ("COMPACTD_LLM_PROVIDER", "openai"),
        ("COMPACTD_LLM_BASE_URL", base.as_str()),
        ("COMPACTD_SUMMARY_MODEL", "summary-model"),
        ("COMPACTD_LLM_DEADLINE_SECS", "1"),
        ("COMPACTD_LLM_MAX_ATTEMPTS", "2"),
    ];
    let service = binary::start(&env, &[]).await;
    let client = reqwest::Client::new();
    let post = |path: &str, body: Value| client.post(format!("{}{path}", service.address)).json(&body).send();
    for used in [1000, 2000, 190000] {
        post("/usage", json!({"conversation_id": "c", "used": used, "size": 200000}))
            .await
            .unwrap();
    }
    post(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "go on with the migration"}),
    )
    .await
    .unwrap();
    post("/decide", json!({"conversation_id": "c"})).await.unwrap();
    let failed = post("/summarize", json!({"conversation_id": "c"})).await.unwrap();
    let request_id = failed.headers()["x-request-id"].to_str().unwrap().to_owned();
    let (_, summary) = read(failed).await;
    let harness =
        json!({"conversation_id": "c", "trigger": "harness", "summary": "The user asked: go on with the migration."});
    let (status, _) = read(post("/summarize", harness).await.unwrap()).await;
    assert_eq!(status, 200);
    let metrics = client
        .get(format!("{}/metrics", service.address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let output = service.stop().await;

    assert_eq!(summary["success"], false);
    let http = |route: &str| {
        sample(
            &metrics,
            "compactd_http_request_duration_seconds_count",
            &[("route", route), ("status", "200")],
        )
    };
    assert_eq!(http("/usage"), Some(3.0), "{metrics}");
    assert_eq!(http("/turn-ended"), Some(1.0));
    assert_eq!(
        sample(
            &metrics,
            "compactd_decisions_total",
            &[("decision", "compact"), ("trigger", "emergency")]
        ),
        Some(1.0)
    );
    let compactions = [("trigger", "emergency"), ("success", "false")];
    assert_eq!(sample(&metrics, "compactd_compactions_total", &compactions), Some(1.0));
    assert_eq!(
        sample(
            &metrics,
            "compactd_keep_items_total",
            &[("kind", "request"), ("outcome", "present")]
        ),
        Some(1.0),
        "the request was in the harness's summary word for word"
    );
    assert_eq!(
        sample(&metrics, "compactd_upstream_errors_total", &[("kind", "status")]),
        Some(1.0)
    );
    assert_eq!(
        sample(&metrics, "compactd_upstream_retries_total", &[]),
        Some(1.0),
        "two attempts: one retry"
    );
    let failure_logs: Vec<&String> = output
        .iter()
        .filter(|line| line.contains("upstream call failed"))
        .collect();
    assert!(!failure_logs.is_empty(), "{output:#?}");
    for line in failure_logs {
        let logged: Value = serde_json::from_str(line).expect("JSON logs");
        assert_eq!(logged["span"]["request_id"], request_id.as_str(), "{line}");
    }
}
