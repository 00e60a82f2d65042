//! `compactd replay FILE…` (SPEC §4): replays recorded agent sessions (read
//! by `crate::sessions`) through the service (one started in this process
//! against its own database, or one running at `--url`), and reports what
//! every compaction kept and what the agent is left with at the end. This is how a user judges
//! compactd on their own sessions.

mod act;
mod calls;
mod clock;
mod drive;
mod render;
pub use render::render;
pub(crate) mod report;
pub use report::SessionReport;
mod run;
pub(crate) use run::Replay;
mod state;
pub use run::{REPLAY_TENANT, ReplayError, ReplayOptions, Schedule, replay_files, replay_into};
