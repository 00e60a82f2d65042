//! Headers every answer carries as fits it: tenant data is never cached nor
//! sniffed as another type; the API reference page may not be framed and
//! loads nothing from elsewhere; and an answer given before the request's
//! body was read says `Connection: close`, because hyper closes such a
//! connection (the unread body is still on the wire) and a client told so
//! opens a new one instead of writing into a dead socket.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Body as HttpBody, Frame, SizeHint};

/// /docs (Swagger UI): its own scripts and styles only; it styles elements
/// inline and draws icons from data URIs.
const DOCS_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                           img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
                           frame-ancestors 'none'";

pub(crate) async fn secure(request: Request, next: Next) -> Response {
    let is_docs = request.uri().path().starts_with("/docs");
    let (request, body_read) = track_body(request);
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers
        .entry(header::X_CONTENT_TYPE_OPTIONS)
        .or_insert(HeaderValue::from_static("nosniff"));
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    if is_docs {
        headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(DOCS_POLICY));
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    if let Some(read) = body_read
        && !read.load(Ordering::Acquire)
    {
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Wraps a request that has a body so that reading it to the end is seen;
/// `None` for a request without one.
fn track_body(request: Request) -> (Request, Option<Arc<AtomicBool>>) {
    if request.body().is_end_stream() {
        return (request, None);
    }
    let read = Arc::new(AtomicBool::new(false));
    let request = request.map(|inner| {
        Body::new(Tracked {
            inner,
            read: read.clone(),
        })
    });
    (request, Some(read))
}

struct Tracked {
    inner: Body,
    read: Arc<AtomicBool>,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.read.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
