//! What every session parser answers.

use crate::domain::transcript::Message;

/// What a parser reads out of a file: messages in order, and harness
/// summaries after the message they follow.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub messages: Vec<Message>,
    /// (index of the next message, text).
    pub summaries: Vec<(usize, String)>,
    /// The messages that are those summaries, where the format carries them
    /// as messages of their own (Claude Code's; Codex's are not messages).
    pub summary_messages: Vec<usize>,
    /// When each message's record was written, where the format says
    /// (Claude Code); shorter than `messages` when it does not.
    pub stamps: Vec<Option<String>>,
    /// Where the harness compacted, in order.
    pub boundaries: Vec<Boundary>,
    /// The context's size at the last model call the file records.
    pub last_used: Option<u64>,
    /// The context's size at each model call the file records, as (how
    /// many messages came before the record, tokens): the harness's own
    /// count, system prompt and tools included.
    pub recorded_used: Vec<(usize, u64)>,
    /// The model the last call the file records was made to.
    pub model: Option<String>,
    /// The model's context window, where the file records it (Codex's
    /// `model_context_window`).
    pub window: Option<u64>,
}

impl Parsed {
    /// The harness recorded the context at `used` tokens after the messages so far.
    pub fn record_used(&mut self, used: u64) {
        self.last_used = Some(used);
        let after = self.messages.len();
        match self.recorded_used.last_mut() {
            // A streamed answer repeats its call's usage on every record.
            Some((at, last)) if *at == after => *last = used,
            _ => self.recorded_used.push((after, used)),
        }
    }
}

/// Where a harness compacted (Claude Code's `compact_boundary` record).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Boundary {
    /// The index of the first message after it.
    pub next_message: usize,
    /// `manual` or `auto`, as the harness says.
    pub trigger: Option<String>,
    /// The context's size before it…
    pub pre_tokens: Option<u64>,
    /// …and after, where the harness says (Claude Code's `postTokens`).
    pub post_tokens: Option<u64>,
    pub at: Option<String>,
    pub uuid: Option<String>,
}
