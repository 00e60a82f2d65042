//! `compactd replay FILE…` (SPEC §4): replays recorded agent sessions (read
//! by `crate::sessions`) through the service (one started in this process
//! against its own database, or one running at `--url`), and reports what
//! every compaction kept and what the agent is left with at the end. This is how a user judges
//! compactd on their own sessions.

mod clock;
mod drive;
pub(crate) mod report;
pub use report::{SessionReport, render};
mod run;
pub(crate) use run::Replay;
pub use run::{REPLAY_TENANT, ReplayError, ReplayOptions, Schedule, replay_files, replay_into};
