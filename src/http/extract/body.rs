//! The JSON body: malformed JSON is a 400, JSON of the wrong shape a 422
//! that names the field, in the caller's terms.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, Request};
use axum::http::header;
use serde::de::DeserializeOwned;
use serde_json::error::Category;

use crate::domain::InvalidValue;
use crate::http::AppState;
use crate::http::error::ApiError;

/// A JSON body parsed into `T`, with its raw bytes kept for idempotency.
pub(crate) struct JsonBody<T> {
    pub value: T,
    pub raw: Bytes,
}

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        if let Some(content_type) = req.headers().get(header::CONTENT_TYPE) {
            let essence = content_type.to_str().unwrap_or_default();
            let essence = essence
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            if essence != "application/json" && !essence.ends_with("+json") {
                return Err(ApiError::UnsupportedMediaType);
            }
        }
        let raw = Bytes::from_request(req, state)
            .await
            .map_err(|rejection| body_rejection(rejection, state.max_body_bytes))?;
        let value = parse_json(&raw)?;
        Ok(Self { value, raw })
    }
}

pub(crate) fn body_rejection(rejection: BytesRejection, limit: usize) -> ApiError {
    if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::PayloadTooLarge(limit)
    } else {
        ApiError::MalformedJson(rejection.body_text())
    }
}

/// Malformed JSON is a 400; JSON of the wrong shape is a 422 naming the field.
pub(crate) fn parse_json<T: DeserializeOwned>(raw: &[u8]) -> Result<T, ApiError> {
    // serde would read a struct from an array by position: refuse it.
    if raw.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        serde_json::from_slice::<serde::de::IgnoredAny>(raw).map_err(|err| classified(".", err))?;
        return Err(InvalidValue::new("body", "must be a JSON object").into());
    }
    let mut deserializer = serde_json::Deserializer::from_slice(raw);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
        let path = err.path().to_string();
        classified(&path, err.into_inner())
    })?;
    deserializer.end().map_err(|err| classified(".", err))?;
    Ok(value)
}

/// Decoded JSON (an MCP tool's arguments) into `T`, refused as a body of
/// the wrong shape is: a 422 naming the field.
pub(crate) fn decode_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        classified(&path, err.into_inner())
    })
}

fn classified(path: &str, err: serde_json::Error) -> ApiError {
    match err.classify() {
        Category::Syntax | Category::Eof | Category::Io => ApiError::MalformedJson(err.to_string()),
        Category::Data => invalid_at(path, in_callers_terms(&err.to_string())),
    }
}

/// serde's message, in the caller's terms rather than Rust's: no "u64", no
/// "struct UsageRequest", no "at line 1 column 9" (the field says where).
pub(super) fn in_callers_terms(message: &str) -> String {
    let message = match message.rfind(" at line ") {
        Some(cut) => &message[..cut],
        None => message,
    };
    let mut message = message
        .replace("expected u64", "expected a whole number from 0 to 9223372036854775807")
        .replace("expected u32", "expected a whole number from 0 to 4294967295");
    if let Some(cut) = message.find("expected struct ") {
        message.replace_range(cut.., "expected a JSON object");
    }
    message
}

/// An invalid value at `path` (`.` when the error is about the whole body,
/// such as an unknown or a missing field, which serde names in the message).
pub(super) fn invalid_at(path: &str, message: String) -> ApiError {
    let field = if path == "." {
        named_field(&message).unwrap_or_else(|| "body".to_owned())
    } else {
        path.to_owned()
    };
    ApiError::InvalidValue(InvalidValue::new(field, message))
}

/// The field serde's message names: one that is not known, or one missing.
fn named_field(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("missing field `"))?;
    Some(rest[..rest.find('`')?].to_owned())
}
