//! Connections a client holds without using them are bounded: headers must
//! come within the deadline, idle keep-alive connections close, and past the
//! cap a connection is answered 503 at once. Raw sockets, as an attacker
//! would use them.

use std::time::Duration;

use compactd::config::ConnectionLimits;
use compactd::config::Settings;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, spawn, test_settings};

/// Far longer than any bound under test: only a hung test ever reaches it.
const FAILSAFE: Duration = Duration::from_secs(20);

async fn spawn_with(limits: ConnectionLimits) -> TestApp {
    spawn(Settings {
        connections: limits,
        ..test_settings()
    })
    .await
}

fn socket_address(app: &TestApp) -> String {
    app.address.trim_start_matches("http://").to_owned()
}

/// Reads until the server closes the connection; answers what it sent.
async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let closed = tokio::time::timeout(FAILSAFE, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the server kept the connection open");
    String::from_utf8_lossy(&received).into_owned()
}

fn quick_headers() -> ConnectionLimits {
    ConnectionLimits {
        header_timeout: Duration::from_millis(500),
        ..ConnectionLimits::default()
    }
}

#[tokio::test]
async fn a_client_that_never_sends_its_headers_is_dropped() {
    let app = spawn_with(quick_headers()).await;
    let mut silent = TcpStream::connect(socket_address(&app)).await.unwrap();
    let received = read_until_closed(&mut silent).await;
    assert!(!received.contains("200 OK"), "{received}");
}

#[tokio::test]
async fn a_client_trickling_its_headers_is_dropped_within_the_deadline() {
    let app = spawn_with(quick_headers()).await;
    let mut trickle = TcpStream::connect(socket_address(&app)).await.unwrap();
    let started = std::time::Instant::now();
    // One byte every 100 ms: each byte is progress, but the head never ends.
    let head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let mut dropped = false;
    for byte in head {
        if trickle.write_all(&[*byte]).await.is_err() {
            dropped = true;
            break;
        }
        let mut probe = [0u8; 1];
        match tokio::time::timeout(Duration::from_millis(100), trickle.read(&mut probe)).await {
            Ok(Ok(0) | Err(_)) => {
                dropped = true;
                break;
            }
            Ok(Ok(_)) => panic!("the server answered an unfinished head"),
            Err(_) => {}
        }
    }
    assert!(dropped, "a trickle of {} bytes was still held", head.len());
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_deadline() {
    let app = spawn_with(quick_headers()).await;
    let mut client = TcpStream::connect(socket_address(&app)).await.unwrap();
    client
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let received = read_until_closed(&mut client).await;
    assert!(received.starts_with("HTTP/1.1 200"), "{received}");
    assert!(
        !received.to_ascii_lowercase().contains("connection: close"),
        "{received}"
    );
}

/// The app with a cap of five connections, held by five silent sockets.
async fn at_the_cap_of_five() -> (TestApp, Vec<TcpStream>) {
    let app = spawn_with(ConnectionLimits {
        max_connections: 5,
        ..ConnectionLimits::default()
    })
    .await;
    let mut silent = Vec::new();
    for _ in 0..5 {
        silent.push(TcpStream::connect(socket_address(&app)).await.unwrap());
    }
    (app, silent)
}

#[tokio::test]
async fn past_the_cap_a_connection_is_answered_503_at_once_and_honest_clients_return_after() {
    let (app, silent) = at_the_cap_of_five().await;
    let mut late = TcpStream::connect(socket_address(&app)).await.unwrap();
    late.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let refused = read_until_closed(&mut late).await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    // A client still sending a body the service never reads gets the 503,
    // not a reset that fails its write before it reads the answer.
    for _ in 0..3 {
        let sent = app
            .client
            .post(format!("{}/usage", app.address))
            .header("content-type", "application/json")
            .body(vec![b' '; 2 * 1024 * 1024])
            .send()
            .await;
        let status = sent.map(|answer| answer.status().as_u16());
        assert!(matches!(status, Ok(503)), "{status:?}");
    }
    assert!(refused.to_ascii_lowercase().contains("retry-after: 1"), "{refused}");
    assert!(refused.contains("/problems/unavailable"), "{refused}");

    drop(silent);
    // The server sees the silent sockets close on its own schedule: ask again until it has.
    let served = tokio::time::timeout(FAILSAFE, async {
        loop {
            let answer = app.client.get(format!("{}/healthz", app.address)).send().await;
            if let Ok(answer) = answer
                && answer.status() == 200
            {
                return;
            }
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(served.is_ok(), "the cap was never given back");
}

#[tokio::test]
async fn a_hundred_fresh_clients_past_the_cap_each_read_the_503_and_none_is_reset() {
    let (app, _silent) = at_the_cap_of_five().await;
    // Each holds its socket until every one has its answer: the refusals
    // overlap, as when a crowd arrives at once.
    let clients = 100;
    let everyone_answered = std::sync::Arc::new(tokio::sync::Barrier::new(clients));
    let mut crowd = Vec::new();
    for _ in 0..clients {
        let address = socket_address(&app);
        let everyone_answered = everyone_answered.clone();
        crowd.push(tokio::spawn(async move {
            let answered = async {
                let mut stream = TcpStream::connect(address).await.ok()?;
                stream
                    .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    .await
                    .ok()?;
                let mut received = Vec::new();
                let mut buffer = [0u8; 1024];
                loop {
                    match tokio::time::timeout(FAILSAFE, stream.read(&mut buffer)).await {
                        Ok(Ok(0)) => break,
                        Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
                        Ok(Err(err)) => {
                            return Some((
                                String::from_utf8_lossy(&received).into_owned(),
                                Some(err.kind()),
                                stream,
                            ));
                        }
                        Err(_) => break,
                    }
                }
                Some((String::from_utf8_lossy(&received).into_owned(), None, stream))
            }
            .await;
            everyone_answered.wait().await;
            answered.map(|(received, error, _stream)| (received, error))
        }));
    }

    let mut refused_properly = 0;
    let mut failures = Vec::new();
    for client in crowd {
        match client.await.unwrap() {
            Some((received, None)) if received.starts_with("HTTP/1.1 503") => refused_properly += 1,
            other => failures.push(format!("{other:?}")),
        }
    }

    assert_eq!(refused_properly, clients, "{failures:?}");
}

#[tokio::test]
async fn an_answer_given_before_the_body_was_read_says_connection_close() {
    let app = crate::helpers::spawn_app().await;
    let unread = app
        .client
        .post(format!("{}/no-such-route", app.address))
        .header("content-type", "application/json")
        .body(r#"{"conversation_id":"c","used":1}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(unread.status(), 404);
    assert_eq!(unread.headers()["connection"], "close");

    let read = app
        .client
        .post(format!("{}/usage", app.address))
        .header("content-type", "application/json")
        .body(r#"{"conversation_id":"c","used":1,"size":1000}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    assert!(read.headers().get("connection").is_none());
}

#[tokio::test]
async fn answers_with_tenant_data_are_neither_cached_nor_sniffed_and_the_docs_cannot_be_framed() {
    let app = crate::helpers::spawn_app().await;
    app.report(
        "/usage",
        serde_json::json!({"conversation_id": "c", "used": 10, "size": 1000}),
    )
    .await;
    let state = app.get("/conversations/c").send().await.unwrap();
    assert_eq!(state.status(), 200);
    assert_eq!(state.headers()["cache-control"], "no-store");
    assert_eq!(state.headers()["x-content-type-options"], "nosniff");

    let docs = app.get("/docs/").send().await.unwrap();
    assert_eq!(docs.status(), 200);
    assert_eq!(docs.headers()["x-frame-options"], "DENY");
    let policy = docs.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert!(policy.contains("default-src 'none'"), "{policy}");

    // The dashboard keeps its own, stricter caching rule.
    let page = app.get("/dashboard").send().await.unwrap();
    assert_eq!(page.headers()["cache-control"], "no-cache");
}

#[tokio::test]
async fn the_api_reference_still_renders_under_its_content_security_policy() {
    let app = crate::helpers::spawn_app().await;
    let page = crate::browser::dom(&format!("{}/docs/", app.address)).await;
    assert!(page.contains(r#"data-path="/turn-ended""#), "Swagger UI did not render");
}

#[tokio::test]
async fn a_post_refused_for_its_key_says_connection_close() {
    let app = crate::helpers::spawn_app().await;
    crate::auth::key(&app, "acme", "agent").await;
    let refused = app
        .post("/usage")
        .json(&serde_json::json!({"conversation_id": "c", "used": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert_eq!(refused.headers()["connection"], "close");
}
