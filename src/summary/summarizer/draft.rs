//! What a summary is written under (the rules every one is held to, the
//! writer asked) and what comes of it: a draft, ready to become the anchor.

use crate::llm::UpstreamModel;
use crate::summary::Writer;
use crate::summary::keep::{KeepFigures, KeepSet};
use crate::summary::read::{HarnessPatterns, Reading};
use crate::summary::write::{Parts, Shape};

/// What every summary is held to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules<'a> {
    /// The conversation's keep set, this compaction's delta taken in.
    pub keep: &'a KeepSet,
    /// The conversation's budget (`summary_max_tokens`).
    pub max_tokens: u64,
    /// The tokens of the anchor and the delta: an extractive summary of a
    /// long transcript is at most a tenth of it.
    pub transcript_tokens: u64,
    pub harness: &'a HarnessPatterns,
    /// The delta read once: where things stand at the cut, and what the
    /// extractive writer takes its lines from.
    pub reading: &'a Reading,
    /// The conversation summarized (its parked line names it).
    pub conversation: &'a str,
}

impl Rules<'_> {
    pub(super) fn parts<'a>(&'a self, narrative: &'a str, shape: Shape) -> Parts<'a> {
        Parts {
            narrative,
            shape,
            state: &self.reading.state,
            beside: "",
            conversation: self.conversation,
            // The extractive writer's lines stay as they are.
            by_model: shape == Shape::Prose,
        }
    }
}

/// A new summary, ready to become the anchor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Draft {
    pub text: String,
    /// What its writer wrote, before the budget and the keep guard: what a
    /// prepared summary keeps to merge a compaction's delta into.
    pub narrative: String,
    pub writer: Writer,
    pub model: Option<String>,
    pub upstream_input_tokens: Option<u64>,
    pub upstream_output_tokens: Option<u64>,
    /// Upstream calls it took (more than one: the delta was chunked, or a
    /// refusal of the context was planned around).
    pub upstream_calls: u32,
    /// Why it was written extractively though a model is configured.
    pub fallback: Option<&'static str>,
    /// What became of the keep set's items.
    pub figures: KeepFigures,
}

impl Draft {
    pub(super) fn new(writer: Writer, narrative: String, (text, figures): (String, KeepFigures)) -> Self {
        Self {
            text,
            narrative,
            writer,
            model: None,
            upstream_input_tokens: None,
            upstream_output_tokens: None,
            upstream_calls: 0,
            fallback: None,
            figures,
        }
    }
}

/// How the summary is to be written.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Via<'a> {
    /// Through the model, all its calls done within this long (a
    /// compaction's: one call's deadline; a preparation's, its own).
    Upstream(&'a UpstreamModel, std::time::Duration),
    /// Without a model, for this reason (said in the summary).
    Extractive(&'a str),
}
