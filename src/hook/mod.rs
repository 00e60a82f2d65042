//! `compactd hook claude-code` (issue 13): a keep guard for the compactions
//! Claude Code makes by itself. Claude Code runs it on its hooks with the
//! hook's JSON on stdin:
//!
//! - `PreCompact`: the session's turns so far are stored (searchable, and
//!   read into the keep set) and its context's size reported;
//! - `PostCompact`, or `SessionStart` with source `compact`: the compaction
//!   is recorded in the ledger with the summary Claude Code wrote (trigger
//!   `manual` or `harness`, harness `claude-code`), the transcript since the
//!   compaction before read into the keep set; at `SessionStart` the items
//!   the summary left out (what the ledger appended to it, within the
//!   summary budget) are answered as additional context, so the agent gets
//!   them back.
//!
//! `compactd hook codex` does the same for Codex CLI's `PreCompact` and
//! `PostCompact` hooks, whose answers cannot carry context: it records.
//!
//! The hook never stands in the agent's way: when compactd cannot be
//! reached it says so on stderr and exits 0, and it never blocks a
//! compaction.

mod client;
mod context;
mod transcript;

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

pub use client::CallError;
use client::Client;
use context::{appended_to, given_back, shown, without_held_request};
use transcript::{Compacted, Transcript};

pub use crate::domain::Harness;
use crate::sessions::{claude_code, codex};
use crate::summary::keep::KeepKind;
use crate::summary::keep::invented::{Given, invented_in};
use crate::summary::read::HarnessPatterns;

/// Where compactd is and how much the hook may give back.
#[derive(Debug, Clone)]
pub struct HookOptions {
    pub url: String,
    pub api_key: Option<String>,
    /// The hook's room, in tokens: the unverified names take a tenth of it.
    pub max_tokens: u64,
    /// The model's context window, reported with the usage when known.
    pub window: Option<u64>,
}

/// The part of a hook's input the hook reads (Claude Code's and Codex's
/// share these names); the rest is ignored.
#[derive(Debug, Deserialize)]
struct HookInput {
    session_id: String,
    transcript_path: Option<PathBuf>,
    hook_event_name: String,
    /// `SessionStart`: `startup`, `resume`, `clear` or `compact`.
    source: Option<String>,
    /// The folder the agent works in.
    cwd: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("the hook's input is not what {0} sends: {1}")]
    Input(&'static str, serde_json::Error),
    #[error("the transcript {0} cannot be read: {1}")]
    Transcript(String, String),
    #[error(transparent)]
    Call(#[from] CallError),
}

/// What the hook does with one input; `Ok(Some(json))` is printed on stdout.
pub async fn run(harness: Harness, options: &HookOptions, stdin: &str) -> Result<Option<String>, HookError> {
    let input: HookInput = serde_json::from_str(stdin).map_err(|err| HookError::Input(harness.as_str(), err))?;
    let compacted = match input.hook_event_name.as_str() {
        "PreCompact" => false,
        "PostCompact" => true,
        "SessionStart" if input.source.as_deref() == Some("compact") => true,
        // Other events and sources: nothing to keep.
        _ => return Ok(None),
    };
    let Some(path) = &input.transcript_path else {
        return Ok(None);
    };
    let transcript = read(harness, path)?;
    let client = Client::new(&options.url, options.api_key.clone())?;
    let hook = Hook {
        harness,
        options,
        client: &client,
        id: &input.session_id,
        transcript: &transcript,
        patterns: HarnessPatterns::default(),
    };
    if !compacted {
        hook.before_compaction().await?;
        return Ok(None);
    }
    let Some(compaction) = transcript.last_compaction() else {
        return Ok(None);
    };
    let invented = made_up(&compaction.summary, &transcript, &input);
    let recorded = hook.record(&compaction, &invented).await?;
    if harness != Harness::ClaudeCode || input.hook_event_name != "SessionStart" {
        return Ok(None);
    }
    // What the ledger appended to the summary is what the agent gets back:
    // one count of what is parked, wherever it is read.
    let missing = without_held_request(appended_to(&recorded, &compaction.summary), &compaction.summary);
    let unverified = shown(invented, options.max_tokens);
    let given = given_back(&input.session_id, &missing, &unverified);
    Ok((!given.is_empty()).then(|| {
        json!({
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": given,
            }
        })
        .to_string()
    }))
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

/// What the harness's `summary` names that the conversation never did
/// (SPEC §4, *Guard*): not in the transcript before the compaction, not the
/// transcript's own path (the harness points the agent at it), and no file
/// that exists on this machine (the harness's system prompt and memory
/// files are not in the transcript, the project is).
fn made_up(summary: &str, transcript: &Transcript, input: &HookInput) -> Vec<String> {
    let mut texts = transcript.texts_before_last_compaction();
    texts.extend(input.transcript_path.iter().map(|path| path.display().to_string()));
    texts.extend(input.cwd.iter().map(|cwd| cwd.display().to_string()));
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let exists = |name: &str| {
        let path = std::path::Path::new(name);
        match &input.cwd {
            Some(cwd) if path.is_relative() => cwd.join(path).exists(),
            _ => path.is_absolute() && path.exists(),
        }
    };
    // The footer names the transcript as the harness's machine spells it:
    // under a moved home or a WSL mount it is not the path the hook was given.
    let transcript_file = input.transcript_path.as_ref().and_then(|path| path.file_name());
    let is_transcript = |name: &str| {
        transcript_file.is_some_and(|file| {
            let file = file.to_string_lossy();
            name.rsplit(['/', '\\']).next() == Some(file.as_ref())
        })
    };
    invented_in(summary, Given { texts: &texts })
        .into_iter()
        .filter(|(kind, name)| !(matches!(kind, KeepKind::Path) && (exists(name) || is_transcript(name))))
        .map(|(_, name)| name)
        .collect()
}

/// The largest transcript the hook reads: past it, it says so and reads
/// nothing (it resumes by counting the file's turns, so it reads a file
/// whole or not at all).
const MAX_TRANSCRIPT_BYTES: u64 = 256 * 1024 * 1024;

/// A transcript's text: a regular file only (a FIFO or a device would hang
/// the hook or fill its memory), of at most [`MAX_TRANSCRIPT_BYTES`], bytes
/// that are not UTF-8 replaced where they stand (a line they break is
/// skipped by the parser, not the whole file).
fn read_text(path: &PathBuf) -> Result<String, String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // Opened without waiting (a FIFO would wait for a writer), then looked at.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(|err| err.to_string())?;
    let metadata = file.metadata().map_err(|err| err.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".into());
    }
    if metadata.len() > MAX_TRANSCRIPT_BYTES {
        return Err(format!(
            "{} bytes, more than the {MAX_TRANSCRIPT_BYTES} the hook reads",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_TRANSCRIPT_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|err| err.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn read(harness: Harness, path: &PathBuf) -> Result<Transcript, HookError> {
    let shown = path.display().to_string();
    let text = read_text(path).map_err(|why| HookError::Transcript(shown.clone(), why))?;
    let parsed = match harness {
        Harness::ClaudeCode => claude_code::parse(&text),
        Harness::Codex => codex::parse(&text),
    }
    .map_err(|why| HookError::Transcript(shown, why))?;
    Ok(Transcript::new(parsed))
}

struct Hook<'a> {
    harness: Harness,
    options: &'a HookOptions,
    client: &'a Client,
    id: &'a str,
    transcript: &'a Transcript,
    patterns: HarnessPatterns,
}

impl Hook<'_> {
    /// The turns so far, but the last (it may still be running), and the
    /// context's size.
    async fn before_compaction(&self) -> Result<(), HookError> {
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
    async fn record(&self, compaction: &Compacted, invented: &[String]) -> Result<String, HookError> {
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
