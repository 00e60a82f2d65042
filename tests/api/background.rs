//! Background work (SPEC §5): scores, audits, critical turns, memory,
//! evictions and the idle sweep, over real Postgres.

use std::time::Duration;

use chrono::Utc;
use compactd::config::BackgroundSettings;
use compactd::config::Settings;
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::helpers::{TestApp, spawn, test_settings, upstream_settings, wait_for_count};
use crate::llm_client::openai_answer;

fn working() -> Option<BackgroundSettings> {
    Some(BackgroundSettings {
        poll: Duration::from_millis(50),
        idle_sweep_every: None,
        ..BackgroundSettings::default()
    })
}

async fn events_of(app: &TestApp, kind: &str) -> Vec<Value> {
    app.events("c")
        .await
        .into_iter()
        .filter(|e| e["kind"] == kind)
        .collect()
}

const TURNS: [(&str, &str); 8] = [
    ("Never deploy on Fridays.", "Understood."),
    ("thanks", "You're welcome."),
    ("hello", "Hi."),
    ("Use ticket OPS-42 for the release.", "Noted."),
    ("Can you check the logs?", "Looking now."),
    ("ok", "Done."),
    ("thanks", "Any time."),
    ("cool", "Yes."),
];

#[tokio::test]
async fn the_heuristic_scores_audits_hoists_remembers_and_evicts() {
    let app = spawn(Settings {
        background: working(),
        ..test_settings()
    })
    .await;
    for (user, assistant) in TURNS {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "c", "user": user, "assistant": assistant}),
        )
        .await;
    }

    wait_for_count(&app.pool, "SELECT count(*) FROM events WHERE kind = 'audited'", 1).await;

    let scores: Vec<i16> = sqlx::query_scalar("SELECT score FROM turns ORDER BY seq")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(scores, [5, 1, 1, 4, 3, 1, 1, 1]);
    let (_, context) = app.get_json("/conversations/c/context?recent=8").await;
    assert_eq!(
        context["critical"],
        json!([{"turn_id": 1, "user": "Never deploy on Fridays.", "assistant": "Understood."}])
    );
    assert_eq!(
        context["memory"],
        "- Use ticket OPS-42 for the release.\n- Can you check the logs?"
    );
    let live: Vec<i64> = context["recent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect();
    assert_eq!(
        live,
        [1, 4, 5, 6, 7, 8],
        "the 1s outside the newest four are out of the live context"
    );
    let messages = context["messages"].as_array().unwrap();
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("User (turn 1):\nNever deploy on Fridays.")
    );
    assert_eq!(messages[1]["role"], "system");
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": "Never deploy on Fridays."})
    );
    let (_, evicted) = app.get_json("/conversations/c/turns?from=2&limit=1").await;
    assert_eq!(
        evicted["turns"][0]["user"], "thanks",
        "an evicted turn is still readable"
    );
    assert_eq!(events_of(&app, "audited").await.len(), 1);
    assert!(
        events_of(&app, "scored").await.len() <= 8,
        "the scorer or the audit scored each turn, never both"
    );
}

#[tokio::test]
async fn failed_score_calls_leave_skipped_events_and_a_later_audit_scores_the_turns() {
    let upstream = MockServer::start().await;
    let answer = |text: &str| ResponseTemplate::new(200).set_body_json(openai_answer(text));
    Mock::given(method("POST"))
        .and(body_string_contains("Answer with the digit alone"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&upstream)
        .await;
    let rescored = (1..=8)
        .map(|seq| format!("{seq}: {}", if seq == 1 { 5 } else { 3 }))
        .collect::<Vec<_>>()
        .join("\n");
    Mock::given(method("POST"))
        .and(body_string_contains("One line per turn"))
        .respond_with(answer(&rescored))
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .and(body_string_contains("rolling memory"))
        .respond_with(answer("- the release uses OPS-42"))
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .and(body_string_contains("PRIOR SUMMARY"))
        .respond_with(answer("A summary that kept nothing."))
        .mount(&upstream)
        .await;
    let mut settings = upstream_settings(&upstream.uri(), Duration::from_secs(3));
    if let Some(summarizer) = settings.summarizer.as_mut() {
        summarizer.score_model = Some("score-model".into());
    }
    let app = spawn(Settings {
        background: working(),
        ..settings
    })
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "The launch codename is BLUEBIRD.", "assistant": "Got it."}),
    )
    .await;
    for turn in 2..=4 {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "c", "user": format!("step {turn}"), "assistant": "ok"}),
        )
        .await;
    }
    // The scorer tries the first four, fails, and leaves them unscored...
    wait_for_count(&app.pool, "SELECT count(*) FROM events WHERE kind = 'skipped'", 4).await;
    let unscored: i64 = sqlx::query_scalar("SELECT count(*) FROM turns WHERE score IS NULL")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(unscored, 4);
    // ...until the audit that four more turns make due scores them all.
    for turn in 5..=8 {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "c", "user": format!("step {turn}"), "assistant": "ok"}),
        )
        .await;
    }
    wait_for_count(&app.pool, "SELECT count(*) FROM events WHERE kind = 'audited'", 1).await;

    let skipped = events_of(&app, "skipped").await;
    assert!(skipped.len() >= 4, "{skipped:?}");
    assert!(skipped.iter().all(|e| e["payload"]["reason"] == "score-call"));
    let sources: Vec<(i16, String)> = sqlx::query_as("SELECT score, score_source FROM turns ORDER BY seq")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert!(sources.iter().all(|(_, source)| source == "audit"), "{sources:?}");
    assert_eq!(sources[0].0, 5);
    let (_, context) = app.get_json("/conversations/c/context").await;
    assert_eq!(context["critical"][0]["user"], "The launch codename is BLUEBIRD.");
    assert_eq!(context["memory"], "- the release uses OPS-42");

    let summarized = app.report("/summarize", json!({"conversation_id": "c"})).await;

    // Critical turns are served by /context, not pinned into summaries: what
    // a summary holds does not depend on how far the background has got.
    let summary = summarized["summary"].as_str().unwrap();
    assert!(!summary.contains("The launch codename is BLUEBIRD."), "{summary}");
}

#[tokio::test]
async fn the_idle_sweep_compacts_a_conversation_before_its_cache_expires_once_across_replicas() {
    let background = Some(BackgroundSettings {
        poll: Duration::from_secs(3600),
        idle_sweep_every: Some(Duration::from_millis(200)),
        ..BackgroundSettings::default()
    });
    let app = spawn(Settings {
        background: background.clone(),
        ..test_settings()
    })
    .await;
    let (_other, _stop) = app
        .replica(Settings {
            background,
            ..test_settings()
        })
        .await;
    let last_turn = (Utc::now() - chrono::Duration::minutes(56)).to_rfc3339();
    app.report(
        "/usage",
        json!({"conversation_id": "c", "used": 150000, "size": 1000000, "cache_life": "one_hour"}),
    )
    .await;
    app.report("/turn-ended", json!({"conversation_id": "c", "user": "Plan the migration of db-7.", "assistant": "Planned.", "at": last_turn}))
        .await;

    wait_for_count(&app.pool, "SELECT count(*) FROM compactions", 1).await;

    let (_, ledger) = app.get_json("/conversations/c/compactions").await;
    let rows = ledger["compactions"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "one replica compacted it: {rows:?}");
    assert_eq!(
        (&rows[0]["trigger"], &rows[0]["idle"], &rows[0]["by_host"]),
        (&json!("idle_cache_expiry"), &json!(true), &json!(false))
    );
    let state = app.state("c").await;
    assert_eq!(state["idle_compacted"], true);
    assert_eq!(state["compactions"], 1);
}

#[tokio::test]
async fn unreadable_answers_are_skipped_as_parse_failures_and_change_nothing() {
    let upstream = MockServer::start().await;
    let answer = |text: &str| ResponseTemplate::new(200).set_body_json(openai_answer(text));
    Mock::given(method("POST"))
        .and(body_string_contains("Answer with the digit alone"))
        .respond_with(answer("Maybe a four?"))
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .and(body_string_contains("One line per turn"))
        .respond_with(answer("I would rather not say."))
        .mount(&upstream)
        .await;
    let mut settings = upstream_settings(&upstream.uri(), Duration::from_secs(3));
    if let Some(summarizer) = settings.summarizer.as_mut() {
        summarizer.score_model = Some("score-model".into());
    }
    let app = spawn(Settings {
        background: working(),
        ..settings
    })
    .await;
    for turn in 1..=8 {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "c", "user": format!("step {turn}"), "assistant": "ok"}),
        )
        .await;
    }

    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM events WHERE kind = 'skipped' AND payload->>'reason' = 'audit-parse'",
        1,
    )
    .await;

    let reasons: Vec<String> = events_of(&app, "skipped")
        .await
        .iter()
        .map(|e| e["payload"]["reason"].as_str().unwrap().to_owned())
        .collect();
    assert!(reasons.iter().any(|r| r == "score-parse"), "{reasons:?}");
    assert!(
        reasons.iter().all(|r| r == "score-parse" || r == "audit-parse"),
        "{reasons:?}"
    );
    let unscored: i64 = sqlx::query_scalar("SELECT count(*) FROM turns WHERE score IS NULL")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(unscored, 8, "nothing was scored from an answer that could not be read");
    let state = app.state("c").await;
    assert!(state["event_count"].as_i64().unwrap() > 8);
    let (_, context) = app.get_json("/conversations/c/context").await;
    assert_eq!(context["critical"], json!([]));
    assert!(context["memory"].is_null());
}

#[tokio::test]
async fn a_score_that_loses_a_race_is_recorded_at_once_not_after_the_claim_lapses() {
    let app = spawn(Settings {
        background: working(),
        ..test_settings()
    })
    .await;
    // The first score written loses a race (a deadlock, as Postgres reports it).
    for statement in [
        "CREATE SEQUENCE lose_once",
        "CREATE FUNCTION lose_race() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             IF nextval('lose_once') = 1 THEN
               RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01';
             END IF;
             RETURN NEW;
           END $$",
        "CREATE TRIGGER lose_race BEFORE UPDATE OF score ON turns FOR EACH ROW EXECUTE FUNCTION lose_race()",
    ] {
        sqlx::query(statement).execute(&app.pool).await.unwrap();
    }
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Never deploy on Fridays.", "assistant": "Understood."}),
    )
    .await;

    // The claim would lapse after five minutes; the wait gives up after one.
    wait_for_count(&app.pool, "SELECT count(*) FROM turns WHERE score IS NOT NULL", 1).await;
    let lost: i64 = sqlx::query_scalar("SELECT last_value FROM lose_once")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(lost >= 2, "the race was lost once and the write ran again");
}

/// Ends `turns` turns of plain talk (the heuristic scores them 3: nothing
/// is evicted, so every turn stays live) and waits until all are scored.
async fn talk(app: &TestApp, conversation: &str, turns: std::ops::RangeInclusive<i64>) {
    for seq in turns.clone() {
        app.report(
            "/turn-ended",
            json!({"conversation_id": conversation, "user": format!("Can you look at step {seq}?"), "assistant": "Looking."}),
        )
        .await;
    }
    let scored = format!("SELECT count(*) FROM turns WHERE conversation_id = '{conversation}' AND score IS NOT NULL");
    wait_for_count(&app.pool, &scored, *turns.end()).await;
}

/// Waits until the scorer has been round its loop once more: a turn of
/// another conversation, stored now, is scored only after the audits of
/// what the scorer scored before.
async fn scorer_round(app: &TestApp, round: i64) {
    talk(app, "barrier", round..=round).await;
}

async fn first_audit_through(app: &TestApp, conversation: &str) -> i64 {
    let audited = format!("SELECT count(*) FROM events WHERE conversation_id = '{conversation}' AND kind = 'audited'");
    wait_for_count(&app.pool, &audited, 1).await;
    sqlx::query_scalar(&format!(
        "SELECT (payload->>'through_turn')::bigint FROM events
          WHERE conversation_id = '{conversation}' AND kind = 'audited' ORDER BY seq LIMIT 1"
    ))
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn an_audit_is_due_after_enough_new_turns_or_past_the_live_limit() {
    let settings = |every_new_turns, live_turns| Settings {
        background: Some(BackgroundSettings {
            audit: compactd::policy::audit::AuditConfig {
                every_new_turns,
                live_turns,
                ..Default::default()
            },
            ..working().unwrap()
        }),
        ..test_settings()
    };
    let by_new_turns = spawn(settings(3, 1_000)).await;
    talk(&by_new_turns, "c", 1..=2).await;
    scorer_round(&by_new_turns, 1).await;
    talk(&by_new_turns, "c", 3..=3).await;
    assert_eq!(
        first_audit_through(&by_new_turns, "c").await,
        3,
        "due at the third new turn, not before"
    );

    let by_live_turns = spawn(settings(1_000, 4)).await;
    talk(&by_live_turns, "c", 1..=4).await;
    scorer_round(&by_live_turns, 1).await;
    talk(&by_live_turns, "c", 5..=5).await;
    assert_eq!(
        first_audit_through(&by_live_turns, "c").await,
        5,
        "due past four live turns, not at four"
    );
}

/// Answers every score call with 4 and keeps the largest body it was sent.
struct Scores(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl wiremock::Respond for Scores {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        self.0
            .fetch_max(request.body.len(), std::sync::atomic::Ordering::SeqCst);
        ResponseTemplate::new(200).set_body_json(openai_answer("4"))
    }
}

#[tokio::test]
async fn a_paste_of_megabytes_is_scored_by_its_head() {
    let upstream = MockServer::start().await;
    let largest = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    Mock::given(method("POST"))
        .and(body_string_contains("Answer with the digit alone"))
        .respond_with(Scores(largest.clone()))
        .mount(&upstream)
        .await;
    let mut settings = upstream_settings(&upstream.uri(), Duration::from_secs(3));
    if let Some(summarizer) = settings.summarizer.as_mut() {
        summarizer.score_model = Some("score-model".into());
    }
    let app = spawn(Settings {
        background: working(),
        ..settings
    })
    .await;
    let paste = "the build log went on and on ".repeat(100_000);
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Why did it fail?", "assistant": paste}),
    )
    .await;
    wait_for_count(&app.pool, "SELECT count(*) FROM turns WHERE score IS NOT NULL", 1).await;

    let sent = largest.load(std::sync::atomic::Ordering::SeqCst);
    assert!(sent > 20_000, "the call carried the turn's head: {sent} bytes");
    assert!(
        sent < 60_000,
        "not its 2.9 MB: the score model's prompt holds {sent} bytes"
    );
}
