//! Bad input gets a clear 4xx problem+json and changes nothing.

use serde_json::{Value, json};

use crate::helpers::{TestApp, read, spawn_app, spawn_app_with_limit};

struct Case {
    name: &'static str,
    path: &'static str,
    body: String,
    status: u16,
    field: Option<&'static str>,
}

fn case(
    name: &'static str,
    path: &'static str,
    body: impl Into<String>,
    status: u16,
    field: Option<&'static str>,
) -> Case {
    Case {
        name,
        path,
        body: body.into(),
        status,
        field,
    }
}

fn cases() -> Vec<Case> {
    let long_id = "x".repeat(201);
    vec![
        case(
            "malformed JSON",
            "/usage",
            r#"{"conversation_id": "victim", "used": "#,
            400,
            None,
        ),
        case("not JSON at all", "/usage", "used=5", 400, None),
        case("empty body", "/turn-ended", "", 400, None),
        case(
            "trailing garbage",
            "/usage",
            r#"{"conversation_id": "victim", "used": 5} x"#,
            400,
            None,
        ),
        case("a JSON array", "/usage", r#"["victim", 5]"#, 422, Some("body")),
        case("a JSON string", "/usage", r#""victim""#, 422, Some("body")),
        case(
            "used as a string",
            "/usage",
            r#"{"conversation_id": "victim", "used": "5"}"#,
            422,
            Some("used"),
        ),
        case(
            "used as a float",
            "/usage",
            r#"{"conversation_id": "victim", "used": 5.5}"#,
            422,
            Some("used"),
        ),
        case(
            "negative used",
            "/usage",
            r#"{"conversation_id": "victim", "used": -1}"#,
            422,
            Some("used"),
        ),
        case(
            "used of 2^63",
            "/usage",
            r#"{"conversation_id": "victim", "used": 9223372036854775808}"#,
            422,
            Some("used"),
        ),
        case(
            "used past 2^64",
            "/usage",
            r#"{"conversation_id": "victim", "used": 18446744073709551616}"#,
            422,
            Some("used"),
        ),
        case(
            "size of 2^63",
            "/usage",
            r#"{"conversation_id": "victim", "used": 1, "size": 9223372036854775808}"#,
            422,
            Some("size"),
        ),
        case(
            "negative cached_read",
            "/usage",
            r#"{"conversation_id": "victim", "used": 1, "cached_read": -5}"#,
            422,
            Some("cached_read"),
        ),
        case(
            "missing used",
            "/usage",
            r#"{"conversation_id": "victim"}"#,
            422,
            Some("used"),
        ),
        case("missing id", "/decide", r#"{}"#, 422, Some("conversation_id")),
        case(
            "id as a number",
            "/usage",
            r#"{"conversation_id": 7, "used": 1}"#,
            422,
            Some("conversation_id"),
        ),
        case(
            "empty id",
            "/usage",
            r#"{"conversation_id": "", "used": 1}"#,
            422,
            Some("conversation_id"),
        ),
        case(
            "201-character id",
            "/turn-ended",
            format!(r#"{{"conversation_id": "{long_id}"}}"#),
            422,
            Some("conversation_id"),
        ),
        case(
            "control character in id",
            "/usage",
            r#"{"conversation_id": "vic\ttim", "used": 1}"#,
            422,
            Some("conversation_id"),
        ),
        case(
            "unknown field",
            "/usage",
            r#"{"conversation_id": "victim", "used": 1, "sise": 5}"#,
            422,
            Some("sise"),
        ),
        case(
            "unknown field on decide",
            "/decide",
            r#"{"conversation_id": "victim", "when": "now"}"#,
            422,
            Some("when"),
        ),
        case(
            "duplicate field",
            "/usage",
            r#"{"conversation_id": "victim", "used": 1, "used": 2}"#,
            422,
            Some("body"),
        ),
        case(
            "invalid at",
            "/usage",
            r#"{"conversation_id": "victim", "used": 1, "at": "yesterday"}"#,
            422,
            Some("at"),
        ),
        case(
            "at without a zone",
            "/turn-ended",
            r#"{"conversation_id": "victim", "at": "2026-10-18T09:00:00"}"#,
            422,
            Some("at"),
        ),
        case(
            "at in year 0",
            "/decide",
            r#"{"conversation_id": "victim", "at": "0000-01-01T00:00:00Z"}"#,
            422,
            Some("at"),
        ),
        case(
            "unknown cache life",
            "/usage",
            r#"{"conversation_id": "victim", "used": 1, "cache_life": "forever"}"#,
            422,
            Some("cache_life"),
        ),
        case(
            "unknown moment",
            "/decide",
            r#"{"conversation_id": "victim", "moment": "later"}"#,
            422,
            Some("moment"),
        ),
        case(
            "run_completed as a string",
            "/turn-ended",
            r#"{"conversation_id": "victim", "run_completed": "yes"}"#,
            422,
            Some("run_completed"),
        ),
        case(
            "too many user messages",
            "/turn-ended",
            r#"{"conversation_id": "victim", "user_messages": 1000001}"#,
            422,
            Some("user_messages"),
        ),
        case(
            "user text as an object",
            "/turn-ended",
            r#"{"conversation_id": "victim", "user": {"text": "hi"}}"#,
            422,
            Some("user"),
        ),
        case(
            "NUL in id",
            "/usage",
            r#"{"conversation_id": "vic\u0000tim", "used": 1}"#,
            422,
            Some("conversation_id"),
        ),
    ]
}

async fn arrange_victim(app: &TestApp) -> Value {
    app.report(
        "/usage",
        json!({"conversation_id": "victim", "used": 1000, "size": 200000}),
    )
    .await;
    app.report("/turn-ended", json!({"conversation_id": "victim", "user": "hello"}))
        .await;
    app.state("victim").await
}

async fn assert_unchanged(app: &TestApp, before: &Value) {
    assert_eq!(app.state("victim").await, *before, "the conversation changed");
    assert_eq!(app.conversation_count().await, 1, "a conversation was created");
}

#[tokio::test]
async fn every_bad_body_gets_a_problem_and_changes_nothing() {
    let app = spawn_app().await;
    let before = arrange_victim(&app).await;

    for case in cases() {
        let response = app
            .post(case.path)
            .header("content-type", "application/json")
            .body(case.body.clone())
            .send()
            .await
            .unwrap();
        let content_type = response.headers().get("content-type").cloned();
        let (status, problem) = read(response).await;

        assert_eq!(status, case.status, "{}: {problem}", case.name);
        assert_eq!(content_type.unwrap(), "application/problem+json", "{}", case.name);
        assert_eq!(problem["status"], case.status, "{}", case.name);
        assert!(
            problem["title"].is_string() && problem["type"].is_string(),
            "{}",
            case.name
        );
        assert!(
            !problem["detail"].as_str().unwrap_or_default().is_empty(),
            "{}",
            case.name
        );
        if let Some(field) = case.field {
            assert_eq!(problem["field"], field, "{}: {problem}", case.name);
        }
    }
    assert_unchanged(&app, &before).await;
}

#[tokio::test]
async fn a_body_that_is_not_utf8_is_malformed() {
    let app = spawn_app().await;

    let response = app
        .post("/usage")
        .header("content-type", "application/json")
        .body(b"{\"conversation_id\": \"\xff\xfe\", \"used\": 1}".to_vec())
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 400);
    assert_eq!(app.conversation_count().await, 0);
}

#[tokio::test]
async fn a_body_that_is_not_json_by_its_type_is_415() {
    let app = spawn_app().await;

    let response = app
        .post("/usage")
        .header("content-type", "text/plain")
        .body(r#"{"conversation_id": "c", "used": 1}"#)
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 415);
    assert_eq!(app.conversation_count().await, 0);
}

#[tokio::test]
async fn a_body_past_the_limit_is_413() {
    let app = spawn_app_with_limit(Default::default(), 1024).await;
    let text = "x".repeat(2048);

    let (status, problem) = app
        .post_json("/turn-ended", &json!({"conversation_id": "c", "user": text}))
        .await;

    assert_eq!(status, 413);
    assert!(problem["detail"].as_str().unwrap().contains("1024 bytes"), "{problem}");
    assert_eq!(app.conversation_count().await, 0);
}

#[tokio::test]
async fn bad_query_parameters_and_paths_are_problems() {
    let app = spawn_app().await;
    arrange_victim(&app).await;
    let long = "y".repeat(201);

    for (path, status, field) in [
        ("/conversations/victim/events?limit=0", 422, Some("limit")),
        ("/conversations/victim/events?limit=1001", 422, Some("limit")),
        ("/conversations/victim/events?limit=abc", 422, Some("limit")),
        ("/conversations/victim/events?after=-1", 422, Some("after")),
        (
            "/conversations/victim/events?after=9223372036854775808",
            422,
            Some("after"),
        ),
        ("/conversations/victim/events?lmit=5", 422, Some("lmit")),
        ("/due?moment=sometime", 422, Some("moment")),
        ("/due?at=yesterday", 422, Some("at")),
        ("/due?limit=99999", 422, Some("limit")),
        ("/conversations/a%0Ab", 422, Some("conversation_id")),
        ("/conversations/%FF", 422, Some("conversation_id")),
        (&format!("/conversations/{long}"), 422, Some("conversation_id")),
        ("/no/such/thing", 404, None),
    ] {
        let (got, problem) = app.get_json(path).await;
        assert_eq!(got, status, "{path}: {problem}");
        assert_eq!(problem["status"], status, "{path}");
        if let Some(field) = field {
            assert_eq!(problem["field"], field, "{path}: {problem}");
        }
    }
}

#[tokio::test]
async fn a_wrong_method_is_a_405_problem() {
    let app = spawn_app().await;

    let response = app.get("/usage").send().await.unwrap();

    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["content-type"], "application/problem+json");
}
