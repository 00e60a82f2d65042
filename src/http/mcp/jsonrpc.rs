//! JSON-RPC's own errors at `/mcp`'s door (issue 23). rmcp answers a body
//! that is not JSON, or JSON that is no JSON-RPC message, with a 415 in
//! plain text, and a method it knows whose params do not decode (an
//! `initialize` without its `protocolVersion`) as a method it does not know
//! (−32601). A client library reads neither. This layer reads a POST's body
//! first and answers as JSON-RPC 2.0 says: −32700 for what is not JSON,
//! −32600 for what is not a message (both with a 400, as MCP's streamable
//! HTTP transport answers a body it cannot accept), −32602 for a request to
//! `initialize` or `tools/call` whose params those cannot take (the methods
//! this server serves that take params). Everything else goes on to rmcp as
//! it came.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{CallToolRequestParams, ClientJsonRpcMessage, InitializeRequestParams};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::http::AppState;
use crate::http::extract::body_rejection;

/// JSON-RPC 2.0's codes for what this layer refuses.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Reads a POST's body and refuses what rmcp would misname; passes the rest on.
pub(super) async fn check(State(app): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let raw = match Bytes::from_request(Request::from_parts(parts.clone(), body), &app).await {
        Ok(raw) => raw,
        Err(rejection) => return body_rejection(rejection, app.max_body_bytes).into_response(),
    };
    match refusal(&raw) {
        Some(refused) => refused.into_response(),
        None => next.run(Request::from_parts(parts, Body::from(raw))).await,
    }
}

/// A JSON-RPC error answer: its HTTP status, the id it answers, its code and message.
#[derive(Debug, PartialEq)]
struct Refused {
    status: StatusCode,
    id: Value,
    code: i64,
    message: String,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let body = json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        });
        let mut response = (self.status, body.to_string()).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

/// Why `raw` is refused before rmcp reads it, if it is.
fn refusal(raw: &[u8]) -> Option<Refused> {
    let value: Value = match serde_json::from_slice(raw) {
        Ok(value) => value,
        Err(err) => {
            return Some(Refused {
                status: StatusCode::BAD_REQUEST,
                id: Value::Null,
                code: PARSE_ERROR,
                message: format!("Parse error: the body is not JSON ({err})"),
            });
        }
    };
    let id = answerable_id(&value);
    if let Err(err) = serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        let why = match &value {
            Value::Array(_) => "batches are not accepted (MCP has had none since 2025-06-18)".to_owned(),
            Value::Object(message) if message.get("jsonrpc") != Some(&json!("2.0")) => {
                "a message must say \"jsonrpc\": \"2.0\"".to_owned()
            }
            Value::Object(_) => err.to_string(),
            _ => "a message must be a JSON object".to_owned(),
        };
        return Some(Refused {
            status: StatusCode::BAD_REQUEST,
            id,
            code: INVALID_REQUEST,
            message: format!("Invalid Request: {why}"),
        });
    }
    // A notification is answered by nothing, not even an error.
    value.get("id")?;
    let method = value.get("method").and_then(Value::as_str)?;
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    let wrong = match method {
        "initialize" => wrong_params::<InitializeRequestParams>(params),
        "tools/call" => wrong_params::<CallToolRequestParams>(params),
        _ => None,
    }?;
    Some(Refused {
        status: StatusCode::OK,
        id,
        code: INVALID_PARAMS,
        message: format!("Invalid params for {method}: {wrong}"),
    })
}

/// What is wrong with `params` for a method whose params are `P`, if anything.
fn wrong_params<P: DeserializeOwned>(params: Value) -> Option<String> {
    serde_json::from_value::<P>(params).err().map(|err| err.to_string())
}

/// The message's id, where it has one an answer may carry (a string or a
/// number); otherwise null, as JSON-RPC answers what it could not read.
fn answerable_id(value: &Value) -> Value {
    match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(raw: &str) -> Option<(u16, Value, i64)> {
        refusal(raw.as_bytes()).map(|refused| (refused.status.as_u16(), refused.id, refused.code))
    }

    #[test]
    fn what_is_not_json_is_a_parse_error() {
        for raw in ["{not json", "", "{\"jsonrpc\": \"2.0\",", "\u{feff}"] {
            assert_eq!(refused(raw), Some((400, Value::Null, PARSE_ERROR)), "{raw:?}");
        }
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request() {
        for raw in [
            "{\"foo\": 1}",
            "[]",
            "[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}]",
            "42",
            "\"tools/list\"",
            "null",
        ] {
            assert_eq!(refused(raw), Some((400, Value::Null, INVALID_REQUEST)), "{raw:?}");
        }
        assert_eq!(
            refused("{\"jsonrpc\": \"1.0\", \"id\": 7, \"method\": \"tools/list\"}"),
            Some((400, json!(7), INVALID_REQUEST)),
            "the id is answered where it can be read"
        );
    }

    #[test]
    fn a_known_method_with_wrong_params_is_invalid_params() {
        for raw in [
            r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}"#,
            r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 5, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}"#,
            r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize"}"#,
            r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}"#,
        ] {
            assert_eq!(refused(raw), Some((200, json!(1), INVALID_PARAMS)), "{raw}");
        }
    }

    #[test]
    fn good_messages_and_unknown_methods_go_on_to_rmcp() {
        for raw in [
            r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}"#,
            r#"{"jsonrpc": "2.0", "id": "a", "method": "tools/list"}"#,
            r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_history", "arguments": {"q": 5}}}"#,
            r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
            r#"{"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}"#,
            r#"{"jsonrpc": "2.0", "method": "initialize", "params": {}}"#,
        ] {
            assert_eq!(refused(raw), None, "{raw}");
        }
    }
}
