//! A model's summary says each thing once and ends on its own words (issue
//! 41 item 6): where things stand (opened by the request, as every summary's
//! is) and the items kept word for word carry only what the model's
//! narrative lacks, and come before it, so the
//! narrative's ending (what to do next) is the summary's last paragraph.

use std::time::Duration;

use compactd::summary::read::STATE_HEADING;
use compactd::summary::write::narrative::narrative_of;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::helpers::spawn_app_with_upstream;
use crate::llm_client::openai_answer;

const REQUEST: &str = "Fix the retry test in src/retry.rs.";
const DOING: &str = "Raising the backoff in src/retry.rs to 774ms.";
/// The model's ending: where things stand and the next step.
const ENDING: &str =
    "Where things stand: the agent was raising the backoff in src/retry.rs to 774ms; next, run the retry test again.";

#[tokio::test]
async fn a_narrative_that_says_where_things_stand_is_not_repeated_and_ends_the_summary() {
    let narrative = format!(
        "The user asked: {REQUEST} The test expects three attempts before the provider recovers, \
         and the backoff was too short for that.\n\n{ENDING}"
    );
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer(&narrative)))
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(5)).await;
    app.report("/usage", json!({"conversation_id": "m", "used": 20000, "size": 200000}))
        .await;
    let messages = json!([
        {"role": "user", "content": "Never push to main."},
        {"role": "assistant", "content": "Understood."},
        {"role": "user", "content": REQUEST},
        {"role": "assistant", "content": DOING},
    ]);

    let answer = app
        .report("/summarize", json!({"conversation_id": "m", "messages": messages}))
        .await;

    assert_eq!(answer["compaction"]["summarizer"], "llm", "{answer}");
    let summary = answer["summary"].as_str().unwrap();
    assert!(
        !summary.contains(&format!("- In progress: {DOING}")),
        "the line repeats the narrative: {summary}"
    );
    assert_eq!(
        summary.matches(&format!("- Latest request: {REQUEST}")).count(),
        1,
        "every summary carries where things stand, opened by the request (SPEC §4): {summary}"
    );
    let paragraphs: Vec<&str> = summary
        .split("\n\n")
        .filter(|paragraph| !(paragraph.starts_with('(') && paragraph.contains(" parked")))
        .collect();
    assert_eq!(paragraphs.last(), Some(&ENDING), "{summary}");
    // What the narrative lacks is still there, before it.
    let opening = summary.find("The user asked:").unwrap();
    assert!(
        summary
            .find("- Rule: Never push to main.")
            .is_some_and(|at| at < opening),
        "{summary}"
    );
    let state = summary.find(&format!("{STATE_HEADING}\n")).unwrap();
    assert!(state < opening, "{summary}");
    assert_eq!(
        narrative_of(summary),
        narrative,
        "the next compaction builds on it whole"
    );
    assert_eq!(app.state("m").await["summary"]["text"], summary);
}

#[tokio::test]
async fn a_handoff_from_a_models_summary_keeps_its_order() {
    let narrative = format!("The user asked: {REQUEST} The backoff was too short.\n\n{ENDING}");
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer(&narrative)))
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(5)).await;
    app.report("/usage", json!({"conversation_id": "h", "used": 20000, "size": 200000}))
        .await;
    let messages = json!([
        {"role": "user", "content": REQUEST},
        {"role": "assistant", "content": DOING},
    ]);
    let compacted = app
        .report("/summarize", json!({"conversation_id": "h", "messages": messages}))
        .await;
    assert_eq!(compacted["compaction"]["summarizer"], "llm", "{compacted}");
    // Said after the compaction, so only the keep set carries it.
    app.report(
        "/turn-ended",
        json!({"conversation_id": "h", "user": "Never touch src/backoff_table.rs.", "assistant": "Noted."}),
    )
    .await;

    let text = handed_off(&app, "h").await;
    let section = text
        .split_once("Summary of the earlier conversation:\n")
        .and_then(|(_, rest)| rest.split_once("\n\nThe user's latest messages there"))
        .map(|(section, _)| section)
        .unwrap_or_else(|| panic!("no summary section: {text}"));
    let opening = section.find("The user asked:").unwrap();
    assert!(
        section.find("src/backoff_table.rs").is_some_and(|at| at < opening),
        "what the model's text lacks comes before it, as in its compaction: {section}"
    );
    let paragraphs: Vec<&str> = section
        .split("\n\n")
        .filter(|paragraph| !(paragraph.starts_with('(') && paragraph.contains(" parked")))
        .collect();
    assert_eq!(
        paragraphs.last(),
        Some(&ENDING),
        "the model's ending is read last: {section}"
    );
}

#[tokio::test]
async fn a_handoff_before_any_compaction_still_lists_what_the_agent_named() {
    let app = crate::helpers::spawn_app().await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "n", "user": "Plan the release.", "assistant": "The plan is in docs/notes/release_plan.md."}),
    )
    .await;

    let text = handed_off(&app, "n").await;
    assert!(
        text.contains("docs/notes/release_plan.md"),
        "no anchor, no model's prose to stand beside: {text}"
    );
}

/// The handoff of `id`, told its request and reply so that the stored
/// turns are quoted only where the summary section carries them.
async fn handed_off(app: &crate::helpers::TestApp, id: &str) -> String {
    let answer = app
        .report(
            "/handoff",
            json!({
                "conversation_id": id,
                "requests": [{"date": "2026-12-07", "text": "Carry on."}],
                "reply": "Will do.",
            }),
        )
        .await;
    answer["text"].as_str().unwrap().to_owned()
}
