//! What a hook is given: the options it runs with, the part of the
//! harness's JSON it reads, the transcript that JSON points at, and what
//! can go wrong with them.

use std::path::PathBuf;

use serde::Deserialize;

use super::client::CallError;
use super::transcript::Transcript;
use crate::domain::Harness;
use crate::sessions::{claude_code, codex};

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
pub(super) struct HookInput {
    pub session_id: String,
    pub transcript_path: Option<PathBuf>,
    pub hook_event_name: String,
    /// `SessionStart`: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// The folder the agent works in.
    pub cwd: Option<PathBuf>,
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

/// The transcript at `path`, parsed as `harness` writes it.
pub(super) fn read(harness: Harness, path: &PathBuf) -> Result<Transcript, HookError> {
    let shown = path.display().to_string();
    let text = read_text(path).map_err(|why| HookError::Transcript(shown.clone(), why))?;
    let parsed = match harness {
        Harness::ClaudeCode => claude_code::parse(&text),
        Harness::Codex => codex::parse(&text),
    }
    .map_err(|why| HookError::Transcript(shown, why))?;
    Ok(Transcript::new(parsed))
}
