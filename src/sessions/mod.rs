//! Recorded agent sessions read into the common chat shape: Claude Code
//! session JSONL, Codex CLI rollout JSONL, aider chat histories and JSON
//! arrays of OpenAI chat messages, each cut into turns with the places its
//! harness compacted. `compactd replay` and the hook read them alike.

mod aider;
pub(crate) mod claude_code;
pub(crate) mod codex;
mod openai_chat;
pub(crate) mod parsed;
mod session;
pub(crate) use parsed::{Boundary, Parsed};
pub(crate) use session::turn_of_each;
pub use session::{Format, HarnessSummary, Session, SessionError, Turn, load, parse};
