//! The transcript a compaction (or a preparation) summarizes: the caller's
//! messages, or the turns stored since the boundary, each message
//! remembering the turn it came from so the new boundary can be placed after
//! what was summarized.

use std::sync::Arc;

use crate::domain::transcript::{Message, Role};
use crate::store::turns::Turn;

pub(crate) struct Gathered {
    /// Shared with the threads that count and check it, never copied.
    pub messages: Arc<Vec<Message>>,
    /// The stored turn each message came from (empty for the caller's messages).
    turn_of: Vec<i64>,
    /// The boundary when everything is summarized.
    last_turn: i64,
}

impl Gathered {
    /// The new boundary when the messages from `kept_from` on stay verbatim.
    pub(crate) fn boundary(&self, kept_from: usize) -> i64 {
        match self.turn_of.get(kept_from) {
            Some(first_kept) => first_kept - 1,
            None => self.last_turn,
        }
    }
}

impl Gathered {
    /// The caller's messages, sent in place of the stored turns.
    pub(crate) fn sent(messages: Vec<Message>, last_turn: i64) -> Self {
        Self {
            messages: Arc::new(messages),
            turn_of: Vec::new(),
            last_turn,
        }
    }

    /// The stored turns since the boundary, as messages.
    pub(crate) fn stored(turns: &[Turn], last_turn: i64) -> Self {
        let (messages, turn_of) = messages_of(turns);
        Self {
            messages: Arc::new(messages),
            turn_of,
            last_turn,
        }
    }
}

/// Stored turns as chat messages: what the user said, then the answer.
pub(crate) fn messages_of(turns: &[Turn]) -> (Vec<Message>, Vec<i64>) {
    let mut messages = Vec::new();
    let mut turn_of = Vec::new();
    for turn in turns {
        for (role, text) in [(Role::User, &turn.user), (Role::Assistant, &turn.assistant)] {
            if let Some(text) = text {
                messages.push(Message::new(role, text.clone()));
                turn_of.push(turn.seq);
            }
        }
    }
    (messages, turn_of)
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn turn(seq: i64, user: Option<&str>, assistant: Option<&str>) -> Turn {
        Turn {
            seq,
            at: Utc::now(),
            user_messages: 1,
            user: user.map(Into::into),
            assistant: assistant.map(Into::into),
            score: None,
            score_source: None,
            evicted: false,
            user_chars: user.map(|text| text.chars().count() as u64),
            assistant_chars: assistant.map(|text| text.chars().count() as u64),
        }
    }

    #[test]
    fn turns_become_messages_that_remember_their_turn() {
        let (messages, turn_of) = messages_of(&[
            turn(4, Some("q"), Some("a")),
            turn(5, None, Some("b")),
            turn(6, Some("r"), None),
        ]);
        let roles: Vec<_> = messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Assistant, Role::User]);
        assert_eq!(turn_of, [4, 4, 5, 6]);
        let gathered = Gathered {
            messages: Arc::new(messages),
            turn_of,
            last_turn: 6,
        };
        assert_eq!(gathered.boundary(4), 6, "everything summarized");
        assert_eq!(gathered.boundary(2), 4, "turn 5 on stays");
        assert_eq!(gathered.boundary(0), 3, "nothing summarized");
    }
}
