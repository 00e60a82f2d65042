//! The ledger's reads and the turns read: paging, filters, search.

use serde_json::{Value, json};

use crate::helpers::spawn_app;

fn seqs(page: &Value, list: &str, field: &str) -> Vec<i64> {
    page[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[field].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn the_fleet_history_pages_newest_first_with_filters() {
    let app = spawn_app().await;
    for (i, id) in ["a", "b", "c"].iter().enumerate() {
        app.report("/usage", json!({"conversation_id": id, "used": 10})).await;
        let at = format!("2026-10-1{}T09:00:00Z", i + 1);
        app.report(
            "/summarize",
            json!({"conversation_id": id, "summary": format!("s{i}"), "trigger": "manual", "at": at}),
        )
        .await;
    }
    app.report(
        "/summarize",
        json!({"conversation_id": "a", "summary": "again", "trigger": "harness", "at": "2026-10-14T09:00:00Z"}),
    )
    .await;

    let (_, first) = app.get_json("/compactions?limit=2").await;
    let cursor = first["next_cursor"].as_str().unwrap().to_owned();
    let (_, second) = app.get_json(&format!("/compactions?limit=2&cursor={cursor}")).await;
    let (_, manual) = app.get_json("/compactions?trigger=manual").await;
    let (_, window) = app
        .get_json("/compactions?since=2026-10-12T00:00:00Z&until=2026-10-14T00:00:00Z")
        .await;
    let (_, failed) = app.get_json("/compactions?success=false").await;

    let conversations = |page: &Value| -> Vec<String> {
        page["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["conversation_id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(conversations(&first), ["a", "c"]);
    assert_eq!(conversations(&second), ["b", "a"]);
    assert_eq!(conversations(&manual), ["c", "b", "a"]);
    assert_eq!(conversations(&window), ["c", "b"]);
    assert!(failed["compactions"].as_array().unwrap().is_empty());
    let (status, problem) = app.get_json("/compactions?cursor=abc").await;
    assert_eq!((status, problem["field"].as_str()), (422, Some("cursor")));
    let (status, _) = app.get_json("/compactions?trigger=long_ago").await;
    assert_eq!(status, 422);
}

#[tokio::test]
async fn the_fleet_history_follows_the_attempts_times_not_the_order_they_were_recorded_in() {
    let app = spawn_app().await;
    // A harness that reports its compactions late records them out of order.
    let recorded = [
        ("late", "2026-10-15T09:00:00Z"),
        ("early", "2026-10-11T09:00:00Z"),
        ("middle", "2026-10-13T09:00:00Z"),
        ("middle-too", "2026-10-13T09:00:00Z"),
    ];
    for (id, at) in recorded {
        app.report("/usage", json!({"conversation_id": id, "used": 10})).await;
        app.report(
            "/summarize",
            json!({"conversation_id": id, "summary": "s", "trigger": "harness", "at": at}),
        )
        .await;
    }

    let mut seen = Vec::new();
    let mut path = "/compactions?limit=1".to_owned();
    loop {
        let (status, page) = app.get_json(&path).await;
        assert_eq!(status, 200, "{page}");
        for compaction in page["compactions"].as_array().unwrap() {
            seen.push(compaction["conversation_id"].as_str().unwrap().to_owned());
        }
        match page["next_cursor"].as_str() {
            Some(cursor) => path = format!("/compactions?limit=1&cursor={cursor}"),
            None => break,
        }
        assert!(seen.len() <= recorded.len(), "paging does not end: {seen:?}");
    }
    // Ties in time keep the order they were recorded in, newest first.
    assert_eq!(seen, ["late", "middle-too", "middle", "early"]);
    let (status, beyond) = app.get_json("/compactions?cursor=999999999999999999_1").await;
    assert_eq!(status, 200, "{beyond}");
    assert_eq!(beyond["compactions"].as_array().unwrap().len(), recorded.len());

    let (_, window) = app
        .get_json("/compactions?trigger=harness&since=2026-10-12T00:00:00Z&until=2026-10-14T00:00:00Z&limit=1")
        .await;
    let cursor = window["next_cursor"].as_str().unwrap();
    let (_, rest) = app
        .get_json(&format!(
            "/compactions?trigger=harness&since=2026-10-12T00:00:00Z&until=2026-10-14T00:00:00Z&cursor={cursor}"
        ))
        .await;
    assert_eq!(window["compactions"][0]["conversation_id"], "middle-too");
    assert_eq!(rest["compactions"].as_array().unwrap().len(), 1, "{rest}");
    assert_eq!(rest["compactions"][0]["conversation_id"], "middle");
}

#[tokio::test]
async fn a_conversations_compactions_page_back_by_seq() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 10})).await;
    for i in 0..5 {
        app.report(
            "/summarize",
            json!({"conversation_id": "c1", "summary": format!("summary {i}")}),
        )
        .await;
    }

    let (_, first) = app.get_json("/conversations/c1/compactions?limit=2").await;
    let next = first["next_before_seq"].as_i64().unwrap();
    let (_, second) = app
        .get_json(&format!("/conversations/c1/compactions?limit=2&before_seq={next}"))
        .await;

    assert_eq!(seqs(&first, "compactions", "seq"), [5, 4]);
    assert_eq!(seqs(&second, "compactions", "seq"), [3, 2]);
    assert_eq!(first["compactions"][0]["summary"], "summary 4");
    let (missing, _) = app.get_json("/conversations/nobody/compactions").await;
    assert_eq!(missing, 404);
}

#[tokio::test]
async fn turns_are_read_back_from_a_bookmark() {
    let app = spawn_app().await;
    for i in 1..=5 {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "c1", "user": format!("question {i}"), "assistant": format!("answer {i}")}),
        )
        .await;
    }

    let (_, newest) = app.get_json("/conversations/c1/turns?limit=2").await;
    let (_, back) = app
        .get_json(&format!("/conversations/c1/turns?limit=2&from={}", newest["next_from"]))
        .await;
    let (_, last) = app.get_json("/conversations/c1/turns?limit=2&from=1").await;

    assert_eq!(seqs(&newest, "turns", "id"), [5, 4]);
    assert_eq!(seqs(&back, "turns", "id"), [3, 2]);
    assert_eq!(seqs(&last, "turns", "id"), [1]);
    assert!(last["next_from"].is_null());
    assert_eq!(newest["turns"][0]["user"], "question 5");
}

#[tokio::test]
async fn turns_are_found_by_full_text_search_in_any_script() {
    let app = spawn_app().await;
    for (user, assistant) in [
        ("Deploy the billing service", "Deployed billing v2."),
        ("Rotate the database password", "Rotated."),
        ("請不要刪除生產環境的資料庫", "好的，不會刪除。"),
    ] {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "c1", "user": user, "assistant": assistant}),
        )
        .await;
    }

    let (_, billing) = app.get_json("/conversations/c1/turns?q=billing").await;
    let (_, phrase) = app
        .get_json("/conversations/c1/turns?q=%22database%20password%22")
        .await;
    let (_, cjk) = app
        .get_json("/conversations/c1/turns?q=%E7%94%9F%E7%94%A2%E7%92%B0%E5%A2%83")
        .await;
    let (_, none) = app.get_json("/conversations/c1/turns?q=kubernetes").await;

    assert_eq!(seqs(&billing, "turns", "id"), [1]);
    assert_eq!(seqs(&phrase, "turns", "id"), [2]);
    assert_eq!(seqs(&cjk, "turns", "id"), [3], "生產環境 has no spaces around it");
    assert!(none["turns"].as_array().unwrap().is_empty());
    let (status, _) = app
        .get_json(&format!("/conversations/c1/turns?q={}", "x".repeat(501)))
        .await;
    assert_eq!(status, 422);
}

/// Words no dictionary has, all different: `qa`, `qb`, … in base 26.
fn distinct_words(count: usize) -> String {
    (0..count)
        .map(|mut n| {
            let mut word = String::from("q");
            loop {
                word.push(char::from(b'a' + (n % 26) as u8));
                n /= 26;
                if n == 0 {
                    break word;
                }
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn one_huge_turn_of_distinct_words_leaves_its_conversation_searchable() {
    let app = spawn_app().await;
    let huge = format!("opening-marker {} closing-marker", distinct_words(220_000));
    assert!(huge.len() > 1_300_000, "{}", huge.len());
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "user": "Deploy the billing service", "assistant": "Deployed."}),
    )
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "user": "paste", "assistant": huge}),
    )
    .await;

    let (status, billing) = app.get_json("/conversations/c1/turns?q=billing").await;
    assert_eq!(status, 200, "{billing}");
    assert_eq!(seqs(&billing, "turns", "id"), [1]);
    let (_, opening) = app.get_json("/conversations/c1/turns?q=opening-marker").await;
    assert_eq!(seqs(&opening, "turns", "id"), [2]);
    let (_, closing) = app.get_json("/conversations/c1/turns?q=closing-marker").await;
    assert_eq!(
        seqs(&closing, "turns", "id"),
        [2],
        "past the stored vector, the substring match finds it"
    );
}

#[tokio::test]
async fn dashboards_can_read_the_ledger_view_with_its_reader_role() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 10})).await;
    app.report("/summarize", json!({"conversation_id": "c1", "summary": "s"}))
        .await;

    let rows: Vec<(String, String, bool)> = sqlx::query_as("SELECT tenant, trigger, success FROM compactd_ledger")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    let readable: bool =
        sqlx::query_scalar("SELECT has_table_privilege('compactd_ledger_reader', 'compactd_ledger', 'SELECT')")
            .fetch_one(&app.pool)
            .await
            .unwrap();

    assert_eq!(rows, [("default".to_owned(), "manual".to_owned(), true)]);
    assert!(readable);
}
