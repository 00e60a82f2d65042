//! GET /dashboard: the operators' page — the fleet's compaction history,
//! counts per trigger over time, one conversation's timeline. Its files are
//! built into the binary and it reads only this service's JSON API, so it
//! works offline; the page itself holds no data, so it needs no key (its
//! reads do, and the operator types one in).

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::http::AppState;
use crate::http::error::ApiError;

/// Each file's name and contents, built in.
macro_rules! files {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../../assets/dashboard/", $name)))),*]
    };
}

const FILES: [(&str, &str); 9] = files!(
    "index.html",
    "app.css",
    "app.js",
    "api.js",
    "chart.js",
    "conversation.js",
    "fleet.js",
    "format.js",
    "picker.js",
);

fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, extension)| extension) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => "text/javascript; charset=utf-8",
    }
}

/// The browser may load nothing from anywhere but this service.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; \
                      base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/dashboard", get(|| async { file("index.html") }))
        .route("/dashboard/", get(|| async { file("index.html") }))
        .route(
            "/dashboard/{file}",
            get(|Path(name): Path<String>| async move { file(&name) }),
        )
}

fn file(name: &str) -> Response {
    let Some((name, contents)) = FILES.iter().find(|(known, _)| *known == name) else {
        return ApiError::NotFound(format!("the dashboard has no file {name:?}")).into_response();
    };
    let mut response = (*contents).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(name)));
    // Small files, and a new version must show at once: revalidate each time.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}
