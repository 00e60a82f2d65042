//! An upstream narrative that fits the summary model's context (SPEC §3,
//! *Any context size*): one anchored call when the delta fits, else the
//! delta folded into the anchor chunk by chunk, in order, each chunk an
//! anchored call of its own. A refusal of the context (or prompts the
//! upstream silently cut, the same way twice) teaches the window, and the
//! prompt is planned again to fit: never sent again as it was.

mod call;
mod outcome;
mod parts;
mod usable;

use std::time::Duration;

use tokio::time::Instant;

use call::{Call, Spent};
use outcome::{CHUNK_CANNOT_FIT, OUT_OF_TIME, REFUSED_AFTER_CHUNKING, Step};
pub(crate) use outcome::{Folded, Unfolded};
use parts::{clip_to, plan_off_thread};

use super::chunks::{call_room, output_room};
use super::prompt::{system_prompt, user_message};
use crate::domain::transcript::Message;
use crate::llm::{UpstreamModel, tokens};

/// Plans tried before the context is taken to be unable to hold the
/// conversation: each after a refusal that narrowed the window.
const MAX_PLANS: usize = 4;

/// The narrative of `messages` on top of `anchor`, within the model's
/// context as far as it is known, in at most `budget` tokens, every call
/// done `within` this long.
pub(crate) async fn fold(
    model: &UpstreamModel,
    within: Duration,
    anchor: Option<&str>,
    messages: &[Message],
    budget: u64,
) -> Result<Folded, Unfolded> {
    let mut spent = Spent {
        input: None,
        output: None,
        calls: 0,
        chunked: false,
        until: Instant::now() + within,
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
            Err(Step::Stop(Unfolded::Unusable { why, .. })) => {
                return Err(Unfolded::Unusable {
                    why,
                    calls: spent.calls,
                    input_tokens: spent.input,
                    output_tokens: spent.output,
                });
            }
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
        anchor,
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
            anchor: anchor.as_deref(),
        };
        anchor = Some(call.send(model, spent).await?);
    }
    // An empty delta is one call with the anchor alone.
    match anchor {
        Some(narrative) if !parts.is_empty() => Ok(narrative),
        _ => whole(model, anchor.as_deref(), &[], room.output, spent).await,
    }
}
