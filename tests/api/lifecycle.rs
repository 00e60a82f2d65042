//! Purging a tenant and retention (issue 25): the background deletes a
//! tenant's conversations, or those idle past the retention, in batches,
//! as DELETE /conversations/{id} deletes one; every batch leaves an audit
//! line, /stats and /metrics count them, and nothing of the content stays.

use std::time::Duration;

use compactd::config::BackgroundSettings;
use serde_json::{Value, json};

use crate::auth::key;
use crate::deletion::{a_conversation_saying_as, every_row};
use crate::helpers::{TestApp, read, spawn, test_settings, until, wait_for_count};
use crate::observability::sample;

const ACME_SECRET: &str = "ACME-SECRET-991";
const GLOBEX_SECRET: &str = "GLOBEX-KEEPS-55";

/// A service whose background looks for purges and idle conversations
/// every few milliseconds, deleting those idle for `retention`.
async fn spawn_with_lifecycle(retention: Option<Duration>) -> TestApp {
    spawn(compactd::config::Settings {
        background: Some(BackgroundSettings {
            lifecycle_every: Duration::from_millis(20),
            idle_sweep_every: None,
            retention,
            retention_every: Duration::from_millis(20),
            ..BackgroundSettings::default()
        }),
        ..test_settings()
    })
    .await
}

async fn get_as(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    read(app.get(path).bearer_auth(key).send().await.unwrap()).await
}

async fn purge_as(app: &TestApp, key: &str, tenant: &str) -> (u16, Value, Option<String>) {
    let response = app
        .post(&format!("/tenants/{tenant}/purges"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    let location = response
        .headers()
        .get("location")
        .map(|value| value.to_str().unwrap().to_owned());
    let (status, body) = read(response).await;
    (status, body, location)
}

async fn purges_stored(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM purges")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_admins_purge_deletes_every_conversation_of_its_tenant_in_batches_and_no_others() {
    let app = spawn_with_lifecycle(None).await;
    let (admin_id, admin) = key(&app, "acme", "admin").await;
    let (_, agent) = key(&app, "acme", "agent").await;
    let (_, reader) = key(&app, "acme", "reader").await;
    let (_, globex) = key(&app, "globex", "agent").await;
    let (_, globex_admin) = key(&app, "globex", "admin").await;
    for n in 0..30 {
        a_conversation_saying_as(&app, Some(&agent), &format!("acme-{n:02}"), ACME_SECRET).await;
    }
    a_conversation_saying_as(&app, Some(&globex), "globex-1", GLOBEX_SECRET).await;
    let (_, stats_before) = get_as(&app, &reader, "/stats").await;

    let (status, asked, location) = purge_as(&app, &admin, "acme").await;

    assert_eq!(status, 202, "{asked}");
    assert_eq!(asked["tenant"], "acme");
    assert_eq!(asked["requested_by"], "api");
    let location = location.expect("a Location to follow");
    assert_eq!(location, format!("/tenants/acme/purges/{}", asked["id"]));
    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM purges WHERE finished_at IS NOT NULL",
        1,
    )
    .await;
    let (status, purge) = get_as(&app, &admin, &location).await;
    assert_eq!(status, 200, "{purge}");
    assert_eq!(purge["status"], "finished", "{purge}");
    assert_eq!(purge["conversations"], 30, "{purge}");
    assert_eq!(purge["turns"], 90, "{purge}");
    assert_eq!(purge["batches"], 2, "25 conversations a batch: {purge}");
    let (status, _) = get_as(&app, &globex_admin, &location).await;
    assert_eq!(status, 404, "another tenant's purge is not found");

    let (_, listed) = get_as(&app, &agent, "/conversations").await;
    assert_eq!(listed["conversations"], json!([]), "{listed}");
    for read in ["/conversations/acme-00", "/conversations/acme-29/turns"] {
        assert_eq!(get_as(&app, &agent, read).await.0, 404, "{read}");
    }
    let named: Vec<String> = every_row(&app.pool)
        .await
        .into_iter()
        .filter(|row| row.contains(ACME_SECRET) || row.contains("acme-"))
        .collect();
    assert!(named.is_empty(), "rows still name what is gone: {named:#?}");
    let (status, kept) = get_as(&app, &globex, "/conversations/globex-1/turns").await;
    assert_eq!(status, 200, "{kept}");
    assert_eq!(
        kept["turns"].as_array().unwrap().len(),
        3,
        "another tenant keeps its own"
    );

    let audit: Vec<(String, Option<String>, i64)> =
        sqlx::query_as("SELECT kind, key_id, conversations FROM deletions WHERE tenant = 'acme' ORDER BY id")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        audit,
        vec![
            ("tenant".to_owned(), Some(admin_id.clone()), 25),
            ("tenant".to_owned(), Some(admin_id), 5)
        ]
    );
    let (_, mut stats_after) = get_as(&app, &reader, "/stats").await;
    assert_eq!(
        stats_after.as_object_mut().unwrap().remove("deletions"),
        Some(json!([{"kind": "tenant", "deletions": 2, "conversations": 30, "turns": 90}]))
    );
    let mut stats_before = stats_before;
    stats_before.as_object_mut().unwrap().remove("deletions");
    assert_eq!(stats_after, stats_before, "the fleet's figures stay right");
}

/// A purge leased to a process that died (its holder silent, its lease
/// minutes from lapsing) is taken up at once by a live one, which renews
/// the lease with every batch.
#[tokio::test]
async fn a_purge_whose_worker_died_is_taken_up_without_waiting_out_its_lease() {
    let app = spawn_with_lifecycle(None).await;
    let (_, agent) = key(&app, "acme", "agent").await;
    for n in 0..3 {
        a_conversation_saying_as(&app, Some(&agent), &format!("acme-{n}"), ACME_SECRET).await;
    }
    let dead = "00000000-0000-4000-8000-00000000dead";
    sqlx::query("INSERT INTO processes (id, seen_at) VALUES ($1::uuid, now() - interval '1 hour')")
        .bind(dead)
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO purges (tenant, requested_by, claimed_at, claimed_by)
         VALUES ('acme', 'command line', now(), $1::uuid)",
    )
    .bind(dead)
    .execute(&app.pool)
    .await
    .unwrap();

    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM purges WHERE finished_at IS NOT NULL",
        1,
    )
    .await;
    let (holder, conversations): (Option<String>, i64) =
        sqlx::query_as("SELECT claimed_by::text, conversations FROM purges WHERE tenant = 'acme'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(conversations, 3);
    let live: Vec<String> =
        sqlx::query_scalar("SELECT id::text FROM processes WHERE seen_at > now() - interval '1 minute'")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert!(
        holder.as_ref().is_some_and(|holder| live.contains(holder)),
        "the live process took it over: {holder:?} among {live:?}"
    );
}

#[tokio::test]
async fn a_purge_deletes_what_the_tenant_had_when_asked_and_the_command_line_takes_it_up() {
    // No background here: the purge waits for the command line.
    let app = spawn(test_settings()).await;
    let (_, admin) = key(&app, "acme", "admin").await;
    let (_, agent) = key(&app, "acme", "agent").await;
    for id in ["early-1", "early-2"] {
        a_conversation_saying_as(&app, Some(&agent), id, ACME_SECRET).await;
    }
    // A caller's clock says nothing about when the service stored it.
    let reported_ahead = json!({"conversation_id": "early-but-dated-ahead", "used": 10, "at": "2099-01-01T00:00:00Z"});
    let (status, _) = read(
        app.post("/usage")
            .bearer_auth(&agent)
            .json(&reported_ahead)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let (status, asked, _) = purge_as(&app, &admin, "acme").await;
    assert_eq!(status, 202, "{asked}");
    let (status, again, _) = purge_as(&app, &admin, "acme").await;
    assert_eq!(
        (status, &again["id"]),
        (200, &asked["id"]),
        "asking again answers the running one: {again}"
    );
    a_conversation_saying_as(&app, Some(&agent), "started-later", "LATER-77").await;
    let reported_behind =
        json!({"conversation_id": "later-but-dated-behind", "used": 10, "at": "2001-01-01T00:00:00Z"});
    let (status, _) = read(
        app.post("/usage")
            .bearer_auth(&agent)
            .json(&reported_behind)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);

    let ran = tokio::process::Command::new(env!("CARGO_BIN_EXE_compactd"))
        .args(["tenants", "purge", "acme"])
        .env("DATABASE_URL", app.database_url())
        .env("RUST_LOG", "warn")
        .output()
        .await
        .unwrap();

    let (stdout, stderr) = (
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr),
    );
    assert!(ran.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains(&format!("Taking up purge {}", asked["id"])), "{stderr}");
    assert!(
        stdout.contains("Purged tenant acme: 3 conversations and 6 turns deleted in 1 batches"),
        "{stdout}"
    );
    let (_, purge) = get_as(&app, &admin, &format!("/tenants/acme/purges/{}", asked["id"])).await;
    assert_eq!(purge["status"], "finished", "{purge}");
    assert_eq!(get_as(&app, &agent, "/conversations/early-1").await.0, 404);
    assert_eq!(
        get_as(&app, &agent, "/conversations/early-but-dated-ahead").await.0,
        404
    );
    assert_eq!(
        get_as(&app, &agent, "/conversations/later-but-dated-behind").await.0,
        200
    );
    let (status, later) = get_as(&app, &agent, "/conversations/started-later/turns").await;
    assert_eq!(
        status, 200,
        "a conversation started after the purge was asked for stays: {later}"
    );
    assert_eq!(later["turns"].as_array().unwrap().len(), 3);
    assert!(!every_row(&app.pool).await.iter().any(|row| row.contains(ACME_SECRET)));

    let (status, next, _) = purge_as(&app, &admin, "acme").await;
    assert_eq!(status, 202, "a finished purge does not stand in for a new one: {next}");
    assert_ne!(next["id"], asked["id"]);
}

#[tokio::test]
async fn only_an_admin_purges_only_its_own_tenant_and_bad_input_changes_nothing() {
    let app = spawn(test_settings()).await;
    let (_, admin) = key(&app, "acme", "admin").await;
    let (_, agent) = key(&app, "acme", "agent").await;
    let (_, reader) = key(&app, "acme", "reader").await;
    let (_, globex_admin) = key(&app, "globex", "admin").await;
    a_conversation_saying_as(&app, Some(&agent), "c", ACME_SECRET).await;

    for (key, tenant, expected) in [
        (&agent, "acme", 403),
        (&reader, "acme", 403),
        (&agent, "no%20such%20tenant", 403),
        (&globex_admin, "acme", 404),
        (&admin, "globex", 404),
        (&admin, "no%20such%20tenant", 422),
        (&admin, &"a".repeat(65), 422),
    ] {
        let (status, problem, _) = purge_as(&app, key, tenant).await;
        assert_eq!(status, expected, "{tenant}: {problem}");
        assert!(problem["title"].is_string(), "a problem: {problem}");
    }
    let unauthenticated = app.post("/tenants/acme/purges").send().await.unwrap();
    assert_eq!(unauthenticated.status(), 401);
    for (key, path, expected) in [
        (&admin, "/tenants/acme/purges/0", 422),
        (&admin, "/tenants/acme/purges/abc", 422),
        (&admin, "/tenants/acme/purges/99999999999999999999", 422),
        (&admin, "/tenants/acme/purges/7", 404),
        (&globex_admin, "/tenants/acme/purges/7", 404),
        (&agent, "/tenants/acme/purges/7", 403),
    ] {
        let (status, problem) = get_as(&app, key, path).await;
        assert_eq!(status, expected, "{path}: {problem}");
    }
    assert_eq!(purges_stored(&app).await, 0, "nothing was asked for");
    assert_eq!(get_as(&app, &agent, "/conversations/c").await.0, 200);
}

#[tokio::test]
async fn conversations_idle_past_the_retention_are_deleted_by_the_background() {
    // Days, not hours: the sweep finds candidates by the day of their last
    // write, so an idle spell of hours behaves differently just after
    // midnight (UTC) than at noon, and this test must not depend on when it runs.
    let app = spawn_with_lifecycle(Some(Duration::from_secs(2 * 86_400))).await;
    let secret = |id: &str| format!("SECRET-{}-END", id.to_uppercase());
    for id in ["old", "old-written-to-since", "old-being-compacted", "fresh"] {
        a_conversation_saying_as(&app, None, id, &secret(id)).await;
    }
    app.report("/usage", json!({"conversation_id": "old-usage-only", "used": 10}))
        .await;
    // Its caller's clock runs years ahead: retention goes by the service's.
    app.report(
        "/usage",
        json!({"conversation_id": "old-dated-ahead", "used": 10, "at": "2099-01-01T00:00:00Z"}),
    )
    .await;
    // Nothing written for three days, as far as the service's clock goes
    // (a write sets both the time and the day); one of them is being
    // compacted now (its claim is fresh).
    sqlx::query(
        "UPDATE conversations SET updated_at = now() - interval '3 days',
                active_on = ((now() - interval '3 days') AT TIME ZONE 'UTC')::date,
                compacting_since = CASE WHEN conversation_id = 'old-being-compacted' THEN now() END
          WHERE conversation_id NOT IN ('fresh', 'old-written-to-since')",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    // Its day says three days ago, but it was written to since: the sweep
    // finds it by its day and keeps it by its time. (Made idle and then
    // written to over HTTP, it could be swept in between, as it should be.)
    sqlx::query(
        "UPDATE conversations SET active_on = ((now() - interval '3 days') AT TIME ZONE 'UTC')::date
          WHERE conversation_id = 'old-written-to-since'",
    )
    .execute(&app.pool)
    .await
    .unwrap();

    wait_for_count(
        &app.pool,
        "SELECT coalesce(sum(conversations), 0)::bigint FROM deletions WHERE kind = 'retention'",
        3,
    )
    .await;

    for gone in ["old", "old-usage-only", "old-dated-ahead"] {
        assert_eq!(app.get_json(&format!("/conversations/{gone}")).await.0, 404, "{gone}");
    }
    for kept in ["old-written-to-since", "old-being-compacted", "fresh"] {
        assert_eq!(app.get_json(&format!("/conversations/{kept}")).await.0, 200, "{kept}");
    }
    let rows = every_row(&app.pool).await;
    let left: Vec<&String> = rows
        .iter()
        .filter(|row| row.contains(&secret("old")) || row.contains("old-usage-only") || row.contains("old-dated-ahead"))
        .collect();
    assert!(left.is_empty(), "rows still hold what is gone: {left:#?}");
    assert!(
        rows.iter().any(|row| row.contains(&secret("fresh"))),
        "the check sees what stays"
    );
    let ledger: Vec<bool> = sqlx::query_scalar(
        "SELECT summary IS NULL AND conversation_id LIKE chr(127) || 'deleted %' FROM compactions
          WHERE deleted_at IS NOT NULL",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        ledger,
        vec![true],
        "the old conversation's ledger row stays, without its content"
    );
    let (_, stats) = app.get_json("/stats").await;
    let retained = &stats["deletions"][0];
    assert_eq!(retained["kind"], "retention", "{stats}");
    assert_eq!(retained["conversations"], 3, "{stats}");
    assert_eq!(retained["turns"], 3, "{stats}");
    // The sweep counts a batch once it has committed it, so the count may
    // trail the audit line it waited for by a moment.
    let counted = until(Duration::from_secs(10), || async {
        let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
        sample(
            &metrics,
            "compactd_deleted_conversations_total",
            &[("kind", "retention")],
        ) >= Some(3.0)
    })
    .await;
    assert!(counted, "/metrics counts the three conversations retention deleted");
}

#[tokio::test]
async fn a_purge_beside_agents_still_writing_to_the_tenant_fails_no_request_and_ends() {
    let app = spawn_with_lifecycle(None).await;
    let (_, admin) = key(&app, "acme", "admin").await;
    let (_, agent) = key(&app, "acme", "agent").await;
    for n in 0..60 {
        a_conversation_saying_as(&app, Some(&agent), &format!("busy-{n:02}"), ACME_SECRET).await;
    }
    // Handoffs link conversations across batches, both ways.
    for (from, to) in [("busy-03", "busy-41"), ("busy-42", "busy-07"), ("busy-24", "busy-25")] {
        let (status, body) = read(
            app.post("/handoff")
                .bearer_auth(&agent)
                .json(&json!({"conversation_id": from, "successor_id": to}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert!(status == 200 || status == 409, "{body}");
    }
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let (client, address, agent) = (app.client.clone(), app.address.clone(), agent.clone());
            tokio::spawn(async move {
                let mut statuses = Vec::new();
                for n in 0..60 {
                    let id = format!("busy-{:02}", (n * 7 + writer * 13) % 60);
                    let response = client
                        .post(format!("{address}/turn-ended"))
                        .bearer_auth(&agent)
                        .json(&json!({"conversation_id": id, "user": "still here"}))
                        .send()
                        .await
                        .unwrap();
                    statuses.push(response.status().as_u16());
                }
                statuses
            })
        })
        .collect();

    let (status, asked, _) = purge_as(&app, &admin, "acme").await;
    assert_eq!(status, 202, "{asked}");
    let mut statuses = Vec::new();
    for writer in writers {
        statuses.extend(writer.await.unwrap());
    }
    wait_for_count(
        &app.pool,
        "SELECT count(*) FROM purges WHERE finished_at IS NOT NULL",
        1,
    )
    .await;

    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
    let (_, purge) = get_as(&app, &admin, &format!("/tenants/acme/purges/{}", asked["id"])).await;
    assert_eq!(purge["status"], "finished", "{purge}");
    let stored_before: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM conversations WHERE tenant = 'acme'
            AND stored_at <= (SELECT requested_at FROM purges WHERE tenant = 'acme')",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(stored_before, 0, "every conversation stored before the purge is gone");
}
