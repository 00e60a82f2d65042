//! The few compactd calls the hook makes, over its REST API: the service
//! may run anywhere, and the hook runs where the agent does.

use std::time::Duration;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// A call gives up after this long: a hook that hangs holds up the agent.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("compactd at {0} could not be reached: {1}")]
    Unreachable(String, reqwest::Error),
    #[error("{route} answered {status}: {detail}")]
    Refused { route: String, status: u16, detail: String },
}

pub(crate) struct Client {
    http: reqwest::Client,
    base: String,
    key: Option<String>,
}

impl Client {
    pub(crate) fn new(base: &str, key: Option<String>) -> Result<Self, CallError> {
        let http = reqwest::Client::builder()
            .timeout(CALL_TIMEOUT)
            .build()
            .map_err(|err| CallError::Unreachable(base.to_owned(), err))?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
            key,
        })
    }

    /// A conversation's state; `None` when compactd has never seen it.
    pub(crate) async fn conversation(&self, id: &str) -> Result<Option<Value>, CallError> {
        let route = format!("/conversations/{}", encode(id));
        match self.send(self.http.get(self.url(&route)), &route).await {
            Ok(found) => Ok(Some(found)),
            Err(CallError::Refused { status: 404, .. }) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// A POST; `once` (an Idempotency-Key) makes a repeat change nothing.
    pub(crate) async fn post(&self, route: &str, body: &Value, once: Option<&str>) -> Result<Value, CallError> {
        let mut request = self.http.post(self.url(route)).json(body);
        if let Some(key) = once {
            request = request.header("Idempotency-Key", key);
        }
        self.send(request, route).await
    }

    /// A report whose answer is not read: sent with `Prefer: return=minimal`
    /// (RFC 7240), so the service writes none.
    pub(crate) async fn report(&self, route: &str, body: &Value, once: Option<&str>) -> Result<(), CallError> {
        let mut request = self
            .http
            .post(self.url(route))
            .header("Prefer", "return=minimal")
            .json(body);
        if let Some(key) = once {
            request = request.header("Idempotency-Key", key);
        }
        self.send(request, route).await.map(drop)
    }

    fn url(&self, route: &str) -> String {
        format!("{}{route}", self.base)
    }

    async fn send(&self, mut request: reqwest::RequestBuilder, route: &str) -> Result<Value, CallError> {
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|err| CallError::Unreachable(self.base.clone(), err))?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(body);
        }
        let detail = body["detail"]
            .as_str()
            .or(body["title"].as_str())
            .unwrap_or("no detail")
            .to_owned();
        Err(CallError::Refused {
            route: route.to_owned(),
            status: status.as_u16(),
            detail,
        })
    }
}

/// A conversation id as one path segment.
pub(crate) fn encode(id: &str) -> String {
    utf8_percent_encode(id, NON_ALPHANUMERIC).to_string()
}
