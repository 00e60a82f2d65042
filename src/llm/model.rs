//! An upstream and the model asked there: summaries and scores each have
//! their own, with the context window it was set to or learned.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::client::LlmClient;
use super::context::ContextWindow;
use super::error::LlmError;

/// The most a listing may take of a summary's time: a few seconds, and
/// never more than a quarter of what is left for the summary's calls.
const ASKED_WITHIN: Duration = Duration::from_secs(5);
const SHARE_OF_TIME_LEFT: u32 = 4;

/// An upstream and the model asked there: summaries and scores each have
/// their own.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamModel {
    pub client: Arc<LlmClient>,
    pub model: String,
    /// Its context window, as set or learned: shared by every call.
    pub context: Arc<ContextWindow>,
}

impl UpstreamModel {
    pub(crate) fn new(client: Arc<LlmClient>, model: String, context_tokens: Option<u64>) -> Self {
        let context = ContextWindow::new(context_tokens, client.provider(), &model);
        Self {
            client,
            model,
            context: Arc::new(context),
        }
    }

    /// Asks the upstream's listing for the window while the window is
    /// unknown: one ask at a time, again an hour after it answered (what it
    /// said is forgotten then), three tries in all when it cannot answer.
    /// Done within a quarter of what is left before `until` however many
    /// summaries ask at once.
    pub(crate) async fn learn_window(&self, until: Instant) {
        let context = &self.context;
        if context.configured() || context.tokens().is_some() {
            return;
        }
        let timeout = ASKED_WITHIN.min(until.saturating_duration_since(Instant::now()) / SHARE_OF_TIME_LEFT);
        // A summary waiting on another's ask waits no longer than its own.
        let Ok(mut asks) = tokio::time::timeout(timeout, context.listing.lock()).await else {
            return;
        };
        if context.tokens().is_some() || !asks.worth_asking(Instant::now()) {
            return;
        }
        let asked = tokio::time::timeout(timeout, self.client.listed_window(&self.model, timeout))
            .await
            .unwrap_or(Err(LlmError::Deadline { attempts: 1 }));
        match asked {
            Ok(window) => {
                asks.answered(Instant::now());
                if let Some(window) = window {
                    tracing::info!(model = %self.model, window, "the upstream's model listing gives the summary model's window");
                    context.listed(window);
                }
            }
            Err(error) => {
                asks.failed(Instant::now());
                tracing::debug!(
                    error = error.details(),
                    "the upstream's model listing could not be read"
                );
            }
        }
    }
}
