//! What was said in a turn.

/// What the user and the agent said in a turn, when the caller sent it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TurnText {
    pub user: Option<String>,
    pub assistant: Option<String>,
}

impl TurnText {
    pub(crate) fn is_empty(&self) -> bool {
        self.user.is_none() && self.assistant.is_none()
    }
}
