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
//!
//! Here, what one input makes it do ([`run`]) and what a summary made up;
//! `input` what it is given, `transcript` the session read into turns,
//! `record` what it tells compactd, `context` what it gives the agent back,
//! `client` the calls.

mod client;
mod context;
mod input;
mod record;
mod transcript;

use serde_json::json;

pub use client::CallError;
use client::Client;
use context::{appended_to, given_back, shown, without_held_request};
pub use input::{HookError, HookOptions};
use input::{HookInput, read};
use record::Hook;
use transcript::Transcript;

pub use crate::domain::Harness;
use crate::summary::keep::KeepKind;
use crate::summary::keep::invented::{Given, invented_in};
use crate::summary::read::HarnessPatterns;

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
