//! The MCP server at `/mcp` (issue 13): compactd's reads as tools for an
//! agent, over MCP's streamable HTTP transport (rmcp), behind the same API
//! keys and tenants as the REST API. `search_history` is the tool a handoff
//! tells the agent to call; `get_context`, `get_keep_set` and
//! `get_compactions` read what compactd keeps. Every tool answers what the
//! REST read of the same name answers (the handler itself is called), as
//! JSON text; a refusal, bad arguments included, comes back as a tool error
//! holding the problem. What is no JSON-RPC message is refused as JSON-RPC
//! says (`jsonrpc`).
//!
//! Stateless: no MCP session is kept, so any replica answers any call.

mod arguments;
mod jsonrpc;
mod tools;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::http::AppState;
use crate::http::extract::identify;
pub(crate) use tools::Tools;

/// `/mcp`, ready to merge into the API's router.
pub(crate) fn router(state: AppState) -> Router<AppState> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(state.max_body_bytes)
        // The service's own layer checks Host and Origin on every route
        // (http::middleware::hosts), with the names the deployment set.
        .disable_allowed_hosts();
    let served = state.clone();
    let service = StreamableHttpService::new(
        move || Ok(Tools::new(served.clone())),
        NeverSessionManager::default().into(),
        config,
    );
    Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(state.clone(), jsonrpc::check))
        .layer(axum::middleware::from_fn_with_state(state, authenticate))
}

/// Who calls: the same keys as the REST API (a reader key may use every
/// tool: they all read), within the key's rate; refused as the REST API
/// refuses, with a problem.
async fn authenticate(State(app): State<AppState>, mut request: Request, next: Next) -> Response {
    match identify(&app, request.headers()).await {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(refused) => refused.into_response(),
    }
}
