//! Who is asking: the key's tenant and role, checked and rate-limited
//! before the handler runs.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};

use crate::auth;
use crate::http::AppState;
use crate::http::error::ApiError;

/// Who is asking: their key's tenant and role (or anyone, in open mode),
/// within their key's rate, allowed to use this method.
pub(crate) struct Caller(pub auth::Caller);

impl std::ops::Deref for Caller {
    type Target = auth::Caller;

    fn deref(&self) -> &auth::Caller {
        &self.0
    }
}

/// The key's tenant and role (or anyone, in open mode), within the key's
/// rate: what every route and the MCP server ask first.
pub(crate) async fn identify(state: &AppState, headers: &HeaderMap) -> Result<auth::Caller, ApiError> {
    let caller = state.keys.authenticate(headers.get(header::AUTHORIZATION)).await?;
    if let Some(key_id) = &caller.key_id {
        state.rate_limits.check(key_id).map_err(ApiError::RateLimited)?;
    }
    Ok(caller)
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let caller = identify(state, &parts.headers).await?;
        let reads = matches!(parts.method, Method::GET | Method::HEAD);
        if !reads && !caller.role.may_write() {
            return Err(ApiError::Forbidden("a reader key may only read".to_owned()));
        }
        Ok(Self(caller))
    }
}
