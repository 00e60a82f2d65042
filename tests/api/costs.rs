//! What compaction costs and what it saves (SPEC §6): each ledger row's
//! summary cost, the tokens later calls no longer resend priced at the
//! agent's model until the next boundary, and /stats's net.

use std::time::Duration;

use compactd::domain::Prices;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn, test_settings, upstream_settings};
use crate::llm_client::upstream_writing;

const PRICES: &str = "agent-model=3/0.3/15, *=1/0.1/2";

async fn priced_app(upstream: Option<&str>) -> TestApp {
    let settings = match upstream {
        Some(uri) => upstream_settings(uri, Duration::from_secs(5)),
        None => test_settings(),
    };
    spawn(compactd::config::Settings {
        prices: Prices::parse(PRICES).unwrap(),
        ..settings
    })
    .await
}

/// A call to the agent's model: `input` tokens, `cached` of them from the cache.
async fn call(app: &TestApp, id: &str, used: u64, input: u64, cached: u64, model: Option<&str>) {
    let mut body = json!({"conversation_id": id, "used": used, "size": 200_000, "input": input, "cached_read": cached});
    if let Some(model) = model {
        body["model"] = json!(model);
    }
    app.report("/usage", body).await;
}

async fn ledger(app: &TestApp, id: &str) -> Vec<Value> {
    let (status, page) = app.get_json(&format!("/conversations/{id}/compactions")).await;
    assert_eq!(status, 200, "{page}");
    page["compactions"].as_array().unwrap().clone()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[tokio::test]
async fn later_calls_save_what_they_no_longer_resend_at_their_models_price() {
    let app = priced_app(None).await;
    call(&app, "c", 150_000, 150_000, 140_000, Some("agent-model")).await;
    app.report(
        "/summarize",
        json!({"conversation_id": "c", "summary": "Where things stand: the build is green.", "trigger": "manual"}),
    )
    .await;
    // Before any later call it has saved nothing, and cost nothing (the
    // harness wrote it: no upstream call).
    let rows = ledger(&app, "c").await;
    let tokens_saved = rows[0]["tokens_saved"].as_u64().unwrap();
    assert!(tokens_saved > 100_000, "{}", rows[0]);
    assert_eq!(rows[0]["cost_usd"], json!(0.0));
    assert_eq!(rows[0]["savings"]["calls"], 0);
    assert_eq!(rows[0]["savings"]["accruing"], true);

    // Two calls to the agent's model, 80% and 0% from the cache; one to a
    // model with no price of its own (the `*` entry prices it).
    call(&app, "c", 20_000, 20_000, 16_000, Some("agent-model")).await;
    call(&app, "c", 21_000, 21_000, 0, Some("agent-model")).await;
    call(&app, "c", 22_000, 22_000, 22_000, Some("other-model")).await;

    let rows = ledger(&app, "c").await;
    let savings = &rows[0]["savings"];
    assert_eq!(savings["calls"], 3);
    assert_eq!(savings["tokens"].as_u64().unwrap(), 3 * tokens_saved);
    // The spared tokens were the old prefix: the first and third calls' caches
    // were warm (0.3 and `*`'s 0.1), the second's had lapsed (3). The first
    // call wrote the new prefix afresh (its 4,000 fresh tokens, at most the
    // prefix) where it would have read the old one from the cache.
    let prefix = rows[0]["tokens_after"].as_f64().unwrap();
    let rewrite = prefix.min(4_000.0) * (3.0 - 0.3) / 1e6;
    let expected = tokens_saved as f64 * (0.3 + 3.0 + 0.1) / 1e6 - rewrite;
    assert!(
        close(savings["cache_rewrite_usd"].as_f64().unwrap(), rewrite),
        "{savings}"
    );
    let usd = savings["usd"].as_f64().unwrap();
    assert!(close(usd, expected), "{usd} against {expected}");
    assert!(close(rows[0]["net_usd"].as_f64().unwrap(), expected), "{}", rows[0]);

    // The next boundary closes them onto the first row; calls from then on
    // save for the second.
    app.report(
        "/summarize",
        json!({"conversation_id": "c", "summary": "Where things stand: released.", "trigger": "manual"}),
    )
    .await;
    call(&app, "c", 5_000, 5_000, 5_000, Some("agent-model")).await;
    let rows = ledger(&app, "c").await;
    assert_eq!(rows[1]["savings"]["accruing"], false);
    assert_eq!(rows[1]["savings"]["calls"], 3);
    assert!(close(rows[1]["savings"]["usd"].as_f64().unwrap(), expected));
    assert_eq!(rows[0]["savings"]["accruing"], true);
    assert_eq!(rows[0]["savings"]["calls"], 1);

    // /stats adds both up, per trigger and in all.
    let (_, stats) = app.get_json("/stats").await;
    let second = rows[0]["savings"]["usd"].as_f64().unwrap();
    let net = stats["money"]["net_usd"].as_f64().unwrap();
    assert!(close(net, expected + second), "{stats}");
    assert_eq!(stats["money"]["saved_calls"], 4);
    let manual = &stats["triggers"][0];
    assert_eq!(manual["trigger"], "manual");
    assert!(close(manual["money"]["saved_usd"].as_f64().unwrap(), expected + second));

    // /metrics counts them too (other tests of this process may add theirs).
    let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let counted = |name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} is not in /metrics: {metrics}"))
    };
    assert!(counted("compactd_saved_tokens_total") >= (3 * tokens_saved) as f64);
    assert!(counted("compactd_saved_microdollars_total") >= (expected * 1e6).floor());
}

#[tokio::test]
async fn a_summary_costs_its_upstream_tokens_at_the_summary_models_price() {
    let upstream = upstream_writing("The build is green; the release waits on QA.").await;
    let app = priced_app(Some(&upstream.uri())).await;
    call(&app, "c", 150_000, 150_000, 0, Some("agent-model")).await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Ship build 4711.", "assistant": "Shipped."}),
    )
    .await;
    let answer = app.report("/summarize", json!({"conversation_id": "c"})).await;
    let row = &answer["compaction"];
    let input = row["upstream_input_tokens"].as_f64().unwrap();
    let output = row["upstream_output_tokens"].as_f64().unwrap();
    assert!(input > 0.0 && output > 0.0, "{row}");
    // Not the agent's price: the summary model's (`*`: 1 in, 2 out).
    let cost = row["cost_usd"].as_f64().unwrap();
    assert!(close(cost, (input + 2.0 * output) / 1e6), "{row}");
    assert!(close(row["net_usd"].as_f64().unwrap(), -cost), "{row}");

    let (_, stats) = app.get_json("/stats").await;
    assert!(close(stats["money"]["cost_usd"].as_f64().unwrap(), cost), "{stats}");
    assert!(close(stats["money"]["net_usd"].as_f64().unwrap(), -cost), "{stats}");
}

#[tokio::test]
async fn without_prices_savings_are_counted_in_tokens_and_their_dollars_are_unknown() {
    let app = crate::helpers::spawn_app().await;
    call(&app, "c", 150_000, 150_000, 0, None).await;
    app.report(
        "/summarize",
        json!({"conversation_id": "c", "summary": "s", "trigger": "manual"}),
    )
    .await;
    call(&app, "c", 10_000, 10_000, 0, Some("agent-model")).await;
    let rows = ledger(&app, "c").await;
    assert_eq!(rows[0]["savings"]["calls"], 1);
    assert_eq!(rows[0]["savings"]["unpriced_calls"], 1);
    assert_eq!(rows[0]["savings"]["usd"], Value::Null);
    assert_eq!(rows[0]["net_usd"], Value::Null);
    let (_, stats) = app.get_json("/stats").await;
    assert_eq!(stats["money"]["net_usd"], Value::Null, "{stats}");
    assert_eq!(stats["money"]["saved_tokens"], rows[0]["tokens_saved"]);
}

#[tokio::test]
async fn a_deleted_conversation_leaves_its_savings_on_the_ledger() {
    let app = priced_app(None).await;
    call(&app, "gone", 150_000, 150_000, 0, Some("agent-model")).await;
    app.report(
        "/summarize",
        json!({"conversation_id": "gone", "summary": "s", "trigger": "manual"}),
    )
    .await;
    call(&app, "gone", 10_000, 10_000, 0, Some("agent-model")).await;
    call(&app, "gone", 11_000, 11_000, 0, Some("agent-model")).await;
    let before: (i64, f64) = sqlx::query_as("SELECT saved_calls, saved_usd FROM compactd_ledger")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(before.0, 2);

    let deleted = app
        .client
        .delete(format!("{}/conversations/gone", app.address))
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.text().await.unwrap());

    let after: (Option<String>, i64, f64) =
        sqlx::query_as("SELECT conversation_id, saved_calls, saved_usd FROM compactd_ledger")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(after.0, None, "the row names no conversation once it is deleted");
    assert_eq!((after.1, after.2), before);
    let (_, stats) = app.get_json("/stats").await;
    assert!(
        close(stats["money"]["saved_usd"].as_f64().unwrap(), before.1),
        "{stats}"
    );
}

#[tokio::test]
async fn a_model_name_with_spaces_is_refused_and_changes_nothing() {
    let app = priced_app(None).await;
    for model in [json!("gpt 4"), json!(""), json!(7), json!("m".repeat(201))] {
        let (status, problem) = app
            .post_json("/usage", &json!({"conversation_id": "c", "used": 10, "model": model}))
            .await;
        assert_eq!(status, 422, "{model}: {problem}");
        assert!(
            problem["detail"].as_str().unwrap_or_default().contains("model"),
            "{problem}"
        );
    }
    assert_eq!(app.conversation_count().await, 0);
}

#[tokio::test]
async fn each_day_of_the_series_shows_what_its_compactions_cost_and_saved() {
    let app = priced_app(None).await;
    for (id, day, calls) in [("a", "2026-10-18", 1), ("b", "2026-10-19", 2)] {
        let at = |hour: u32| format!("{day}T{hour:02}:00:00Z");
        app.report(
            "/usage",
            json!({"conversation_id": id, "used": 150_000, "size": 200_000, "at": at(1)}),
        )
        .await;
        app.report(
            "/summarize",
            json!({"conversation_id": id, "summary": "s", "trigger": "harness", "at": at(2)}),
        )
        .await;
        for call in 0..calls {
            app.report(
                "/usage",
                json!({"conversation_id": id, "used": 9_000, "input": 9_000, "cached_read": 0,
                       "model": "agent-model", "at": at(3 + call)}),
            )
            .await;
        }
    }
    let (status, series) = app
        .get_json("/stats/series?bucket=day&since=2026-10-18T00:00:00Z&until=2026-10-20T00:00:00Z")
        .await;
    assert_eq!(status, 200, "{series}");
    let points = series["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{series}");
    for (point, id) in points.iter().zip(["a", "b"]) {
        let row = &ledger(&app, id).await[0];
        let saved = row["savings"]["usd"].as_f64().unwrap();
        assert!(saved > 0.0, "{row}");
        assert!(
            close(point["saved_usd"].as_f64().unwrap(), saved),
            "{point} against {row}"
        );
        assert!(close(point["net_usd"].as_f64().unwrap(), saved), "{point}");
        assert_eq!(point["cost_usd"], json!(0.0));
    }
}

#[tokio::test]
async fn the_operations_guides_query_of_what_compaction_paid_runs_on_the_ledger_view() {
    let guide = std::fs::read_to_string("docs/operations.md").unwrap();
    let start = guide
        .find("-- Did compaction pay for itself?")
        .expect("the guide's query");
    let query = &guide[start..start + guide[start..].find(';').unwrap()];
    let app = priced_app(None).await;
    call(&app, "c", 150_000, 150_000, 0, Some("agent-model")).await;
    app.report(
        "/summarize",
        json!({"conversation_id": "c", "summary": "s", "trigger": "manual"}),
    )
    .await;
    call(&app, "c", 10_000, 10_000, 0, Some("agent-model")).await;
    let row: (String, f64, f64) = sqlx::query_as(&format!("SELECT tenant, saved, net FROM ({query}) q"))
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let ledger = &ledger(&app, "c").await[0];
    assert_eq!(row.0, "default");
    assert!(
        close(row.1, ledger["savings"]["usd"].as_f64().unwrap()),
        "{row:?} {ledger}"
    );
    assert!(close(row.2, ledger["net_usd"].as_f64().unwrap()), "{row:?} {ledger}");
}

#[tokio::test]
async fn a_summary_by_a_model_without_a_price_has_no_cost_and_no_net() {
    let upstream = upstream_writing("The build is green.").await;
    let app = spawn(compactd::config::Settings {
        prices: Prices::parse("agent-model=3/0.3/15").unwrap(),
        ..upstream_settings(&upstream.uri(), Duration::from_secs(5))
    })
    .await;
    call(&app, "c", 150_000, 150_000, 0, Some("agent-model")).await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c", "user": "Ship build 4711.", "assistant": "Shipped."}),
    )
    .await;
    let answer = app.report("/summarize", json!({"conversation_id": "c"})).await;
    call(&app, "c", 10_000, 10_000, 10_000, Some("agent-model")).await;
    let row = &ledger(&app, "c").await[0];
    assert_eq!(answer["compaction"]["cost_usd"], Value::Null, "{answer}");
    assert!(row["savings"]["usd"].as_f64().unwrap() > 0.0, "{row}");
    assert_eq!(row["net_usd"], Value::Null, "the cost is unknown, so is the net: {row}");
    let viewed: (Option<f64>, Option<f64>) = sqlx::query_as("SELECT cost_usd, net_usd FROM compactd_ledger")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(viewed, (None, None));
    let (_, stats) = app.get_json("/stats").await;
    assert_eq!(stats["money"]["unpriced_summaries"], 1, "{stats}");
}
