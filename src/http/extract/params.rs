//! The path, the query string and the headers a request may carry, each
//! refused with a 422 (or 400) that names it.

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::body::{in_callers_terms, invalid_at};
use crate::domain::{ConversationId, InvalidValue};
use crate::http::error::ApiError;

/// Query parameters parsed into `T`; any problem is a 422 naming the parameter.
pub(crate) struct QueryParams<T>(pub T);

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
pub(crate) struct ConversationIdParam {
    /// The conversation's id (percent-encoded).
    #[param(pattern = r"^[^\x00-\x1F\x7F-\x9F]{1,200}$", min_length = 1, max_length = 200)]
    id: String,
}

/// The `Idempotency-Key` header, as documented.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub(crate) struct IdempotencyKeyParam {
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
pub(crate) struct ConversationPath(pub ConversationId);

impl<S: Send + Sync> FromRequestParts<S> for ConversationPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| InvalidValue::new("conversation_id", "must be valid percent-encoded UTF-8"))?;
        Ok(Self(ConversationId::parse("conversation_id", raw)?))
    }
}

/// The `Idempotency-Key` header, when sent: 1–255 visible ASCII characters.
pub(crate) struct IdempotencyKey(pub Option<String>);

/// The longest key accepted (Stripe's limit).
pub(crate) const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

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

/// The `Prefer` header, as documented for the reports.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub(crate) struct PreferParam {
    /// `return=minimal` (RFC 7240): answer 204 with no body, for an agent
    /// that does not read the state (`Preference-Applied` says it was).
    /// Other preferences are ignored.
    #[param(rename = "Prefer", example = "return=minimal")]
    prefer: Option<String>,
}

/// Whether the request prefers no body in its answer: its first `return`
/// preference (RFC 7240 §4.2) is `minimal`. A preference is a wish, never
/// an error: one that cannot be read is ignored.
pub(crate) struct ReturnMinimal(pub bool);

impl<S: Send + Sync> FromRequestParts<S> for ReturnMinimal {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let first_return = parts
            .headers
            .get_all("prefer")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .filter_map(|preference| {
                // `token [BWS "=" BWS word] *(";" parameter)`: its parameters are not ours.
                let head = preference.split(';').next().unwrap_or_default();
                let (name, value) = head.split_once('=').unwrap_or((head, ""));
                name.trim()
                    .eq_ignore_ascii_case("return")
                    .then(|| value.trim().trim_matches('"').to_ascii_lowercase())
            })
            .next();
        Ok(Self(first_return.as_deref() == Some("minimal")))
    }
}

#[cfg(test)]
mod tests {
    use axum::http::Request;

    use super::*;

    async fn minimal(prefers: &[&str]) -> bool {
        let mut request = Request::builder().uri("/usage");
        for prefer in prefers {
            request = request.header("prefer", *prefer);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        let ReturnMinimal(minimal) = ReturnMinimal::from_request_parts(&mut parts, &()).await.unwrap();
        minimal
    }

    #[tokio::test]
    async fn return_minimal_is_read_as_rfc_7240_writes_it() {
        for prefers in [
            &["return=minimal"][..],
            &["RETURN = Minimal"],
            &["return=\"minimal\""],
            &["respond-async, wait=10, return=minimal; foo=bar"],
            &["handling=lenient", "return=minimal"],
        ] {
            assert!(minimal(prefers).await, "{prefers:?}");
        }
        for prefers in [
            &[][..],
            &["return=representation"],
            &["return=representation, return=minimal"],
            &["returns=minimal"],
            &["minimal"],
            &["x-return=minimal"],
            &["wait=5; return=minimal"],
        ] {
            assert!(!minimal(prefers).await, "{prefers:?}");
        }
    }
}
