//! The upstream LLM client: one non-streaming completion, with one deadline
//! across every attempt, retries on 429/5xx/transport errors that honour
//! `Retry-After`, and a bound on calls in flight.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::dialect::Dialect;
use super::error::{LlmError, excerpt, transport, without_query};
use super::retry::retry_after;
use super::settings::{LlmConfig, Provider, RetryPolicy};
use super::wire::{Completion, CompletionRequest};

/// The most of an answer read: a summary is a few KiB; more is a broken or
/// hostile upstream.
pub(crate) const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;
const ANTHROPIC_VERSION: &str = "2023-06-01";

pub struct LlmClient {
    http: reqwest::Client,
    provider: Provider,
    endpoint: String,
    api_key: Option<String>,
    retry: RetryPolicy,
    permits: Arc<Semaphore>,
    /// What each model was found to accept; absent: the common form.
    dialects: Mutex<HashMap<String, Dialect>>,
}

impl fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmClient")
            .field("provider", &self.provider)
            // A configured URL may carry a key in its query.
            .field(
                "endpoint",
                &reqwest::Url::parse(&self.endpoint)
                    .map_or_else(|_| "[unparsable]".to_owned(), |url| without_query(&url)),
            )
            .finish()
    }
}

/// A failed attempt, and how long the server asked us to wait.
type AttemptError = (LlmError, Option<Duration>);

impl LlmClient {
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // A redirect would carry the tenants' transcripts (and, for some
            // providers, the key) to a host nobody configured.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("compactd/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|err| LlmError::Transport(err.to_string()))?;
        Ok(Self {
            http,
            provider: config.provider,
            endpoint: config.provider.endpoint(&config.base_url),
            api_key: config.api_key,
            retry: config.retry,
            permits: Arc::new(Semaphore::new(config.max_concurrent.max(1))),
            dialects: Mutex::new(HashMap::new()),
        })
    }

    pub(crate) const fn provider(&self) -> Provider {
        self.provider
    }

    /// One call's deadline, across its attempts.
    pub(crate) const fn deadline(&self) -> Duration {
        self.retry.deadline
    }

    /// One completion, retried as the policy allows, within its deadline.
    pub async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        self.complete_by(request, Instant::now() + self.retry.deadline).await
    }

    /// One completion, retried as the policy allows, done by `until` at the
    /// latest (a chunked summary's calls share one deadline).
    pub(crate) async fn complete_by(
        &self,
        request: &CompletionRequest,
        deadline: Instant,
    ) -> Result<Completion, LlmError> {
        let started = Instant::now();
        let attempts = AtomicU32::new(0);
        let run = async {
            let _permit = self.permits.acquire().await.map_err(|_| LlmError::Closed)?;
            loop {
                let attempt = attempts.fetch_add(1, Ordering::Relaxed);
                let remaining = deadline.saturating_duration_since(Instant::now());
                let (error, asked) = match self.attempt(request, remaining).await {
                    Ok(completion) => return Ok(completion),
                    // The attempt was given what remained of the deadline.
                    Err((LlmError::Deadline { .. }, _)) => return Err(LlmError::Deadline { attempts: attempt + 1 }),
                    Err(failed) => failed,
                };
                if !error.is_retryable() {
                    return Err(error);
                }
                let remaining = deadline.saturating_duration_since(Instant::now());
                match self.retry.wait(attempt, asked, remaining, fastrand::f64()) {
                    Some(wait) => {
                        metrics::counter!("compactd_upstream_retries_total", "model" => request.model.clone())
                            .increment(1);
                        tracing::debug!(
                            attempt,
                            ?wait,
                            error = error.details(),
                            "upstream call failed; retrying"
                        );
                        tokio::time::sleep(wait).await;
                    }
                    None => return Err(error),
                }
            }
        };
        let outcome = tokio::time::timeout_at(deadline, run).await.unwrap_or_else(|_| {
            Err(LlmError::Deadline {
                attempts: attempts.load(Ordering::Relaxed),
            })
        });
        let model = request.model.clone();
        let took = started.elapsed().as_secs_f64();
        let label = if outcome.is_ok() { "ok" } else { "error" };
        metrics::histogram!("compactd_upstream_call_duration_seconds", "model" => model.clone(), "outcome" => label)
            .record(took);
        match &outcome {
            Ok(completion) => {
                let tokens = [("input", completion.input_tokens), ("output", completion.output_tokens)];
                for (direction, count) in tokens {
                    metrics::counter!("compactd_upstream_tokens_total", "model" => model.clone(), "direction" => direction)
                        .increment(count.unwrap_or(0));
                }
            }
            Err(error) => {
                metrics::counter!("compactd_upstream_errors_total", "model" => model, "kind" => error.kind())
                    .increment(1);
                tracing::warn!(
                    error = error.details(),
                    attempts = attempts.load(Ordering::Relaxed),
                    "upstream call failed"
                );
            }
        }
        outcome
    }

    /// One attempt; a refusal that names a parameter this model wants in
    /// another form is answered at once in that form, and remembered.
    async fn attempt(&self, request: &CompletionRequest, remaining: Duration) -> Result<Completion, AttemptError> {
        loop {
            let dialect = self.dialect_of(&request.model);
            let (status, asked, body) = self.send(request, dialect, remaining).await?;
            if status.is_success() {
                return self.provider.parse(&body, &request.model).map_err(|err| (err, None));
            }
            let adapted = (self.provider == Provider::OpenAi)
                .then(|| dialect.adapted_to(status.as_u16(), &body))
                .flatten();
            match adapted {
                Some(adapted) => {
                    tracing::info!(model = %request.model, ?adapted, "the upstream refused a parameter; sending it as the model asks");
                    self.learn(&request.model, adapted);
                }
                None => {
                    let text = String::from_utf8_lossy(&body);
                    // Never retried as it was: the caller cuts the prompt to fit.
                    if let Some(refusal) = super::refusal::refusal(status.as_u16(), &text) {
                        return Err((LlmError::ContextLength(refusal), None));
                    }
                    let text = excerpt(&text);
                    return Err((
                        LlmError::Status {
                            status: status.as_u16(),
                            body: text,
                        },
                        asked,
                    ));
                }
            }
        }
    }

    fn dialect_of(&self, model: &str) -> Dialect {
        let dialects = self.dialects.lock().unwrap_or_else(PoisonError::into_inner);
        dialects.get(model).copied().unwrap_or_default()
    }

    fn learn(&self, model: &str, dialect: Dialect) {
        let mut dialects = self.dialects.lock().unwrap_or_else(PoisonError::into_inner);
        dialects.insert(model.to_owned(), dialect);
    }

    /// Sends once and reads the whole answer (up to its cap).
    async fn send(
        &self,
        request: &CompletionRequest,
        dialect: Dialect,
        remaining: Duration,
    ) -> Result<(StatusCode, Option<Duration>, Vec<u8>), AttemptError> {
        let mut call = self
            .http
            .post(&self.endpoint)
            .timeout(remaining)
            .json(&self.provider.body(request, dialect));
        call = match (self.provider, &self.api_key) {
            (Provider::OpenAi, Some(key)) => call.bearer_auth(key),
            (Provider::Anthropic, Some(key)) => call.header("x-api-key", key),
            (_, None) => call,
        };
        if self.provider == Provider::Anthropic {
            call = call.header("anthropic-version", ANTHROPIC_VERSION);
        }
        let mut response = call.send().await.map_err(|err| (transport(err), None))?;
        let status = response.status();
        let asked = retry_after(response.headers(), SystemTime::now());
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| (transport(err), None))? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err((
                    LlmError::Malformed(format!("the answer is larger than {MAX_ANSWER_BYTES} bytes")),
                    None,
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok((status, asked, body))
    }
}

impl LlmClient {
    /// The window the upstream's model listing gives `model`, asked within
    /// `timeout`: `Ok(None)` when it answers without one (or has no
    /// listing), an error when it could not be asked and may be again.
    pub(crate) async fn listed_window(&self, model: &str, timeout: Duration) -> Result<Option<u64>, LlmError> {
        // Anthropic's models carry no context in their listing.
        let (endpoint, query) = super::wire::split_query(&self.endpoint);
        let Some(url) = endpoint
            .strip_suffix("/chat/completions")
            .map(|base| super::wire::with_query(format!("{base}/models"), query))
        else {
            return Ok(None);
        };
        let mut call = self.http.get(&url).timeout(timeout);
        if let Some(key) = &self.api_key {
            call = call.bearer_auth(key);
        }
        let mut response = call.send().await.map_err(transport)?;
        let status = response.status();
        if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
            return Err(LlmError::Status {
                status: status.as_u16(),
                body: String::new(),
            });
        }
        if !status.is_success() {
            return Ok(None);
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(transport)? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Ok(None);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(serde_json::from_slice(&body)
            .ok()
            .and_then(|listing| super::listing::listed_window(&listing, model)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_s_debug_shows_no_key_in_its_endpoint() {
        let client = LlmClient::new(LlmConfig {
            provider: Provider::OpenAi,
            base_url: "https://llm.example/v1?api-key=sk-secret".into(),
            api_key: Some("sk-header".into()),
            retry: RetryPolicy::default(),
            max_concurrent: 1,
        })
        .unwrap();
        let shown = format!("{client:?}");
        assert!(!shown.contains("sk-secret") && !shown.contains("sk-header"), "{shown}");
    }
}
