//! Summaries prepared ahead (issue 12): a usage report past the preparation
//! point has a worker write the summary of the stored turns so far; a
//! compaction soon after merges it with the turns since, with no upstream
//! call. Anything that makes it stand for other turns sends the compaction
//! back to a fresh summary, and every preparation not used is counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use compactd::config::{BackgroundSettings, Settings};
use compactd::summary::write::narrative::narrative_of;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::helpers::{TestApp, spawn, upstream_settings, wait_for_count};
use crate::llm_client::openai_answer;

/// The narrative the upstream writes, and how many calls it answered.
struct Writes(&'static str, Arc<AtomicUsize>);

impl Respond for Writes {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        self.1.fetch_add(1, Ordering::SeqCst);
        ResponseTemplate::new(200).set_body_json(openai_answer(self.0))
    }
}

const PREPARED: &str = "The user is hardening the billing service; retries were moved to src/billing/retry.rs.";

/// An upstream answering every summary with [`PREPARED`], and its call count.
async fn upstream() -> (MockServer, Arc<AtomicUsize>) {
    let server = MockServer::start().await;
    let calls = Arc::new(AtomicUsize::new(0));
    Mock::given(method("POST"))
        .respond_with(Writes(PREPARED, calls.clone()))
        .mount(&server)
        .await;
    (server, calls)
}

fn background() -> BackgroundSettings {
    BackgroundSettings {
        poll: Duration::from_millis(20),
        idle_sweep_every: None,
        ..BackgroundSettings::default()
    }
}

fn preparing(upstream: &MockServer) -> Settings {
    Settings {
        background: Some(background()),
        ..upstream_settings(&upstream.uri(), Duration::from_secs(10))
    }
}

/// Ten stored turns, then a usage report at 130,000 of a 200,000 window:
/// past 85% of the 150,000 trigger.
async fn grow_past_the_point(app: &TestApp, id: &str) {
    for n in 0..10 {
        app.report(
            "/turn-ended",
            json!({"conversation_id": id, "user": format!("Step {n}: harden the billing retries in src/billing/retry.rs (PROJ-{n})."),
                   "assistant": format!("Done with step {n}."), "at": format!("2026-10-18T10:{n:02}:00Z")}),
        )
        .await;
    }
    app.report(
        "/usage",
        json!({"conversation_id": id, "used": 130_000, "size": 200_000, "at": "2026-10-18T10:10:00Z"}),
    )
    .await;
}

async fn wait_until_ready(app: &TestApp, ready: i64) {
    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM preparations WHERE status IN ('ready', 'used', 'wasted')",
        ready,
    )
    .await;
}

async fn preparation(app: &TestApp, id: &str) -> (String, Option<String>, Option<i64>) {
    sqlx::query_as(
        "SELECT status, reason, used_by_seq FROM preparations WHERE conversation_id = $1 ORDER BY seq DESC LIMIT 1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

async fn summarize(app: &TestApp, body: Value) -> Value {
    app.report("/summarize", body).await
}

#[tokio::test]
async fn a_compaction_after_a_preparation_merges_it_without_calling_the_upstream() {
    let (server, calls) = upstream().await;
    let app = spawn(preparing(&server)).await;
    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1, "one upstream call prepared it");
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Now deploy build 4711 to staging; do not touch prod.",
               "assistant": "Deployed 4711 to staging.", "at": "2026-10-18T10:20:00Z"}),
    )
    .await;

    let answer = summarize(&app, json!({"conversation_id": "c", "at": "2026-10-18T10:21:00Z"})).await;

    assert_eq!(calls.load(Ordering::SeqCst), 1, "the compaction asked no upstream");
    let row = &answer["compaction"];
    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(row["prepared"], true, "{row}");
    assert_eq!(row["prepared_age_ms"], 11 * 60 * 1000, "from the planning report's at");
    assert_eq!(row["summarizer"], "llm");
    assert_eq!(row["upstream_input_tokens"], Value::Null, "{row}");
    let summary = answer["summary"].as_str().unwrap();
    // The sections compactd adds come before a model's narrative (issue 41).
    assert!(narrative_of(summary).starts_with(PREPARED), "{summary}");
    assert!(
        summary.contains("Since then, one line per request:\n- Now deploy build 4711 to staging; do not touch prod. → Deployed 4711 to staging."),
        "{summary}"
    );
    assert!(
        summary.contains("do not touch prod"),
        "the rule, word for word: {summary}"
    );
    assert_eq!(
        preparation(&app, "c").await,
        ("used".to_owned(), None, Some(1)),
        "used by compaction 1"
    );
    let state = app.state("c").await;
    assert_eq!(state["compactions"], 1);
    assert_eq!(state["summary"]["text"], summary);
    let (_, stats) = app.get_json("/stats").await;
    let prepared = &stats["preparation"];
    assert_eq!(prepared["prepared_compactions"], 1, "{prepared}");
    assert_eq!(
        (prepared["planned"].clone(), prepared["used"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(prepared["wasted"], 0);
    assert_eq!(
        prepared["upstream_input_tokens"], 40,
        "the preparation's tokens: {prepared}"
    );
    assert_eq!(prepared["upstream_output_tokens"], 7);
    assert_eq!(prepared["wasted_rate"], 0.0);
    let (_, history) = app.get_json("/conversations/c/compactions").await;
    assert_eq!(history["compactions"][0]["prepared"], true);
    let ledger: (bool, Option<i64>) = sqlx::query_as("SELECT prepared, prepared_age_ms FROM compactd_ledger")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(ledger, (true, Some(660_000)), "dashboards reading Postgres see it too");
}

#[tokio::test]
async fn the_same_turns_and_preparation_compact_to_the_same_summary_byte_for_byte() {
    // Two conversations with the same turns, each merging its own preparation
    // once the scorer has been through them.
    let (server, _) = upstream().await;
    let app = spawn(preparing(&server)).await;
    for id in ["first", "second"] {
        grow_past_the_point(&app, id).await;
    }
    wait_until_ready(&app, 2).await;
    wait_for_count(&app.pool, "SELECT count(*) FROM turns WHERE score IS NOT NULL", 20).await;
    let mut summaries = Vec::new();
    for id in ["first", "second"] {
        let answer = summarize(&app, json!({"conversation_id": id, "at": "2026-10-18T10:21:00Z"})).await;
        assert_eq!(answer["compaction"]["prepared"], true, "{answer}");
        summaries.push(answer["summary"].as_str().unwrap().to_owned());
    }
    assert_eq!(summaries[0], summaries[1], "byte for byte");
}

#[tokio::test]
async fn a_delta_too_big_to_merge_falls_back_to_a_fresh_summary() {
    let (server, calls) = upstream().await;
    let app = spawn(preparing(&server)).await;
    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;
    // 25% of the 150,000-token trigger is the most a merge carries.
    let long = "The retry loop logs every attempt with its backoff and the upstream's status. ".repeat(3_500);
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Paste the whole retry log.", "assistant": long}),
    )
    .await;

    let answer = summarize(&app, json!({"conversation_id": "c"})).await;

    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(answer["compaction"]["prepared"], false);
    assert_eq!(calls.load(Ordering::SeqCst), 2, "written afresh upstream");
    assert_eq!(
        preparation(&app, "c").await,
        ("wasted".to_owned(), Some("delta_too_big".to_owned()), None)
    );
    let (_, stats) = app.get_json("/stats").await;
    assert_eq!(stats["preparation"]["wasted"], 1);
    assert_eq!(
        stats["preparation"]["wasted_by_reason"],
        json!([{"reason": "delta_too_big", "count": 1}])
    );
    assert_eq!(stats["preparation"]["wasted_rate"], 1.0);
}

#[tokio::test]
async fn a_prepared_summary_is_never_applied_to_turns_that_changed_under_it() {
    let (server, calls) = upstream().await;
    let app = spawn(preparing(&server)).await;
    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;
    sqlx::query(
        "UPDATE turns SET user_text = 'Step 3: drop the billing retries.' WHERE conversation_id = 'c' AND seq = 4",
    )
    .execute(&app.pool)
    .await
    .unwrap();

    let answer = summarize(&app, json!({"conversation_id": "c"})).await;

    assert_eq!(answer["compaction"]["prepared"], false, "{answer}");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        preparation(&app, "c").await,
        ("wasted".to_owned(), Some("messages_differ".to_owned()), None)
    );
}

#[tokio::test]
async fn a_compaction_from_the_callers_own_messages_wastes_the_preparation() {
    let (server, calls) = upstream().await;
    let app = spawn(preparing(&server)).await;
    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;

    let messages = json!([{"role": "user", "content": "Harden the billing retries."},
                          {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "name": "Edit", "arguments": "{\"file_path\": \"src/billing/retry.rs\"}"}]},
                          {"role": "tool", "tool_call_id": "t1", "content": "ok"}]);
    let answer = summarize(&app, json!({"conversation_id": "c", "messages": messages})).await;

    assert_eq!(answer["compaction"]["prepared"], false, "{answer}");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        preparation(&app, "c").await,
        ("wasted".to_owned(), Some("messages_differ".to_owned()), None)
    );
}

#[tokio::test]
async fn a_compaction_since_makes_the_preparation_stand_for_nothing() {
    let (server, calls) = upstream().await;
    let app = spawn(preparing(&server)).await;
    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;

    // The harness compacts by itself: the prepared summary is not what it wrote.
    let harness = summarize(
        &app,
        json!({"conversation_id": "c", "summary": "The harness's own summary.", "trigger": "harness"}),
    )
    .await;
    assert_eq!(harness["compaction"]["prepared"], false);
    assert_eq!(
        preparation(&app, "c").await,
        ("wasted".to_owned(), Some("harness_summary".to_owned()), None)
    );
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Carry on.", "assistant": "Carrying on."}),
    )
    .await;
    let next = summarize(&app, json!({"conversation_id": "c"})).await;

    assert_eq!(next["compaction"]["prepared"], false, "{next}");
    assert_eq!(calls.load(Ordering::SeqCst), 2, "the next one was written afresh");
}

#[tokio::test]
async fn a_rollover_wastes_what_was_prepared() {
    let (server, _) = upstream().await;
    let app = spawn(preparing(&server)).await;
    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;

    app.report("/handoff", json!({"conversation_id": "c", "successor_id": "c-next"}))
        .await;

    assert_eq!(
        preparation(&app, "c").await,
        ("wasted".to_owned(), Some("rolled_over".to_owned()), None)
    );
}

#[tokio::test]
async fn past_the_daily_budget_nothing_is_prepared() {
    let (server, calls) = upstream().await;
    let app = spawn(Settings {
        daily_token_budget: Some(1_000),
        ..preparing(&server)
    })
    .await;
    sqlx::query("INSERT INTO upstream_usage (tenant, day, input_tokens, output_tokens, calls) VALUES ('default', (now() AT TIME ZONE 'UTC')::date, 1000, 0, 1)")
        .execute(&app.pool)
        .await
        .unwrap();
    grow_past_the_point(&app, "c").await;

    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM preparations WHERE status = 'dropped'",
        1,
    )
    .await;

    assert_eq!(calls.load(Ordering::SeqCst), 0, "no upstream call");
    assert_eq!(
        preparation(&app, "c").await,
        ("dropped".to_owned(), Some("budget".to_owned()), None)
    );
    let answer = summarize(&app, json!({"conversation_id": "c"})).await;
    assert_eq!(answer["compaction"]["summarizer"], "extractive", "{answer}");
    assert_eq!(answer["compaction"]["prepared"], false);
}

#[tokio::test]
async fn below_the_point_or_with_preparation_off_nothing_is_planned() {
    let (server, calls) = upstream().await;
    let mut off = preparing(&server);
    off.policy.prepare_at_percent = 0;
    let app = spawn(preparing(&server)).await;
    let app_off = spawn(off).await;
    for app in [&app, &app_off] {
        for n in 0..3 {
            app.report(
                "/turn-ended",
                json!({"conversation_id": "c", "user": format!("step {n}")}),
            )
            .await;
        }
    }
    app.report(
        "/usage",
        json!({"conversation_id": "c", "used": 127_499, "size": 200_000}),
    )
    .await;
    app_off
        .report(
            "/usage",
            json!({"conversation_id": "c", "used": 190_000, "size": 200_000}),
        )
        .await;

    for app in [&app, &app_off] {
        let planned: i64 = sqlx::query_scalar("SELECT count(*) FROM preparations")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        assert_eq!(planned, 0);
    }
    app.report(
        "/usage",
        json!({"conversation_id": "c", "used": 127_500, "size": 200_000}),
    )
    .await;
    app.report(
        "/usage",
        json!({"conversation_id": "c", "used": 140_000, "size": 200_000}),
    )
    .await;
    wait_until_ready(&app, 1).await;
    let planned: i64 = sqlx::query_scalar("SELECT count(*) FROM preparations")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(planned, 1, "planned once for the boundary");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// An upstream that takes its time, says when a call arrives, and counts.
struct Slow(mpsc::UnboundedSender<()>, Arc<AtomicUsize>, Duration);

impl Respond for Slow {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        self.1.fetch_add(1, Ordering::SeqCst);
        let _ = self.0.send(());
        ResponseTemplate::new(200)
            .set_body_json(openai_answer(PREPARED))
            .set_delay(self.2)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_prepare_each_summary_once() {
    let (arrived, _) = mpsc::unbounded_channel();
    let calls = Arc::new(AtomicUsize::new(0));
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Slow(arrived, calls.clone(), Duration::from_millis(300)))
        .mount(&server)
        .await;
    let app = spawn(preparing(&server)).await;
    let (_, stop) = app.replica(preparing(&server)).await;
    let ids: Vec<String> = (0..8).map(|n| format!("c{n}")).collect();
    for id in &ids {
        grow_past_the_point(&app, id).await;
    }

    wait_until_ready(&app, ids.len() as i64).await;
    let _ = stop.send(());

    assert_eq!(calls.load(Ordering::SeqCst), ids.len(), "one upstream call each");
    let prepared: i64 = sqlx::query_scalar("SELECT count(*) FROM events WHERE kind = 'prepared'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(prepared, ids.len() as i64, "one prepared event each");
}

/// The doomed worker's upstream deadline and claim timeout: it waits on its
/// hanging upstream until it is killed, never giving up first.
const WAITS: (&str, &str) = ("300", "316");
/// The survivor's: a quick upstream deadline, and a claim that lasts ten
/// minutes, so the dead worker's claim is taken over because its holder
/// fell silent (10 s), not because its lease lapsed.
const QUICK: (&str, &str) = ("1", "600");

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
        ("COMPACTD_LLM_DEADLINE_SECS", deadline),
        ("COMPACTD_IDLE_SWEEP_SECS", "0"),
        ("COMPACTD_CLAIM_TIMEOUT_SECS", claim),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_preparation_whose_worker_died_is_written_by_the_next_one_once_it_falls_silent() {
    let database = crate::helpers::Database::create().await;
    let (arrived, mut asked) = mpsc::unbounded_channel();
    let hanging = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Slow(arrived, Arc::new(AtomicUsize::new(0)), Duration::from_secs(120)))
        .mount(&hanging)
        .await;
    let (healthy, calls) = upstream().await;
    let url = database.url();
    let (hanging_base, healthy_base) = (format!("{}/v1", hanging.uri()), format!("{}/v1", healthy.uri()));
    let doomed = crate::binary::start(&service_env(&url, &hanging_base, WAITS), &[]).await;
    let client = reqwest::Client::new();
    let post = |address: &str, path: &str, body: Value| client.post(format!("{address}{path}")).json(&body).send();
    for n in 0..10 {
        let body =
            json!({"conversation_id": "c", "user": format!("Step {n}: harden the retries."), "assistant": "Done."});
        assert_eq!(post(&doomed.address, "/turn-ended", body).await.unwrap().status(), 200);
    }
    let usage = json!({"conversation_id": "c", "used": 130_000, "size": 200_000});
    assert_eq!(post(&doomed.address, "/usage", usage).await.unwrap().status(), 200);

    asked
        .recv()
        .await
        .expect("the doomed worker claimed the preparation and asked its upstream");
    doomed.kill().await;
    let survivor = crate::binary::start(&service_env(&url, &healthy_base, QUICK), &[]).await;
    wait_for_count(
        &database.pool,
        "SELECT count(*) FROM preparations WHERE status = 'ready'",
        1,
    )
    .await;
    let answer = post(&survivor.address, "/summarize", json!({"conversation_id": "c"}))
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    survivor.stop().await;

    assert_eq!(calls.load(Ordering::SeqCst), 1, "the survivor wrote it once");
    assert_eq!(answer["compaction"]["prepared"], true, "{answer}");
    let rows: Vec<(i64, String)> = sqlx::query_as("SELECT seq, status FROM preparations")
        .fetch_all(&database.pool)
        .await
        .unwrap();
    assert_eq!(rows, [(1, "used".to_owned())], "one preparation, taken again, used");
}

#[tokio::test]
async fn a_prepared_summary_left_unused_for_a_day_expires_as_wasted() {
    let (server, _) = upstream().await;
    let app = spawn(Settings {
        background: Some(BackgroundSettings {
            idle_sweep_every: Some(Duration::from_millis(50)),
            ..background()
        }),
        ..preparing(&server)
    })
    .await;
    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;
    sqlx::query("UPDATE preparations SET written_at = written_at - interval '25 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM preparations WHERE status = 'wasted'",
        1,
    )
    .await;

    assert_eq!(
        preparation(&app, "c").await,
        ("wasted".to_owned(), Some("expired".to_owned()), None)
    );
    let answer = summarize(&app, json!({"conversation_id": "c"})).await;
    assert_eq!(answer["compaction"]["prepared"], false, "{answer}");
}

#[tokio::test]
async fn a_preparation_slower_than_a_summary_may_take_is_dropped_not_taken_again() {
    let server = MockServer::start().await;
    let calls = Arc::new(AtomicUsize::new(0));
    Mock::given(method("POST"))
        .respond_with(Slow(mpsc::unbounded_channel().0, calls.clone(), Duration::from_secs(4)))
        .mount(&server)
        .await;
    let mut settings = preparing(&server);
    // The upstream answers in 4 s, past the preparation's 1 s; the workers'
    // claims lapse at 2 s, but a preparation's outlasts its own deadline:
    // it is given up, never claimed again and asked a second time.
    if let Some(background) = settings.background.as_mut() {
        background.prepare_deadline = Duration::from_secs(1);
    }
    settings.daily_token_budget = Some(1_000_000);
    settings.leases.worker = Duration::from_secs(2);
    let app = spawn(settings).await;

    grow_past_the_point(&app, "c").await;
    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM preparations WHERE status = 'dropped'",
        1,
    )
    .await;

    assert_eq!(
        preparation(&app, "c").await,
        ("dropped".to_owned(), Some("upstream".to_owned()), None)
    );
    // Dropped before its claim could lapse, and never claimed again.
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the upstream was asked once");
    // The call given up is charged its estimate; nothing stays held.
    let (held, charged): (i64, i64) =
        sqlx::query_as("SELECT reserved_tokens, input_tokens + output_tokens FROM upstream_usage")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(held, 0, "the hold was given back");
    assert!(charged > 0, "the call was counted");
}

#[tokio::test]
async fn a_preparation_waits_for_a_slow_model_longer_than_a_compaction_would() {
    let server = MockServer::start().await;
    let calls = Arc::new(AtomicUsize::new(0));
    Mock::given(method("POST"))
        .respond_with(Slow(mpsc::unbounded_channel().0, calls.clone(), Duration::from_secs(2)))
        .mount(&server)
        .await;
    // A compaction's upstream call may take 1 s; a preparation, 30 s.
    let mut settings = Settings {
        background: Some(BackgroundSettings {
            prepare_deadline: Duration::from_secs(30),
            ..background()
        }),
        ..upstream_settings(&server.uri(), Duration::from_secs(1))
    };
    settings.daily_token_budget = Some(1_000_000);
    let app = spawn(settings).await;

    grow_past_the_point(&app, "c").await;
    wait_until_ready(&app, 1).await;

    let (status, reason, _) = preparation(&app, "c").await;
    assert_eq!((status.as_str(), reason), ("ready", None));
    assert_eq!(calls.load(Ordering::SeqCst), 1, "asked once, and waited for");
}
