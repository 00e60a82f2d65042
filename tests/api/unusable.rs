//! An answer that is no summary (SPEC §3 *Fail-soft*, issue 41): a small
//! model that echoes the prompt's last line, repeats one sentence, or says a
//! few words in place of a long anchor never replaces the anchor; the
//! compaction is written without the model and says why, and a preparation
//! keeps nothing of such an answer.

use std::time::Duration;

use compactd::config::{BackgroundSettings, Settings};
use compactd::summary::write::narrative::narrative_of;
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::helpers::{TestApp, spawn, upstream_settings, wait_for_count};
use crate::llm_client::openai_answer;

/// The first summary, in prose only a narrative carries.
const FIRST: &str = "The user is moving the billing service from Flask to FastAPI. We chose to keep the \
    legacy v1 paths alive behind a shim until the mobile release ships, because older phones still call \
    them, and agreed never to run migrations against the production database by hand. The invoice routes \
    are ported and their tests pass; the staging deploy failed once for a missing webhook secret, which \
    the user added to the vault. Refunds are next, then the webhook handler, then Flask leaves the \
    requirements. Still open: whether the admin routes move in this change or a later one, which the \
    user will decide after talking to the support team about the reporting screens they depend on.";

/// Answers the first summary with [`FIRST`] and every later one with `later`.
struct FirstThen(String);

impl Respond for FirstThen {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let user = body["messages"][1]["content"].as_str().unwrap_or("");
        let text = if user.contains("(none: this is the first compaction)") {
            FIRST
        } else {
            &self.0
        };
        ResponseTemplate::new(200).set_body_json(openai_answer(text))
    }
}

async fn upstream_then(later: &str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(FirstThen(later.to_owned()))
        .mount(&server)
        .await;
    server
}

async fn compact(app: &TestApp, id: &str, request: &str) -> Value {
    app.report("/usage", json!({"conversation_id": id, "used": 20000, "size": 200000}))
        .await;
    let messages = json!([
        {"role": "user", "content": request},
        {"role": "assistant", "content": "Done; the tests pass."},
    ]);
    let (status, body) = app
        .post_json("/summarize", &json!({"conversation_id": id, "messages": messages}))
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

/// A compaction after the first whose upstream answers `later`.
async fn second_compaction_answered(later: &str) -> (TestApp, Value) {
    let server = upstream_then(later).await;
    let app = spawn(upstream_settings(&server.uri(), Duration::from_secs(10))).await;
    let first = compact(&app, "u", "Port the invoice routes to FastAPI.").await;
    assert_eq!(first["compaction"]["summarizer"], "llm", "{first}");
    let second = compact(&app, "u", "Now port refunds.py the same way.").await;
    (app, second)
}

fn assert_written_without_the_model(answer: &Value, because: &str) {
    assert_eq!(answer["success"], true, "an agent can always compact: {answer}");
    assert_eq!(answer["compaction"]["summarizer"], "extractive", "{answer}");
    let fallback = answer["compaction"]["fallback"].as_str().unwrap_or("");
    assert!(fallback.contains(because), "{fallback}");
    let summary = answer["summary"].as_str().unwrap();
    assert!(
        summary.contains("legacy v1 paths alive behind a shim"),
        "the anchor's own prose stays: {summary}"
    );
    assert!(summary.contains("refunds.py"), "{summary}");
}

#[tokio::test]
async fn an_upstream_that_echoes_the_prompts_last_line_never_replaces_the_anchor() {
    let (app, answer) = second_compaction_answered("Write the new summary now.").await;

    assert_written_without_the_model(&answer, "instructions");
    let summary = answer["summary"].as_str().unwrap();
    assert!(!summary.contains("Write the new summary now"), "{summary}");
    let (_, ledger) = app.get_json("/conversations/u/compactions").await;
    assert_eq!(
        ledger["compactions"][0]["fallback"], answer["compaction"]["fallback"],
        "{ledger}"
    );
}

#[tokio::test]
async fn an_upstream_that_goes_on_writing_the_prompts_frame_never_replaces_the_anchor() {
    // What SmolLM2-135M answered on a real session (bench/real_model).
    let framed = "The refunds are next for the billing service migration.\n\n\
        TRANSCRIPT (2 messages)\n[1] user:\n    proceed\n[2] assistant:\n    Task 3 next";
    let (_app, answer) = second_compaction_answered(framed).await;

    assert_written_without_the_model(&answer, "frame");
    let summary = answer["summary"].as_str().unwrap();
    assert!(!summary.contains("TRANSCRIPT (2 messages)"), "{summary}");
}

#[tokio::test]
async fn an_upstream_that_repeats_one_sentence_never_replaces_the_anchor() {
    let looped = "The user asked to port the refund routes.\n".repeat(15);
    let (_app, answer) = second_compaction_answered(&looped).await;

    assert_written_without_the_model(&answer, "loop");
}

#[tokio::test]
async fn a_few_words_in_place_of_a_long_anchor_never_replace_it() {
    let (_app, answer) = second_compaction_answered("All done here.").await;

    assert_written_without_the_model(&answer, "shorter");
}

#[tokio::test]
async fn a_preparation_answered_with_an_echo_prepares_nothing() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("Write the new summary now.")))
        .mount(&server)
        .await;
    let settings = Settings {
        background: Some(BackgroundSettings {
            poll: Duration::from_millis(20),
            idle_sweep_every: None,
            ..BackgroundSettings::default()
        }),
        ..upstream_settings(&server.uri(), Duration::from_secs(10))
    };
    let app = spawn(settings).await;
    for n in 0..10 {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "p", "user": format!("Step {n}: port route {n} of refunds.py."),
                   "assistant": format!("Ported route {n}."), "at": format!("2026-10-18T10:{n:02}:00Z")}),
        )
        .await;
    }
    app.report(
        "/usage",
        json!({"conversation_id": "p", "used": 130_000, "size": 200_000, "at": "2026-10-18T10:10:00Z"}),
    )
    .await;

    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM preparations WHERE status = 'dropped'",
        1,
    )
    .await;
    let stored: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM preparations WHERE summary LIKE '%Write the new summary now%' \
         OR narrative LIKE '%Write the new summary now%'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(stored, 0, "no stored summary is an echo of the prompt");
}

#[tokio::test]
async fn what_a_model_said_before_it_fell_into_a_loop_is_its_summary_without_the_loop() {
    let said = "The invoice routes are ported and refunds.py is next. We keep the legacy v1 paths alive \
        behind a shim until the mobile release ships, and never run migrations against production by hand.";
    let answer = format!("{said}\n{}", "- The user asked to port the refund routes.\n".repeat(20));
    let (_app, compaction) = second_compaction_answered(&answer).await;

    assert_eq!(compaction["compaction"]["summarizer"], "llm", "{compaction}");
    let summary = compaction["summary"].as_str().unwrap();
    assert!(narrative_of(summary).starts_with(said), "{summary}");
    assert_eq!(
        summary.matches("The user asked to port the refund routes.").count(),
        1,
        "{summary}"
    );
}
