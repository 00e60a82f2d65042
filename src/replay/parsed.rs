//! What every session parser answers.

use crate::policy::transcript::Message;

/// What a parser reads out of a file: messages in order, and harness
/// summaries after the message they follow.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub messages: Vec<Message>,
    /// (index of the next message, text).
    pub summaries: Vec<(usize, String)>,
}
