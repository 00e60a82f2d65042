//! Searching stored turns the way agents search (issue 22): by the parts of
//! the paths, file names and ids they hold, not only by whole words.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

async fn found(app: &TestApp, id: &str, q: &str) -> Vec<i64> {
    let query: String = form_urlencoded::byte_serialize(q.as_bytes()).collect();
    let (status, page) = app.get_json(&format!("/conversations/{id}/turns?q={query}")).await;
    assert_eq!(status, 200, "{page}");
    ids(&page)
}

fn ids(page: &Value) -> Vec<i64> {
    page["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn parts_of_paths_file_names_and_ids_are_found() {
    let app = spawn_app().await;
    for (user, assistant) in [
        (
            "Fix the retry in src/billing/retry.rs (PROJ-410)",
            "Edited src/billing/retry.rs.",
        ),
        ("Rotate the key in vault/prod.hcl", "Updated vault/prod.hcl."),
        ("Check C:\\Users\\ada\\app\\deploy.ps1", "It runs."),
        ("Unrelated: water the plants", "Done."),
    ] {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "paths", "user": user, "assistant": assistant}),
        )
        .await;
    }

    for (q, expected) in [
        ("billing", vec![1]),
        ("retry.rs", vec![1]),
        ("retry", vec![1]),
        ("src/billing/retry.rs", vec![1]),
        ("PROJ-410", vec![1]),
        ("vault", vec![2]),
        ("prod.hcl", vec![2]),
        ("deploy.ps1", vec![3]),
        ("ada", vec![3]),
        ("plants", vec![4]),
        ("kubernetes", vec![]),
    ] {
        assert_eq!(found(&app, "paths", q).await, expected, "q={q}");
    }
}

/// `count` distinct dotted paths of 4-byte letters: the largest vector a
/// turn's text can make per character.
fn distinct_paths(count: u32) -> String {
    let letter = |n: u32| char::from_u32(0x1D4D0 + n % 26).unwrap();
    (0..count)
        .map(|n| format!("{}{n}.{}{n}/{}{n}", letter(n), letter(n + 7), letter(n + 13)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn a_huge_turn_of_distinct_paths_is_stored_and_its_conversation_stays_searchable() {
    let app = spawn_app().await;
    let huge = format!("opening-marker {} closing-marker", distinct_paths(16_000));
    assert!(huge.chars().count() > 200_000, "{}", huge.chars().count());
    app.report(
        "/turn-ended",
        json!({"conversation_id": "huge", "user": "Deploy src/billing/retry.rs", "assistant": "Deployed."}),
    )
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "huge", "user": "paste", "assistant": huge}),
    )
    .await;

    assert_eq!(found(&app, "huge", "billing").await, [1]);
    assert_eq!(found(&app, "huge", "opening-marker").await, [2]);
    assert_eq!(
        found(&app, "huge", "closing-marker").await,
        [2],
        "past the turn's own vector, by substring while its pieces are due"
    );
}

#[tokio::test]
async fn words_paths_and_a_word_on_a_seam_far_into_a_long_turn_are_found_as_words() {
    // The background writes a long turn's pieces.
    let app = crate::helpers::spawn(compactd::config::Settings {
        background: Some(compactd::config::BackgroundSettings {
            poll: std::time::Duration::from_millis(20),
            idle_sweep_every: None,
            ..compactd::config::BackgroundSettings::default()
        }),
        ..crate::helpers::test_settings()
    })
    .await;
    let filler = |times: usize| "lorem ipsum dolor sit amet ".repeat(times);
    // What the agent will search for sits far past the turn's own vector
    // (its first 200,000 characters), in a tool's output.
    let said = format!(
        "{}The billing service failed in src/payments/settle.rs. ",
        filler(9_000)
    );
    // The stored text is "paste", a space, then this: the word is placed to
    // straddle byte 290,000, where one piece ends inside the next (pieces of
    // 20,000 bytes from the 99,001st character, each 19,000 bytes on).
    let before_seam = 289_996 - "paste ".len();
    let padding = " ".repeat(before_seam - said.len());
    let output = format!("{said}{padding}seamword {}", filler(2_000));
    assert_eq!(output.find("seamword"), Some(before_seam));
    app.report(
        "/turn-ended",
        json!({"conversation_id": "long", "user": "Settle the payments", "assistant": "On it."}),
    )
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "long", "user": "paste", "assistant": output}),
    )
    .await;
    crate::helpers::wait_for_count(
        &app.pool,
        "SELECT (count(*) = 0)::int::bigint FROM turn_pieces_due WHERE conversation_id = 'long'",
        1,
    )
    .await;

    for (q, expected) in [
        // Both words, in another order than said: words, not a substring.
        ("failed billing", vec![2]),
        ("settle.rs", vec![2]),
        ("src/payments/settle.rs", vec![2]),
        ("seamword", vec![2]),
        ("\"billing service\"", vec![2]),
        ("payments", vec![1, 2]),
        ("kubernetes", vec![]),
        ("billing -lorem", vec![]),
    ] {
        assert_eq!(found(&app, "long", q).await, expected, "q={q}");
    }
}

/// `(conversation, id)` of each turn of a page.
fn said(page: &Value) -> Vec<(String, i64)> {
    page["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| {
            (
                turn["conversation_id"].as_str().unwrap().to_owned(),
                turn["id"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn at(conversation: &str, ids: &[i64]) -> Vec<(String, i64)> {
    ids.iter().map(|id| (conversation.to_owned(), *id)).collect()
}

/// `old` of three turns, rolled over into `new`, which has one.
async fn rolled_over(app: &TestApp) -> Value {
    for n in 1..=3 {
        let user = format!("old step {n}: edit src/billing/retry.rs");
        app.report(
            "/turn-ended",
            json!({"conversation_id": "old", "user": user, "assistant": "done"}),
        )
        .await;
    }
    let handoff = app
        .report("/handoff", json!({"conversation_id": "old", "successor_id": "new"}))
        .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "new", "user": "new step 1", "assistant": "ok"}),
    )
    .await;
    handoff
}

#[tokio::test]
async fn a_rolled_over_agent_reads_its_predecessor_with_its_own_id_and_the_bookmark_its_handoff_quoted() {
    let app = spawn_app().await;
    let handoff = rolled_over(&app).await;
    assert!(
        handoff["text"]
            .as_str()
            .unwrap()
            .ends_with("call search_history with conversation_id: \"old\" and from: \"3\".\n</handoff>"),
        "{handoff}"
    );
    // As the handoff names it, and as the agent's own conversation.
    let (status, named) = app.get_json("/conversations/old/turns?from=3").await;
    assert_eq!(status, 200, "{named}");
    assert_eq!(said(&named), at("old", &[3, 2, 1]), "{named}");

    let (status, page) = app.get_json("/conversations/new/turns?from=3").await;

    assert_eq!(status, 200, "{page}");
    assert_eq!(
        said(&page),
        at("old", &[3, 2, 1]),
        "the bookmark is the predecessor's: {page}"
    );
    assert!(page["next_from"].is_null() && page["next_conversation_id"].is_null());
}

#[tokio::test]
async fn reading_back_goes_on_into_the_predecessor_page_by_page() {
    let app = spawn_app().await;
    rolled_over(&app).await;

    let (_, first) = app.get_json("/conversations/new/turns?limit=2").await;
    let next = format!(
        "/conversations/{}/turns?limit=2&from={}",
        first["next_conversation_id"].as_str().unwrap(),
        first["next_from"]
    );
    let (_, second) = app.get_json(&next).await;

    assert_eq!(said(&first), [at("new", &[1]), at("old", &[3])].concat());
    assert_eq!(
        (first["next_conversation_id"].as_str(), first["next_from"].as_i64()),
        (Some("old"), Some(2))
    );
    assert_eq!(said(&second), at("old", &[2, 1]));
    assert!(second["next_from"].is_null(), "{second}");
}

#[tokio::test]
async fn a_search_from_the_successor_finds_what_was_said_before_the_rollover() {
    let app = spawn_app().await;
    rolled_over(&app).await;

    let (_, found) = app.get_json("/conversations/new/turns?q=retry.rs&limit=5").await;
    let (_, own) = app.get_json("/conversations/new/turns?q=step").await;

    let mut hits = said(&found);
    hits.sort();
    assert_eq!(hits, at("old", &[1, 2, 3]), "each hit names its conversation: {found}");
    assert_eq!(
        said(&own)[0],
        ("new".to_owned(), 1),
        "the conversation's own first: {own}"
    );
    assert_eq!(said(&own).len(), 4);
}

#[tokio::test]
async fn a_parked_item_from_a_tool_call_is_found_in_the_keep_set_by_part_of_its_text() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "kept", "used": 9_000}))
        .await;
    let messages = json!([
        {"role": "user", "content": "Fix the flaky retry test."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "name": "Edit", "arguments": "{\"file_path\":\"src/billing/retry_policy.rs\"}"}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "edited"},
        {"role": "assistant", "content": "Fixed; see infra/vault/PROD.hcl for the key."}
    ]);
    app.report("/summarize", json!({"conversation_id": "kept", "messages": messages}))
        .await;

    let (status, found) = app.get_json("/conversations/kept/keep?q=RETRY_POLICY").await;
    let (_, vault) = app.get_json("/conversations/kept/keep?q=prod.hcl").await;
    let (_, none) = app.get_json("/conversations/kept/keep?q=kubernetes").await;
    let (refused, problem) = app
        .get_json(&format!("/conversations/kept/keep?q={}", "x".repeat(501)))
        .await;

    assert_eq!(status, 200, "{found}");
    let texts = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(texts(&found), ["src/billing/retry_policy.rs"], "{found}");
    assert_eq!(found["total"], 1);
    assert!(
        texts(&vault)
            .iter()
            .all(|text| text.to_lowercase().contains("prod.hcl")),
        "{vault}"
    );
    assert!(!texts(&vault).is_empty(), "{vault}");
    assert!(texts(&none).is_empty());
    assert_eq!(refused, 422, "{problem}");
}

#[tokio::test]
async fn a_turn_whose_pieces_postgres_refuses_waits_behind_the_rest_and_stays_searchable() {
    // Both turns are stored before any background runs, so the order the
    // worker takes them in is the policy's, not the race's.
    let app = crate::helpers::spawn(crate::helpers::test_settings()).await;
    // A piece Postgres cannot make a vector of, as a text it cannot convert.
    sqlx::query(
        "CREATE OR REPLACE FUNCTION compactd_piece_search(piece text) RETURNS tsvector
             LANGUAGE plpgsql IMMUTABLE AS $$
         BEGIN
             IF strpos(piece, 'poisoned') > 0 THEN RAISE EXCEPTION 'cannot read this piece'; END IF;
             RETURN to_tsvector('simple', translate(piece, '/\\.', '   '));
         END $$",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    let filler = "lorem ipsum dolor sit amet ".repeat(8_000);
    for (n, word) in [(1, "poisoned"), (2, "healthy")] {
        app.report(
            "/turn-ended",
            json!({"conversation_id": "p", "user": format!("paste {n}"), "assistant": format!("{filler} {word}marker{n} {word}")}),
        )
        .await;
    }
    let mut announced = sqlx::postgres::PgListener::connect_with(&app.pool).await.unwrap();
    announced.listen("compactd_background").await.unwrap();

    let (_replica, _stop) = app
        .replica(compactd::config::Settings {
            background: Some(compactd::config::BackgroundSettings {
                poll: std::time::Duration::from_millis(20),
                idle_sweep_every: None,
                ..compactd::config::BackgroundSettings::default()
            }),
            ..crate::helpers::test_settings()
        })
        .await;
    let mut order = Vec::new();
    while order.len() < 4 {
        let notice = tokio::time::timeout(std::time::Duration::from_secs(60), announced.recv())
            .await
            .expect("the background announces each try")
            .unwrap();
        if notice.payload().contains("search_pieces") {
            order.push(notice.payload().rsplit('/').next().unwrap().to_owned());
        }
    }
    assert_eq!(
        order,
        [
            "search_pieces_refused",
            "search_pieces",
            "search_pieces_refused",
            "search_pieces_refused"
        ],
        "the refused turn waits behind the healthy one after its first try"
    );

    let left: Vec<(i64, i32)> = sqlx::query_as("SELECT seq, attempts FROM turn_pieces_due")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        left,
        [(1, 3)],
        "the healthy turn's pieces were written, the refused one tried three times"
    );
    assert_eq!(found(&app, "p", "healthymarker2").await, [2], "in its pieces");
    assert_eq!(found(&app, "p", "poisonedmarker1").await, [1], "by substring, for good");
}
