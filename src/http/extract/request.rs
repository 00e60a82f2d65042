//! Extractors whose rejections are our own problem+json errors, so a bad
//! request gets the same clear answer whatever part of it is bad.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{Method, header};
use serde::de::DeserializeOwned;
use serde_json::error::Category;

use super::AppState;
use super::error::ApiError;
use crate::auth;
use crate::domain::{ConversationId, InvalidValue};

/// A JSON body parsed into `T`, with its raw bytes kept for idempotency.
pub struct JsonBody<T> {
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

fn body_rejection(rejection: BytesRejection, limit: usize) -> ApiError {
    if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::PayloadTooLarge(limit)
    } else {
        ApiError::MalformedJson(rejection.body_text())
    }
}

/// Malformed JSON is a 400; JSON of the wrong shape is a 422 naming the field.
pub fn parse_json<T: DeserializeOwned>(raw: &[u8]) -> Result<T, ApiError> {
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

fn classified(path: &str, err: serde_json::Error) -> ApiError {
    match err.classify() {
        Category::Syntax | Category::Eof | Category::Io => ApiError::MalformedJson(err.to_string()),
        Category::Data => invalid_at(path, in_callers_terms(&err.to_string())),
    }
}

/// serde's message, in the caller's terms rather than Rust's: no "u64", no
/// "struct UsageRequest", no "at line 1 column 9" (the field says where).
fn in_callers_terms(message: &str) -> String {
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
/// such as an unknown field, which serde names in the message).
fn invalid_at(path: &str, message: String) -> ApiError {
    let field = if path == "." {
        unknown_field_name(&message).unwrap_or_else(|| "body".to_owned())
    } else {
        path.to_owned()
    };
    ApiError::InvalidValue(InvalidValue::new(field, message))
}

fn unknown_field_name(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    Some(rest[..rest.find('`')?].to_owned())
}

/// Query parameters parsed into `T`; any problem is a 422 naming the parameter.
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or_default();
        let deserializer = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(deserializer)
            .map(QueryParams)
            .map_err(|err| {
                let path = err.path().to_string();
                invalid_at(&path, in_callers_terms(&err.into_inner().to_string()))
            })
    }
}

/// The `{id}` of a `/conversations/{id}` path, as documented: 1–200
/// characters, none of them a control character (Unicode's Cc).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct ConversationIdParam {
    /// The conversation's id (percent-encoded).
    #[param(pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$", min_length = 1, max_length = 200)]
    id: String,
}

/// The `Idempotency-Key` header, as documented.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub struct IdempotencyKeyParam {
    /// Makes a retry safe: the first answer to the key is replayed, byte for
    /// byte, for 24 hours; the same key with another body is a 422.
    #[param(
        rename = "Idempotency-Key",
        pattern = r"^[\x21-\x7E]{1,255}$",
        min_length = 1,
        max_length = 255
    )]
    idempotency_key: Option<String>,
}

/// The `{id}` of a `/conversations/{id}` path.
pub struct ConversationPath(pub ConversationId);

impl<S: Send + Sync> FromRequestParts<S> for ConversationPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| InvalidValue::new("conversation_id", "must be valid percent-encoded UTF-8"))?;
        Ok(Self(ConversationId::parse("conversation_id", raw)?))
    }
}

/// Who is asking: their key's tenant and role (or anyone, in open mode),
/// within their key's rate, allowed to use this method.
pub struct Caller(pub auth::Caller);

impl std::ops::Deref for Caller {
    type Target = auth::Caller;

    fn deref(&self) -> &auth::Caller {
        &self.0
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let caller = state
            .keys
            .authenticate(parts.headers.get(header::AUTHORIZATION))
            .await?;
        if let Some(key_id) = &caller.key_id {
            state.rate_limits.check(key_id).map_err(ApiError::RateLimited)?;
        }
        let reads = matches!(parts.method, Method::GET | Method::HEAD);
        if !reads && !caller.role.may_write() {
            return Err(ApiError::Forbidden("a reader key may only read".to_owned()));
        }
        Ok(Self(caller))
    }
}

/// The `Idempotency-Key` header, when sent: 1–255 visible ASCII characters.
pub struct IdempotencyKey(pub Option<String>);

/// The longest key accepted (Stripe's limit).
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let Some(value) = parts.headers.get("idempotency-key") else {
            return Ok(Self(None));
        };
        let invalid = || {
            InvalidValue::new(
                "Idempotency-Key",
                format!("must be 1 to {MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters"),
            )
        };
        let key = value.to_str().map_err(|_| invalid())?;
        let visible = key.bytes().all(|b| b.is_ascii_graphic());
        if key.is_empty() || key.len() > MAX_IDEMPOTENCY_KEY_CHARS || !visible {
            return Err(invalid().into());
        }
        Ok(Self(Some(key.to_owned())))
    }
}
