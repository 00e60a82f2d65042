//! An upstream narrative that fits the summary model's context (SPEC §3,
//! *Any context size*): one anchored call when the delta fits, else the
//! delta folded into the anchor chunk by chunk, in order, each chunk an
//! anchored call of its own. A refusal of the context (or prompts the
//! upstream silently cut, the same way twice) teaches the window, and the
//! prompt is planned again to fit: never sent again as it was.

use std::time::Duration;

use tokio::time::Instant;

use super::chunks::{CallRoom, call_room, chunks, output_room};
use super::prompt::{system_prompt, user_message};
use crate::domain::transcript::{Message, clip, render};
use crate::llm::context::ContextWindow;
use crate::llm::evidence::Reading;
use crate::llm::{CompletionRequest, LlmError, UpstreamModel, tokens};

/// Summarization is rewriting, not invention.
pub(crate) const TEMPERATURE: f32 = 0.2;

/// The most of an upstream's answer read, whatever it sends.
pub(crate) const MAX_SUMMARY_BYTES: usize = 32 * 1024;

/// Plans tried before the context is taken to be unable to hold the
/// conversation: each after a refusal that narrowed the window.
const MAX_PLANS: usize = 4;
/// Clipping an oversized message stops here: less says nothing.
const MIN_CLIP_BYTES: usize = 256;

/// Why a summary was written without the model though one is configured.
pub(crate) const CHUNK_CANNOT_FIT: &str = "the summary model's context cannot hold even one chunk of the conversation";
pub(crate) const REFUSED_AFTER_CHUNKING: &str = "the summary model refused the context after chunking";
pub(crate) const OUT_OF_TIME: &str =
    "the summary model could not fold the conversation in chunks within the upstream deadline";

/// What the upstream wrote, and what it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Folded {
    pub narrative: String,
    pub model: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Upstream calls made, refused ones included.
    pub calls: u32,
    /// The delta was cut into more than one chunk.
    pub chunked: bool,
}

/// Why no narrative came back.
#[derive(Debug)]
pub(crate) enum Unfolded {
    /// The upstream failed (the anchor stays, as with any failure).
    Failed(LlmError),
    /// The context cannot hold the conversation (or its chunks the
    /// deadline): the reason, for the extractive fallback, and the calls
    /// made before it was found.
    DoesNotFit(&'static str, u32),
}

/// How one plan ended short of a narrative.
enum Step {
    /// The window was learned narrower: plan again.
    Refused,
    Stop(Unfolded),
}

struct Spent {
    input: Option<u64>,
    output: Option<u64>,
    calls: u32,
    chunked: bool,
    /// Every call of one summary ends by then: the request that waits for
    /// it is bounded by one call's deadline.
    until: Instant,
    /// The longest call so far: the next is not begun unless it would end
    /// in time.
    slowest: Duration,
    /// The model the upstream says answered.
    answered_by: String,
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

/// The narrative of `messages` on top of `anchor`, within the model's
/// context as far as it is known, in at most `budget` tokens.
pub(crate) async fn fold(
    model: &UpstreamModel,
    anchor: Option<&str>,
    messages: &[Message],
    budget: u64,
) -> Result<Folded, Unfolded> {
    let mut spent = Spent {
        input: None,
        output: None,
        calls: 0,
        chunked: false,
        until: Instant::now() + model.client.deadline(),
        slowest: Duration::ZERO,
        answered_by: model.model.clone(),
    };
    model.learn_window(spent.until).await;
    for _ in 0..MAX_PLANS {
        let planned = match model.context.tokens() {
            None => whole(model, anchor, messages, budget, &mut spent).await,
            Some(window) => in_chunks(model, window, anchor, messages, budget, &mut spent).await,
        };
        match planned {
            Ok(narrative) => {
                return Ok(Folded {
                    narrative,
                    model: spent.answered_by,
                    input_tokens: spent.input,
                    output_tokens: spent.output,
                    calls: spent.calls,
                    chunked: spent.chunked,
                });
            }
            Err(Step::Refused) => {}
            Err(Step::Stop(Unfolded::DoesNotFit(why, _))) => return Err(Unfolded::DoesNotFit(why, spent.calls)),
            Err(Step::Stop(failed)) => return Err(failed),
        }
    }
    Err(Unfolded::DoesNotFit(REFUSED_AFTER_CHUNKING, spent.calls))
}

/// The whole delta in one call, as for a model whose window is unknown.
async fn whole(
    model: &UpstreamModel,
    anchor: Option<&str>,
    messages: &[Message],
    budget: u64,
    spent: &mut Spent,
) -> Result<String, Step> {
    let user = user_message(anchor, messages);
    let call = Call {
        system: system_prompt(budget),
        user,
        max_tokens: budget,
    };
    call.send(model, spent).await
}

/// The delta folded into the anchor in chunks that fit a `window`-token context.
async fn in_chunks(
    model: &UpstreamModel,
    window: u64,
    anchor: Option<&str>,
    messages: &[Message],
    budget: u64,
    spent: &mut Spent,
) -> Result<String, Step> {
    let context = &model.context;
    let system_tokens = context.theirs(tokens::count(&system_prompt(budget)));
    let room = call_room(window, system_tokens, budget).ok_or(Step::Stop(Unfolded::DoesNotFit(CHUNK_CANNOT_FIT, 0)))?;
    let parts = plan_off_thread(messages, room, model)
        .await
        .ok_or(Step::Stop(Unfolded::DoesNotFit(CHUNK_CANNOT_FIT, 0)))?;
    spent.chunked |= parts.len() > 1;
    let mut anchor = anchor.map(|text| clip_to(text, room.anchor, context));
    for part in &parts {
        if parts.len() > 1 && spent.calls > 0 && Instant::now() + spent.slowest > spent.until {
            return Err(Step::Stop(Unfolded::DoesNotFit(OUT_OF_TIME, 0)));
        }
        let max_tokens = if parts.len() == 1 {
            // Counted when planned: only the anchor is counted here.
            let anchor_tokens = anchor.as_deref().map_or(0, |text| context.theirs(tokens::count(text)));
            output_room(window, system_tokens + anchor_tokens + part.tokens, budget).max(room.output)
        } else {
            room.output
        };
        let user = user_message(anchor.as_deref(), &part.messages);
        let call = Call {
            system: system_prompt(max_tokens),
            user,
            max_tokens,
        };
        anchor = Some(call.send(model, spent).await?);
    }
    // An empty delta is one call with the anchor alone.
    match anchor {
        Some(narrative) if !parts.is_empty() => Ok(narrative),
        _ => whole(model, anchor.as_deref(), &[], room.output, spent).await,
    }
}

/// One chunk of the delta, clipped to its room where a message alone
/// exceeds it.
struct Part {
    messages: Vec<Message>,
    /// Its transcript's tokens, in the upstream's count.
    tokens: u64,
}

/// [`plan`] on a blocking thread: it counts every message.
async fn plan_off_thread(messages: &[Message], room: CallRoom, model: &UpstreamModel) -> Option<Vec<Part>> {
    let owned = messages.to_vec();
    let context = std::sync::Arc::clone(&model.context);
    match tokio::task::spawn_blocking(move || plan(&owned, room, &context)).await {
        Ok(parts) => parts,
        // The thread pool is shutting down: plan here.
        Err(_) => plan(messages, room, &model.context),
    }
}

/// The delta cut into parts of at most `room.transcript` tokens; `None` when
/// a message cannot be clipped to fit.
fn plan(messages: &[Message], room: CallRoom, context: &ContextWindow) -> Option<Vec<Part>> {
    let sizes: Vec<u64> = messages
        .iter()
        .map(|message| context.theirs(tokens::count(&render(std::slice::from_ref(message)))))
        .collect();
    chunks(messages, &sizes, room.transcript)
        .into_iter()
        .map(|range| {
            let size: u64 = sizes[range.clone()].iter().sum();
            let part = &messages[range];
            if size <= room.transcript {
                return Some(Part {
                    messages: part.to_vec(),
                    tokens: size,
                });
            }
            clipped_to(part, room.transcript, context).map(|messages| Part {
                messages,
                tokens: room.transcript,
            })
        })
        .collect()
}

/// `part` with each message's text clipped, shorter and shorter, until it
/// fits `room`.
fn clipped_to(part: &[Message], room: u64, context: &ContextWindow) -> Option<Vec<Message>> {
    let longest = part
        .iter()
        .flat_map(|m| std::iter::once(m.content.len()).chain(m.tool_calls.iter().map(|c| c.arguments.len())))
        .max()
        .unwrap_or(0);
    let mut max_bytes = longest / 2;
    while max_bytes >= MIN_CLIP_BYTES {
        let clipped: Vec<Message> = part
            .iter()
            .map(|message| {
                let mut message = message.clone();
                message.content = clip(&message.content, max_bytes);
                for call in &mut message.tool_calls {
                    call.arguments = clip(&call.arguments, max_bytes);
                }
                message
            })
            .collect();
        if context.theirs(tokens::count(&render(&clipped))) <= room {
            return Some(clipped);
        }
        max_bytes /= 2;
    }
    None
}

/// `text` cut to about `room` of the upstream's tokens.
fn clip_to(text: &str, room: u64, context: &ContextWindow) -> String {
    let mut text = text.to_owned();
    loop {
        let size = context.theirs(tokens::count(&text));
        if size <= room || text.len() < MIN_CLIP_BYTES {
            return text;
        }
        let keep = u64::try_from(text.len()).unwrap_or(u64::MAX) * room * 9 / 10 / size;
        text = clip(&text, usize::try_from(keep).unwrap_or(0));
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
struct Call {
    system: String,
    user: String,
    max_tokens: u64,
}

impl Call {
    async fn send(self, model: &UpstreamModel, spent: &mut Spent) -> Result<String, Step> {
        let sent = prompt_tokens(&self.system, &self.user).await;
        let request = CompletionRequest {
            model: model.model.clone(),
            system: self.system,
            user: self.user,
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
                Ok(clip(&completion.text, MAX_SUMMARY_BYTES))
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
