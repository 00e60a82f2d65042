//! The one HTTP error type, and the only place problem+json is rendered
//! (RFC 9457).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use std::time::Duration;

use crate::app::Refusal;
use crate::auth::Denied;
use crate::domain::InvalidValue;

pub(crate) type ApiResult<T, E = ApiError> = Result<T, E>;

/// Everything a request can fail with, and the status each one gets.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    /// The body is not JSON at all.
    #[error("the body is not valid JSON: {0}")]
    MalformedJson(String),
    /// A value is the wrong type, out of range, unknown or missing.
    #[error("{0}")]
    InvalidValue(#[from] InvalidValue),
    #[error("send the body as JSON, with Content-Type: application/json")]
    UnsupportedMediaType,
    #[error("the body is larger than the {0} bytes this server accepts")]
    PayloadTooLarge(usize),
    #[error("{0}")]
    Unauthorized(Denied),
    #[error("{0}")]
    Forbidden(String),
    #[error("this key is sending requests too fast; retry after the time given")]
    RateLimited(Duration),
    #[error("{0}")]
    NotFound(String),
    /// The request is valid but collides with the resource's current state.
    #[error("{0}")]
    Conflict(String),
    #[error("this resource does not answer that method")]
    MethodNotAllowed,
    #[error("this Idempotency-Key was already used for a different request")]
    IdempotencyKeyReused,
    #[error("a request with this Idempotency-Key is still being processed; retry shortly")]
    IdempotencyKeyInFlight,
    /// What the request was about was deleted.
    #[error("{0}")]
    Gone(String),
    #[error("the database is unavailable; retry shortly")]
    Unavailable,
    /// The caller's tenant has as much of some heavy work running as it may.
    #[error("{0}")]
    TooManyAtOnce(String),
    /// The process has as much of some heavy work running as it may.
    #[error("{0}")]
    Busy(String),
    #[error("the request took longer than {0:?} and was abandoned; retry shortly")]
    Timeout(Duration),
    /// A bug or a broken dependency. The text is logged, never shown.
    #[error("internal error")]
    Internal(String),
}

/// An RFC 9457 problem detail.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Problem {
    /// A URI reference naming the kind of problem; stable, so clients can branch on it.
    #[serde(rename = "type")]
    #[schema(example = "/problems/invalid-value")]
    pub kind: String,
    /// A short summary of the kind of problem.
    pub title: String,
    pub status: u16,
    /// What went wrong with this request, for a person.
    pub detail: String,
    /// The request field at fault, for invalid values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// The text of an internal error, for the logging middleware to find.
#[derive(Debug, Clone)]
pub(crate) struct InternalErrorText(pub String);

impl ApiError {
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Self::MalformedJson(_) => StatusCode::BAD_REQUEST,
            Self::InvalidValue(_) | Self::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Gone(_) => StatusCode::GONE,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::RateLimited(_) | Self::TooManyAtOnce(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::IdempotencyKeyInFlight | Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Unavailable | Self::Timeout(_) | Self::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn kind_and_title(&self) -> (&'static str, &'static str) {
        match self {
            Self::MalformedJson(_) => ("malformed-json", "Malformed JSON"),
            Self::InvalidValue(_) => ("invalid-value", "Invalid value"),
            Self::UnsupportedMediaType => ("unsupported-media-type", "Unsupported media type"),
            Self::PayloadTooLarge(_) => ("payload-too-large", "Payload too large"),
            Self::NotFound(_) => ("not-found", "Not found"),
            Self::Gone(_) => ("gone", "Gone"),
            Self::Unauthorized(_) => ("unauthorized", "Unauthorized"),
            Self::Forbidden(_) => ("forbidden", "Forbidden"),
            Self::RateLimited(_) => ("rate-limited", "Too many requests"),
            Self::Conflict(_) => ("conflict", "Conflict"),
            Self::MethodNotAllowed => ("method-not-allowed", "Method not allowed"),
            Self::IdempotencyKeyReused => ("idempotency-key-reused", "Idempotency-Key reused"),
            Self::IdempotencyKeyInFlight => ("idempotency-key-in-flight", "Request in flight"),
            Self::Unavailable => ("unavailable", "Service unavailable"),
            Self::TooManyAtOnce(_) => ("too-many-at-once", "Too many at once"),
            Self::Busy(_) => ("busy", "Busy"),
            Self::Timeout(_) => ("timeout", "Request timed out"),
            Self::Internal(_) => ("internal", "Internal error"),
        }
    }

    pub(crate) fn problem(&self) -> Problem {
        let (kind, title) = self.kind_and_title();
        let (detail, field) = match self {
            Self::InvalidValue(invalid) => (invalid.to_string(), Some(invalid.field.clone())),
            other => (other.to_string(), None),
        };
        Problem {
            kind: format!("/problems/{kind}"),
            title: title.to_owned(),
            status: self.status().as_u16(),
            detail,
            field,
        }
    }
}

impl From<Denied> for ApiError {
    fn from(denied: Denied) -> Self {
        match denied {
            // The keys could not be checked: the database's trouble, not the caller's.
            Denied::Unverifiable => Self::Unavailable,
            refused => Self::Unauthorized(refused),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::NotFound(text) => Self::NotFound(text),
            Refusal::Conflict(text) => Self::Conflict(text),
            Refusal::TooManyAtOnce(text) => Self::TooManyAtOnce(text),
            Refusal::Busy(text) => Self::Busy(text),
            refusal if refusal.is_unavailable() => Self::Unavailable,
            Refusal::Store(err) => Self::Internal(format!("{err}: {:?}", std::error::Error::source(&err))),
        }
    }
}

/// Renders any problem; also used for errors raised outside a handler.
pub(crate) fn problem_response(status: StatusCode, problem: &Problem) -> Response {
    let body = serde_json::to_vec(problem).unwrap_or_default();
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut response = problem_response(status, &self.problem());
        let headers = response.headers_mut();
        match &self {
            Self::Unavailable
            | Self::Timeout(_)
            | Self::IdempotencyKeyInFlight
            | Self::TooManyAtOnce(_)
            | Self::Busy(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            Self::RateLimited(wait) => {
                // Whole seconds, rounded up: never tell a client to retry too soon.
                let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
            }
            Self::Unauthorized(_) => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"compactd\""),
                );
            }
            _ => {}
        }
        if let Self::Internal(text) = self {
            response.extensions_mut().insert(InternalErrorText(text));
        }
        response
    }
}
