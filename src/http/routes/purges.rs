//! POST /tenants/{tenant}/purges and GET /tenants/{tenant}/purges/{id}
//! (issue 25): a tenant's admin erases every conversation of its tenant;
//! the background deletes them in batches, and the purge says how far it
//! has got. The tenant is named in the path, so no request meant for
//! something else erases one; another tenant's is not found, as every read.

use std::collections::HashMap;

use axum::Json;
use axum::Router;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::purge;
use crate::domain::{InvalidValue, KeyRole, TenantId};
use crate::http::AppState;
use crate::http::error::{ApiError, ApiResult, Problem};
use crate::http::extract::Caller;
use crate::records::Purge;
use crate::records::PurgeAsker;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/tenants/{tenant}/purges", post(ask))
        .route("/tenants/{tenant}/purges/{id}", get(show))
}

/// A tenant's purge.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PurgeView {
    pub id: i64,
    pub tenant: String,
    pub requested_at: DateTime<Utc>,
    /// `api` or `command line`.
    pub requested_by: String,
    /// `running` until every conversation the tenant had when it was asked
    /// for is deleted, then `finished`.
    #[schema(example = "running")]
    pub status: String,
    pub finished_at: Option<DateTime<Utc>>,
    /// Batches deleted so far (one audit line each).
    pub batches: u64,
    /// Conversations deleted so far.
    pub conversations: u64,
    pub turns: u64,
}

impl From<Purge> for PurgeView {
    fn from(purge: Purge) -> Self {
        Self {
            id: purge.id,
            tenant: purge.tenant.to_string(),
            requested_at: purge.requested_at,
            requested_by: purge.requested_by,
            status: if purge.finished_at.is_some() {
                "finished"
            } else {
                "running"
            }
            .to_owned(),
            finished_at: purge.finished_at,
            batches: purge.batches,
            conversations: purge.conversations,
            turns: purge.turns,
        }
    }
}

/// The `{tenant}` of a purge's path.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct TenantParam {
    /// The caller's own tenant, as its key names it.
    #[param(example = "acme", pattern = r"^[A-Za-z0-9._-]{1,64}$")]
    #[allow(dead_code)]
    tenant: String,
}

/// The `{id}` of a purge's path.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct PurgeIdParam {
    /// The purge's id, as its POST answered.
    #[param(minimum = 1)]
    #[allow(dead_code)]
    id: i64,
}

/// The path of a purge or of the tenant's purges: its tenant and, for one
/// purge, its id, as sent (checked by [`PurgePath::of`], once the caller is
/// known to be an admin).
pub(crate) struct PurgePath(HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for PurgePath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|_| InvalidValue::new("tenant", "must be valid percent-encoded UTF-8"))?;
        Ok(Self(raw))
    }
}

impl PurgePath {
    /// The purge's id (`None` for the tenant's purges), if the caller is an
    /// admin of the tenant the path names: 403 for another role, 422 for a
    /// path that cannot be one, 404 for another tenant.
    fn of(self, caller: &Caller) -> ApiResult<Option<i64>> {
        if caller.role != KeyRole::Admin {
            return Err(ApiError::Forbidden("only an admin key may purge its tenant".to_owned()));
        }
        let tenant = TenantId::parse("tenant", self.0.get("tenant").map_or("", String::as_str))?;
        let id = match self.0.get("id") {
            None => None,
            Some(id) => Some(
                id.parse::<i64>()
                    .ok()
                    .filter(|id| *id > 0)
                    .ok_or_else(|| InvalidValue::new("id", "must be a purge's id, a positive whole number"))?,
            ),
        };
        if tenant != caller.tenant {
            return Err(ApiError::NotFound(format!(
                "no tenant {:?} for this key",
                tenant.as_str()
            )));
        }
        Ok(id)
    }
}

/// Purge the tenant
///
/// Deletes every conversation the caller's tenant has now, as DELETE
/// /conversations/{id} deletes one (the ledger keeps content-free rows),
/// in batches the background works one short transaction at a time, each
/// with an audit line. Conversations started after it was asked for stay:
/// revoke the tenant's agent keys first to stop new ones. Answers 202 with
/// the new purge, or 200 with one already running. The tenant's admin keys
/// only; any other tenant is not found.
#[utoipa::path(
    post,
    path = "/tenants/{tenant}/purges",
    tag = "tenant",
    operation_id = "purge_tenant",
    params(TenantParam),
    responses(
        (status = 202, description = "Asked for; the background works it.", body = PurgeView,
         headers(("Location" = String, description = "Where it can be followed"))),
        (status = 200, description = "A purge of the tenant is already running.", body = PurgeView),
        (status = 403, description = "Only an admin key may purge.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "Not the caller's tenant.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The tenant's name is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn ask(State(app): State<AppState>, caller: Caller, path: PurgePath) -> ApiResult<Response> {
    path.of(&caller)?;
    let (purge, asked) = purge::ask(
        &app.services.pool,
        &caller.tenant,
        PurgeAsker::Api,
        caller.key_id.as_deref(),
    )
    .await?;
    let location = format!("/tenants/{}/purges/{}", purge.tenant, purge.id);
    let status = if asked { StatusCode::ACCEPTED } else { StatusCode::OK };
    let mut response = (status, Json(PurgeView::from(purge))).into_response();
    if let Ok(location) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// Follow a purge
#[utoipa::path(
    get,
    path = "/tenants/{tenant}/purges/{id}",
    tag = "tenant",
    operation_id = "get_purge",
    params(TenantParam, PurgeIdParam),
    responses(
        (status = 200, description = "The purge, as far as it has got.", body = PurgeView),
        (status = 403, description = "Only an admin key may follow a purge.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such purge, or not the caller's tenant.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The tenant's name or the id is invalid.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn show(State(app): State<AppState>, caller: Caller, path: PurgePath) -> ApiResult<Json<PurgeView>> {
    let Some(id) = path.of(&caller)? else {
        return Err(ApiError::NotFound("no such purge".to_owned()));
    };
    Ok(Json(purge::show(&app.services.pool, &caller.tenant, id).await?.into()))
}
