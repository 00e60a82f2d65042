//! Accepting connections with bounds a hostile or broken client cannot
//! stretch: headers must arrive within a deadline (which also closes an idle
//! keep-alive connection, since hyper restarts it while waiting for the next
//! request), the service holds at most so many connections (past that, a
//! quick 503 and close), and its soft file limit is raised to the hard one so
//! the cap, not the kernel, is what turns clients away.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use nix::sys::resource::{Resource, getrlimit, setrlimit};

use crate::config::ConnectionLimits;
use crate::http::connection::Connection;

/// File descriptors kept back from the connection cap: the database pool,
/// the upstream client, logs, the tokenizer's files.
const RESERVED_FILES: u64 = 256;
/// After an accept error that is not the client's (the file limit, memory):
/// a pause so the loop does not spin while the condition lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// How long a connection turned away at the cap may take to receive its 503.
const TURN_AWAY_WITHIN: Duration = Duration::from_secs(1);

/// `limits` with a cap that fits under the process's file limit, beside
/// the service's own files and the sockets being turned away: what is kept
/// back is at most half of the limit, so a low limit (256) still leaves a
/// cap that one idle socket cannot fill (128, not 1).
pub(crate) fn fitted(limits: ConnectionLimits, open_files: u64) -> ConnectionLimits {
    let turning_away = u64::try_from(limits.turning_away).unwrap_or(u64::MAX);
    let reserved = RESERVED_FILES.saturating_add(turning_away).min(open_files / 2);
    let room = usize::try_from(open_files.saturating_sub(reserved)).unwrap_or(usize::MAX);
    // Of what is kept back, the service's own files come first.
    let for_turning_away = reserved.saturating_sub(RESERVED_FILES.min(reserved / 2));
    ConnectionLimits {
        max_connections: limits.max_connections.min(room.max(1)),
        turning_away: usize::try_from(for_turning_away.min(turning_away).max(1)).unwrap_or(1),
        ..limits
    }
}

/// Raises the soft limit on open files to the hard one and answers the
/// limit now in force (`None`: it could not be read).
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        return Some(hard);
    }
    Some(soft)
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets the
/// requests in flight finish (the listener stays open: connections that
/// arrive meanwhile wait for whoever serves it next).
pub(crate) async fn serve(
    listener: &TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let turning_away = Arc::new(Semaphore::new(limits.turning_away.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    if !is_the_clients(&err) {
                        tracing::warn!(%err, "could not accept a connection");
                        tokio::time::sleep(ACCEPT_BACKOFF).await;
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            metrics::counter!("compactd_connections_refused_total").increment(1);
            match turning_away.clone().try_acquire_owned() {
                Ok(turning) => {
                    tokio::spawn(async move {
                        turn_away(stream).await;
                        drop(turning);
                    });
                }
                // Past even that: the answer if the socket takes it now, then
                // the close (a reset if the request had already come).
                Err(_) => {
                    let _ = stream.try_write(AT_CAPACITY);
                }
            }
            continue;
        };
        // Answers are small and written whole: waiting to coalesce them only adds latency.
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let handle = Connection::default();
        let given = handle.clone();
        let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(given.clone());
            router.clone().oneshot(request)
        });
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            tokio::select! {
                // Severed first: a severed connection's remaining bytes are
                // not to be sent.
                biased;
                () = handle.severed() => tracing::debug!(%peer, "connection severed"),
                served = connection => if let Err(err) = served {
                    tracing::debug!(%err, %peer, "connection ended with an error");
                },
            }
            drop(permit);
        });
    }
    graceful.shutdown().await;
    Ok(())
}

/// Errors that concern one connection only (it was reset before we took
/// it): the next accept is fine.
fn is_the_clients(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused
    )
}

/// The answer past the cap, given without reading more than the request's head.
const AT_CAPACITY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: application/problem+json\r\n\
retry-after: 1\r\n\
connection: close\r\n\
content-length: 122\r\n\
\r\n\
{\"type\":\"/problems/unavailable\",\"title\":\"Service unavailable\",\"status\":503,\"detail\":\"too many connections; retry shortly\"}";

/// What a connection turned away may have sent that is read and dropped
/// before it is closed (within [`TURN_AWAY_WITHIN`]): a body as large as
/// the service accepts.
const DRAIN_BYTES: usize = 8 * 1024 * 1024;
/// How long a connection turned away is given to send its request's head,
/// and how much of it is looked at.
const HEAD_WITHIN: Duration = Duration::from_millis(250);
const HEAD_BYTES: usize = 16 * 1024;
/// Connections are turned away at once up to `ConnectionLimits::turning_away`
/// (1,024 by default, fitted under the file limit), each a task and a small
/// buffer for at most [`TURN_AWAY_WITHIN`]; past that, one is closed at once
/// (a flood at the cap must not cost a task and a buffer per socket). At 64,
/// 29 of 93 fresh clients refused at once got a reset or nothing (issue 37):
/// a client holds its socket until it has read the answer, so the turning
/// away outlasts the arrivals.
/// Each one's buffer, for the head it looks at and what it drains.
const TURN_AWAY_BUFFER: usize = 4 * 1024;

/// Answers 503 and closes, as a client expects it: after its request's head
/// (or a short wait for it), and with what it sends meanwhile read before
/// the close, for a socket closed with unread bytes is reset, and a reset
/// fails a client still writing its body before it reads the 503.
async fn turn_away(mut stream: TcpStream) {
    use tokio::io::AsyncReadExt;
    let answered = tokio::time::timeout(TURN_AWAY_WITHIN, async {
        let mut buffer = vec![0u8; TURN_AWAY_BUFFER];
        let mut read = 0;
        // The last three bytes of what came before, for a head's end split across reads.
        let mut tail: Vec<u8> = Vec::with_capacity(3 + buffer.len());
        let _ = tokio::time::timeout(HEAD_WITHIN, async {
            while read < HEAD_BYTES {
                let n = match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                read += n;
                tail.extend_from_slice(&buffer[..n]);
                if tail.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
                let keep = tail.len().saturating_sub(3);
                tail.drain(..keep);
            }
        })
        .await;
        stream.write_all(AT_CAPACITY).await?;
        stream.shutdown().await?;
        let mut drained = read;
        while drained < DRAIN_BYTES {
            match stream.read(&mut buffer).await? {
                0 => break,
                n => drained += n,
            }
        }
        Ok::<(), io::Error>(())
    })
    .await;
    if let Ok(Err(err)) = answered {
        tracing::debug!(%err, "could not answer a connection past the cap");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_declares_its_body_exactly() {
        let text = std::str::from_utf8(AT_CAPACITY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let declared: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(declared, body.len());
        let problem: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(problem["status"], 503);
    }

    #[test]
    fn the_cap_leaves_room_for_the_services_own_files() {
        let limits = ConnectionLimits {
            max_connections: 10_000,
            ..ConnectionLimits::default()
        };
        assert_eq!(fitted(limits, 1024).max_connections, 512);
        assert_eq!(fitted(limits, 1024).turning_away, 256, "half of what is kept back");
        assert_eq!(fitted(limits, 1_048_576).max_connections, 10_000);
        assert_eq!(fitted(limits, 1_048_576).turning_away, 1024);
        let near_the_limit = fitted(limits, 11_000);
        assert!(
            near_the_limit.max_connections + near_the_limit.turning_away + 256 <= 11_000,
            "{near_the_limit:?}"
        );
        assert_eq!(
            fitted(limits, 256).max_connections,
            128,
            "a low limit keeps half for connections, not 1"
        );
        assert_eq!(fitted(limits, 10).max_connections, 5);
        assert_eq!(fitted(limits, 1).max_connections, 1);
    }
}
