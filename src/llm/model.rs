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
/// A listing that failed this often is not asked again: refusals teach.
const TIMES_ASKED: u32 = 3;

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

    /// Asks the upstream's listing for the window, once per process, while the
    /// window is unknown; an upstream that could not answer is asked again at
    /// the next summary, three times in all. Done within a quarter of what is
    /// left before `until` however many summaries ask at once.
    pub(crate) async fn learn_window(&self, until: Instant) {
        let model = self;
        let context = &model.context;
        if context.tokens().is_some() || context.listing_failures() >= TIMES_ASKED {
            return;
        }
        let timeout = ASKED_WITHIN.min(until.saturating_duration_since(Instant::now()) / SHARE_OF_TIME_LEFT);
        let ask = context.listing.get_or_try_init(|| async {
            let window = model.client.listed_window(&model.model, timeout).await?;
            if let Some(window) = window {
                tracing::info!(model = %model.model, window, "the upstream's model listing gives the summary model's window");
                context.listed(window);
            }
            Ok::<(), LlmError>(())
        });
        // A summary waiting on another's listing waits no longer than its own.
        let asked = tokio::time::timeout(timeout, ask)
            .await
            .unwrap_or(Err(LlmError::Deadline { attempts: 1 }));
        if let Err(error) = asked {
            context.listing_failed();
            tracing::debug!(
                error = error.details(),
                "the upstream's model listing could not be read"
            );
        }
    }
}
