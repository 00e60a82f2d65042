//! The flags that bound the heavy work one caller may ask for at once
//! (issue 37): exports, which hold a database connection while their reader
//! reads, and keep checks, which hold a core.

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct WorkArgs {
    /// Exports streamed at once by this process, each on a database
    /// connection of its own (never the requests' pool); a tenant has one at
    /// a time. More are answered 503 (429 for a tenant's second).
    #[arg(long, env = "COMPACTD_EXPORTS_AT_ONCE", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub exports_at_once: u32,
    /// Seconds an export waits for a reader that takes nothing before it is
    /// cut off (its transaction ended, its connection closed).
    #[arg(long, env = "COMPACTD_EXPORT_STALL_SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub export_stall_secs: u64,
    /// Seconds an export may take in all, however steadily it is read.
    #[arg(long, env = "COMPACTD_EXPORT_DEADLINE_SECS", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub export_deadline_secs: u64,
    /// Keep checks worked at once by this process (each holds a core while
    /// it works; 0: half the cores, at least one); a tenant's checks take
    /// their turn one at a time.
    #[arg(long, env = "COMPACTD_KEEP_CHECKS_AT_ONCE", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=64))]
    pub keep_checks_at_once: u32,
}
