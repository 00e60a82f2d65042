//! GET /conversations/{id}/export (SPEC §3, issue 25): everything stored
//! about a conversation as one JSON document, streamed as it is read.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Extension, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body::Frame;
use serde::Serialize;
use utoipa::ToSchema;

use crate::app::queries::export::{self, Chunks};
use crate::domain::ConversationId;
use crate::http::AppState;
use crate::http::connection::Connection;
use crate::http::error::{ApiError, ApiResult, Problem};
use crate::http::extract::{Caller, ConversationIdParam, ConversationPath};
use crate::http::problems::NoSuchConversation;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/conversations/{id}/export", get(export_conversation))
}

/// The export's shape: each row as Postgres stores it (every column, by its
/// name), so nothing stored is left out and later columns appear as added.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ConversationExport {
    /// `compactd-export/1`.
    pub format: String,
    pub tenant: String,
    pub conversation_id: String,
    pub exported_at: chrono::DateTime<chrono::Utc>,
    /// Its row: the state, summary, memory, critical turns, lineage.
    pub conversation: serde_json::Map<String, serde_json::Value>,
    /// Every stored turn, oldest first, its texts whole.
    pub turns: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Its event log, oldest first.
    pub events: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Its ledger rows, with the summaries they wrote.
    pub compactions: Vec<serde_json::Map<String, serde_json::Value>>,
    /// The summaries prepared ahead for it.
    pub preparations: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Its keep set.
    pub keep_items: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// Export a conversation
///
/// Everything stored about it, as one JSON document read from one snapshot:
/// its row, every turn (texts whole), its events, ledger rows with their
/// summaries, preparations and keep set — what a user asks for before
/// deleting. Streamed as it is read, in pages of at most 1 MiB, so a long
/// conversation takes no more memory than a page or its longest turn; a
/// document cut off mid-way (the database failed, the reader took nothing
/// for 30 s, the export passed its deadline, the service stopped) is not
/// valid JSON and its connection is closed before its end, never a
/// whole-looking one. A few run at once per process and one per tenant, on
/// database connections of their own.
#[utoipa::path(
    get,
    path = "/conversations/{id}/export",
    tag = "conversations",
    operation_id = "export_conversation",
    params(ConversationIdParam),
    responses(
        (status = 200, description = "The document.", body = ConversationExport),
        NoSuchConversation,
        (status = 422, description = "The id is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "This tenant has an export running already: one runs at a time.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The process runs as many exports as it may at once, or the database is unavailable; retry after the time given.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn export_conversation(
    State(app): State<AppState>,
    connection: Option<Extension<Connection>>,
    caller: Caller,
    ConversationPath(id): ConversationPath,
) -> ApiResult<Response> {
    let sever: export::Sever = match connection {
        Some(Extension(connection)) => Box::new(move || connection.sever()),
        None => Box::new(|| ()),
    };
    let chunks = export::export(&app.services, caller.tenant.clone(), id.clone(), sever).await?;
    let mut response = Body::new(Streamed(chunks)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    // Its last bytes may wait in the server's buffers for a slow reader:
    // once they are sent the connection goes, and with it anything that waits.
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    let file = format!("attachment; filename=\"{}.json\"", file_name(&id));
    if let Ok(value) = HeaderValue::from_str(&file) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// The document's chunks as a response body: it ends only where the
/// document says it is whole; chunks that stop before that end it with an
/// error, so the connection closes without the body's last chunk.
struct Streamed(Chunks);

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = ApiError;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, ApiError>>> {
        self.0.poll_recv(cx).map(|chunk| match chunk {
            Some(Ok(Some(bytes))) => Some(Ok(Frame::data(Bytes::from(bytes)))),
            Some(Ok(None)) => None,
            Some(Err(refusal)) => Some(Err(ApiError::from(refusal))),
            None => Some(Err(ApiError::Unavailable)),
        })
    }
}

/// A file name for the document: the id's letters, digits, `-` and `_`
/// (others become `_`), at most 100 of them.
fn file_name(id: &ConversationId) -> String {
    let safe: String = id
        .as_str()
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("compactd-{safe}")
}

#[cfg(test)]
mod tests {
    use std::pin::pin;

    use http_body::Body as _;
    use tokio::sync::mpsc;

    use super::*;

    async fn frames(chunks: Chunks) -> Vec<Result<Vec<u8>, ApiError>> {
        let mut body = pin!(Streamed(chunks));
        let mut frames = Vec::new();
        // As hyper reads a body: to its end, or to its first error.
        while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
            let failed = frame.is_err();
            frames.push(frame.map(|frame| frame.into_data().map(|data| data.to_vec()).unwrap_or_default()));
            if failed {
                break;
            }
        }
        frames
    }

    #[tokio::test]
    async fn the_body_ends_only_where_the_document_says_it_is_whole() {
        let (send, chunks) = mpsc::channel(4);
        send.send(Ok(Some(b"{}".to_vec()))).await.unwrap();
        send.send(Ok(None)).await.unwrap();

        let frames = frames(chunks).await;

        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].as_ref().unwrap(), b"{}");
    }

    #[tokio::test]
    async fn chunks_that_stop_before_the_end_end_the_body_with_an_error() {
        let (send, chunks) = mpsc::channel(4);
        send.send(Ok(Some(b"{\"turns\":[".to_vec()))).await.unwrap();
        drop(send);

        let frames = frames(chunks).await;

        assert_eq!(frames.len(), 2);
        assert!(frames[1].is_err(), "not a whole-looking document");
    }
}
