//! One anchored call to the upstream, and the tally every call of one
//! summary adds to: what it took, and the deadline they all share.

use std::time::Duration;

use tokio::time::Instant;

use super::outcome::{OUT_OF_TIME, Step, Unfolded};
use super::usable::{Shown, usable};
use crate::domain::transcript::clip;
use crate::llm::evidence::Reading;
use crate::llm::{CompletionRequest, LlmError, UpstreamModel, tokens};

/// Summarization is rewriting, not invention.
pub(crate) const TEMPERATURE: f32 = 0.2;

/// The most of an upstream's answer read, whatever it sends.
pub(crate) const MAX_SUMMARY_BYTES: usize = 32 * 1024;

pub(super) struct Spent {
    pub(super) input: Option<u64>,
    pub(super) output: Option<u64>,
    pub(super) calls: u32,
    pub(super) chunked: bool,
    /// Every call of one summary ends by then: the request that waits for
    /// it is bounded by one call's deadline.
    pub(super) until: Instant,
    /// The longest call so far: the next is not begun unless it would end
    /// in time.
    pub(super) slowest: Duration,
    /// The model the upstream says answered.
    pub(super) answered_by: String,
}

impl Spent {
    fn add(&mut self, input: Option<u64>, output: Option<u64>) {
        let sum = |total: Option<u64>, more: Option<u64>| match (total, more) {
            (None, None) => None,
            (total, more) => Some(total.unwrap_or(0) + more.unwrap_or(0)),
        };
        self.input = sum(self.input, input);
        self.output = sum(self.output, output);
    }
}

/// Our count of a prompt, off the async threads (a whole delta is long).
async fn prompt_tokens(system: &str, user: &str) -> u64 {
    let (system, user) = (system.to_owned(), user.to_owned());
    tokio::task::spawn_blocking(move || tokens::count(&system) + tokens::count(&user))
        .await
        .unwrap_or(0)
}

/// One anchored call.
pub(super) struct Call<'a> {
    pub(super) system: String,
    pub(super) user: String,
    pub(super) max_tokens: u64,
    /// The narrative the answer replaces.
    pub(super) anchor: Option<&'a str>,
}

impl Call<'_> {
    pub(super) async fn send(self, model: &UpstreamModel, spent: &mut Spent) -> Result<String, Step> {
        let sent = prompt_tokens(&self.system, &self.user).await;
        let request = CompletionRequest {
            model: model.model.clone(),
            system: self.system.clone(),
            user: self.user.clone(),
            max_tokens: u32::try_from(self.max_tokens.max(1)).unwrap_or(u32::MAX),
            temperature: TEMPERATURE,
        };
        spent.calls += 1;
        let started = Instant::now();
        let answered = model.client.complete_by(&request, spent.until).await;
        spent.slowest = spent.slowest.max(started.elapsed());
        match answered {
            Ok(completion) => {
                spent.add(completion.input_tokens, completion.output_tokens);
                match model.context.read(sent, completion.prompt_read) {
                    Reading::Cut { window } => {
                        tracing::info!(
                            model = %request.model,
                            sent,
                            read = ?completion.prompt_read,
                            window,
                            "the upstream read only part of the prompt, as it read another; planning again in chunks"
                        );
                        return Err(Step::Refused);
                    }
                    Reading::Suspected => tracing::debug!(
                        model = %request.model,
                        sent,
                        read = ?completion.prompt_read,
                        "the upstream answered as having read part of the prompt: a cached prefix, or a cut (believed if another prompt is read the same)"
                    ),
                    Reading::Whole => {}
                }
                spent.answered_by = completion.model;
                let shown = Shown {
                    system: &self.system,
                    user: &self.user,
                    anchor: self.anchor,
                };
                match usable(&completion.text, &shown) {
                    Ok(summary) => {
                        if summary.len() < completion.text.len() {
                            tracing::info!(model = %request.model, "the upstream's answer went on past its summary (a loop, or the prompt's frame): what it said before is kept");
                        }
                        Ok(clip(summary, MAX_SUMMARY_BYTES))
                    }
                    Err(why) => {
                        tracing::info!(model = %request.model, why, "the upstream's answer is no summary");
                        tracing::debug!(answer = %clip(&completion.text, 300), "the answer taken for no summary");
                        Err(Step::Stop(Unfolded::Unusable {
                            why,
                            calls: 0,
                            input_tokens: None,
                            output_tokens: None,
                        }))
                    }
                }
            }
            Err(LlmError::ContextLength(refusal)) => {
                tracing::info!(model = %request.model, sent, ?refusal, "the upstream refused the context; planning again in chunks");
                model.context.learn(refusal, sent);
                Err(Step::Refused)
            }
            // Chunks were folded, the rest cannot be in time: written without the model.
            Err(LlmError::Deadline { .. }) if spent.chunked => Err(Step::Stop(Unfolded::DoesNotFit(OUT_OF_TIME, 0))),
            Err(error) => Err(Step::Stop(Unfolded::Failed(error))),
        }
    }
}
