//! Everything stored about a conversation as one JSON document (SPEC §3,
//! issue 25), streamed as it is read: its own row, then its turns, events,
//! ledger rows and preparations page by page, then its keep set, all from
//! one snapshot (a repeatable-read, read-only transaction), so the parts
//! agree with each other however long the document takes to send.

use sqlx::PgConnection;
use tokio::sync::mpsc;

use crate::app::{AppResult, Refusal, Services};
use crate::domain::{ConversationId, TenantId};
use crate::store::export::{self, Paged};
use crate::store::statements;

/// The document's format, named in it so a reader can tell later ones.
pub(crate) const FORMAT: &str = "compactd-export/1";

/// How many chunks may wait for a slow reader before reading pauses.
const AHEAD: usize = 4;

/// Rows a page reads: few turns at a time, since one may hold megabytes.
fn page_rows(part: Paged) -> i64 {
    match part {
        Paged::Turns => 8,
        Paged::Events | Paged::Compactions | Paged::Preparations => 500,
    }
}

/// The document's chunks, in order; an `Err` ends it unfinished (the
/// database failed mid-way: the reader sees a cut-off document, never a
/// whole-looking one).
pub(crate) type Chunks = mpsc::Receiver<Result<Vec<u8>, Refusal>>;

/// Starts exporting the conversation; not found before anything is sent.
pub(crate) async fn export(services: &Services, tenant: TenantId, id: ConversationId) -> AppResult<Chunks> {
    // The snapshot is taken by the first read and held to the last, in a
    // task of its own that reads at the reader's pace (and rolls back when
    // the reader goes away).
    let mut tx = services.pool.begin().await?;
    statements::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
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
    tokio::spawn(async move {
        let written = async {
            send_chunk(&send, head.into_bytes()).await?;
            write_parts(&mut tx, &tenant, &id, &send).await?;
            tx.commit().await?;
            Ok::<_, Stop>(())
        };
        if let Err(Stop::Failed(err)) = written.await {
            tracing::warn!(%err, "an export failed mid-way");
            let _ = send.send(Err(err.into())).await;
        }
    });
    Ok(chunks)
}

/// Why writing the document stopped early.
enum Stop {
    /// The reader went away: nothing more to do.
    Gone,
    Failed(crate::store::StoreError),
}

impl From<crate::store::StoreError> for Stop {
    fn from(err: crate::store::StoreError) -> Self {
        Self::Failed(err)
    }
}

impl From<sqlx::Error> for Stop {
    fn from(err: sqlx::Error) -> Self {
        Self::Failed(err.into())
    }
}

async fn send_chunk(send: &mpsc::Sender<Result<Vec<u8>, Refusal>>, chunk: Vec<u8>) -> Result<(), Stop> {
    send.send(Ok(chunk)).await.map_err(|_| Stop::Gone)
}

/// Each paged part, then the keep set, then the document's end.
async fn write_parts(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    send: &mpsc::Sender<Result<Vec<u8>, Refusal>>,
) -> Result<(), Stop> {
    for part in Paged::ALL {
        let mut chunk = format!(",{}:[", json_string(part.name())).into_bytes();
        let (mut after, mut first) = (0, true);
        loop {
            let rows = export::page(tx, part, tenant, id, after, page_rows(part)).await?;
            let Some((last, _)) = rows.last() else { break };
            after = *last;
            let full = rows.len() as i64 == page_rows(part);
            for (_, row) in rows {
                if !first {
                    chunk.push(b',');
                }
                first = false;
                chunk.extend_from_slice(row.as_bytes());
            }
            send_chunk(send, std::mem::take(&mut chunk)).await?;
            if !full {
                break;
            }
        }
        chunk.push(b']');
        send_chunk(send, chunk).await?;
    }
    let items = export::keep_items(tx, tenant, id).await?;
    let document_end = format!(",\"keep_items\":[{}]}}\n", items.join(","));
    send_chunk(send, document_end.into_bytes()).await
}

fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
