//! GET /docs: the API's reference as a Swagger UI page. Its assets are built
//! into the binary (utoipa-swagger-ui's `vendored` feature), so the page
//! works where the service cannot reach the internet; it reads the same
//! /openapi.json every client is generated from.

use axum::Router;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::http::AppState;

pub(crate) fn router() -> Router<AppState> {
    let config = Config::from("/openapi.json")
        .persist_authorization(true)
        .try_it_out_enabled(true);
    SwaggerUi::new("/docs").config(config).into()
}
