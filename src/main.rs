//! The `compactd` binary: parse the command line, set up logging, and hand
//! over to the library.

use std::process::ExitCode;

use clap::Parser;
use compactd::config::{Cli, LogFormat};

/// A faster allocator than glibc's for many small, short-lived allocations
/// across threads (a request's JSON, rows and answer): a few percent of
/// throughput on the hot path (bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    compactd::telemetry::init_logs(cli.log_format == LogFormat::Json);
    match compactd::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err}");
            eprintln!("compactd: {err}");
            ExitCode::FAILURE
        }
    }
}
