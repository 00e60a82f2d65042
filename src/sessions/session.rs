//! A recorded agent session, whatever harness wrote it: its messages in the
//! common chat shape, grouped into turns (a turn starts at each message the
//! user wrote themselves), and the compaction summaries its own harness
//! wrote along the way (Claude Code's "This session is being continued…",
//! Codex's `compacted` items), so compactd's can be set beside them.

use std::path::Path;

use chrono::{DateTime, Utc};

pub(crate) use super::parsed::Parsed;
use super::{aider, claude_code, codex, openai_chat};
use crate::domain::transcript::Message;
use crate::summary::read::{HarnessPatterns, users_words};

/// The formats `compactd replay` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    ClaudeCode,
    Codex,
    Aider,
    OpenAiChat,
}

impl Format {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Aider => "aider",
            Self::OpenAiChat => "openai-chat",
        }
    }
}

/// One user request and everything that followed it until the next.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    pub messages: Vec<Message>,
    /// The context's size as the session's harness recorded it, after the
    /// message at each index, where it did (Claude Code's `usage`, Codex's
    /// `token_count`).
    pub recorded_used: Vec<(usize, u64)>,
    /// When the turn's last message with a time was written, where the
    /// session says (Claude Code's and Codex's records carry one).
    pub ended_at: Option<DateTime<Utc>>,
}

/// A summary the session's own harness wrote when it compacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessSummary {
    /// The turn it was written in (its index in [`Session::turns`])…
    pub before_turn: usize,
    /// …before this message of that turn: a harness compacts mid-run, while
    /// the agent works through a request, as often as between requests.
    pub at_message: usize,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub name: String,
    pub format: Format,
    pub turns: Vec<Turn>,
    pub harness_summaries: Vec<HarnessSummary>,
    /// The agent model's context window, where the session recorded it.
    pub window: Option<u64>,
    /// The agent's model, where the session recorded it: what a compaction
    /// spares each later call is priced at it.
    pub model: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{0}: cannot be read: {1}")]
    Unreadable(String, std::io::Error),
    #[error("{0}: {1}")]
    Malformed(String, String),
}

/// Which format `text` is in, by what its first records look like.
pub(crate) fn detect(text: &str) -> Option<Format> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return Some(Format::OpenAiChat);
    }
    if trimmed.starts_with("# aider chat started") || text.lines().any(|line| line.starts_with("#### ")) {
        return Some(Format::Aider);
    }
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(50) {
        let Ok(record) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let kind = record["type"].as_str().unwrap_or("");
        if matches!(
            kind,
            "session_meta" | "response_item" | "turn_context" | "event_msg" | "compacted"
        ) || record.get("instructions").is_some() && record.get("id").is_some()
        {
            return Some(Format::Codex);
        }
        if record.get("sessionId").is_some() || record.get("message").is_some() || record.get("uuid").is_some() {
            return Some(Format::ClaudeCode);
        }
    }
    None
}

/// The turn each message belongs to, given whether each holds words the
/// user wrote themselves ([`users_words`]): each such message starts one;
/// what comes before the first request (a system prompt, a harness's
/// context) belongs to the first.
pub(crate) fn turn_of_each(users_own: impl IntoIterator<Item = bool>) -> Vec<usize> {
    let mut turn = 0;
    let mut asked = false;
    users_own
        .into_iter()
        .map(|request| {
            if request && asked {
                turn += 1;
            }
            asked |= request;
            turn
        })
        .collect()
}

/// Groups messages into turns (see [`turn_of_each`]).
pub(crate) fn into_turns(parsed: Parsed, harness: &HarnessPatterns) -> (Vec<Turn>, Vec<HarnessSummary>) {
    let users_own = parsed
        .messages
        .iter()
        .map(|message| users_words(message, harness).is_some());
    let turn_of_message = turn_of_each(users_own);
    let first_of_turn = |turn: usize| turn_of_message.iter().position(|t| *t == turn).unwrap_or(0);
    let mut turns: Vec<Turn> = Vec::new();
    let stamps = parsed.stamps.iter().map(Some).chain(std::iter::repeat(None));
    for ((message, turn), stamp) in parsed.messages.into_iter().zip(&turn_of_message).zip(stamps) {
        if turns.len() <= *turn {
            turns.push(Turn::default());
        }
        if let Some(last) = turns.last_mut() {
            last.messages.push(message);
            let at = stamp
                .and_then(Option::as_deref)
                .and_then(|at| DateTime::parse_from_rfc3339(at).ok());
            if let Some(at) = at {
                last.ended_at = Some(at.with_timezone(&Utc));
            }
        }
    }
    for (before, used) in parsed.recorded_used {
        // A record before any message (a system prompt's count) has no place.
        let Some(last) = before.checked_sub(1) else { continue };
        let Some(turn) = turn_of_message.get(last) else {
            continue;
        };
        if let Some(recorded) = turns.get_mut(*turn) {
            recorded.recorded_used.push((last - first_of_turn(*turn), used));
        }
    }
    let summaries = parsed
        .summaries
        .into_iter()
        .map(|(next_message, text)| match turn_of_message.get(next_message) {
            Some(turn) => HarnessSummary {
                before_turn: *turn,
                at_message: next_message - first_of_turn(*turn),
                text,
            },
            None => HarnessSummary {
                before_turn: turns.len(),
                at_message: 0,
                text,
            },
        })
        .collect();
    (turns, summaries)
}

/// Reads a recorded session, in whichever of the four formats it is.
pub fn load(path: &Path, harness: &HarnessPatterns) -> Result<Session, SessionError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|err| SessionError::Unreadable(name.clone(), err))?;
    parse(name, &text, harness)
}

/// A session from its text; `name` says where it came from.
pub fn parse(name: String, text: &str, harness: &HarnessPatterns) -> Result<Session, SessionError> {
    let format = detect(text).ok_or_else(|| {
        SessionError::Malformed(
            name.clone(),
            "not a Claude Code or Codex session (JSONL), an aider chat history, or a JSON array of chat messages"
                .into(),
        )
    })?;
    let parsed = match format {
        Format::ClaudeCode => claude_code::parse(text),
        Format::Codex => codex::parse(text),
        Format::Aider => Ok(aider::parse(text)),
        Format::OpenAiChat => openai_chat::parse(text),
    }
    .map_err(|why| SessionError::Malformed(name.clone(), why))?;
    let (window, model) = (parsed.window, parsed.model.clone());
    let (turns, harness_summaries) = into_turns(parsed, harness);
    Ok(Session {
        name,
        format,
        turns,
        harness_summaries,
        window,
        model,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::Role;

    #[test]
    fn formats_are_known_by_their_first_records() {
        assert_eq!(detect(r#"[{"role":"user","content":"hi"}]"#), Some(Format::OpenAiChat));
        assert_eq!(
            detect("# aider chat started at 2024-05-01\n\n#### hi\n"),
            Some(Format::Aider)
        );
        assert_eq!(
            detect(r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}"#),
            Some(Format::Codex)
        );
        assert_eq!(
            detect(
                "{\"type\":\"summary\",\"summary\":\"t\"}\n{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}"
            ),
            Some(Format::ClaudeCode)
        );
        assert_eq!(detect("just some text"), None);
    }

    #[test]
    fn a_turn_starts_at_each_message_the_user_wrote() {
        let parsed = Parsed {
            messages: vec![
                Message::new(Role::System, "You are an agent."),
                Message::new(Role::User, "First request."),
                Message::new(Role::Assistant, "Done."),
                Message::new(Role::User, "<system-reminder>x</system-reminder>"),
                Message::new(Role::Assistant, "Still going."),
                Message::new(Role::User, "Second request."),
                Message::new(Role::Assistant, "Done too."),
            ],
            summaries: vec![(5, "This session is being continued…".into()), (4, "Mid-run.".into())],
            recorded_used: vec![(0, 900), (3, 1_200), (7, 2_500)],
            ..Parsed::default()
        };
        let (turns, summaries) = into_turns(parsed, &HarnessPatterns::default());
        assert_eq!(turns.iter().map(|t| t.messages.len()).collect::<Vec<_>>(), [5, 2]);
        assert_eq!(turns[0].recorded_used, [(2, 1_200)], "after the first answer");
        assert_eq!(turns[1].recorded_used, [(1, 2_500)], "after the last");
        assert_eq!((summaries[0].before_turn, summaries[0].at_message), (1, 0));
        assert_eq!(
            (summaries[1].before_turn, summaries[1].at_message),
            (0, 4),
            "a compaction mid-run is placed at its message"
        );
    }
}
