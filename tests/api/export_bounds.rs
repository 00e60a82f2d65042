//! Exports are bounded like any read (issue 37, SPEC §3): a stalled reader
//! takes no connection from anyone else, is cut off with its transaction
//! after the stall time, no export outlives its deadline, a tenant has one
//! at a time and the process a few, and stopping does not wait for them.

use std::time::Duration;

use compactd::config::{Settings, WorkLimits};
use compactd::startup::Application;
use compactd::store;
use serde_json::json;
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use crate::auth::key;
use crate::helpers::{TestApp, admin_options, spawn_with_pool, test_settings, until};

/// Turns of this many bytes: a few make a document larger than what the
/// sockets between the service and a reader hold.
const TURN_BYTES: i64 = 3_500_000;

fn with_work(work: WorkLimits) -> Settings {
    Settings {
        work,
        max_body_bytes: 8 * 1024 * 1024,
        ..test_settings()
    }
}

/// A conversation of `turns` long turns for `key`'s tenant, stored as
/// `/turn-ended` stores them (straight into the table: the texts are
/// what matters here, not their extraction).
async fn long_conversation(app: &TestApp, key: &str, id: &str, turns: i64) {
    long_conversation_at(&app.address, &app.pool, key, id, turns).await;
}

async fn long_conversation_at(address: &str, pool: &PgPool, key: &str, id: &str, turns: i64) {
    let mut report = reqwest::Client::new()
        .post(format!("{address}/usage"))
        .json(&json!({"conversation_id": id, "used": 5}));
    if !key.is_empty() {
        report = report.bearer_auth(key);
    }
    let reported = report.send().await.unwrap();
    assert_eq!(reported.status(), 200);
    let tenant: String = sqlx::query_scalar(
        "SELECT tenant FROM conversations WHERE conversation_id = $1 ORDER BY stored_at DESC LIMIT 1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO turns (tenant, conversation_id, seq, at, user_messages, user_text, assistant_text)
         SELECT $1, $2, n, now(), 1, repeat('the billing retry queue ', $3::int / 24), 'done'
         FROM generate_series(1, $4::bigint) n",
    )
    .bind(&tenant)
    .bind(id)
    .bind(TURN_BYTES)
    .bind(turns)
    .execute(pool)
    .await
    .unwrap();
}

/// Asks for an export and reads no more than its status line: a reader that
/// stalled. Answers the status and the socket (held open, never read).
async fn stalled_export(app: &TestApp, key: &str, id: &str) -> (u16, TcpStream) {
    stalled_export_at(&app.address, key, id).await
}

async fn stalled_export_at(address: &str, key: &str, id: &str) -> (u16, TcpStream) {
    let address = address.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).await.unwrap();
    let authorization = if key.is_empty() {
        String::new()
    } else {
        format!("Authorization: Bearer {key}\r\n")
    };
    let request = format!("GET /conversations/{id}/export HTTP/1.1\r\nHost: {address}\r\n{authorization}\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut status_line = [0u8; 12];
    stream.read_exact(&mut status_line).await.unwrap();
    let status = std::str::from_utf8(&status_line[9..12]).unwrap().parse().unwrap();
    (status, stream)
}

/// Sessions of the app's database in an export's transaction, as Postgres
/// sees them: known by the statements only an export runs, so a background
/// worker's transaction at the same moment is not counted as one.
async fn transactions_open(pool: &PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity
         WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid()
           AND (query LIKE '%idle_in_transaction_session_timeout%' OR query LIKE '%to_jsonb%')",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Reads what the service still sends until it closes the connection:
/// whether it ended the chunked body properly, and how much came.
async fn read_to_the_end(stream: &mut TcpStream, within: Duration) -> (bool, usize) {
    let mut received = Vec::new();
    let read = tokio::time::timeout(within, async {
        let mut buffer = vec![0u8; 1 << 16];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the service kept the connection open");
    (received.ends_with(b"0\r\n\r\n"), received.len())
}

#[tokio::test]
async fn sixteen_stalled_exports_leave_another_tenants_reports_answered() {
    // Four connections for requests: before, each stalled export held one.
    let app = spawn_with_pool(with_work(WorkLimits::default()), 4).await;
    let (_, reader) = key(&app, "busy", "agent").await;
    long_conversation(&app, &reader, "big", 8).await;
    let (_, other) = key(&app, "other", "agent").await;

    let mut stalled = Vec::new();
    for _ in 0..16 {
        stalled.push(stalled_export(&app, &reader, "big").await);
    }

    let statuses: Vec<u16> = stalled.iter().map(|(status, _)| *status).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 1, "{statuses:?}");
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        15,
        "one export a tenant at a time: {statuses:?}"
    );
    for n in 0..25 {
        let answer = app
            .post("/usage")
            .bearer_auth(&other)
            .json(&json!({"conversation_id": "steady", "used": 1_000 + n}))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "report {n} of another tenant");
    }
}

#[tokio::test]
async fn the_process_runs_a_few_exports_at_once_and_turns_the_rest_away() {
    let work = WorkLimits {
        exports_at_once: 2,
        ..WorkLimits::default()
    };
    let app = spawn_with_pool(with_work(work), 4).await;
    let mut keys = Vec::new();
    for n in 0..3 {
        let (_, agent) = key(&app, &format!("tenant-{n}"), "agent").await;
        long_conversation(&app, &agent, "big", 8).await;
        keys.push(agent);
    }

    let mut stalled = Vec::new();
    for agent in &keys {
        stalled.push(stalled_export(&app, agent, "big").await);
    }

    let statuses: Vec<u16> = stalled.iter().map(|(status, _)| *status).collect();
    assert_eq!(statuses, [200, 200, 503]);
    let open = transactions_open(&app.pool).await;
    assert!(open <= 2, "no more export transactions than exports: {open}");
}

/// An app held to `work`, a tenant's agent key, and its conversation `big`
/// of eight long turns, whose export has begun: its status and socket.
async fn exporting_under(work: WorkLimits) -> (TestApp, String, u16, TcpStream) {
    let app = spawn_with_pool(with_work(work), 4).await;
    let (_, agent) = key(&app, "acme", "agent").await;
    long_conversation(&app, &agent, "big", 8).await;
    let (status, stream) = stalled_export(&app, &agent, "big").await;
    (app, agent, status, stream)
}

#[tokio::test]
async fn a_reader_that_takes_nothing_is_cut_off_with_its_transaction() {
    let (app, agent, status, mut stream) = exporting_under(WorkLimits {
        export_stall: Duration::from_secs(1),
        ..WorkLimits::default()
    })
    .await;
    assert_eq!(status, 200);
    assert!(
        until(Duration::from_secs(5), || async {
            transactions_open(&app.pool).await > 0
        })
        .await,
        "the export's snapshot is open while it is read"
    );

    let ended = until(Duration::from_secs(20), || async {
        transactions_open(&app.pool).await == 0
    })
    .await;

    assert!(ended, "the stalled export's transaction was ended");
    let (finished, received) = read_to_the_end(&mut stream, Duration::from_secs(20)).await;
    assert!(!finished, "cut off, never a whole-looking document ({received} bytes)");
    assert!(received < 8 * TURN_BYTES as usize, "{received} bytes");
    let (again, _) = stalled_export(&app, &agent, "big").await;
    assert_eq!(again, 200, "its place is free again");
}

#[tokio::test]
async fn no_export_outlives_its_deadline_however_steadily_it_is_read() {
    let (app, _, status, mut stream) = exporting_under(WorkLimits {
        export_deadline: Duration::from_secs(2),
        ..WorkLimits::default()
    })
    .await;
    assert_eq!(status, 200);

    // A reader that takes 64 KiB every 50 ms: 28 MB would take 20 s.
    let started = tokio::time::Instant::now();
    let mut received = 0_usize;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut finished = false;
    while started.elapsed() < Duration::from_secs(30) {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) | Err(_) => break,
            Ok(Ok(n)) => {
                received += n;
                finished = buffer[..n].ends_with(b"0\r\n\r\n");
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    assert!(!finished, "cut off at its deadline ({received} bytes)");
    assert!(started.elapsed() < Duration::from_secs(30), "closed by the service");
    assert!(
        until(Duration::from_secs(5), || async {
            transactions_open(&app.pool).await == 0
        })
        .await,
        "no transaction left"
    );
}

#[tokio::test]
async fn stopping_does_not_wait_for_a_stalled_export() {
    let database = crate::helpers::Database::create().await;
    let pool = store::pool(admin_options().database(&database.name), 4);
    let app = Application::build(with_work(WorkLimits::default()), pool.clone())
        .await
        .expect("the app builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    let (stop, stopped) = oneshot::channel::<()>();
    let running = tokio::spawn(app.run_until(async {
        stopped.await.ok();
    }));
    long_conversation_at(&address, &pool, "", "big", 8).await;
    let (status, _stream) = stalled_export_at(&address, "", "big").await;
    assert_eq!(status, 200);

    stop.send(()).unwrap();

    let ended = tokio::time::timeout(Duration::from_secs(10), running).await;
    assert!(ended.is_ok(), "stopped within seconds, not the reader's 30 s");
}

/// The service's memory once it stops moving: four samples, 300 ms apart,
/// within a MiB of each other.
async fn steady_rss(service: &crate::binary::Service) -> f64 {
    let mut samples: Vec<f64> = Vec::new();
    let steady = until(Duration::from_secs(20), || {
        samples.push(service.rss_mib());
        let last: Vec<f64> = samples.iter().rev().take(4).copied().collect();
        async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let (low, high) = last
                .iter()
                .fold((f64::MAX, 0.0_f64), |(l, h), s| (l.min(*s), h.max(*s)));
            last.len() == 4 && high - low < 1.0
        }
    })
    .await;
    let now = samples.last().copied().unwrap_or_default();
    assert!(steady, "its memory kept moving: {samples:?}");
    now
}

#[tokio::test]
async fn a_stalled_reader_costs_a_page_not_the_conversation_and_its_memory_goes_back() {
    let database = crate::helpers::Database::create().await;
    let service = crate::binary::start(
        &[
            ("DATABASE_URL", database.url().as_str()),
            ("COMPACTD_BACKGROUND", "false"),
            ("COMPACTD_EXPORT_STALL_SECS", "2"),
        ],
        &[],
    )
    .await;
    // 16 turns of 3.5 MB: before, a stalled reader held four pages of eight.
    long_conversation_at(&service.address, &database.pool, "", "big", 16).await;
    // Its memory once start-up's work (the tokenizer's warm-up) is done.
    let before = steady_rss(&service).await;

    let (status, stream) = stalled_export_at(&service.address, "", "big").await;
    assert_eq!(status, 200);
    assert!(
        until(Duration::from_secs(10), || async {
            transactions_open(&database.pool).await > 0
        })
        .await,
        "the export is reading"
    );
    let stalled = steady_rss(&service).await;
    assert!(
        stalled - before < 48.0,
        "a stalled reader cost {:.0} MiB (from {before:.0})",
        stalled - before
    );
    assert!(
        until(Duration::from_secs(20), || async {
            transactions_open(&database.pool).await == 0
        })
        .await,
        "cut off"
    );
    drop(stream);
    let returned = until(Duration::from_secs(10), || async { service.rss_mib() - before < 24.0 }).await;
    assert!(
        returned,
        "{:.0} MiB after the reader closed, from {before:.0}",
        service.rss_mib()
    );
}
