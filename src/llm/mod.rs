//! The upstream LLM (SPEC §6): an OpenAI-compatible or Anthropic client with
//! deadlines, retries and a concurrency bound, the model asked there and its
//! context window, and the tokenizer. What is written with it is `summary/`'s.

pub(crate) mod client;
pub mod context;
pub mod dialect;
pub(crate) mod error;
pub mod evidence;
mod listing;
mod model;
pub mod refusal;
pub mod retry;
mod settings;
pub mod tokens;
pub(crate) mod wire;

pub use client::LlmClient;
pub use error::LlmError;
pub(crate) use model::UpstreamModel;
pub use settings::{LlmConfig, Provider, RetryPolicy};
pub use wire::{Completion, CompletionRequest};
