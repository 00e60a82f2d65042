//! What folding a delta came to: the narrative and what it took, or why
//! none came back (the upstream failed, or the context cannot hold it).

use crate::llm::LlmError;

/// Why a summary was written without the model though one is configured.
pub(crate) const CHUNK_CANNOT_FIT: &str = "the summary model's context cannot hold even one chunk of the conversation";
pub(crate) const REFUSED_AFTER_CHUNKING: &str = "the summary model refused the context after chunking";
pub(crate) const OUT_OF_TIME: &str =
    "the summary model could not fold the conversation in chunks within the upstream deadline";

/// What the upstream wrote, and what it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Folded {
    pub narrative: String,
    pub model: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Upstream calls made, refused ones included.
    pub calls: u32,
    /// The delta was cut into more than one chunk.
    pub chunked: bool,
}

/// Why no narrative came back.
#[derive(Debug)]
pub(crate) enum Unfolded {
    /// The upstream failed (the anchor stays, as with any failure).
    Failed(LlmError),
    /// The context cannot hold the conversation (or its chunks the
    /// deadline): the reason, for the extractive fallback, and the calls
    /// made before it was found.
    DoesNotFit(&'static str, u32),
    /// The upstream answered with no summary (an echo of the prompt, a
    /// loop, a few words for a long anchor): why, and what the calls took
    /// (filled in as the fold ends).
    Unusable {
        why: &'static str,
        calls: u32,
        input_tokens: Option<u64>,
        output_tokens: Option<u64>,
    },
}

/// How one plan ended short of a narrative.
pub(super) enum Step {
    /// The window was learned narrower: plan again.
    Refused,
    Stop(Unfolded),
}
