//! What the operators' page reads: compactions over time (/stats/series)
//! and the page itself.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::browser;
use crate::helpers::{TestApp, spawn, spawn_app, upstream_settings};
use crate::llm_client::openai_answer;

/// One host-written compaction in a conversation of its own, at `at`.
async fn compaction(app: &TestApp, id: &str, trigger: &str, at: &str) {
    app.report("/usage", json!({"conversation_id": id, "used": 1000, "at": at}))
        .await;
    let body = json!({"conversation_id": id, "summary": "s", "trigger": trigger, "tokens_before": 1000, "at": at});
    app.report("/summarize", body).await;
}

fn points(series: &Value) -> Vec<(String, String, u64)> {
    series["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["start"].as_str().unwrap().to_owned(),
                p["trigger"].as_str().unwrap().to_owned(),
                p["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn compactions_are_counted_per_bucket_and_trigger() {
    let app = spawn_app().await;
    compaction(&app, "a", "harness", "2026-10-18T09:05:00Z").await;
    compaction(&app, "b", "harness", "2026-10-18T09:55:00Z").await;
    compaction(&app, "c", "manual", "2026-10-18T09:30:00Z").await;
    compaction(&app, "d", "harness", "2026-10-18T11:00:00Z").await;
    compaction(&app, "e", "harness", "2026-10-18T12:00:00Z").await;

    let (status, hourly) = app
        .get_json("/stats/series?bucket=hour&since=2026-10-18T09:20:00Z&until=2026-10-18T12:00:00Z")
        .await;
    let (_, daily) = app
        .get_json("/stats/series?bucket=day&since=2026-10-18T09:20:00Z&until=2026-10-19T00:00:00Z")
        .await;

    assert_eq!(status, 200, "{hourly}");
    assert_eq!(
        hourly["since"], "2026-10-18T09:00:00Z",
        "since moves back to its bucket's start"
    );
    assert_eq!(hourly["buckets"], 3);
    assert_eq!(
        points(&hourly),
        [
            ("2026-10-18T09:00:00Z".to_owned(), "harness".to_owned(), 2),
            ("2026-10-18T09:00:00Z".to_owned(), "manual".to_owned(), 1),
            ("2026-10-18T11:00:00Z".to_owned(), "harness".to_owned(), 1),
        ],
        "the empty 10:00 bucket has no point and until is exclusive"
    );
    assert_eq!(hourly["points"][0]["successes"], 2);
    assert_eq!(hourly["points"][0]["failures"], 0);
    assert_eq!(
        points(&daily),
        [
            ("2026-10-18T00:00:00Z".to_owned(), "harness".to_owned(), 4),
            ("2026-10-18T00:00:00Z".to_owned(), "manual".to_owned(), 1),
        ]
    );
}

#[tokio::test]
async fn series_parameters_are_checked() {
    let app = spawn_app().await;

    for (query, field) in [
        ("bucket=week", "bucket"),
        ("since=yesterday", "since"),
        ("until=0000-12-31T00:00:00Z", "until"),
    ] {
        let (status, problem) = app.get_json(&format!("/stats/series?{query}")).await;
        assert_eq!(status, 422, "{query}: {problem}");
        assert_eq!(problem["field"], field, "{query}: {problem}");
    }
    let (status, problem) = app.get_json("/stats/series?colour=red").await;
    assert_eq!(status, 422, "{problem}");
}

#[tokio::test]
async fn a_backwards_span_holds_nothing_and_a_long_one_keeps_its_latest_buckets() {
    let app = spawn_app().await;
    compaction(&app, "old", "harness", "2025-10-18T09:05:00Z").await;
    compaction(&app, "new", "harness", "2026-10-18T09:05:00Z").await;

    let (status, backwards) = app
        .get_json("/stats/series?since=2026-10-18T10:00:00Z&until=2026-10-18T09:00:00Z")
        .await;
    let (_, year_by_minute) = app
        .get_json("/stats/series?bucket=minute&since=2025-10-18T00:00:00Z&until=2026-10-19T00:00:00Z")
        .await;

    assert_eq!(status, 200, "{backwards}");
    assert_eq!((&backwards["buckets"], &backwards["points"]), (&json!(0), &json!([])));
    assert_eq!(year_by_minute["truncated"], true);
    assert_eq!(year_by_minute["buckets"], 2000);
    assert_eq!(year_by_minute["since"], "2026-10-17T14:40:00Z");
    assert_eq!(
        points(&year_by_minute),
        [("2026-10-18T09:05:00Z".to_owned(), "harness".to_owned(), 1)],
        "the old one lies before the kept minutes"
    );
    let (_, year_by_day) = app
        .get_json("/stats/series?bucket=day&since=2025-10-18T00:00:00Z&until=2026-10-19T00:00:00Z")
        .await;
    assert_eq!(year_by_day["truncated"], false);
    assert_eq!(points(&year_by_day).len(), 2);
}

#[tokio::test]
async fn without_a_span_the_series_covers_the_last_48_hours() {
    let app = spawn_app().await;

    let (status, series) = app.get_json("/stats/series").await;

    assert_eq!(status, 200, "{series}");
    assert_eq!((&series["bucket"], &series["buckets"]), (&json!("hour"), &json!(49)));
    assert_eq!(series["points"], json!([]));
}

/// Every file a dashboard file loads: its `src`/`href`s and module imports.
fn references(text: &str) -> Vec<String> {
    let pattern = regex::Regex::new(r#"(?:src|href)="(/[^"]*)"|from "\./([^"]+)""#).unwrap();
    pattern
        .captures_iter(text)
        .map(|c| match (c.get(1), c.get(2)) {
            (Some(absolute), _) => absolute.as_str().to_owned(),
            (_, Some(relative)) => format!("/dashboard/{}", relative.as_str()),
            _ => unreachable!(),
        })
        .collect()
}

#[tokio::test]
async fn the_dashboard_and_everything_it_loads_come_from_the_service() {
    let app = spawn_app().await;
    let mut queue = vec!["/dashboard".to_owned()];
    let mut seen = std::collections::BTreeSet::new();

    while let Some(path) = queue.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let response = app.get(&path).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        assert!(
            headers["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("default-src 'none'"),
            "{path}"
        );
        let kind = headers["content-type"].to_str().unwrap().to_owned();
        let expected = match path.rsplit('.').next() {
            Some("js") => "text/javascript",
            Some("css") => "text/css",
            _ => "text/html",
        };
        assert!(kind.starts_with(expected), "{path}: {kind}");
        // SVG's namespace is a name, never fetched; any other address would be.
        let addresses = text.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !addresses.contains("http://") && !addresses.contains("https://"),
            "{path} names another site"
        );
        queue.extend(references(&text));
    }

    assert!(seen.len() >= 7, "the page, its style and its modules: {seen:?}");
    let (status, problem) = app.get_json("/dashboard/secrets.txt").await;
    assert_eq!((status, &problem["type"]), (404, &json!("/problems/not-found")));
}

/// A day of history: summaries written upstream (every third fails), two by
/// the host, decisions, a rollover, a declined one, and one compaction the
/// day after, outside the span the page is opened on.
async fn seed_history(app: &TestApp) {
    for i in 0..9 {
        let id = format!("c{i}");
        let at = |minute: u32| format!("2026-10-18T{:02}:{minute:02}:00Z", 2 * i + 1);
        let user = if i % 3 == 0 {
            "fail-me please"
        } else {
            "carry on with docs/plan.md"
        };
        app.report(
            "/usage",
            json!({"conversation_id": id, "used": 150_000 + 4_000 * i, "size": 200_000, "at": at(0)}),
        )
        .await;
        app.report(
            "/turn-ended",
            json!({"conversation_id": id, "user": user, "assistant": "ok", "at": at(1)}),
        )
        .await;
        app.report("/decide", json!({"conversation_id": id, "at": at(2)})).await;
        app.report("/summarize", json!({"conversation_id": id, "at": at(3)}))
            .await;
        app.report(
            "/usage",
            json!({"conversation_id": id, "used": 40_000 + 1_000 * i, "at": at(4)}),
        )
        .await;
    }
    for (id, at) in [("c1", "2026-10-18T04:00:00Z"), ("c2", "2026-10-18T06:00:00Z")] {
        let body = json!({"conversation_id": id, "summary": "the host's own", "trigger": "harness", "tokens_before": 30_000, "at": at});
        app.report("/summarize", body).await;
    }
    app.report(
        "/handoff",
        json!({"conversation_id": "c1", "successor_id": "c1-next", "at": "2026-10-18T05:00:00Z"}),
    )
    .await;
    app.report(
        "/handoff",
        json!({"conversation_id": "c4", "declined": true, "at": "2026-10-18T10:00:00Z"}),
    )
    .await;
    compaction(app, "later", "harness", "2026-10-19T12:00:00Z").await;
}

const DAY: &str = "since=2026-10-18T00:00:00Z&until=2026-10-19T00:00:00Z";

/// `<tr data-{key}="name">…</tr>` rows as (name, cell texts).
fn table_rows(dom: &str, key: &str) -> Vec<(String, Vec<String>)> {
    let row = regex::Regex::new(&format!(r#"<tr data-{key}="([^"]+)">(.*?)</tr>"#)).unwrap();
    let cell = regex::Regex::new(r"<td>(.*?)</td>").unwrap();
    row.captures_iter(dom)
        .map(|r| {
            (
                r[1].to_owned(),
                cell.captures_iter(&r[2]).map(|c| c[1].replace(',', "")).collect(),
            )
        })
        .collect()
}

/// The card's shown text (separators dropped) and its data-value.
fn card(dom: &str, stat: &str) -> (String, String) {
    let pattern = regex::Regex::new(&format!(r#"data-stat="{stat}" data-value="([^"]*)">([^<]*)<"#)).unwrap();
    let found = pattern
        .captures(dom)
        .unwrap_or_else(|| panic!("no {stat} card in the page"));
    (found[2].replace(',', ""), found[1].to_owned())
}

fn total(stats: &Value, field: &str) -> u64 {
    stats["triggers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[field].as_u64().unwrap())
        .sum()
}

fn close(shown: &str, exact: &Value) -> bool {
    match (shown.parse::<f64>(), exact.as_f64()) {
        (Ok(shown), Some(exact)) => (shown - exact).abs() < 0.051,
        _ => shown == "–" && exact.is_null(),
    }
}

#[tokio::test]
async fn the_dashboard_shows_what_stats_says_and_a_conversations_timeline() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains("fail-me"))
        .respond_with(ResponseTemplate::new(400))
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("Summary of the work on docs/plan.md.")))
        .mount(&upstream)
        .await;
    let app = spawn(compactd::config::Settings {
        prices: compactd::domain::Prices::parse("*=1/0.1/2").unwrap(),
        ..upstream_settings(&upstream.uri(), Duration::from_secs(5))
    })
    .await;
    seed_history(&app).await;
    // Summaries prepared ahead need the background: arranged in the database.
    for arrange in [
        "UPDATE compactions SET prepared = true, prepared_age_ms = 60000
          WHERE id = (SELECT min(id) FROM compactions WHERE success AND at >= '2026-10-18' AND at < '2026-10-19')",
        "INSERT INTO preparations (tenant, conversation_id, seq, planned_at, planned_used, boundary_turn_seq,
                                   through_turn_seq, status, reason, upstream_input_tokens, upstream_output_tokens)
         VALUES ('default', 'c1', 1, '2026-10-18T03:00:00Z', 130000, 0, 1, 'used', NULL, 400, 70),
                ('default', 'c2', 1, '2026-10-18T05:00:00Z', 130000, 0, 1, 'wasted', 'rolled_over', 300, 60)",
    ] {
        sqlx::query(arrange).execute(&app.pool).await.unwrap();
    }
    let (_, stats) = app.get_json(&format!("/stats?{DAY}")).await;
    let (_, everything) = app.get_json("/stats").await;
    assert_ne!(
        total(&stats, "count"),
        total(&everything, "count"),
        "the span leaves one out"
    );
    assert!(
        total(&stats, "failures") > 0 && total(&stats, "successes") > 0,
        "{stats}"
    );

    let fleet = browser::dom(&format!("{}/dashboard?{DAY}", app.address)).await;

    assert!(
        fleet.contains(r#"data-ready="fleet""#),
        "the page finished loading: {fleet}"
    );
    // The first figure: whether the span's compactions paid for themselves.
    let money = &stats["money"];
    assert!(money["saved_calls"].as_u64().unwrap() > 0, "{money}");
    assert!(money["cost_usd"].as_f64().unwrap() > 0.0, "{money}");
    let first_card = regex::Regex::new(r#"data-stat="([^"]+)""#).unwrap();
    assert_eq!(
        &first_card.captures(&fleet).unwrap()[1],
        "net_usd",
        "the net comes first"
    );
    for field in ["net_usd", "saved_usd", "cost_usd", "cache_rewrite_usd"] {
        let (shown, value) = card(&fleet, field);
        let exact = money[field].as_f64().unwrap();
        assert!(
            (value.parse::<f64>().unwrap() - exact).abs() < 1e-12,
            "{field}: {value} against {money}"
        );
        assert!(shown.starts_with("$") || shown.starts_with("-$"), "{field}: {shown}");
    }
    for field in ["saved_tokens", "saved_calls"] {
        let expected = money[field].to_string();
        assert_eq!(card(&fleet, field), (expected.clone(), expected), "{field}");
    }
    for field in ["count", "successes", "failures", "tokens_saved"] {
        let expected = total(&stats, field).to_string();
        assert_eq!(card(&fleet, field), (expected.clone(), expected), "{field}");
    }
    for field in ["rollovers", "declined_rollovers"] {
        let expected = stats[field].to_string();
        assert_eq!(card(&fleet, field), (expected.clone(), expected), "{field}");
    }
    let prepared = &stats["preparation"];
    assert_eq!(
        (prepared["prepared_compactions"].as_u64(), prepared["wasted"].as_u64()),
        (Some(1), Some(1)),
        "{prepared}"
    );
    for (card_name, field) in [
        ("prepared_compactions", "prepared_compactions"),
        ("preparations_used", "used"),
        ("preparations_wasted", "wasted"),
    ] {
        let expected = prepared[field].to_string();
        assert_eq!(card(&fleet, card_name), (expected.clone(), expected), "{card_name}");
    }
    let spent =
        prepared["upstream_input_tokens"].as_u64().unwrap() + prepared["upstream_output_tokens"].as_u64().unwrap();
    assert_eq!(
        card(&fleet, "preparation_tokens"),
        (spent.to_string(), spent.to_string())
    );
    let shown = table_rows(&fleet, "trigger");
    let triggers = stats["triggers"].as_array().unwrap();
    assert_eq!(shown.len(), triggers.len(), "{shown:?}");
    for ((name, cells), t) in shown.iter().zip(triggers) {
        assert_eq!(name, t["trigger"].as_str().unwrap());
        let counts = [&t["count"], &t["successes"], &t["failures"]].map(Value::to_string);
        assert_eq!(cells[1..4], counts, "{name}");
        assert_eq!(cells[7], t["tokens_saved"].to_string(), "{name}");
        // What the trigger's compactions cost, saved and netted, in dollars.
        for (cell, field) in [(8, "cost_usd"), (9, "saved_usd"), (10, "net_usd")] {
            let shown: f64 = cells[cell].replace('$', "").parse().unwrap_or(f64::NAN);
            let exact = t["money"][field].as_f64().unwrap();
            assert!(
                (shown - exact).abs() <= exact.abs() * 1e-3 + 0.005,
                "{name} {field}: {} vs {exact}",
                cells[cell]
            );
        }
        for (cell, field) in [
            (4, "mean_percent_saved"),
            (5, "p50_duration_ms"),
            (6, "p95_duration_ms"),
        ] {
            assert!(
                close(&cells[cell], &t[field]),
                "{name} {field}: {} vs {}",
                cells[cell],
                t[field]
            );
        }
    }
    let decisions: Vec<(String, String)> = table_rows(&fleet, "decision")
        .into_iter()
        .map(|(name, cells)| (name, cells[1].clone()))
        .collect();
    let expected: Vec<(String, String)> = stats["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["decision"].as_str().unwrap().to_owned(), d["count"].to_string()))
        .collect();
    assert_eq!(decisions, expected);
    let kept: Vec<(String, Vec<String>)> = table_rows(&fleet, "kind");
    let rates = stats["keep"].as_array().unwrap();
    assert!(!rates.is_empty(), "{stats}");
    assert_eq!(kept.len(), rates.len(), "{kept:?}");
    for ((kind, cells), rate) in kept.iter().zip(rates) {
        assert_eq!(kind, rate["kind"].as_str().unwrap());
        let figures = [&rate["checked"], &rate["present"], &rate["appended"], &rate["parked"]].map(Value::to_string);
        assert_eq!(cells[1..5], figures, "{kind}");
        let percent = json!(rate["kept_rate"].as_f64().map(|r| r * 100.0));
        assert!(close(&cells[5], &percent), "{kind}: {} vs {percent}", cells[5]);
    }
    let history_rows = regex::Regex::new(r#"<tr data-id=""#).unwrap().find_iter(&fleet).count() as u64;
    assert_eq!(
        history_rows,
        total(&stats, "count"),
        "the history lists the span's attempts"
    );

    let timeline = browser::dom(&format!("{}/dashboard#/conversations/c1", app.address)).await;

    assert!(timeline.contains(r#"data-ready="conversation""#), "{timeline}");
    let usage_points = timeline.matches(r#"<circle"#).count();
    let usage_events = app.events("c1").await.iter().filter(|e| e["kind"] == "usage").count();
    assert_eq!(usage_points, usage_events, "one point per usage report");
    for mark in ["compaction", "decision", "handoff"] {
        let drawn = regex::Regex::new(&format!(r#"<line[^>]*class="mark {mark}""#)).unwrap();
        assert!(drawn.is_match(&timeline), "a {mark} is marked");
    }
    assert!(
        timeline.contains(r##"href="#/conversations/c1-next""##),
        "the lineage links the successor"
    );
    assert!(
        timeline.contains("Summary of the work on docs/plan.md."),
        "the summaries it wrote"
    );
    let (_, keep) = app.get_json("/conversations/c1/keep").await;
    let listed = regex::Regex::new(r#"<tr data-keep-item="([^"]+)""#).unwrap();
    let shown: Vec<String> = listed.captures_iter(&timeline).map(|c| c[1].to_owned()).collect();
    let expected: Vec<String> = keep["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["kind"].as_str().unwrap().to_owned())
        .collect();
    assert!(!expected.is_empty(), "{keep}");
    assert_eq!(shown, expected, "the keep set, in the order a summary takes it");
    assert!(
        timeline.contains(r#"<tr data-keep-kind="#),
        "each compaction's keep figures"
    );

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    browser::screenshot(
        &format!("{}/dashboard?{DAY}", app.address),
        &shots.join("dashboard.png"),
        (1400, 1800),
    )
    .await;
    browser::screenshot(
        &format!("{}/dashboard#/conversations/c1", app.address),
        &shots.join("dashboard-conversation.png"),
        (1400, 1400),
    )
    .await;
    println!("screenshots: {}", shots.display());
}

/// The time axis's labels, left to right.
fn time_labels(dom: &str) -> Vec<String> {
    let label = regex::Regex::new(r#"class="axis time"[^>]*>([^<]+)<"#).unwrap();
    label.captures_iter(dom).map(|c| c[1].to_owned()).collect()
}

#[tokio::test]
async fn the_picker_finds_conversations_by_the_start_of_their_id_newest_first() {
    let app = spawn_app().await;
    for (id, at) in [
        ("replay-a", "2026-10-18T01:00:00Z"),
        ("ticket-1", "2026-10-18T02:00:00Z"),
        ("replay-b", "2026-10-18T03:00:00Z"),
    ] {
        app.report("/usage", json!({"conversation_id": id, "used": 10, "at": at}))
            .await;
    }
    let listed = |dom: &str| -> Vec<String> {
        let item = regex::Regex::new(r#"<li data-conversation="([^"]+)""#).unwrap();
        item.captures_iter(dom).map(|c| c[1].to_owned()).collect()
    };

    let all = browser::dom(&format!("{}/dashboard?{DAY}", app.address)).await;
    assert!(all.contains(r#"data-ready="fleet""#), "{all}");
    assert_eq!(listed(&all), ["replay-b", "ticket-1", "replay-a"], "newest first");
    assert!(
        all.contains(r##"href="#/conversations/replay-b""##),
        "each opens its conversation"
    );

    let replays = browser::dom(&format!("{}/dashboard?{DAY}&conversation=replay-", app.address)).await;
    assert_eq!(listed(&replays), ["replay-b", "replay-a"], "by the start of the id");

    let refused = browser::dom(&format!("{}/dashboard?{DAY}&conversation=%01", app.address)).await;
    assert!(
        refused.contains(r#"data-ready="fleet""#),
        "a prefix the service refuses leaves the fleet's page standing: {refused}"
    );
    assert!(refused.contains("The conversations could not be listed"), "{refused}");
}

#[tokio::test]
async fn a_timeline_reads_on_a_run_of_seconds_and_on_months_and_keeps_one_clock() {
    let app = spawn_app().await;
    // A short run, in the service's clock: three reports within a second or two.
    for used in [1_000, 2_000, 3_000] {
        app.report("/usage", json!({"conversation_id": "short", "used": used}))
            .await;
    }
    // Months, in the agent's clock (a replay's or a hook's transcript times).
    for (used, at) in [
        (1_000, "2026-04-26T09:00:00Z"),
        (9_000, "2026-07-01T09:00:00Z"),
        (4_000, "2026-11-30T09:00:00Z"),
    ] {
        app.report("/usage", json!({"conversation_id": "long", "used": used, "at": at}))
            .await;
    }
    // Both clocks in one conversation: the transcript's times, then the service's.
    app.report(
        "/usage",
        json!({"conversation_id": "mixed", "used": 1_000, "at": "2026-04-26T09:00:00Z"}),
    )
    .await;
    app.report("/usage", json!({"conversation_id": "mixed", "used": 2_000}))
        .await;

    // A hook stores a live session's earlier turns late, in their own times:
    // turns are not drawn, and the timeline keeps the agent's clock.
    for (minute, used) in [(1, 5_000), (2, 6_000)] {
        let at = (chrono::Utc::now() - chrono::Duration::minutes(10 - minute)).to_rfc3339();
        app.report(
            "/turn-ended",
            json!({"conversation_id": "live", "user": "go on", "at": at}),
        )
        .await;
        app.report("/usage", json!({"conversation_id": "live", "used": used}))
            .await;
    }

    let short = browser::dom(&format!("{}/dashboard#/conversations/short", app.address)).await;
    assert!(short.contains(r#"data-ready="conversation""#), "{short}");
    let labels = time_labels(&short);
    assert!(labels.len() >= 3, "{labels:?}");
    let distinct: std::collections::BTreeSet<&String> = labels.iter().collect();
    assert_eq!(distinct.len(), labels.len(), "no two ticks read alike: {labels:?}");
    assert!(
        labels.iter().all(|l| l.len() == 8),
        "seconds on a short run: {labels:?}"
    );
    assert!(short.contains(r#"data-clock="at""#));

    let long = browser::dom(&format!("{}/dashboard#/conversations/long", app.address)).await;
    let labels = time_labels(&long);
    assert!(labels.len() >= 2, "{labels:?}");
    assert!(
        labels
            .iter()
            .all(|l| regex::Regex::new(r"^\d\d-\d\d$").unwrap().is_match(l)),
        "dates over months: {labels:?}"
    );
    assert!(long.contains(r#"data-clock="at""#) && long.contains("times as the agent gave them"));

    let mixed = browser::dom(&format!("{}/dashboard#/conversations/mixed", app.address)).await;
    assert!(
        mixed.contains(r#"data-clock="recorded_at""#),
        "the service's clock for both: {mixed}"
    );
    let labels = time_labels(&mixed);
    assert!(
        labels.iter().all(|l| !l.contains("04-26")),
        "no axis from April to now: {labels:?}"
    );

    let live = browser::dom(&format!("{}/dashboard#/conversations/live", app.address)).await;
    assert!(live.contains(r#"data-clock="at""#), "{live}");
}
