//! The upstream LLM (SPEC §6): an OpenAI-compatible or Anthropic client with
//! deadlines, retries and a concurrency bound; the summarizer built on it; the
//! extractive summarizer that needs no model; and the tokenizer.

mod chunked;
pub(crate) mod client;
pub mod context;
pub mod dialect;
pub(crate) mod error;
pub(crate) mod extractive;
mod listing;
pub mod retry;
pub mod summarizer;
pub mod tokens;
pub(crate) mod wire;

pub use client::LlmClient;
pub use error::LlmError;
pub(crate) use summarizer::{UpstreamModel, Via, Writer};
pub use wire::{Completion, CompletionRequest};
