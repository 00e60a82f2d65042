//! What the hook tells compactd about one session: the turns it has not
//! stored yet, the context's size, and a compaction the harness made, each
//! sent once (an Idempotency-Key per thing recorded).

use serde_json::{Value, json};

use super::client::Client;
use super::input::{HookError, HookOptions};
use super::transcript::{self, Compacted, Transcript};
use crate::domain::Harness;
use crate::summary::read::HarnessPatterns;

/// One run of the hook: what it tells compactd about one session.
pub(super) struct Hook<'a> {
    pub harness: Harness,
    pub options: &'a HookOptions,
    pub client: &'a Client,
    pub id: &'a str,
    pub transcript: &'a Transcript,
    pub patterns: HarnessPatterns,
}

impl Hook<'_> {
    /// The turns so far, but the last (it may still be running), and the
    /// context's size.
    pub(super) async fn before_compaction(&self) -> Result<(), HookError> {
        let turns = self.transcript.turns(&self.patterns);
        let finished = turns.len().saturating_sub(1);
        self.store_turns(&turns[..finished]).await?;
        // In the transcript's clock, as everything else the hook records,
        // and after the turns it follows: one clock for the timeline.
        if let Some(used) = self.transcript.last_used() {
            self.usage(used, self.transcript.last_stamp(), None).await?;
        }
        Ok(())
    }

    /// The compaction in the ledger, with the turns before it stored first;
    /// the summary as the ledger holds it ("" when it was not recorded).
    pub(super) async fn record(&self, compaction: &Compacted, invented: &[String]) -> Result<String, HookError> {
        let boundary = &compaction.boundary;
        let turns = self.transcript.turns(&self.patterns);
        let before = turns
            .iter()
            .filter(|turn| turn.starts_at < boundary.next_message)
            .count();
        self.store_turns(&turns[..before]).await?;
        let mark = boundary
            .uuid
            .clone()
            .or_else(|| boundary.at.clone())
            .unwrap_or_else(|| boundary.next_message.to_string());
        if let Some(used) = boundary.pre_tokens {
            self.usage(used, boundary.at.as_deref(), Some(&format!("{mark}:usage")))
                .await?;
        }
        let trigger = match boundary.trigger.as_deref() {
            Some("manual") => "manual",
            _ => "harness",
        };
        let mut body = json!({
            "conversation_id": self.id,
            "messages": compaction.messages.iter().map(message_json).collect::<Vec<_>>(),
            "summary": compaction.summary,
            "trigger": trigger,
            "by_host": true,
            "harness": self.harness.as_str(),
        });
        if let Some(tokens) = boundary.pre_tokens {
            body["tokens_before"] = json!(tokens);
        }
        if !invented.is_empty() {
            // The ledger counts what the summary made up (the service allows 200).
            body["invented"] = json!(invented.iter().take(200).collect::<Vec<_>>());
        }
        if let Some(at) = &boundary.at {
            body["at"] = json!(at);
        }
        let once = self.once(&format!("{mark}:compaction"));
        let answer = self.client.post("/summarize", &body, Some(&once)).await?;
        // The context the agent goes on with: what the harness says it is,
        // else the summary as compactd counts it.
        let after = boundary
            .post_tokens
            .or_else(|| answer["compaction"]["tokens_after"].as_u64());
        if let Some(used) = after {
            self.usage(used, boundary.at.as_deref(), Some(&format!("{mark}:usage-after")))
                .await?;
        }
        let recorded = match answer["success"].as_bool() {
            Some(true) => answer["summary"].as_str().unwrap_or_default(),
            _ => "",
        };
        Ok(recorded.to_owned())
    }

    async fn usage(&self, used: u64, at: Option<&str>, once: Option<&str>) -> Result<(), HookError> {
        let mut body = json!({"conversation_id": self.id, "used": used});
        let window = self
            .options
            .window
            .or_else(|| self.transcript.model().and_then(claude_window));
        if let Some(size) = window {
            body["size"] = json!(size);
        }
        // What a compaction spares each call is priced at it (SPEC §6).
        // A name the service would refuse is left out, never the report.
        let nameable = |model: &&str| crate::domain::ModelName::parse("model", (*model).to_owned()).is_ok();
        if let Some(model) = self.transcript.model().filter(nameable) {
            body["model"] = json!(model);
        }
        if let Some(at) = at {
            body["at"] = json!(at);
        }
        let once = once.map(|mark| self.once(mark));
        self.client.report("/usage", &body, once.as_deref()).await?;
        Ok(())
    }

    /// Stores the turns compactd does not have yet: those past its count.
    async fn store_turns(&self, turns: &[transcript::TurnText]) -> Result<(), HookError> {
        let stored = match self.client.conversation(self.id).await? {
            Some(state) => state["turn_count"].as_u64().unwrap_or(0),
            None => 0,
        };
        let from = usize::try_from(stored).unwrap_or(usize::MAX);
        for turn in turns.iter().skip(from) {
            let mut body = json!({"conversation_id": self.id});
            if let Some(user) = &turn.user {
                body["user"] = json!(user);
            } else {
                body["user_messages"] = json!(0);
            }
            if let Some(assistant) = &turn.assistant {
                body["assistant"] = json!(assistant);
            }
            if let Some(at) = &turn.at {
                body["at"] = json!(at);
            }
            self.client.report("/turn-ended", &body, None).await?;
        }
        Ok(())
    }

    /// An Idempotency-Key for one thing this session's hook records.
    fn once(&self, mark: &str) -> String {
        let key = format!("{}:{}:{mark}", self.harness.as_str(), self.id);
        let visible: String = key.chars().filter(char::is_ascii_graphic).collect();
        visible.chars().take(255).collect()
    }
}

/// A message in `/summarize`'s chat shape.
fn message_json(message: &crate::domain::transcript::Message) -> Value {
    let mut out = json!({"role": message.role, "content": message.content});
    if !message.tool_calls.is_empty() {
        out["tool_calls"] = message
            .tool_calls
            .iter()
            .map(|call| json!({"id": call.id, "name": call.name, "arguments": call.arguments}))
            .collect();
    }
    if let Some(id) = &message.tool_call_id {
        out["tool_call_id"] = json!(id);
    }
    out
}

/// The context window of a Claude model as Claude Code names it: 200,000
/// tokens, or a million for the `[1m]` variants.
fn claude_window(model: &str) -> Option<u64> {
    let model = model.to_ascii_lowercase();
    if !model.starts_with("claude") {
        None
    } else if model.contains("[1m]") {
        Some(1_000_000)
    } else {
        Some(200_000)
    }
}
