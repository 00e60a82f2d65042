//! What every request leaves behind: an id (the caller's `X-Request-Id` when
//! it sent a sane one, else a new one) on the response and on every log line
//! it causes, and its latency in the metrics by route, method and status.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use crate::http::error::InternalErrorText;

pub(crate) static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// A caller's id is kept when it is 1–128 letters, digits, `.`, `_` or `-`.
fn sane(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

pub(crate) async fn observe(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|value| value.to_str().ok())
        .filter(|id| sane(id))
        .map_or_else(|| uuid::Uuid::new_v4().simple().to_string(), str::to_owned);
    let method = request.method().as_str().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_owned();
    let span = tracing::info_span!("request", request_id = %id, %method, %route);
    let mut response = next.run(request).instrument(span.clone()).await;
    let status = response.status();
    metrics::histogram!(
        "compactd_http_request_duration_seconds",
        "method" => method,
        "route" => route,
        "status" => status.as_u16().to_string(),
    )
    .record(started.elapsed().as_secs_f64());
    if status.is_server_error() {
        let text = response
            .extensions()
            .get::<InternalErrorText>()
            .map_or("", |t| t.0.as_str());
        span.in_scope(|| tracing::error!(status = status.as_u16(), error = text, "request failed"));
    }
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID.clone(), value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_request_ids_are_kept() {
        assert!(sane("req-42_a.b"));
        for bad in ["", "a b", "x\ny", "ümlaut", &"a".repeat(129)] {
            assert!(!sane(bad), "{bad:?}");
        }
    }
}
