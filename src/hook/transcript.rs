//! A harness's session file read the way the hook needs it: the messages in
//! the common chat shape, cut into turns (one per request the user wrote
//! themselves), and the places the harness compacted, each with the summary
//! it wrote there.

use crate::domain::transcript::{Message, Role};
use crate::sessions::{Boundary, Parsed, turn_of_each};
use crate::summary::read::{HarnessPatterns, users_words};

/// A tool's output is cut to this many characters before it is sent: the
/// summarizer reads 4 KiB of it at most, and a file read can be megabytes.
const TOOL_OUTPUT_CHARS: usize = 16_000;
/// A user's or the agent's text is cut to this many characters: a pasted
/// log of megabytes would make every `/turn-ended` of the session a 413,
/// and the hook would stop there on every run (issue 23).
const TURN_TEXT_CHARS: usize = 100_000;
/// What one compaction's delta may weigh, as JSON: the oldest messages are
/// left out past it, so `/summarize` (4 MiB unless set otherwise, the
/// harness's summary beside it) is never refused for its size; the stored
/// turns still hold what they said.
const DELTA_BYTES: usize = 3 * 1024 * 1024;

/// One turn as `/turn-ended` stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TurnText {
    pub user: Option<String>,
    pub assistant: Option<String>,
    pub at: Option<String>,
    /// The index of its first message: which side of a boundary it began on.
    pub starts_at: usize,
}

/// A compaction the harness made, and what it wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Compacted {
    pub boundary: Boundary,
    /// The summary it wrote right after (empty when the file has none yet).
    pub summary: String,
    /// The messages since the boundary before it (its summary left out).
    pub messages: Vec<Message>,
}

#[derive(Debug, Default)]
pub(crate) struct Transcript {
    parsed: Parsed,
}

impl Transcript {
    pub(crate) fn new(parsed: Parsed) -> Self {
        Self { parsed }
    }

    pub(crate) fn last_used(&self) -> Option<u64> {
        self.parsed.last_used
    }

    /// When the file's last timed record was written.
    pub(crate) fn last_stamp(&self) -> Option<&str> {
        self.parsed.stamps.iter().rev().find_map(Option::as_deref)
    }

    fn is_summary(&self, at: usize) -> bool {
        self.parsed.summary_messages.contains(&at)
    }

    /// Every turn in the file, in order, across its compactions (a
    /// harness's summary joins the turn it falls in and adds nothing to it).
    pub(crate) fn turns(&self, harness: &HarnessPatterns) -> Vec<TurnText> {
        let messages = &self.parsed.messages;
        // The user's words in each message, split from the harness's once:
        // they cut the turns and are what each turn's user said.
        let words: Vec<Option<String>> = messages.iter().map(|message| users_words(message, harness)).collect();
        let mut turns: Vec<TurnText> = Vec::new();
        for (at, turn) in turn_of_each(words.iter().map(Option::is_some)).into_iter().enumerate() {
            if turns.len() <= turn {
                turns.push(TurnText {
                    user: None,
                    assistant: None,
                    at: self.parsed.stamps.get(at).cloned().flatten(),
                    starts_at: at,
                });
            }
            let (Some(current), message) = (turns.last_mut(), &messages[at]) else {
                continue;
            };
            match message.role {
                Role::User if current.user.is_none() => {
                    current.user = words[at].as_deref().map(|words| clip(words, TURN_TEXT_CHARS));
                }
                Role::Assistant if !message.content.trim().is_empty() => {
                    let reply = current.assistant.get_or_insert_with(String::new);
                    if !reply.is_empty() {
                        reply.push_str("\n\n");
                    }
                    reply.push_str(message.content.trim());
                }
                _ => {}
            }
        }
        turns.retain(|turn| turn.user.is_some() || turn.assistant.is_some());
        for turn in &mut turns {
            if let Some(reply) = &mut turn.assistant {
                *reply = clip(reply, TURN_TEXT_CHARS);
            }
        }
        turns
    }

    /// The messages the transcript holds before its last compaction (harness
    /// text, calls and results, earlier summaries too) as a summarizer saw
    /// them: most of what the harness's summary was written from (its system
    /// prompt and memory files are not in the file).
    pub(crate) fn texts_before_last_compaction(&self) -> Vec<String> {
        let end = self
            .parsed
            .boundaries
            .last()
            .map_or(0, |boundary| boundary.next_message);
        self.parsed.messages[..end.min(self.parsed.messages.len())]
            .iter()
            .flat_map(Message::texts_seen)
            .collect()
    }

    /// The model its last call was made to, where the file says.
    pub(crate) fn model(&self) -> Option<&str> {
        self.parsed.model.as_deref()
    }

    /// The last compaction the file records, if any.
    pub(crate) fn last_compaction(&self) -> Option<Compacted> {
        let boundaries = &self.parsed.boundaries;
        let boundary = boundaries.last()?.clone();
        let since = boundaries.iter().rev().nth(1).map_or(0, |before| before.next_message);
        let summary = self
            .parsed
            .summaries
            .iter()
            .find(|(at, _)| *at >= boundary.next_message)
            .map(|(_, text)| text.clone())
            .unwrap_or_default();
        let mut messages: Vec<Message> = (since..boundary.next_message)
            .filter(|at| !self.is_summary(*at))
            .map(|at| clipped(&self.parsed.messages[at]))
            .collect();
        // As `/summarize` receives them: JSON-escaped, with the fields around.
        let json_len = |text: &str| serde_json::to_string(text).map_or(text.len() * 6, |json| json.len());
        let weight = |message: &Message| {
            64 + json_len(&message.content)
                + message
                    .tool_calls
                    .iter()
                    .map(|call| 64 + json_len(&call.arguments) + json_len(&call.name) + json_len(&call.id))
                    .sum::<usize>()
        };
        let mut total: usize = messages.iter().map(weight).sum();
        let mut first = 0;
        while total > DELTA_BYTES && first < messages.len() {
            total -= weight(&messages[first]);
            first += 1;
        }
        messages.drain(..first);
        Some(Compacted {
            boundary,
            summary,
            messages,
        })
    }
}

fn clipped(message: &Message) -> Message {
    let mut message = message.clone();
    let most = if message.role == Role::Tool {
        TOOL_OUTPUT_CHARS
    } else {
        TURN_TEXT_CHARS
    };
    // A call's arguments stay whole: they are JSON, and name the files changed.
    message.content = clip(&message.content, most);
    message
}

/// `text`, cut to its first `most` characters with a line that says so.
fn clip(text: &str, most: usize) -> String {
    let Some((cut, _)) = text.char_indices().nth(most) else {
        return text.to_owned();
    };
    let total = text.chars().count();
    format!("{}\n[…cut by the hook; {total} characters in all]", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::claude_code;

    fn session(lines: &[&str]) -> Transcript {
        Transcript::new(claude_code::parse(&lines.join("\n")).unwrap())
    }

    const USER_1: &str =
        r#"{"type":"user","timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"Fix src/a.rs"}}"#;
    const ANSWER_1: &str = r#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Fixed."}],"usage":{"input_tokens":10,"cache_read_input_tokens":1000,"output_tokens":5}}}"#;
    const BOUNDARY: &str = r#"{"type":"system","subtype":"compact_boundary","uuid":"b1","timestamp":"2026-11-30T10:05:00Z","compactMetadata":{"trigger":"manual","preTokens":1015}}"#;
    const SUMMARY: &str = r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation. We fixed src/a.rs."}}"#;
    const GOING_ON: &str = r#"{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Carrying on."}]}}"#;
    const USER_2: &str =
        r#"{"type":"user","timestamp":"2026-11-30T10:06:00Z","message":{"role":"user","content":"Now src/b.rs"}}"#;

    #[test]
    fn turns_run_across_a_compaction_and_leave_its_summary_out() {
        let transcript = session(&[USER_1, ANSWER_1, BOUNDARY, SUMMARY, GOING_ON, USER_2]);
        let turns = transcript.turns(&HarnessPatterns::default());
        let shape: Vec<_> = turns
            .iter()
            .map(|t| (t.user.as_deref(), t.assistant.as_deref(), t.at.as_deref()))
            .collect();
        assert_eq!(
            shape,
            [
                (
                    Some("Fix src/a.rs"),
                    Some("Fixed.\n\nCarrying on."),
                    Some("2026-11-30T10:00:00Z")
                ),
                (Some("Now src/b.rs"), None, Some("2026-11-30T10:06:00Z")),
            ]
        );
        assert_eq!(transcript.last_used(), Some(1015));
    }

    #[test]
    fn the_last_compaction_carries_its_summary_and_the_messages_before_it() {
        let second = BOUNDARY.replace("b1", "b2").replace("manual", "auto");
        let summary_2 = SUMMARY.replace("We fixed src/a.rs.", "Then src/b.rs.");
        let transcript = session(&[USER_1, ANSWER_1, BOUNDARY, SUMMARY, USER_2, &second, &summary_2]);
        let last = transcript.last_compaction().unwrap();
        assert_eq!(last.boundary.uuid.as_deref(), Some("b2"));
        assert_eq!(last.boundary.trigger.as_deref(), Some("auto"));
        assert!(last.summary.ends_with("Then src/b.rs."), "{}", last.summary);
        let contents: Vec<_> = last.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["Now src/b.rs"], "only what came after the compaction before");
        assert!(session(&[USER_1, ANSWER_1]).last_compaction().is_none());
    }

    #[test]
    fn an_unmarked_summary_right_after_a_boundary_is_still_the_summary() {
        let unmarked = SUMMARY.replace(r#""isCompactSummary":true,"#, "");
        let transcript = session(&[USER_1, ANSWER_1, BOUNDARY, &unmarked]);
        assert!(
            transcript
                .last_compaction()
                .unwrap()
                .summary
                .contains("We fixed src/a.rs.")
        );
        assert_eq!(transcript.turns(&HarnessPatterns::default()).len(), 1);
        // Elsewhere, text like it is the user's.
        let quoted = unmarked.replace("This session", "Quote: This session");
        assert_eq!(
            session(&[USER_1, ANSWER_1, &quoted])
                .turns(&HarnessPatterns::default())
                .len(),
            2
        );
    }

    #[test]
    fn long_tool_output_is_cut_on_a_character_boundary() {
        let long = Message::new(Role::Tool, "é".repeat(TOOL_OUTPUT_CHARS + 5));
        let cut = clipped(&long);
        assert!(cut.content.starts_with(&"é".repeat(TOOL_OUTPUT_CHARS)));
        assert!(
            cut.content
                .ends_with(&format!("{} characters in all]", TOOL_OUTPUT_CHARS + 5))
        );
        let short = Message::new(Role::Tool, "ok");
        assert_eq!(clipped(&short).content, "ok");
    }
}
