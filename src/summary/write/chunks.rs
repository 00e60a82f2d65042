//! How a delta too long for the summary model's context is folded in
//! (SPEC §3, *Any context size*): what one anchored call may hold, and the
//! delta cut into consecutive chunks that fit it — in order, never starting
//! with a tool result (a result stays with its call), the same input always
//! cut the same way.

use std::ops::Range;

use crate::domain::transcript::{Message, Role};

/// Of the window, held back for what our count of the prompt misses: the
/// chat template's tokens and a tokenizer that counts more than ours.
const MARGIN_DIVISOR: u64 = 10;
const TEMPLATE_TOKENS: u64 = 64;
/// The most of the window one answer may take: the rest reads the prompt.
const OUTPUT_SHARE_DIVISOR: u64 = 5;
/// A chunk smaller than this says little a call could summarize: the window
/// cannot hold the conversation.
pub(crate) const MIN_TRANSCRIPT_TOKENS: u64 = 256;

/// What one anchored call may hold, in the upstream's own tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallRoom {
    /// The answer's `max_tokens`.
    pub output: u64,
    /// The anchor: the prior narrative, then each chunk's answer.
    pub anchor: u64,
    /// One chunk of the transcript.
    pub transcript: u64,
}

/// The room a call has in a `window`-token context, with a system prompt of
/// `system` tokens and a summary budget of `budget`; `None` when the window
/// cannot hold a chunk worth summarizing.
pub(crate) fn call_room(window: u64, system: u64, budget: u64) -> Option<CallRoom> {
    let output = budget.min(window / OUTPUT_SHARE_DIVISOR).max(1);
    // Each chunk's answer is the next call's anchor: the anchor needs as much.
    let anchor = output;
    let held_back = window / MARGIN_DIVISOR + TEMPLATE_TOKENS + system + output + anchor;
    let transcript = window.checked_sub(held_back)?;
    (transcript >= MIN_TRANSCRIPT_TOKENS).then_some(CallRoom {
        output,
        anchor,
        transcript,
    })
}

/// The output a single call may ask for in a `window`-token context when
/// its prompt is `prompt` tokens: never more than the context leaves.
pub(crate) fn output_room(window: u64, prompt: u64, budget: u64) -> u64 {
    let held_back = window / MARGIN_DIVISOR + TEMPLATE_TOKENS + prompt;
    budget.min(window.saturating_sub(held_back))
}

/// `messages` cut into consecutive chunks of at most `room` tokens
/// (`tokens[i]` counts `messages[i]` as the prompt renders it). A chunk never
/// starts with a tool result; a message with its results larger than the
/// room is a chunk by itself (the caller clips it).
pub(crate) fn chunks(messages: &[Message], tokens: &[u64], room: u64) -> Vec<Range<usize>> {
    let len = messages.len().min(tokens.len());
    let mut cut = Vec::new();
    let mut start = 0;
    let mut size = 0_u64;
    for (i, message) in messages.iter().enumerate().take(len) {
        let may_cut = i > start && message.role != Role::Tool;
        if may_cut && size.saturating_add(tokens[i]) > room {
            cut.push(start..i);
            start = i;
            size = 0;
        }
        size = size.saturating_add(tokens[i]);
    }
    if start < len {
        cut.push(start..len);
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::fixtures::{call, result};

    fn user(text: &str) -> Message {
        Message::new(Role::User, text)
    }

    #[test]
    fn chunks_are_consecutive_in_order_and_within_the_room() {
        let messages: Vec<Message> = (0..10).map(|n| user(&format!("message {n}"))).collect();
        let tokens = [30, 30, 30, 30, 30, 30, 30, 30, 30, 30];

        let cut = chunks(&messages, &tokens, 100);

        assert_eq!(cut, [0..3, 3..6, 6..9, 9..10]);
        assert_eq!(chunks(&messages, &tokens, 100), cut, "the same input, the same chunks");
    }

    #[test]
    fn a_tool_result_never_starts_a_chunk() {
        let messages = [
            user("read the file"),
            call("c1", "Read", r#"{"file_path": "src/main.rs"}"#),
            result("c1", "fn main() {}"),
            result("c1", "more of it"),
            user("now the tests"),
        ];
        let tokens = [30, 40, 40, 40, 10];

        let cut = chunks(&messages, &tokens, 60);

        assert_eq!(cut, [0..1, 1..4, 4..5], "the call keeps its results, past the room");
        for range in &cut {
            assert_ne!(messages[range.start].role, Role::Tool);
        }
    }

    #[test]
    fn everything_fits_in_one_chunk_when_the_room_allows() {
        let messages = [user("a"), user("b")];
        assert_eq!(
            chunks(&messages, &[5, 5], 1_000),
            vec![std::ops::Range { start: 0, end: 2 }]
        );
        assert!(chunks(&[], &[], 1_000).is_empty());
    }

    #[test]
    fn an_eight_k_window_leaves_room_for_the_answer_the_anchor_and_a_chunk() {
        let room = call_room(8_192, 700, 4_000).unwrap();

        assert_eq!(
            room.output,
            8_192 / 5,
            "the answer is bounded by the window, not the budget"
        );
        assert_eq!(room.anchor, room.output);
        assert_eq!(room.transcript, 8_192 - 819 - 64 - 700 - 2 * 1_638);
        let large = call_room(200_000, 700, 4_000).unwrap();
        assert_eq!(large.output, 4_000, "a large window answers within the budget");
    }

    #[test]
    fn a_window_too_small_for_a_chunk_has_no_room() {
        assert_eq!(call_room(1_000, 700, 4_000), None);
        assert_eq!(call_room(100, 0, 4_000), None);
        assert!(call_room(2_000, 100, 4_000).is_some());
    }

    #[test]
    fn a_single_call_asks_for_no_more_output_than_the_window_leaves() {
        assert_eq!(output_room(8_192, 6_000, 4_000), 8_192 - 819 - 64 - 6_000);
        assert_eq!(output_room(8_192, 100, 4_000), 4_000);
        assert_eq!(output_room(8_192, 9_000, 4_000), 0);
    }
}
