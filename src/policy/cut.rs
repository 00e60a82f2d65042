//! Where `keep_recent_tokens` cuts a transcript (SPEC §3, /summarize): the
//! newest messages up to about that many tokens stay verbatim, the cut never
//! separates a tool call from its result (providers reject a result whose call
//! is gone), and it moves to a user message when one is near.

use crate::domain::transcript::{Message, Role};

/// How many messages either side of the budget's cut a user message may be
/// for the cut to move to it...
pub(crate) const USER_MESSAGE_REACH: usize = 4;
/// ...and how much of the budget the move may add or take away (a quarter).
const USER_MESSAGE_SLACK_DIVISOR: u64 = 4;

/// Whether cutting before `at` keeps every tool result with its call.
fn keeps_pairs(messages: &[Message], at: usize) -> bool {
    let (before, after) = messages.split_at(at);
    after.iter().filter_map(|m| m.tool_call_id.as_deref()).all(|answered| {
        !before
            .iter()
            .any(|m| m.tool_calls.iter().any(|call| call.id == answered))
    }) && after.first().is_none_or(|first| first.role != Role::Tool)
}

/// The index of the first message kept verbatim; `tokens[i]` counts
/// `messages[i]`. Everything before it is summarized.
pub(crate) fn kept_from(messages: &[Message], tokens: &[u64], keep_tokens: u64) -> usize {
    let len = messages.len().min(tokens.len());
    let mut cut = len;
    let mut kept = 0_u64;
    while cut > 0 && kept.saturating_add(tokens[cut - 1]) <= keep_tokens {
        cut -= 1;
        kept += tokens[cut];
    }
    // Forward past results whose call would be summarized: a little less kept.
    while cut < len && !keeps_pairs(&messages[..len], cut) {
        cut += 1;
    }
    if cut == len {
        return cut;
    }
    let slack = keep_tokens / USER_MESSAGE_SLACK_DIVISOR;
    let moved = |i: usize| -> u64 { tokens[i.min(cut)..i.max(cut)].iter().sum() };
    let near = cut.saturating_sub(USER_MESSAGE_REACH)..=(cut + USER_MESSAGE_REACH).min(len - 1);
    near.filter(|&i| messages[i].role == Role::User && moved(i) <= slack && keeps_pairs(&messages[..len], i))
        .min_by_key(|&i| (i.abs_diff(cut), i))
        .unwrap_or(cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::ToolCall;

    fn user(text: &str) -> Message {
        Message::new(Role::User, text)
    }

    fn assistant(text: &str) -> Message {
        Message::new(Role::Assistant, text)
    }

    fn calling(ids: &[&str]) -> Message {
        Message {
            tool_calls: ids
                .iter()
                .map(|id| ToolCall {
                    id: (*id).into(),
                    name: "run".into(),
                    arguments: "{}".into(),
                })
                .collect(),
            ..Message::new(Role::Assistant, "")
        }
    }

    fn result(id: &str) -> Message {
        Message {
            tool_call_id: Some(id.into()),
            ..Message::new(Role::Tool, "ok")
        }
    }

    #[test]
    fn the_newest_messages_within_the_budget_are_kept() {
        let messages = vec![user("a"), assistant("b"), user("c"), assistant("d")];
        assert_eq!(kept_from(&messages, &[10, 10, 10, 10], 20), 2);
        assert_eq!(kept_from(&messages, &[10, 10, 10, 10], 1000), 0, "all of it fits");
        assert_eq!(kept_from(&messages, &[10, 10, 10, 10], 0), 4, "keep nothing");
    }

    #[test]
    fn a_tool_result_is_never_kept_without_its_call() {
        // user, assistant calls c1, result c1, assistant, user, assistant
        let messages = vec![
            user("go"),
            calling(&["c1"]),
            result("c1"),
            assistant("done"),
            assistant("more"),
            assistant("still"),
            assistant("end"),
        ];
        let tokens = [50, 50, 10, 10, 10, 10, 10];
        // The budget alone would cut at the result (index 2).
        let cut = kept_from(&messages, &tokens, 50);
        assert_eq!(cut, 3);
        assert!(messages[cut..].iter().all(|m| m.role != Role::Tool));
    }

    #[test]
    fn parallel_results_stay_together_with_their_calls() {
        let messages = vec![
            user("start"),
            calling(&["a", "b"]),
            result("a"),
            result("b"),
            assistant("both done"),
        ];
        let cut = kept_from(&messages, &[5, 5, 5, 5, 5], 10);
        assert!(keeps_pairs(&messages, cut));
        assert_eq!(cut, 4);
    }

    #[test]
    fn the_cut_moves_to_a_near_user_message() {
        let messages = vec![
            user("q1"),
            assistant("a1"),
            assistant("a1b"),
            user("q2"),
            assistant("a2"),
            assistant("a3"),
        ];
        // The budget cuts at index 4; the user message at 3 is one away and small.
        assert_eq!(kept_from(&messages, &[10, 10, 10, 2, 10, 10], 20), 3);
        assert_eq!(
            kept_from(&messages, &[10, 10, 10, 9, 10, 10], 20),
            4,
            "a large one is not near"
        );
    }

    #[test]
    fn a_far_user_message_does_not_move_the_cut() {
        let mut messages = vec![user("q")];
        messages.extend((0..10).map(|i| assistant(&format!("a{i}"))));
        let tokens = vec![1; messages.len()];
        assert_eq!(kept_from(&messages, &tokens, 40), 0, "everything fits");
        assert_eq!(kept_from(&messages, &tokens, 2), 9);
    }

    #[test]
    fn an_empty_transcript_keeps_nothing() {
        assert_eq!(kept_from(&[], &[], 100), 0);
    }
}
