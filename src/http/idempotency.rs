//! Runs a POST's effect once per Idempotency-Key (SPEC §3): the first answer
//! is kept with the effect, in one transaction, and replayed byte for byte.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::PgConnection;
use tracing::Instrument;

use crate::app::idempotency::{self, KeyClaim, KeyLease};
use crate::app::{self, Answer, Beside, UseCase};
use crate::http::AppState;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{Caller, IdempotencyKey, ReturnMinimal};

/// A finished JSON answer, as bytes, so a replay can repeat it exactly.
pub(crate) struct Reply {
    pub status: StatusCode,
    pub body: Vec<u8>,
}

impl Reply {
    pub(crate) fn ok(value: &impl Serialize) -> ApiResult<Self> {
        let body = serde_json::to_vec(value).map_err(|err| ApiError::Internal(format!("serializing: {err}")))?;
        Ok(Self {
            status: StatusCode::OK,
            body,
        })
    }

    /// The answer to `Prefer: return=minimal` (RFC 7240): no body.
    fn minimal() -> Self {
        Self {
            status: StatusCode::NO_CONTENT,
            body: Vec::new(),
        }
    }

    /// This answer, or none if `minimal` and it succeeded.
    fn preferring(self, minimal: bool) -> Self {
        if minimal && self.status.is_success() {
            Self::minimal()
        } else {
            self
        }
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        if self.status == StatusCode::NO_CONTENT {
            let mut response = self.status.into_response();
            response
                .headers_mut()
                .insert("preference-applied", HeaderValue::from_static("return=minimal"));
            return response;
        }
        let mut response = (self.status, Body::from(self.body)).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

/// Turns a use case's answer into the bytes a replay repeats.
pub(crate) trait Render {
    fn render(self, app: &AppState) -> ApiResult<Reply>;
}

/// Runs `use_case` as the request with `body` at `route` asks, honouring its key.
pub(crate) async fn run<U>(
    app: &AppState,
    caller: &Caller,
    key: IdempotencyKey,
    route: &str,
    body: &[u8],
    use_case: U,
) -> ApiResult<Response>
where
    U: UseCase,
    Answer<U>: Render,
{
    run_preferring(app, caller, key, route, body, use_case, ReturnMinimal(false)).await
}

/// As [`run`], for a route that names its conversation in its path (the
/// body does not): a kept answer goes with that conversation when it is
/// deleted, and a retry after the deletion is answered 410.
pub(crate) async fn run_about<U>(
    app: &AppState,
    caller: &Caller,
    key: IdempotencyKey,
    (route, about): (&str, &str),
    body: &[u8],
    use_case: U,
) -> ApiResult<Response>
where
    U: UseCase,
    Answer<U>: Render,
{
    keyed(app, caller, key, (route, Some(about)), body, use_case, false).await
}

/// As [`run`], answering 204 with no body when the caller prefers it
/// (`Prefer: return=minimal`). An answer kept for a key is kept whole, so
/// a retry that does not prefer it is answered whole.
pub(crate) async fn run_preferring<U>(
    app: &AppState,
    caller: &Caller,
    key: IdempotencyKey,
    route: &str,
    body: &[u8],
    use_case: U,
    ReturnMinimal(minimal): ReturnMinimal,
) -> ApiResult<Response>
where
    U: UseCase,
    Answer<U>: Render,
{
    keyed(app, caller, key, (route, None), body, use_case, minimal).await
}

async fn keyed<U>(
    app: &AppState,
    caller: &Caller,
    key: IdempotencyKey,
    (route, about): (&str, Option<&str>),
    body: &[u8],
    use_case: U,
    minimal: bool,
) -> ApiResult<Response>
where
    U: UseCase,
    Answer<U>: Render,
{
    let Some(key) = key.0 else {
        let respond = Respond {
            app,
            key: None,
            minimal,
        };
        let reply = if U::RUN_TO_COMPLETION {
            // Its own task owns what it needs; the hot path borrows instead.
            let app = app.clone();
            to_completion(async move {
                let respond = Respond {
                    app: &app,
                    key: None,
                    minimal,
                };
                app::perform(&app.services, use_case, respond).await
            })
            .await?
        } else {
            app::perform(&app.services, use_case, respond).await?
        };
        return Ok(reply.into_response());
    };
    // From the claim on, everything runs to the end even if the client gives
    // up: a claimed key must be answered or given back, so its retry finds
    // the answer instead of a claim nobody holds.
    let (app, tenant) = (app.clone(), caller.tenant.clone());
    let Fingerprinted {
        fingerprint,
        conversation,
    } = fingerprinted(route, body);
    let conversation = conversation.or_else(|| about.map(str::to_owned));
    to_completion(async move {
        let claimed = idempotency::claim(&app.services, tenant, key, &fingerprint, conversation.as_deref()).await?;
        match claimed {
            KeyClaim::InFlight => Err(ApiError::IdempotencyKeyInFlight),
            KeyClaim::Mismatch => Err(ApiError::IdempotencyKeyReused),
            KeyClaim::Gone => Err(ApiError::Gone(
                "this request was answered, then its conversation was deleted: it is not applied again".to_owned(),
            )),
            KeyClaim::Replay { status, body } => {
                let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
                let mut response = Reply { status, body }.preferring(minimal).into_response();
                response
                    .headers_mut()
                    .insert("idempotent-replayed", HeaderValue::from_static("true"));
                Ok(response)
            }
            KeyClaim::Fresh(lease) => {
                let respond = Respond {
                    app: &app,
                    key: Some(&lease),
                    minimal,
                };
                let outcome = app::perform(&app.services, use_case, respond).await;
                lease.settle(outcome.is_ok()).await;
                Ok(outcome?.into_response())
            }
        }
    })
    .await
}

/// The answer rendered and, with a key, kept beside the effect.
struct Respond<'a> {
    app: &'a AppState,
    key: Option<&'a KeyLease>,
    /// No body wanted (`Prefer: return=minimal`).
    minimal: bool,
}

impl<A: Render + Send> Beside<A> for Respond<'_> {
    type Output = Reply;
    type Error = ApiError;

    fn in_transaction(&self) -> bool {
        self.key.is_some()
    }

    async fn write(self, answer: A, conn: &mut PgConnection) -> ApiResult<Reply> {
        let Some(lease) = self.key else {
            // Nothing to keep: what nobody reads is not rendered.
            return if self.minimal {
                Ok(Reply::minimal())
            } else {
                answer.render(self.app)
            };
        };
        let reply = answer.render(self.app)?;
        if !lease.keep_answer(conn, reply.status.as_u16(), &reply.body).await? {
            return Err(ApiError::IdempotencyKeyInFlight);
        }
        Ok(reply.preferring(self.minimal))
    }
}

/// Runs `work` on a task of its own, so that it finishes even when the
/// request that started it is dropped (the client hung up).
async fn to_completion<T: Send + 'static>(work: impl Future<Output = ApiResult<T>> + Send + 'static) -> ApiResult<T> {
    // The task keeps the request's span: its logs carry the request id.
    tokio::spawn(work.instrument(tracing::Span::current()))
        .await
        .unwrap_or_else(|err| Err(ApiError::Internal(format!("the request's task failed: {err}"))))
}

/// SHA-256 of the route and the body's JSON with object keys sorted, so the
/// same request spelled with other whitespace or key order is the same.
pub fn fingerprint(route: &str, body: &[u8]) -> Vec<u8> {
    fingerprinted(route, body).fingerprint
}

/// A request's fingerprint, and the conversation it names (its key's
/// answer goes when that conversation is deleted).
struct Fingerprinted {
    fingerprint: Vec<u8>,
    conversation: Option<String>,
}

fn fingerprinted(route: &str, body: &[u8]) -> Fingerprinted {
    let parsed = serde_json::from_slice::<Value>(body);
    let conversation = parsed
        .as_ref()
        .ok()
        .and_then(|value| value.get("conversation_id")?.as_str().map(str::to_owned));
    let canonical = parsed
        .map(|value| canonical_json(&value))
        .unwrap_or_else(|_| String::from_utf8_lossy(body).into_owned());
    let mut hasher = Sha256::new();
    hasher.update(route.as_bytes());
    hasher.update([0]);
    hasher.update(canonical.as_bytes());
    Fingerprinted {
        fingerprint: hasher.finalize().to_vec(),
        conversation,
    }
}

fn canonical_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let fields: Vec<String> = entries
                .into_iter()
                .map(|(key, value)| format!("{}:{}", Value::String(key.clone()), canonical_json(value)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical_json).collect::<Vec<_>>().join(",")),
        scalar => scalar.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_request_spelled_differently_has_one_fingerprint() {
        let a = fingerprint(
            "/usage",
            br#"{"used": 5, "conversation_id": "c", "x": {"b": 1, "a": [2, 3]}}"#,
        );
        let b = fingerprint("/usage", br#"{"conversation_id":"c","x":{"a":[2,3],"b":1},"used":5}"#);
        assert_eq!(a, b);
    }

    #[test]
    fn another_body_or_route_has_another_fingerprint() {
        let usage = fingerprint("/usage", br#"{"conversation_id":"c","used":5}"#);
        assert_ne!(usage, fingerprint("/usage", br#"{"conversation_id":"c","used":6}"#));
        assert_ne!(usage, fingerprint("/decide", br#"{"conversation_id":"c","used":5}"#));
    }
}
