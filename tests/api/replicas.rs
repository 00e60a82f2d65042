//! Background work shared by several service processes on one database: each
//! turn scored exactly once, and nothing lost when a worker dies mid-claim.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use regex::Regex;
use serde_json::json;
use tokio::sync::mpsc;
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::binary;
use crate::helpers::{Database, wait_for_count};
use crate::llm_client::openai_answer;

/// Answers a batched re-score with `<id>: 4` for every turn it names.
struct Rescore;

impl Respond for Rescore {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = String::from_utf8_lossy(&request.body);
        let lines: Vec<String> = Regex::new(r"turn (\d+):")
            .unwrap()
            .captures_iter(&body)
            .map(|c| format!("{}: 4", &c[1]))
            .collect();
        ResponseTemplate::new(200).set_body_json(openai_answer(&lines.join("\n")))
    }
}

async fn upstream() -> MockServer {
    let server = MockServer::start().await;
    let answer = |text: &str| ResponseTemplate::new(200).set_body_json(openai_answer(text));
    Mock::given(method("POST"))
        .and(body_string_contains("Answer with the digit alone"))
        .respond_with(answer("4"))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(body_string_contains("One line per turn"))
        .respond_with(Rescore)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(body_string_contains("rolling memory"))
        .respond_with(answer("- remembered"))
        .mount(&server)
        .await;
    server
}

/// A worker that waits on its upstream as long as it takes: its deadline,
/// and a claim timeout that outlasts it.
const WAITS: (&str, &str) = ("300", "316");
/// A worker whose claims lapse soon: 17 s, the least an upstream deadline
/// of 1 s allows (a claim must outlast the 16 s a summary may take).
const QUICK: (&str, &str) = ("1", "17");

/// A service on `database` and `upstream` with an upstream deadline and a
/// claim timeout (the claimer decides when another's claim has lapsed).
fn service_env<'a>(
    database: &'a str,
    upstream: &'a str,
    (deadline, claim): (&'a str, &'a str),
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("DATABASE_URL", database),
        ("RUST_LOG", "warn"),
        ("COMPACTD_LLM_PROVIDER", "openai"),
        ("COMPACTD_LLM_BASE_URL", upstream),
        ("COMPACTD_SUMMARY_MODEL", "summary-model"),
        ("COMPACTD_SCORE_MODEL", "score-model"),
        ("COMPACTD_LLM_DEADLINE_SECS", deadline),
        ("COMPACTD_IDLE_SWEEP_SECS", "0"),
        ("COMPACTD_CLAIM_TIMEOUT_SECS", claim),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_service_processes_score_a_hundred_turns_each_exactly_once() {
    let database = Database::create().await;
    let server = upstream().await;
    let (url, base) = (database.url(), format!("{}/v1", server.uri()));
    let first = binary::start(&service_env(&url, &base, WAITS), &[]).await;
    let second = binary::start(&service_env(&url, &base, WAITS), &[]).await;
    let client = reqwest::Client::new();

    for n in 0..100 {
        let address = if n % 2 == 0 { &first.address } else { &second.address };
        let body = json!({"conversation_id": format!("c{}", n % 10), "user": format!("turn-marker-{n}. Track OPS-{n}."), "assistant": "ok"});
        let response = client
            .post(format!("{address}/turn-ended"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    wait_for_count(
        &database.pool,
        "SELECT count(*) FROM turns WHERE score IS NOT NULL",
        100,
    )
    .await;
    first.stop().await;
    second.stop().await;

    let requests = server.received_requests().await.unwrap();
    let bodies: Vec<String> = requests
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect();
    let score_calls: Vec<&String> = bodies
        .iter()
        .filter(|b| b.contains("Answer with the digit alone"))
        .collect();
    let sources: Vec<(String, String)> = sqlx::query_as("SELECT user_text, score_source FROM turns")
        .fetch_all(&database.pool)
        .await
        .unwrap();
    for (user, source) in &sources {
        let marker = user.split('.').next().unwrap();
        let asked = score_calls
            .iter()
            .filter(|b| b.contains(&format!("{marker}. ")))
            .count();
        match source.as_str() {
            "llm" => assert_eq!(asked, 1, "{marker} was scored {asked} times"),
            "audit" => assert_eq!(asked, 0, "{marker} was scored by its audit and by the scorer"),
            other => panic!("{marker}: unexpected source {other}"),
        }
    }
    let scored: i64 = sqlx::query_scalar("SELECT count(*) FROM events WHERE kind = 'scored'")
        .fetch_one(&database.pool)
        .await
        .unwrap();
    let audits = bodies.iter().filter(|b| b.contains("One line per turn")).count();
    let memories = bodies.iter().filter(|b| b.contains("rolling memory")).count();
    println!(
        "upstream calls for 100 turns: {} scores + {audits} audit re-scores + {memories} memory rebuilds = {}",
        score_calls.len(),
        bodies.len()
    );
    assert_eq!(scored as usize, score_calls.len(), "one scored event per score call");
}

/// An upstream that says when a call arrives and never answers in time.
struct Hang(mpsc::UnboundedSender<()>, Arc<AtomicUsize>);

impl Respond for Hang {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        self.1.fetch_add(1, Ordering::SeqCst);
        let _ = self.0.send(());
        ResponseTemplate::new(200)
            .set_body_json(openai_answer("4"))
            .set_delay(std::time::Duration::from_secs(120))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_killed_mid_claim_loses_no_turn() {
    let database = Database::create().await;
    let (arrived, mut calls) = mpsc::unbounded_channel();
    let hanging = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Hang(arrived, Arc::new(AtomicUsize::new(0))))
        .mount(&hanging)
        .await;
    let healthy = upstream().await;
    let url = database.url();
    let (hanging_base, healthy_base) = (format!("{}/v1", hanging.uri()), format!("{}/v1", healthy.uri()));
    let doomed = binary::start(&service_env(&url, &hanging_base, WAITS), &[]).await;
    let client = reqwest::Client::new();
    for n in 0..5 {
        let body =
            json!({"conversation_id": "c", "user": format!("turn-marker-{n}. Note OPS-{n}."), "assistant": "ok"});
        client
            .post(format!("{}/turn-ended", doomed.address))
            .json(&body)
            .send()
            .await
            .unwrap();
    }

    calls
        .recv()
        .await
        .expect("the doomed worker claimed turns and called its upstream");
    let claimed: i64 =
        sqlx::query_scalar("SELECT count(*) FROM turns WHERE score_claimed_at IS NOT NULL AND score IS NULL")
            .fetch_one(&database.pool)
            .await
            .unwrap();
    doomed.kill().await;
    let survivor = binary::start(&service_env(&url, &healthy_base, QUICK), &[]).await;
    wait_for_count(&database.pool, "SELECT count(*) FROM turns WHERE score IS NOT NULL", 5).await;
    survivor.stop().await;

    assert!(claimed > 0, "the worker died holding claims");
    let unscored: i64 = sqlx::query_scalar("SELECT count(*) FROM turns WHERE score IS NULL")
        .fetch_one(&database.pool)
        .await
        .unwrap();
    assert_eq!(
        unscored, 0,
        "every turn the dead worker held was taken again and scored"
    );
}

/// A replica killed while it writes a keyed summary held the key and the
/// conversation; its heartbeat stops with it, so a retry of the same request
/// on another replica takes both over within seconds — not when the claims'
/// lease lapses (`COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS`, 11 minutes) — and
/// the summary is recorded once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_keyed_summary_a_killed_replica_was_writing_is_taken_over_by_a_retry_within_seconds() {
    let database = Database::create().await;
    let stalled = upstream_answering_after(std::time::Duration::from_secs(600)).await;
    let url = database.url();
    let writer = a_replica_summarizing_through(&url, &stalled).await;
    let client = reqwest::Client::new();
    let summarize = |address: &str| {
        client
            .post(format!("{address}/summarize"))
            .header("idempotency-key", "summary-once")
            .json(&json!({"conversation_id": "c"}))
            .send()
    };
    let in_flight = tokio::spawn(summarize(&writer.address));
    // Once the upstream is asked, the key and the conversation are claimed.
    asked(&stalled).await;
    writer.kill().await;
    assert!(in_flight.await.unwrap().is_err(), "the request died with its replica");

    let survivor = binary::start(&quiet(&url), &[]).await;
    let (status, body) = past_409(|| summarize(&survivor.address)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(compactions_of_c(&database).await, 1, "the summary is recorded once");
    let (again, replayed) = crate::helpers::read(summarize(&survivor.address).await.unwrap()).await;
    assert_eq!((again, &replayed), (200, &body), "the key answers the same again");
    survivor.stop().await;
}

/// A replica that stalls (SIGSTOP) while it writes a summary without a key
/// looks dead once silent 10 s: another request takes the compaction over
/// and records it. When the stalled one wakes and its upstream answers, its
/// own record is refused (the claim is no longer its own): one compaction,
/// not two.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stalled_replicas_compaction_taken_over_is_recorded_once() {
    let database = Database::create().await;
    let slow = upstream_answering_after(std::time::Duration::from_secs(20)).await;
    let url = database.url();
    let writer = a_replica_summarizing_through(&url, &slow).await;
    let client = reqwest::Client::new();
    let summarize = |address: &str| {
        client
            .post(format!("{address}/summarize"))
            .json(&json!({"conversation_id": "c"}))
            .send()
    };
    let first = tokio::spawn(summarize(&writer.address));
    asked(&slow).await;
    writer.pause();

    let survivor = binary::start(&quiet(&url), &[]).await;
    let (status, body) = past_409(|| summarize(&survivor.address)).await;
    assert_eq!(status, 200, "{body}");
    writer.resume();
    let (late, refusal) = crate::helpers::read(first.await.unwrap().unwrap()).await;

    assert_eq!(late, 409, "the stalled request's summary is not recorded: {refusal}");
    assert_eq!(compactions_of_c(&database).await, 1, "one compaction, the survivor's");
    survivor.stop().await;
    writer.stop().await;
}

/// A service on `url` and no upstream, its background off.
fn quiet(url: &str) -> Vec<(&str, &str)> {
    vec![
        ("COMPACTD_BACKGROUND", "false"),
        ("RUST_LOG", "warn"),
        ("DATABASE_URL", url),
    ]
}

/// An upstream that answers every summary, `after` it was asked.
async fn upstream_answering_after(after: std::time::Duration) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(openai_answer("- the slow summary"))
                .set_delay(after),
        )
        .mount(&server)
        .await;
    server
}

/// A replica on `url` that writes summaries through `upstream`, with
/// conversation `c` reported to it in three turns.
async fn a_replica_summarizing_through(url: &str, upstream: &MockServer) -> binary::Service {
    let base = format!("{}/v1", upstream.uri());
    let mut writing = quiet(url);
    writing.extend([
        ("COMPACTD_LLM_PROVIDER", "openai"),
        ("COMPACTD_LLM_BASE_URL", base.as_str()),
        ("COMPACTD_SUMMARY_MODEL", "summary-model"),
        ("COMPACTD_SUMMARY_MODEL_CONTEXT_TOKENS", "8192"),
        ("COMPACTD_LLM_DEADLINE_SECS", "600"),
        ("COMPACTD_CLAIM_TIMEOUT_SECS", "700"),
        ("COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS", "700"),
    ]);
    let writer = binary::start(&writing, &[]).await;
    let client = reqwest::Client::new();
    for n in 0..3 {
        let turn = json!({"conversation_id": "c", "user": format!("Step {n}: fix OPS-{n}."), "assistant": "done"});
        let response = client
            .post(format!("{}/turn-ended", writer.address))
            .json(&turn)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    writer
}

/// Waits until `upstream` has been asked for a summary.
async fn asked(upstream: &MockServer) {
    let since = tokio::time::Instant::now();
    while upstream
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .all(|r| r.method != wiremock::http::Method::POST)
    {
        assert!(
            since.elapsed() < std::time::Duration::from_secs(30),
            "the summary never reached the upstream"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Sends until the answer is not 409 (a claim another holds), for at most
/// a minute: far less than the claims' 11-minute lease.
async fn past_409<F, Fut>(send: F) -> (u16, serde_json::Value)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = reqwest::Result<reqwest::Response>>,
{
    let since = tokio::time::Instant::now();
    loop {
        let (status, body) = crate::helpers::read(send().await.unwrap()).await;
        if status != 409 {
            return (status, body);
        }
        assert!(
            since.elapsed() < std::time::Duration::from_secs(60),
            "still held by the other replica: {body}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

async fn compactions_of_c(database: &Database) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM compactions WHERE conversation_id = 'c'")
        .fetch_one(&database.pool)
        .await
        .unwrap()
}
