//! The delta cut into parts that fit one call's room, a message too long
//! for it clipped shorter and shorter until the part fits.

use crate::domain::transcript::{Message, clip, render};
use crate::llm::context::ContextWindow;
use crate::llm::{UpstreamModel, tokens};
use crate::summary::write::chunks::{CallRoom, chunks};

/// Clipping an oversized message stops here: less says nothing.
const MIN_CLIP_BYTES: usize = 256;

/// One chunk of the delta, clipped to its room where a message alone
/// exceeds it.
pub(super) struct Part {
    pub(super) messages: Vec<Message>,
    /// Its transcript's tokens, in the upstream's count.
    pub(super) tokens: u64,
}

/// [`plan`] on a blocking thread: it counts every message.
pub(super) async fn plan_off_thread(messages: &[Message], room: CallRoom, model: &UpstreamModel) -> Option<Vec<Part>> {
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
pub(super) fn clip_to(text: &str, room: u64, context: &ContextWindow) -> String {
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
