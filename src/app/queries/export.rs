//! Everything stored about a conversation as one JSON document (SPEC §3,
//! issue 25), streamed as it is read: its own row, then its turns, events,
//! ledger rows, preparations and keep set page by page, all from one
//! snapshot (a repeatable-read, read-only transaction), so the parts agree
//! with each other however long the document takes to send.
//!
//! Bounded like any read (issue 37): a few exports at once per process and
//! one per tenant, on connections of their own (a stalled reader never holds
//! one of the requests' pool), pages of at most [`PAGE_BYTES`], a reader
//! that takes nothing for the stall time is cut off (its transaction ended,
//! its connection closed), no export outlives its deadline, and a stopping
//! service cuts the exports still running rather than wait for them.

use std::time::Duration;

use sqlx::PgConnection;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::app::{AppResult, Refusal, Services};
use crate::domain::{ConversationId, TenantId};
use crate::store::export::{self, KeepCursor, Paged};
use crate::store::{StoreError, statements};

/// The document's format, named in it so a reader can tell later ones.
pub(crate) const FORMAT: &str = "compactd-export/1";

/// The most text one page reads and one chunk carries (a row longer than
/// that is read alone and sent in pieces).
pub(crate) const PAGE_BYTES: usize = 1024 * 1024;
/// Rows a page reads at most, however short they are.
const PAGE_ROWS: i64 = 500;
/// How many chunks may wait for a slow reader before reading pauses.
const AHEAD: usize = 2;
/// Past the stall time, Postgres itself ends a transaction left idle, should
/// this process fail to.
const SERVER_GRACE: Duration = Duration::from_secs(5);

/// The document's chunks, in order, then `None`: its end. An `Err`, or the
/// chunks stopping without their end, leaves it unfinished (the reader sees
/// a cut-off document, never a whole-looking one).
pub(crate) type Chunks = mpsc::Receiver<Result<Option<Vec<u8>>, Refusal>>;

/// Closes the reader's connection: what an export does when it stops early
/// and its reader may not be reading (a stalled socket is never polled).
pub(crate) type Sever = Box<dyn Fn() + Send + Sync>;

/// Starts exporting the conversation; not found before anything is sent.
pub(crate) async fn export(
    services: &Services,
    tenant: TenantId,
    id: ConversationId,
    sever: Sever,
) -> AppResult<Chunks> {
    let exports = services.exports.clone();
    let pass = exports.gate.enter_now(&tenant)?;
    let mut tx = exports.pool.begin().await.map_err(StoreError::from)?;
    statements::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    // Should this process fail to end it, Postgres does.
    let server_limit = format!("{}ms", (exports.stall + SERVER_GRACE).as_millis());
    statements::query(
        "SELECT set_config('idle_in_transaction_session_timeout', $1, true), set_config('statement_timeout', $1, true)",
    )
    .bind(server_limit)
    .execute(&mut *tx)
    .await?;
    let Some(row) = export::conversation(&mut tx, &tenant, &id).await? else {
        return Err(Refusal::no_conversation(&id));
    };
    let head = format!(
        "{{\"format\":{format},\"tenant\":{tenant},\"conversation_id\":{id},\"exported_at\":{at},\"conversation\":{row}",
        format = json_string(FORMAT),
        tenant = json_string(tenant.as_str()),
        id = json_string(id.as_str()),
        at = json_string(&chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true)),
    );
    let (send, chunks) = mpsc::channel(AHEAD);
    // The snapshot is taken by the first read and held to the last, in a
    // task of its own that reads at the reader's pace.
    tokio::spawn(async move {
        let started = Instant::now();
        let mut out = Out {
            send,
            stall: exports.stall,
            pending: Vec::new(),
        };
        let written = async {
            out.push(head.as_bytes()).await?;
            write_parts(&mut tx, &tenant, &id, &mut out).await?;
            out.flush().await?;
            Ok::<_, Stop>(())
        };
        let ended = tokio::select! {
            ended = tokio::time::timeout(exports.deadline, written) => ended.unwrap_or(Err(Stop::Deadline)),
            () = stopping(exports.stopping.clone()) => Err(Stop::Stopping),
        };
        // Read-only: nothing to commit. Ended now, before the reader has
        // the last pages, not when the connection is next used: a slow
        // reader holds back nobody's vacuum.
        let _ = tokio::time::timeout(SERVER_GRACE, tx.rollback()).await;
        let ended = match ended {
            Ok(()) => tokio::select! {
                ended = out.end() => ended,
                () = stopping(exports.stopping.clone()) => Err(Stop::Stopping),
            },
            Err(stop) => Err(stop),
        };
        finish(ended, out, &sever, started).await;
        drop(pass);
        // The last bytes sit in the server's buffers now, and the response
        // closes its connection once they are sent: a reader that never
        // takes them is cut off all the same.
        tokio::select! {
            () = tokio::time::sleep(exports.stall) => {}
            () = stopping(exports.stopping.clone()) => {}
        }
        sever();
    });
    Ok(chunks)
}

/// How the export ended, told to the reader, the log and `/metrics`; the
/// transaction is over by now.
async fn finish(ended: Result<(), Stop>, out: Out, sever: &Sever, started: Instant) {
    let outcome = match ended {
        Ok(()) => "sent",
        Err(Stop::Gone) => "reader_gone",
        Err(Stop::Failed(err)) => {
            tracing::warn!(%err, "an export failed mid-way");
            // The reader sees the document end unfinished; one not reading
            // is cut off with its connection.
            let told = tokio::time::timeout(out.stall, out.send.send(Err(err.into()))).await;
            if !matches!(told, Ok(Ok(()))) {
                sever();
            }
            "failed"
        }
        Err(stop) => {
            tracing::info!(
                why = stop.why(),
                after = ?started.elapsed(),
                "an export was cut off"
            );
            sever();
            stop.why()
        }
    };
    metrics::counter!("compactd_exports_total", "outcome" => outcome).increment(1);
}

/// Resolves once the service begins to stop (never, if nobody can say so).
async fn stopping(mut stopping: watch::Receiver<bool>) {
    if stopping.wait_for(|stopping| *stopping).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Why writing the document stopped early.
enum Stop {
    /// The reader went away: nothing more to do.
    Gone,
    /// The reader took nothing for the stall time.
    Stalled,
    /// The export took longer than any may.
    Deadline,
    /// The service is stopping.
    Stopping,
    Failed(StoreError),
}

impl Stop {
    const fn why(&self) -> &'static str {
        match self {
            Self::Gone => "reader_gone",
            Self::Stalled => "stalled",
            Self::Deadline => "deadline",
            Self::Stopping => "stopping",
            Self::Failed(_) => "failed",
        }
    }
}

impl From<StoreError> for Stop {
    fn from(err: StoreError) -> Self {
        Self::Failed(err)
    }
}

impl From<sqlx::Error> for Stop {
    fn from(err: sqlx::Error) -> Self {
        Self::Failed(err.into())
    }
}

/// The document on its way out, in chunks of at most [`PAGE_BYTES`].
struct Out {
    send: mpsc::Sender<Result<Option<Vec<u8>>, Refusal>>,
    stall: Duration,
    pending: Vec<u8>,
}

impl Out {
    /// Adds `bytes`, sending each chunk as it fills.
    async fn push(&mut self, mut bytes: &[u8]) -> Result<(), Stop> {
        while !bytes.is_empty() {
            let room = PAGE_BYTES - self.pending.len();
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.pending.extend_from_slice(now);
            bytes = later;
            if self.pending.len() == PAGE_BYTES {
                self.flush().await?;
            }
        }
        Ok(())
    }

    /// Sends what is pending, waiting at most the stall time for the reader.
    async fn flush(&mut self) -> Result<(), Stop> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.pending);
        self.send_within_stall(Some(chunk)).await
    }

    async fn send_within_stall(&self, piece: Option<Vec<u8>>) -> Result<(), Stop> {
        match tokio::time::timeout(self.stall, self.send.send(Ok(piece))).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(Stop::Gone),
            Err(_) => Err(Stop::Stalled),
        }
    }

    /// Says the document is whole, and waits, at most the stall time, for
    /// the reader to take what is left of it: its place (and the memory
    /// the chunks hold) is given back only then.
    async fn end(&self) -> Result<(), Stop> {
        self.send_within_stall(None).await?;
        tokio::time::timeout(self.stall, self.send.closed())
            .await
            .map_err(|_| Stop::Stalled)
    }
}

/// Each paged part, then the keep set, then the document's end.
async fn write_parts(tx: &mut PgConnection, tenant: &TenantId, id: &ConversationId, out: &mut Out) -> Result<(), Stop> {
    let budget = (PAGE_ROWS, PAGE_BYTES as i64);
    for part in Paged::ALL {
        out.push(format!(",{}:[", json_string(part.name())).as_bytes()).await?;
        let (mut after, mut first) = (0, true);
        loop {
            let rows = export::page(tx, part, tenant, id, after, budget).await?;
            let Some((last, _)) = rows.last() else { break };
            after = *last;
            for (_, row) in rows {
                if !first {
                    out.push(b",").await?;
                }
                first = false;
                out.push(row.as_bytes()).await?;
            }
            out.flush().await?;
        }
        out.push(b"]").await?;
    }
    out.push(b",\"keep_items\":[").await?;
    let (mut after, mut first): (Option<KeepCursor>, bool) = (None, true);
    loop {
        let (items, last) = export::keep_items(tx, tenant, id, after.as_ref(), budget).await?;
        if items.is_empty() {
            break;
        }
        for item in items {
            if !first {
                out.push(b",").await?;
            }
            first = false;
            out.push(item.as_bytes()).await?;
        }
        out.flush().await?;
        after = last;
    }
    out.push(b"]}\n").await
}

fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(stall: Duration) -> (Out, Chunks) {
        let (send, chunks) = mpsc::channel(AHEAD);
        let out = Out {
            send,
            stall,
            pending: Vec::new(),
        };
        (out, chunks)
    }

    #[tokio::test]
    async fn an_export_holds_its_place_until_its_reader_has_the_last_pages() {
        let (mut out, mut chunks) = out(Duration::from_secs(5));
        out.push(b"{}").await.ok();
        out.flush().await.ok();
        let reader = tokio::spawn(async move {
            let mut read = Vec::new();
            while let Some(Ok(Some(chunk))) = chunks.recv().await {
                read.extend(chunk);
            }
            read
        });

        assert!(out.end().await.is_ok(), "ended once the reader took the end and went");
        assert_eq!(reader.await.unwrap(), b"{}");
    }

    #[tokio::test]
    async fn a_reader_that_never_takes_the_last_pages_is_a_stall() {
        let (mut out, _chunks) = out(Duration::from_millis(50));
        out.push(b"{}").await.ok();
        out.flush().await.ok();

        assert!(matches!(out.end().await, Err(Stop::Stalled)));
    }

    #[tokio::test]
    async fn a_chunk_the_reader_does_not_take_within_the_stall_is_a_stall() {
        let (mut out, _chunks) = out(Duration::from_millis(50));
        let page = vec![b'x'; PAGE_BYTES];
        let mut stopped = None;
        for _ in 0..=AHEAD {
            if let Err(stop) = out.push(&page).await {
                stopped = Some(stop);
                break;
            }
        }
        assert!(
            matches!(stopped, Some(Stop::Stalled)),
            "{}",
            stopped.map_or("none", |s| s.why())
        );
    }
}
