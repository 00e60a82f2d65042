//! The streaming standby as last measured (`store::standby`), for `/readyz`
//! and `/metrics`.

use std::time::Duration;

/// The standby as last measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StandbyState {
    /// Not measured yet: reads go to the primary.
    Starting,
    /// Within the lag allowed: the fleet's reads go to it.
    Following,
    /// Further behind than allowed: reads go to the primary until it catches up.
    Lagging,
    /// It does not answer (or is no longer a standby): reads go to the primary.
    Lost,
}

impl StandbyState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Following => "following",
            Self::Lagging => "lagging",
            Self::Lost => "lost",
        }
    }
}

/// What `/readyz` and `/metrics` say of the standby.
#[derive(Debug, Clone)]
pub(crate) struct StandbyReport {
    pub state: StandbyState,
    /// The last lag measured, when one was.
    pub lag: Option<Duration>,
    /// Why it is lost, when it is.
    pub trouble: Option<String>,
}
