//! Writes a summary by anchored iterative summarization (SPEC §3, §4): the
//! prior summary is the anchor, the transcript the delta; the upstream writes
//! the new summary, or the extractive summarizer when there is none; either
//! way the keep guard completes it and nothing in it can close a handoff.

use std::sync::Arc;

use super::client::LlmClient;
use super::error::LlmError;
use super::extractive;
use super::wire::CompletionRequest;
use crate::policy::handoff::defuse_handoff_tags;
use crate::policy::must_keep::{KeepItem, KeepKind, complete, extract};
use crate::policy::prompt::{system_prompt, user_message};
use crate::policy::transcript::{Message, clip};

/// Summarization is rewriting, not invention.
pub const TEMPERATURE: f32 = 0.2;
/// The most of a summary stored, whatever the upstream sends.
pub const MAX_SUMMARY_BYTES: usize = 32 * 1024;

/// The upstream and the model that write summaries (a model of their own,
/// separate from any other).
#[derive(Debug, Clone)]
pub struct SummaryModel {
    pub client: Arc<LlmClient>,
    pub model: String,
    pub max_output_tokens: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Llm,
    Extractive,
    /// The caller's harness wrote it and sent it.
    Harness,
}

impl Writer {
    pub const ALL: [Self; 3] = [Self::Llm, Self::Extractive, Self::Harness];

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|writer| writer.as_str() == name)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Llm => "llm",
            Self::Extractive => "extractive",
            Self::Harness => "harness",
        }
    }
}

/// A new summary, ready to become the anchor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub text: String,
    pub writer: Writer,
    pub model: Option<String>,
    pub upstream_input_tokens: Option<u64>,
    pub upstream_output_tokens: Option<u64>,
    /// Must-keep items the guard had to append.
    pub appended: usize,
}

/// How the summary is to be written.
#[derive(Debug, Clone, Copy)]
pub enum Via<'a> {
    Upstream(&'a SummaryModel),
    /// Without a model, for this reason (said in the summary).
    Extractive(&'a str),
}

/// The new summary of `messages` on top of `prior`, carrying every `pinned`
/// text (the critical list) word for word; an upstream failure is the error,
/// and the caller keeps the anchor.
pub async fn write(
    via: Via<'_>,
    prior: Option<&str>,
    messages: &[Message],
    pinned: &[String],
) -> Result<Draft, LlmError> {
    let mut items: Vec<KeepItem> = pinned
        .iter()
        .filter(|text| !text.trim().is_empty())
        .map(|text| KeepItem {
            kind: KeepKind::Critical,
            text: text.clone(),
        })
        .collect();
    items.extend(extract(prior, messages));
    let (text, writer, model, input, output) = match via {
        Via::Upstream(summary_model) => {
            let request = CompletionRequest {
                model: summary_model.model.clone(),
                system: system_prompt(),
                user: user_message(prior, messages),
                max_tokens: summary_model.max_output_tokens,
                temperature: TEMPERATURE,
            };
            let completion = summary_model.client.complete(&request).await?;
            let text = clip(&completion.text, MAX_SUMMARY_BYTES);
            (
                text,
                Writer::Llm,
                Some(completion.model),
                completion.input_tokens,
                completion.output_tokens,
            )
        }
        Via::Extractive(why) => (
            extractive::summarize(messages, &items, why),
            Writer::Extractive,
            None,
            None,
            None,
        ),
    };
    let (guarded, appended) = complete(&text, &items);
    Ok(Draft {
        text: defuse_handoff_tags(&guarded),
        writer,
        model,
        upstream_input_tokens: input,
        upstream_output_tokens: output,
        appended: appended.len(),
    })
}

/// A summary the harness wrote: recorded as sent, but capped and unable to
/// close a handoff.
pub fn from_harness(text: &str) -> Draft {
    Draft {
        text: defuse_handoff_tags(&clip(text.trim(), MAX_SUMMARY_BYTES)),
        writer: Writer::Harness,
        model: None,
        upstream_input_tokens: None,
        upstream_output_tokens: None,
        appended: 0,
    }
}
